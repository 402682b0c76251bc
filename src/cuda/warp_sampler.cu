// Launcher of the warp-per-sample RR traversal (see warp_sampler.hpp).
#include "cuda/warp_sampler.hpp"

#include <algorithm>
#include <cstddef>

#include "cuda/warp_sampler_kernels.cuh"
#include "cuda/resident_grid.hpp"
#include "cuda/warp_sampler_small_kernels.cuh"

namespace wildfire::cuda {
namespace {

/// Members per warp in global memory on the first pass; larger sets take the retry path.
constexpr std::uint64_t default_stage_capacity = 16384;
/// Mean members of a deferred set before the warp kernel has stored any: sets the lane pass hands
/// on hold more than 32 members, and under weighted cascade on LiveJournal-sized graphs about 675
/// (IMM, eps 0.05). Too low a guess costs a traversal of every set that finds the arena full.
constexpr double first_deferred_mean = 1024;

}  // namespace

warp_sampler::warp_sampler(const graph_view& graph, const ic_block_view& blocks, const sampling_params& params,
                           memory_budget& budget, cudaStream_t stream)
    : graph_(graph), blocks_(blocks), params_(params), budget_(&budget), stream_(stream) {
  WF_EXPECTS(params.model != diffusion_model::ic || graph.num_vertices == 0 || blocks.vertex_class != nullptr,
             "blocks", "IC sampling on the GPU needs the graph's IC block plan on the device");
  kernel_ = params.model == diffusion_model::ic ? kernels::warp_rr_sets<true> : kernels::warp_rr_sets<false>;
  const std::uint64_t max_warps =
      std::uint64_t{resident_grid(kernel_, kernels::warp_sampler_block_threads)} * kernels::warp_sampler_warps_per_block;
  if (params.model == diffusion_model::ic && graph.num_vertices > 0) {
    WF_EXPECTS(graph.num_edges < (std::uint64_t{1} << kernels::record_begin_bits), "graph",
               "the GPU IC sampler holds in-CSR positions in 40 bits: at most 2^40 edges");
    records_ = device_buffer<kernels::ic_vertex_record>(budget, graph.num_vertices, "warp-sampler vertex records");
    const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>((graph.num_vertices + 255) / 256, 65535));
    kernels::build_ic_vertex_records<<<grid, 256, 0, stream>>>(graph, blocks, records_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  words_per_warp_ = (static_cast<std::uint64_t>(graph.num_vertices) + 31) / 32;
  // A multi-round set holds up to rounds * n members.
  const std::uint64_t most_members = static_cast<std::uint64_t>(graph.num_vertices) * std::max<std::uint32_t>(params.rounds, 1);
  stage_capacity_ = std::min<std::uint64_t>(most_members, default_stage_capacity);
  const std::uint64_t bytes_per_warp = (words_per_warp_ + stage_capacity_) * sizeof(std::uint32_t);
  // A quarter of what is left: the sets themselves need the rest.
  const std::uint64_t share = budget.available_bytes() / 4;
  std::uint64_t warps = std::min(max_warps, share / std::max<std::uint64_t>(bytes_per_warp, 1));
  warps -= warps % kernels::warp_sampler_warps_per_block;
  if (warps == 0) warps = kernels::warp_sampler_warps_per_block;  // charge() below reports the shortfall
  num_warps_ = warps;
  visited_ = device_buffer<std::uint32_t>(budget, num_warps_ * words_per_warp_, "warp-sampler visited bitmaps");
  stage_ = device_buffer<std::uint32_t>(budget, num_warps_ * stage_capacity_, "warp-sampler overflow queues");
  counters_ = device_buffer<counters>(budget, 1, "warp-sampler counters");
  // The lane-per-sample pass: single-round IC only.
  if (params.model == diffusion_model::ic && params.rounds <= 1 && graph.num_vertices > 0) {
    small_blocks_ = resident_grid(kernels::small_rr_sets, kernels::small_block_threads);
  }
  if (!visited_.empty()) WF_CUDA_CHECK(cudaMemsetAsync(visited_.data(), 0, visited_.bytes(), stream));
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counters_), sizeof(counters)));
}

warp_sampler::~warp_sampler() {
  if (host_counters_ != nullptr) (void)cudaFreeHost(host_counters_);
}

kernels::warp_sampler_args warp_sampler::args(std::uint64_t first_id, const std::uint32_t* items,
                                              std::uint32_t num_items, rr_staging& staged) {
  kernels::warp_sampler_args a{};
  a.seed = params_.seed;
  a.mean_roots = params_.mean_roots;
  a.rounds = std::max<std::uint32_t>(params_.rounds, 1);
  a.first_id = first_id;
  a.item_list = items;
  a.num_items = num_items;
  a.next_item = &counters_.data()->next_item;
  a.visited = visited_.data();
  a.words_per_warp = words_per_warp_;
  a.arena = staged.arena.data();
  a.arena_capacity = staged.arena.size();
  a.arena_tail = &counters_.data()->arena_tail;
  a.lost_members = &counters_.data()->lost_members;
  a.warp_members = &counters_.data()->warp_members;
  a.warp_sets = &counters_.data()->warp_sets;
  a.set_start = staged.set_start.data();
  a.set_size = staged.set_size.data();
  a.deferred = deferred_.data();
  a.num_deferred = &counters_.data()->num_deferred;
  a.flags = &counters_.data()->flags;
  a.edges_examined = &counters_.data()->edges_examined;
  a.expansions = &counters_.data()->expansions;
  a.expanded = &counters_.data()->expanded;
  a.blocks = blocks_;
  a.records = records_.data();
  return a;
}

void warp_sampler::finish_launch() {
  WF_CUDA_CHECK(cudaGetLastError());
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.data(), sizeof(counters), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void warp_sampler::launch_small(std::uint64_t first_id, std::uint32_t num_items, rr_staging& staged) {
  kernels::small_rr_sets<<<small_blocks_, kernels::small_block_threads, 0, stream_>>>(
      graph_, args(first_id, nullptr, num_items, staged));
  finish_launch();
}

void warp_sampler::launch(std::uint64_t first_id, const std::uint32_t* items, std::uint32_t num_items, bool big,
                          rr_staging& staged) {
  kernels::warp_sampler_args a = args(first_id, items, num_items, staged);
  std::uint64_t warps = num_warps_;
  device_buffer<std::uint32_t> big_stage;
  if (big) {
    // Room for a whole graph per warp, for as many warps as a quarter of the free budget holds.
    const std::uint64_t per_warp =
        std::max<std::uint64_t>(static_cast<std::uint64_t>(graph_.num_vertices) * std::max<std::uint32_t>(params_.rounds, 1), 1);
    std::uint64_t fit = budget_->available_bytes() / 4 / (per_warp * sizeof(std::uint32_t));
    fit -= fit % kernels::warp_sampler_warps_per_block;
    warps = std::clamp<std::uint64_t>(fit, kernels::warp_sampler_warps_per_block, num_warps_);
    big_stage = device_buffer<std::uint32_t>(*budget_, warps * per_warp, "warp-sampler retry queues");
    a.stage = big_stage.data();
    a.stage_capacity = per_warp;
  } else {
    a.stage = stage_.data();
    a.stage_capacity = stage_capacity_;
  }
  const unsigned blocks = static_cast<unsigned>(warps / kernels::warp_sampler_warps_per_block);
  kernel_<<<blocks, kernels::warp_sampler_block_threads, 0, stream_>>>(graph_, a);
  finish_launch();
}

void warp_sampler::sample(std::uint64_t first_id, std::uint64_t count, double expected_size, rr_staging& staged) {
  WF_EXPECTS(count < (1ULL << 31), "count", "at most 2^31 - 1 RR sets per batch");
  staged.count = count;
  staged.arena_used = 0;
  if (count == 0) return;
  grow_buffer(staged.set_start, *budget_, count, 0, stream_, "RR batch set starts");
  grow_buffer(staged.set_size, *budget_, count + 1, 0, stream_, "RR batch set sizes");
  grow_buffer(deferred_, *budget_, count, 0, stream_, "warp-sampler deferred list");
  const double mean = std::max(expected_size, 1.0) * 1.25;
  const std::uint64_t wanted = std::max<std::uint64_t>(static_cast<std::uint64_t>(mean * static_cast<double>(count)), 1ULL << 16);
  if (staged.arena.size() < wanted) {
    staged.arena.reset();
    staged.arena = device_buffer<std::uint32_t>(*budget_, std::min<std::uint64_t>(wanted, budget_->available_bytes() / 8 + 1),
                                                "RR batch arena");
  }
  WF_CUDA_CHECK(cudaMemsetAsync(staged.set_size.data() + count, 0, sizeof(std::uint64_t), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, sizeof(counters), stream_));

  // When the mean set so far outgrows a warp's room (the dense regime), most of the work would be
  // in sets that overflow and are sampled again: give every warp room for n members at once.
  const bool big_first = expected_size > static_cast<double>(kernels::shared_members_per_warp + stage_capacity_);
  // Single-round IC: a lane per sample first; the sets it cannot hold come back deferred.
  if (small_blocks_ != 0 && !big_first) {
    launch_small(first_id, static_cast<std::uint32_t>(count), staged);
    const std::uint64_t deferred = host_counters_->num_deferred;
    small_deferred_ += deferred;
    small_sets_ += count - deferred;
    // The deferred sets are the large ones: room for them from the warp kernel's sets so far,
    // before a set that finds the arena full has to be traversed again. A guess, so at most an
    // eighth of the free budget; the retries below still catch a shortfall.
    const double deferred_mean = warp_sets_ > 0 ? static_cast<double>(warp_members_) / static_cast<double>(warp_sets_)
                                                : first_deferred_mean;
    const std::uint64_t tail = host_counters_->arena_tail;
    const std::uint64_t room = std::min<std::uint64_t>(
        tail + static_cast<std::uint64_t>(deferred_mean * 1.25 * static_cast<double>(deferred)) + (1ULL << 16),
        staged.arena.size() + budget_->available_bytes() / 8 / sizeof(std::uint32_t));
    if (deferred > 0 && room > staged.arena.size())
      grow_buffer(staged.arena, *budget_, room, std::min<std::uint64_t>(tail, staged.arena.size()), stream_, "RR batch arena");
  } else {
    launch(first_id, nullptr, static_cast<std::uint32_t>(count), big_first, staged);
  }
  while (host_counters_->num_deferred > 0) {
    ++retries_;
    const counters seen = *host_counters_;
    const std::uint32_t redo = seen.num_deferred;
    if ((seen.flags & kernels::flag_arena_overflow) != 0) {
      // Keep what was written below the old capacity; reserve room for the lost sets beyond the
      // tail (failed reservations advanced it too). A set is a pure function of its id, so the
      // lost sets need exactly lost_members again; the mean covers sets deferred for their size.
      const std::uint64_t need =
          seen.arena_tail + seen.lost_members + static_cast<std::uint64_t>(mean * redo) + (1ULL << 16);
      grow_buffer(staged.arena, *budget_, std::max<std::uint64_t>(need, staged.arena.size() * 2), staged.arena.size(),
                  stream_, "RR batch arena");
    }
    grow_buffer(retry_items_, *budget_, redo, 0, stream_, "warp-sampler retry list");
    WF_CUDA_CHECK(cudaMemcpyAsync(retry_items_.data(), deferred_.data(), redo * sizeof(std::uint32_t),
                                  cudaMemcpyDeviceToDevice, stream_));
    // Keep the arena tail and the work counts; restart the work counter, the flags and the lost
    // members.
    WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, offsetof(counters, arena_tail), stream_));
    launch(first_id, retry_items_.data(), redo, big_first || (seen.flags & kernels::flag_stage_overflow) != 0, staged);
  }
  staged.arena_used = host_counters_->arena_tail;
  edges_examined_ += host_counters_->edges_examined;
  expansions_ += host_counters_->expansions;
  expanded_ += host_counters_->expanded;
  warp_members_ += host_counters_->warp_members;
  warp_sets_ += host_counters_->warp_sets;
}

}  // namespace wildfire::cuda
