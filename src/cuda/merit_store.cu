// The CUDA store of MERIT (paper section 3): owns the device copies of the graph, the residual
// pool, the coverage counts and the segmented circular mRR storage, and launches the kernels of
// merit_store_kernels.cuh. Every launch is checked; Select reads back one small array per seed.
#include "cuda/merit_store.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "adaptive/selection_order.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/merit_store_kernels.cuh"
#include "cuda/resident_grid.hpp"
#include "wildfire/error.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::adaptive::cuda {
namespace {

using detail::argmax_entry;
using detail::merit_view;

/// Owning device array (cuco style: the host object owns, kernels get raw pointers in a view).
template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::uint64_t count) { resize(count); }
  ~device_array() { release(); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  device_array(device_array&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  device_array& operator=(device_array&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      size_ = other.size_;
      other.data_ = nullptr;
      other.size_ = 0;
    }
    return *this;
  }
  /// Reallocates (contents lost) and zero-fills. Blocks.
  void resize(std::uint64_t count) {
    release();
    if (count == 0) return;
    WF_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
    size_ = count;
    WF_CUDA_CHECK(cudaMemset(data_, 0, count * sizeof(T)));
  }
  void upload(const T* host, std::uint64_t count) {
    WF_EXPECTS(count <= size_, "device_array", "upload larger than the array");
    if (count > 0) WF_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download(std::uint64_t count) const {
    std::vector<T> out(count);
    if (count > 0) WF_CUDA_CHECK(cudaMemcpy(out.data(), data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  T* data() const noexcept { return data_; }
  std::uint64_t size() const noexcept { return size_; }
  std::uint64_t bytes() const noexcept { return size_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::uint64_t size_ = 0;
};

constexpr int argmax_blocks = 256;
constexpr int argmax_threads = 256;
using detail::segment_threads;
constexpr std::uint32_t segments_per_block = segment_threads / 32;

/// Warps of the segment kernels the GPU holds resident at once (the least over Generate and
/// Update, the two long-running ones).
std::uint32_t resident_warps() {
  using wildfire::cuda::multiprocessor_count;
  using wildfire::cuda::resident_blocks_per_sm;
  const unsigned per_sm = std::min(resident_blocks_per_sm(detail::generate_kernel, segment_threads),
                                   resident_blocks_per_sm(detail::update_kernel, segment_threads));
  return multiprocessor_count() * per_sm * segments_per_block;
}

class gpu_mrr_store final : public mrr_store {
 public:
  gpu_mrr_store(const csr_graph& graph, diffusion_model model, std::span<const double> costs, std::uint64_t seed,
                int gpu_id, std::uint64_t budget_bytes, std::uint32_t num_segments, const ic_block_plan* shared_plan)
      : graph_(&graph), model_(model), host_costs_(costs.begin(), costs.end()), seed_(seed) {
    WF_EXPECTS(costs.size() == graph.num_vertices, "--cost", "need one cost per vertex");
    WF_EXPECTS(graph.num_vertices <= max_vertices, "-i", "MERIT's mRR-sets hold at most 2^31 - 1 vertices");
    WF_CUDA_CHECK(cudaSetDevice(gpu_id));
    const std::uint64_t free_bytes = ::wildfire::cuda::device_free_bytes();
    budget_bytes_ = budget_bytes > 0 ? budget_bytes : free_bytes;
    const std::uint32_t n = graph.num_vertices;
    words_ = (static_cast<std::uint64_t>(n) + 31) / 32;
    // One warp per segment, as many as the GPU keeps resident ("the maximum possible N_b", paper
    // section 5.1: the probe is latency-bound, so occupancy is what makes it fast), fewer if the
    // per-segment marks would not fit in an eighth of the budget (digest 4.2 item 13: bitmaps,
    // cleared per set). `num_segments` > 0 fixes the count (tests); sets are the same for any.
    num_segments_ = num_segments > 0 ? num_segments : resident_warps();
    const std::uint64_t marks_per_segment = 2 * words_ * sizeof(std::uint32_t);
    while (num_segments_ > 1 && num_segments_ * marks_per_segment > budget_bytes_ / 8) num_segments_ /= 2;

    in_offsets_.resize(n + 1ULL);
    in_offsets_.upload(graph.in_offsets.data(), n + 1ULL);
    in_sources_.resize(std::max<std::uint64_t>(graph.num_edges, 1));
    in_sources_.upload(graph.in_sources.data(), graph.num_edges);
    in_thresholds_.resize(std::max<std::uint64_t>(graph.num_edges, 1));
    in_thresholds_.upload(graph.in_thresholds.data(), graph.num_edges);
    if (model == diffusion_model::ic) {
      // Liveness of the residual graph's edges is that of the full graph's world (removed
      // sources are skipped by the probe), so the plan is the full graph's, built once.
      const ic_block_plan own = shared_plan == nullptr ? make_ic_block_plan(graph.view()) : ic_block_plan{};
      const ic_block_plan& plan = shared_plan != nullptr ? *shared_plan : own;
      vertex_class_.resize(std::max<std::uint64_t>(plan.vertex_class.size(), 1));
      vertex_class_.upload(plan.vertex_class.data(), plan.vertex_class.size());
      block_cdf_.resize(std::max<std::uint64_t>(plan.cdf.size(), 1));
      block_cdf_.upload(plan.cdf.data(), plan.cdf.size());
      subsets_.resize(1);
      subsets_.upload(&small_block_subset_table, 1);
    }
    removed_.resize(n);
    remaining_.resize(n);
    costs_.resize(n);
    costs_.upload(host_costs_.data(), n);
    cnt_.resize(n);
    scratch_cnt_.resize(n);
    marks_.resize(n);
    taken_.resize(n);
    visited_.resize(num_segments_ * words_);
    is_root_.resize(num_segments_ * words_);
    num_sets_.resize(num_segments_);
    seg_end_.resize(num_segments_);
    resume_.resize(num_segments_);
    overflow_.resize(1);
    counters_.resize(3);
    argmax_out_.resize(argmax_blocks);
    cap_ = std::clamp<std::uint64_t>(16ULL * n / num_segments_ + 1024, 4096, 1ULL << 20);
    mrr_.resize(num_segments_ * cap_);
    grow_slots(64);
    track_peak();
  }

  void begin_round(const residual_graph& residual, double mean_roots, std::uint32_t round) override {
    WF_EXPECTS(&residual.graph() == graph_, "residual", "residual graph of another graph");
    removed_.upload(residual.removed().data(), residual.removed().size());
    remaining_.upload(residual.remaining().data(), residual.remaining().size());
    residual_ = &residual;
    num_remaining_ = residual.num_remaining();
    mean_roots_ = mean_roots;
    round_ = round;
  }

  void update() override {
    if (size_ == 0) return;
    WF_CUDA_CHECK(cudaMemset(resume_.data(), 0, resume_.bytes()));
    for (;;) {
      WF_CUDA_CHECK(cudaMemset(overflow_.data(), 0, sizeof(int)));
      detail::update_kernel<<<segment_blocks(), segment_threads>>>(view());
      WF_CUDA_CHECK(cudaGetLastError());
      if (!overflowed()) break;
      regrow();  // resume_ says which sets are still pending in each segment
    }
    read_counters();
  }

  void generate(std::uint64_t count) override {
    if (count == 0) return;
    const std::uint64_t target = size_ + count;
    const std::uint64_t per_block = target / num_segments_ + 1;
    if (per_block > slots_) grow_slots(std::max<std::uint64_t>(per_block, 2ULL * slots_));
    for (;;) {
      WF_CUDA_CHECK(cudaMemset(overflow_.data(), 0, sizeof(int)));
      detail::generate_kernel<<<segment_blocks(), segment_threads>>>(view(), target);
      WF_CUDA_CHECK(cudaGetLastError());
      if (!overflowed()) break;
      WF_CUDA_CHECK(cudaMemset(resume_.data(), 0, resume_.bytes()));
      regrow();
    }
    size_ = target;
    stats_.sets_generated += count;
    read_counters();
  }

  std::uint64_t size() const override { return size_; }
  std::uint64_t num_members() const override {
    const auto lens = len_.download(len_.size());
    const auto counts = num_sets_.download(num_segments_);
    std::uint64_t total = 0;
    for (std::uint32_t b = 0; b < num_segments_; ++b) {
      for (std::uint32_t j = 0; j < counts[b]; ++j) total += lens[b * slots_ + j];
    }
    return total;
  }

  batch_selection select(std::uint32_t batch) override {
    WF_CUDA_CHECK(cudaMemcpy(scratch_cnt_.data(), cnt_.data(), cnt_.bytes(), cudaMemcpyDeviceToDevice));
    WF_CUDA_CHECK(cudaMemcpy(scratch_flag_.data(), flag_.data(), flag_.bytes(), cudaMemcpyDeviceToDevice));
    batch_selection result;
    std::vector<argmax_entry> winners(argmax_blocks);
    for (std::uint32_t i = 0; i < batch && i < num_remaining_; ++i) {
      detail::argmax_kernel<<<argmax_blocks, argmax_threads>>>(remaining_.data(), num_remaining_,
                                                                scratch_cnt_.data(), costs_.data(), taken_.data(),
                                                                argmax_out_.data());
      WF_CUDA_CHECK(cudaGetLastError());
      WF_CUDA_CHECK(cudaMemcpy(winners.data(), argmax_out_.data(), argmax_out_.bytes(), cudaMemcpyDeviceToHost));
      argmax_entry best{detail::no_vertex, 0};
      for (const auto& e : winners) {
        if (e.vertex == detail::no_vertex) continue;
        if (best.vertex == detail::no_vertex ||
            selection_before(e.count, host_costs_[e.vertex], e.vertex, best.count, host_costs_[best.vertex], best.vertex)) {
          best = e;
        }
      }
      if (best.vertex == detail::no_vertex) break;
      result.seeds.push_back(best.vertex);
      result.coverage += best.count;
      set_marks(taken_, std::span<const std::uint32_t>(&best.vertex, 1), 1);
      detail::discover_kernel<<<segment_blocks(), segment_threads>>>(view(), marks_.data(), best.vertex,
                                                                   scratch_flag_.data(), scratch_cnt_.data());
      WF_CUDA_CHECK(cudaGetLastError());
    }
    set_marks(taken_, result.seeds, 0);
    return result;
  }

  void commit_selection() override {
    std::swap(cnt_, scratch_cnt_);
    std::swap(flag_, scratch_flag_);
  }

  void discover(std::span<const std::uint32_t> activated) override {
    if (activated.empty() || size_ == 0) return;
    set_marks(marks_, activated, 1);
    detail::discover_kernel<<<segment_blocks(), segment_threads>>>(view(), marks_.data(), detail::no_vertex,
                                                                   flag_.data(), cnt_.data());
    WF_CUDA_CHECK(cudaGetLastError());
    set_marks(marks_, activated, 0);
  }

  void truncate(std::uint64_t count) override {
    if (count >= size_) return;
    detail::truncate_kernel<<<segment_blocks(), segment_threads>>>(view(), count);
    WF_CUDA_CHECK(cudaGetLastError());
    WF_CUDA_CHECK(cudaDeviceSynchronize());
    stats_.sets_dropped += size_ - count;
    size_ = count;
  }

  void reset(std::uint64_t seed) override {
    WF_CUDA_CHECK(cudaMemset(num_sets_.data(), 0, num_sets_.bytes()));
    WF_CUDA_CHECK(cudaMemset(seg_end_.data(), 0, seg_end_.bytes()));
    WF_CUDA_CHECK(cudaMemset(cnt_.data(), 0, cnt_.bytes()));
    size_ = 0;
    seed_ = seed;
  }

  mrr_snapshot snapshot() const override {
    const auto mrr = mrr_.download(mrr_.size());
    const auto starts = start_.download(start_.size());
    const auto lens = len_.download(len_.size());
    const auto flags = flag_.download(flag_.size());
    mrr_snapshot out;
    for (std::uint64_t s = 0; s < size_; ++s) {
      const std::uint64_t b = s % num_segments_, j = s / num_segments_;
      const std::uint64_t at = b * slots_ + j;
      std::vector<std::uint32_t> encoded;
      for (std::uint64_t i = 0; i < lens[at]; ++i) encoded.push_back(mrr[b * cap_ + (starts[at] + i) % cap_]);
      out.append_set(encoded);
      out.flags.push_back(flags[at]);
    }
    return out;
  }

  std::vector<std::uint32_t> coverage_counts() const override { return cnt_.download(cnt_.size()); }
  mrr_store_stats stats() const override { return stats_; }
  std::string device() const override { return "gpu"; }
  /// A quarter: segments are sized by their fullest one and a regrowth holds old and new.
  std::uint64_t default_budget_bytes() const override { return budget_bytes_ / 4; }

 private:
  unsigned segment_blocks() const { return (num_segments_ + segments_per_block - 1) / segments_per_block; }

  merit_view view() const {
    merit_view d{};
    d.g = graph_view{graph_->num_vertices, graph_->num_edges, in_offsets_.data(), in_sources_.data(),
                     in_thresholds_.data(), nullptr, nullptr, nullptr};
    d.blocks = ic_block_view{vertex_class_.data(), block_cdf_.data(), subsets_.data()};
    d.removed = removed_.data();
    d.remaining = remaining_.data();
    d.num_remaining = num_remaining_;
    d.mrr = mrr_.data();
    d.cap = cap_;
    d.start = start_.data();
    d.len = len_.data();
    d.flag = flag_.data();
    d.slots = static_cast<std::uint32_t>(slots_);
    d.num_sets = num_sets_.data();
    d.seg_end = seg_end_.data();
    d.resume = resume_.data();
    d.visited = visited_.data();
    d.is_root = is_root_.data();
    d.words_per_segment = words_;
    d.cnt = cnt_.data();
    d.overflow = overflow_.data();
    d.counters = counters_.data();
    d.num_segments = num_segments_;
    d.model = model_;
    d.seed = seed_;
    d.mean_roots = mean_roots_;
    d.round = round_;
    return d;
  }

  bool overflowed() const {
    int flag = 0;
    WF_CUDA_CHECK(cudaMemcpy(&flag, overflow_.data(), sizeof(int), cudaMemcpyDeviceToHost));
    return flag != 0;
  }

  void set_marks(const device_array<std::uint8_t>& marks, std::span<const std::uint32_t> vertices, std::uint8_t value) {
    if (vertices.empty()) return;
    if (list_.size() < vertices.size()) list_.resize(std::max<std::uint64_t>(vertices.size(), 2 * list_.size()));
    list_.upload(vertices.data(), vertices.size());
    const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((vertices.size() + 255) / 256, 1024));
    detail::set_marks_kernel<<<blocks, 256>>>(list_.data(), vertices.size(), marks.data(), value);
    WF_CUDA_CHECK(cudaGetLastError());
  }

  /// Doubles every segment (the fallback of digest 4.2 item 15), keeping pending sets ahead.
  /// Grows by half instead where doubling would not fit (the old and new segments coexist
  /// during the copy, so both must fit in the budget and in the free device memory).
  void regrow() {
    const std::uint64_t free_bytes = ::wildfire::cuda::device_free_bytes();
    const auto fits = [&](std::uint64_t cap) {
      const std::uint64_t wanted = num_segments_ * cap * sizeof(std::uint32_t);
      return wanted + mrr_.bytes() <= budget_bytes_ && wanted + (std::uint64_t{256} << 20) <= free_bytes;
    };
    std::uint64_t new_cap = 2 * cap_;
    if (!fits(new_cap)) new_cap = cap_ + cap_ / 2;
    if (!fits(new_cap)) {
      throw resource_error("MERIT mRR-set segments (" + std::to_string(num_segments_) + " x " +
                               std::to_string(new_cap) + " entries)",
                           num_segments_ * new_cap * sizeof(std::uint32_t) + mrr_.bytes(),
                           std::min<std::uint64_t>(budget_bytes_, free_bytes + mrr_.bytes()));
    }
    device_array<std::uint32_t> bigger(num_segments_ * new_cap);
    detail::regrow_kernel<<<segment_blocks(), segment_threads>>>(view(), bigger.data(), new_cap);
    WF_CUDA_CHECK(cudaGetLastError());
    WF_CUDA_CHECK(cudaDeviceSynchronize());
    mrr_ = std::move(bigger);
    cap_ = new_cap;
    ++stats_.storage_regrowths;
    track_peak();
  }

  /// Re-lays the per-slot arrays with room for `slots` sets per segment. Blocks.
  void grow_slots(std::uint64_t slots) {
    device_array<std::uint64_t> start(num_segments_ * slots);
    device_array<std::uint32_t> len(num_segments_ * slots);
    device_array<std::uint8_t> flag(num_segments_ * slots), scratch(num_segments_ * slots);
    if (slots_ > 0) {
      WF_CUDA_CHECK(cudaMemcpy2D(start.data(), slots * sizeof(std::uint64_t), start_.data(), slots_ * sizeof(std::uint64_t),
                                 slots_ * sizeof(std::uint64_t), num_segments_, cudaMemcpyDeviceToDevice));
      WF_CUDA_CHECK(cudaMemcpy2D(len.data(), slots * sizeof(std::uint32_t), len_.data(), slots_ * sizeof(std::uint32_t),
                                 slots_ * sizeof(std::uint32_t), num_segments_, cudaMemcpyDeviceToDevice));
      WF_CUDA_CHECK(cudaMemcpy2D(flag.data(), slots, flag_.data(), slots_, slots_, num_segments_, cudaMemcpyDeviceToDevice));
    }
    start_ = std::move(start);
    len_ = std::move(len);
    flag_ = std::move(flag);
    scratch_flag_ = std::move(scratch);
    slots_ = slots;
    track_peak();
  }

  void read_counters() {
    unsigned long long c[3] = {0, 0, 0};
    WF_CUDA_CHECK(cudaMemcpy(c, counters_.data(), sizeof(c), cudaMemcpyDeviceToHost));
    stats_.sets_reused = c[0];
    stats_.sets_repaired = c[1];
    stats_.members_written = c[2];
  }

  void track_peak() {
    const std::uint64_t bytes = mrr_.bytes() + start_.bytes() + len_.bytes() + flag_.bytes() + scratch_flag_.bytes() +
                                visited_.bytes() + is_root_.bytes();
    stats_.peak_bytes = std::max(stats_.peak_bytes, bytes);
  }

  const csr_graph* graph_;
  diffusion_model model_;
  std::vector<double> host_costs_;
  std::uint64_t seed_;
  std::uint64_t budget_bytes_ = 0;
  std::uint64_t words_ = 0;
  std::uint32_t num_segments_ = 1;
  std::uint64_t cap_ = 0;
  std::uint64_t slots_ = 0;
  std::uint64_t size_ = 0;
  const residual_graph* residual_ = nullptr;
  std::uint32_t num_remaining_ = 0;
  double mean_roots_ = 1;
  std::uint32_t round_ = 1;

  device_array<std::uint64_t> in_offsets_;
  device_array<std::uint32_t> in_sources_, in_thresholds_;
  device_array<std::uint32_t> vertex_class_, block_cdf_;  // IC block plan
  device_array<small_block_subsets> subsets_;
  device_array<std::uint8_t> removed_;
  device_array<std::uint32_t> remaining_;
  device_array<double> costs_;
  device_array<std::uint32_t> cnt_, scratch_cnt_;
  device_array<std::uint8_t> marks_, taken_;
  device_array<std::uint32_t> visited_, is_root_;
  device_array<std::uint32_t> mrr_;
  device_array<std::uint64_t> start_;
  device_array<std::uint32_t> len_;
  device_array<std::uint8_t> flag_, scratch_flag_;
  device_array<std::uint32_t> num_sets_;
  device_array<std::uint64_t> seg_end_;
  device_array<std::uint32_t> resume_;
  device_array<int> overflow_;
  device_array<unsigned long long> counters_;
  device_array<argmax_entry> argmax_out_;
  device_array<std::uint32_t> list_;
  mrr_store_stats stats_;
};

}  // namespace

std::unique_ptr<mrr_store> make_gpu_mrr_store(const csr_graph& graph, diffusion_model model,
                                              std::span<const double> costs, std::uint64_t seed, int gpu_id,
                                              std::uint64_t memory_budget_bytes, std::uint32_t num_segments,
                                              const ic_block_plan* ic_plan) {
  return std::make_unique<gpu_mrr_store>(graph, model, costs, seed, gpu_id, memory_budget_bytes, num_segments, ic_plan);
}

}  // namespace wildfire::adaptive::cuda
