// The CUDA rr_collection: graph uploaded once, sets sampled by the warp or the fused traversal
// into the device store, greedy and coverage on the device (see cuda_rr_collection.hpp).
// Automatic traversal choice: LT walks have frontiers of at most the roots, so the warp path;
// under IC a pilot of warp-sampled sets measures the mean set size, and sets of at least
// fused_min_mean_size members (whose frontiers overlap enough to share edge reads) go fused.
#include "cuda/cuda_rr_collection.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda/device_graph.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/fused_sampler.hpp"
#include "cuda/max_coverage.hpp"
#include "cuda/rr_batch.hpp"
#include "cuda/warp_sampler.hpp"

namespace wildfire::cuda {
namespace {

/// Samples in the automatic choice's pilot.
constexpr std::uint64_t pilot_samples = 64;
/// Mean pilot set size from which the fused traversal is used.
constexpr double fused_min_mean_size = 2048;
/// Sets staged per warp-sampler batch.
constexpr std::uint64_t warp_batch_samples = 1ULL << 20;

class stream_owner {
 public:
  stream_owner() { WF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~stream_owner() { (void)cudaStreamDestroy(stream_); }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// n * T, the universe of (vertex, round) pairs, checked to fit 32-bit member ids.
std::uint32_t checked_universe(const csr_graph& graph, const sampling_params& params) {
  WF_EXPECTS(params.rounds >= 1, "--rounds", "rounds must be at least 1");
  const std::uint64_t universe = std::uint64_t{graph.num_vertices} * params.rounds;
  WF_EXPECTS(universe < (std::uint64_t{1} << 32), "--rounds", "rounds * n must stay below 2^32");
  return static_cast<std::uint32_t>(universe);
}

int select_device(int gpu_id) {
  int count = 0;
  WF_CUDA_CHECK(cudaGetDeviceCount(&count));
  WF_EXPECTS(gpu_id >= 0 && gpu_id < count, "--gpu", "no CUDA device with id " + std::to_string(gpu_id));
  WF_CUDA_CHECK(cudaSetDevice(gpu_id));
  return gpu_id;
}

class cuda_rr_collection final : public rr_collection {
 public:
  cuda_rr_collection(const backend_config& config, const csr_graph& graph, const sampling_params& params)
      : device_(select_device(config.gpu_id)),
        params_(params),
        requested_(config.traversal),
        colours_(config.colours),
        budget_(config.memory_budget_bytes),
        graph_(graph, budget_, stream_.get()),
        store_(budget_),
        selector_(checked_universe(graph, params), budget_, stream_.get()) {
    WF_EXPECTS(params.mean_roots >= 1.0, "mean_roots", "the mean number of roots must be at least 1");
    WF_EXPECTS(requested_ != traversal_kind::unfused, "--sampler",
               "the GPU traversals are warp and fused (unfused is the CPU's)");
    WF_EXPECTS(params.rounds == 1 || requested_ != traversal_kind::fused, "--sampler",
               "the fused GPU traversal samples single-round sets; multi-round families use --sampler warp or auto");
    if (requested_ == traversal_kind::fused) use_fused_ = true;
    if (requested_ == traversal_kind::warp) use_fused_ = false;
    // LT walks have frontiers of at most the roots; multi-round sets take the warp path.
    if (requested_ == traversal_kind::automatic && (params.model == diffusion_model::lt || params.rounds > 1)) {
      use_fused_ = false;
    }
  }

  void generate(std::uint64_t first_id, std::uint64_t count) override {
    const auto start = std::chrono::steady_clock::now();
    if (!use_fused_.has_value() && count > 0) {
      // Pilot: the first sets of the request, sampled by the warp path (kept: they are canonical).
      const std::uint64_t pilot = std::min(count, pilot_samples);
      const std::uint64_t before = store_.num_members();
      sample_warp(first_id, pilot);
      const double mean = static_cast<double>(store_.num_members() - before) / static_cast<double>(pilot);
      use_fused_ = mean >= fused_min_mean_size;
      first_id += pilot;
      count -= pilot;
    }
    if (count > 0) {
      if (*use_fused_) {
        if (!fused_) fused_ = std::make_unique<fused_sampler>(graph_.view(), params_, colours_, budget_, stream_.get());
        const std::uint64_t before = store_.num_members();
        fused_->sample(first_id, count, store_);
        members_generated_ += store_.num_members() - before;
        sets_generated_ += count;
      } else {
        sample_warp(first_id, count);
      }
    }
    ++version_;
    sampling_seconds_ += seconds_since(start);
  }

  std::uint64_t size() const override { return store_.num_sets(); }
  std::uint64_t num_members() const override { return store_.num_members(); }

  void clear() override {
    selector_.drop_index();
    store_.clear();
    ++version_;
  }

  coverage_selection select(std::uint32_t k) override {
    const auto start = std::chrono::steady_clock::now();
    coverage_selection result = selector_.select(store_, version_, k);
    selection_seconds_ += seconds_since(start);
    return result;
  }

  coverage_selection select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                      std::uint32_t rounds) override {
    WF_EXPECTS(num_vertices == graph_.num_vertices(), "num_vertices", "does not match the collection's graph");
    WF_EXPECTS(rounds == params_.rounds, "--rounds",
               "the collection holds " + std::to_string(params_.rounds) + "-round sets, not " + std::to_string(rounds));
    const auto start = std::chrono::steady_clock::now();
    coverage_selection result = selector_.select(store_, version_, k_per_round, rounds);
    selection_seconds_ += seconds_since(start);
    return result;
  }

  std::uint64_t coverage(std::span<const std::uint32_t> seeds) override { return selector_.coverage(store_, seeds); }

  rr_sets copy_sets(std::uint64_t first, std::uint64_t count) const override {
    WF_EXPECTS(first + count <= store_.num_sets(), "count", "copy_sets asks for sets beyond those held");
    rr_sets out;
    out.offsets.resize(count + 1);
    WF_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), store_.offsets() + first, (count + 1) * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToHost, stream_.get()));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    const std::uint64_t base = out.offsets.front();
    out.members.resize(out.offsets.back() - base);
    if (!out.members.empty()) {
      WF_CUDA_CHECK(cudaMemcpyAsync(out.members.data(), store_.members() + base, out.members.size() * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream_.get()));
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    }
    for (auto& o : out.offsets) o -= base;
    return out;
  }

  collection_stats stats() const override {
    collection_stats s;
    s.sets_generated = sets_generated();
    s.members_generated = members_generated_;
    s.edges_examined = (warp_ ? warp_->edges_examined() : 0) + (fused_ ? fused_->edges_examined() : 0);
    s.sampling_seconds = sampling_seconds_;
    s.selection_seconds = selection_seconds_;
    s.peak_bytes = budget_.peak_bytes();
    s.representation = "flat";
    if (warp_ && fused_) {
      s.traversal = "warp+fused";
    } else if (fused_) {
      s.traversal = "fused";
    } else {
      s.traversal = "warp";
    }
    return s;
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::uint64_t sets_generated() const noexcept { return sets_generated_; }

  void sample_warp(std::uint64_t first_id, std::uint64_t count) {
    if (!warp_) warp_ = std::make_unique<warp_sampler>(graph_.view(), params_, budget_, stream_.get());
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t batch = std::min(warp_batch_samples, count - done);
      const double expected = sets_generated_ == 0 ? 8.0 : static_cast<double>(members_generated_) / sets_generated_;
      const std::uint64_t before = store_.num_members();
      warp_->sample(first_id + done, batch, expected, staging_);
      store_.append_staged(staging_, stream_.get());
      members_generated_ += store_.num_members() - before;
      sets_generated_ += batch;
      done += batch;
    }
  }

  int device_;
  sampling_params params_;
  traversal_kind requested_;
  std::uint32_t colours_;
  stream_owner stream_;
  memory_budget budget_;
  device_graph graph_;
  rr_store store_;
  device_max_coverage selector_;
  rr_staging staging_;
  std::unique_ptr<warp_sampler> warp_;
  std::unique_ptr<fused_sampler> fused_;
  std::optional<bool> use_fused_;
  std::uint64_t version_ = 0;
  std::uint64_t sets_generated_ = 0;
  std::uint64_t members_generated_ = 0;
  double sampling_seconds_ = 0;
  double selection_seconds_ = 0;
};

}  // namespace

std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params) {
  return std::make_unique<cuda_rr_collection>(config, graph, params);
}

}  // namespace wildfire::cuda
