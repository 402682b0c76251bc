// The CUDA spread_simulator (see cuda_spread_simulator.hpp): worlds go in batches of up to
// max_groups groups of 64; each round of a batch is a level-synchronous fused traversal
// (forward_kernels.cuh), multi-round batches fold every round into an `ever` mask, and the
// spreads are the per-world popcounts over the vertices.
#include "cuda/cuda_spread_simulator.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cuda/device_graph.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/forward_kernels.cuh"
#include "wildfire/error.hpp"

namespace wildfire::cuda {
namespace {

/// Groups in flight at most; more add memset cost without more parallelism.
constexpr std::uint64_t forward_group_cap = 64;

unsigned blocks_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::forward_block_threads - 1) / kernels::forward_block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 20));
}

int select_gpu(int gpu_id) {
  int count = 0;
  WF_CUDA_CHECK(cudaGetDeviceCount(&count));
  WF_EXPECTS(gpu_id >= 0 && gpu_id < count, "--gpu", "no CUDA device with id " + std::to_string(gpu_id));
  WF_CUDA_CHECK(cudaSetDevice(gpu_id));
  return gpu_id;
}

class forward_stream {
 public:
  forward_stream() { WF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~forward_stream() { (void)cudaStreamDestroy(stream_); }
  forward_stream(const forward_stream&) = delete;
  forward_stream& operator=(const forward_stream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// Pinned host counters read once per traversal level.
class pinned_counters {
 public:
  pinned_counters() { WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), 4 * sizeof(unsigned long long))); }
  ~pinned_counters() { (void)cudaFreeHost(data_); }
  pinned_counters(const pinned_counters&) = delete;
  pinned_counters& operator=(const pinned_counters&) = delete;
  unsigned long long* get() const noexcept { return data_; }

 private:
  unsigned long long* data_ = nullptr;
};

class cuda_spread_simulator final : public spread_simulator {
 public:
  cuda_spread_simulator(const backend_config& config, const csr_graph& graph, const sampling_params& params)
      : device_(select_gpu(config.gpu_id)),
        host_graph_(graph),
        params_(params),
        budget_(config.memory_budget_bytes, stream_.get()),
        graph_(graph, budget_, stream_.get(), params.model == diffusion_model::ic) {
    WF_EXPECTS(params.rounds >= 1, "--rounds", "rounds must be at least 1");
    WF_EXPECTS(std::uint64_t{graph.num_vertices} * params.rounds < (std::uint64_t{1} << 32), "--rounds",
               "rounds * n must stay below 2^32");
    WF_EXPECTS(config.traversal == traversal_kind::automatic || config.traversal == traversal_kind::fused, "--sampler",
               "the GPU simulator is fused (64 worlds per colour word); use --sampler auto or fused");
    const std::uint64_t n = std::max<std::uint32_t>(graph.num_vertices, 1);
    if (params.model == diffusion_model::lt) {
      // Cumulative in-weight before each in-edge, as the CPU simulator keeps it.
      std::vector<std::uint64_t> before(graph.num_edges);
      for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
        std::uint64_t cumulative = 0;
        for (std::uint64_t j = graph.in_offsets[v]; j < graph.in_offsets[v + 1]; ++j) {
          before[j] = cumulative;
          cumulative += threshold_weight(graph.in_thresholds[j]);
        }
      }
      lt_before_ = device_buffer<std::uint64_t>(budget_, before.size(), "LT cumulative in-weights");
      if (!before.empty()) {
        WF_CUDA_CHECK(cudaMemcpyAsync(lt_before_.data(), before.data(), before.size() * sizeof(std::uint64_t),
                                      cudaMemcpyHostToDevice, stream_.get()));
        WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));  // `before` is pageable and about to go
      }
    }
    // Per group: visited, current, next (and ever for several rounds) masks, two slot queues.
    const std::uint64_t masks = params.rounds > 1 ? 4 : 3;
    const std::uint64_t per_group = n * (masks * sizeof(unsigned long long) + 2 * sizeof(std::uint32_t)) +
                                    kernels::worlds_per_group * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
    std::uint64_t groups = budget_.available_bytes() / 2 / per_group;
    groups = std::min<std::uint64_t>(groups, ((1ULL << 32) - 2) / n);  // slot ids are 32-bit
    groups = std::min<std::uint64_t>(groups, forward_group_cap);
    max_groups_ = std::max<std::uint64_t>(groups, 1);  // a shortfall is reported by the allocations below
    const std::uint64_t slots = n * max_groups_;
    visited_ = device_buffer<unsigned long long>(budget_, slots, "forward visited colour masks");
    current_ = device_buffer<unsigned long long>(budget_, slots, "forward frontier colour masks");
    next_ = device_buffer<unsigned long long>(budget_, slots, "forward next-frontier colour masks");
    if (params.rounds > 1) ever_ = device_buffer<unsigned long long>(budget_, slots, "forward multi-round masks");
    queue_ = device_buffer<std::uint32_t>(budget_, slots, "forward frontier queue");
    next_queue_ = device_buffer<std::uint32_t>(budget_, slots, "forward next-frontier queue");
    keys_ = device_buffer<std::uint64_t>(budget_, max_groups_ * kernels::worlds_per_group, "forward world keys");
    spreads_ = device_buffer<std::uint32_t>(budget_, max_groups_ * kernels::worlds_per_group, "forward spreads");
    counters_ = device_buffer<unsigned long long>(budget_, 2, "forward counters");
  }

  std::vector<std::uint32_t> simulate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                      std::uint64_t count) override {
    const std::uint32_t n = host_graph_.num_vertices;
    const std::vector<std::vector<std::uint32_t>> by_round = seeds_by_round(seeds, n, params_.rounds);
    std::vector<std::uint32_t> spreads(count, 0);
    if (count == 0 || n == 0) return spreads;
    // Seeds of every round, back to back on the device.
    std::vector<std::uint32_t> flat;
    std::vector<std::uint64_t> round_start(params_.rounds + 1, 0);
    for (std::uint32_t r = 0; r < params_.rounds; ++r) {
      flat.insert(flat.end(), by_round[r].begin(), by_round[r].end());
      round_start[r + 1] = flat.size();
    }
    device_buffer<std::uint32_t> device_seeds(budget_, flat.size(), "forward seeds");
    if (!flat.empty()) {
      WF_CUDA_CHECK(cudaMemcpyAsync(device_seeds.data(), flat.data(), flat.size() * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream_.get()));
    }
    const std::uint64_t per_batch = max_groups_ * kernels::worlds_per_group;
    for (std::uint64_t done = 0; done < count;) {
      const auto batch = static_cast<std::uint32_t>(std::min(per_batch, count - done));
      run_batch(first_world + done, batch, device_seeds.data(), round_start, spreads.data() + done);
      done += batch;
    }
    return spreads;
  }

  spread_estimate estimate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                           std::uint64_t count) override {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t before = edges_examined_;
    const std::vector<std::uint32_t> spreads = simulate(seeds, first_world, count);
    spread_estimate result = summarize_spreads(spreads);
    result.edges_examined = edges_examined_ - before;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::string traversal() const override { return "fused"; }

 private:
  void run_batch(std::uint64_t first_world, std::uint32_t worlds, const std::uint32_t* seeds,
                 const std::vector<std::uint64_t>& round_start, std::uint32_t* out) {
    cudaStream_t stream = stream_.get();
    const std::uint32_t groups = (worlds + kernels::worlds_per_group - 1) / kernels::worlds_per_group;
    const std::uint64_t n = host_graph_.num_vertices;
    const std::uint64_t slots = n * groups;
    kernels::forward_args a{};
    a.num_groups = groups;
    a.keys = keys_.data();
    a.lt_before = lt_before_.data();
    a.visited = visited_.data();
    a.current = current_.data();
    a.next = next_.data();
    a.queue = queue_.data();
    a.next_queue = next_queue_.data();
    a.queue_capacity = slots;
    auto* counters = reinterpret_cast<unsigned*>(counters_.data());
    a.next_light = counters;
    a.next_heavy = counters + 1;
    a.edges_examined = counters_.data() + 1;
    a.blocks = graph_.blocks();
    WF_CUDA_CHECK(cudaMemsetAsync(visited_.data(), 0, slots * sizeof(unsigned long long), stream));
    WF_CUDA_CHECK(cudaMemsetAsync(current_.data(), 0, slots * sizeof(unsigned long long), stream));
    WF_CUDA_CHECK(cudaMemsetAsync(next_.data(), 0, slots * sizeof(unsigned long long), stream));
    if (!ever_.empty()) WF_CUDA_CHECK(cudaMemsetAsync(ever_.data(), 0, slots * sizeof(unsigned long long), stream));
    WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream));
    WF_CUDA_CHECK(cudaMemsetAsync(spreads_.data(), 0, spreads_.bytes(), stream));
    const graph_view g = graph_.view();
    unsigned long long* host = counters_host_.get();
    for (std::uint32_t round = 0; round < params_.rounds; ++round) {
      kernels::forward_keys<<<blocks_for(worlds), kernels::forward_block_threads, 0, stream>>>(params_.seed, first_world,
                                                                                               round, worlds, keys_.data());
      WF_CUDA_CHECK(cudaGetLastError());
      const std::uint64_t num_seeds = round_start[round + 1] - round_start[round];
      if (num_seeds > 0) {
        kernels::forward_seeds<<<blocks_for(num_seeds * groups), kernels::forward_block_threads, 0, stream>>>(
            g, a, seeds + round_start[round], static_cast<std::uint32_t>(num_seeds), worlds);
        WF_CUDA_CHECK(cudaGetLastError());
      }
      for (;;) {
        WF_CUDA_CHECK(cudaMemcpyAsync(host, counters_.data(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
        WF_CUDA_CHECK(cudaStreamSynchronize(stream));
        const auto light = static_cast<unsigned>(host[0] & 0xffffffffULL);
        const auto heavy = static_cast<unsigned>(host[0] >> 32);
        if (light == 0 && heavy == 0) break;
        std::swap(a.current, a.next);
        std::swap(a.queue, a.next_queue);
        WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, sizeof(unsigned long long), stream));
        if (light > 0) {
          if (params_.model == diffusion_model::ic) {
            kernels::forward_light<true><<<blocks_for(light), kernels::forward_block_threads, 0, stream>>>(g, a, light);
          } else {
            kernels::forward_light<false><<<blocks_for(light), kernels::forward_block_threads, 0, stream>>>(g, a, light);
          }
          WF_CUDA_CHECK(cudaGetLastError());
        }
        if (heavy > 0) {
          const unsigned blocks = std::min(heavy, 65535U);
          if (params_.model == diffusion_model::ic) {
            kernels::forward_heavy<true><<<blocks, kernels::forward_block_threads, 0, stream>>>(g, a, heavy);
          } else {
            kernels::forward_heavy<false><<<blocks, kernels::forward_block_threads, 0, stream>>>(g, a, heavy);
          }
          WF_CUDA_CHECK(cudaGetLastError());
        }
      }
      if (!ever_.empty()) {
        kernels::forward_fold_round<<<blocks_for(slots), kernels::forward_block_threads, 0, stream>>>(
            a.visited, ever_.data(), slots);
        WF_CUDA_CHECK(cudaGetLastError());
      }
    }
    const dim3 grid(static_cast<unsigned>(std::clamp<std::uint64_t>((n + 1023) / 1024, 1, 1024)), groups);
    kernels::forward_count<<<grid, kernels::forward_block_threads, 0, stream>>>(
        ever_.empty() ? a.visited : ever_.data(), static_cast<std::uint32_t>(n), spreads_.data());
    WF_CUDA_CHECK(cudaGetLastError());
    WF_CUDA_CHECK(cudaMemcpyAsync(out, spreads_.data(), worlds * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    WF_CUDA_CHECK(cudaMemcpyAsync(host + 1, counters_.data() + 1, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                  stream));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream));
    edges_examined_ += host[1];
  }

  int device_;
  const csr_graph& host_graph_;
  sampling_params params_;
  forward_stream stream_;
  pinned_counters counters_host_;
  memory_budget budget_;
  device_graph graph_;
  std::uint64_t max_groups_ = 1;
  device_buffer<std::uint64_t> lt_before_;
  device_buffer<unsigned long long> visited_;
  device_buffer<unsigned long long> current_;
  device_buffer<unsigned long long> next_;
  device_buffer<unsigned long long> ever_;
  device_buffer<std::uint32_t> queue_;
  device_buffer<std::uint32_t> next_queue_;
  device_buffer<std::uint64_t> keys_;
  device_buffer<std::uint32_t> spreads_;
  device_buffer<unsigned long long> counters_;  // [0]: light | heavy << 32, [1]: edges examined
  std::uint64_t edges_examined_ = 0;
};

}  // namespace

std::unique_ptr<spread_simulator> make_cuda_spread_simulator(const backend_config& config, const csr_graph& graph,
                                                             const sampling_params& params) {
  return std::make_unique<cuda_spread_simulator>(config, graph, params);
}

}  // namespace wildfire::cuda
