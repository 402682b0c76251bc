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
  counters_ = device_buffer<counters>(budget, 2, "warp-sampler counters");
  // The lane-per-sample pass: single-round IC only.
  if (params.model == diffusion_model::ic && params.rounds <= 1 && graph.num_vertices > 0) {
    small_blocks_ = resident_grid(kernels::small_rr_sets, kernels::small_block_threads);
  }
  if (!visited_.empty()) WF_CUDA_CHECK(cudaMemsetAsync(visited_.data(), 0, visited_.bytes(), stream));
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counters_), 2 * sizeof(counters)));
}

warp_sampler::~warp_sampler() {
  if (host_counters_ != nullptr) (void)cudaFreeHost(host_counters_);
}

kernels::warp_sampler_args warp_sampler::args(const std::uint32_t* items, std::uint32_t num_items, rr_staging& staged,
                                              bool chained) {
  counters* batch = counters_.data();
  counters* own = batch + (chained ? 1 : 0);
  kernels::warp_sampler_args a{};
  a.seed = params_.seed;
  a.mean_roots = params_.mean_roots;
  a.rounds = std::max<std::uint32_t>(params_.rounds, 1);
  a.first_id = batch_first_id_;
  a.item_list = chained ? deferred_.data() : items;
  a.num_items = num_items;
  a.num_items_at = chained ? &batch->num_deferred : nullptr;
  a.next_item = &own->next_item;
  a.visited = visited_.data();
  a.words_per_warp = words_per_warp_;
  a.arena = staged.arena.data();
  a.arena_capacity = staged.arena.size();
  a.arena_tail = &batch->arena_tail;
  a.lost_members = &own->lost_members;
  a.warp_members = &batch->warp_members;
  a.warp_sets = &batch->warp_sets;
  a.set_start = staged.set_start.data();
  a.set_size = staged.set_size.data();
  a.deferred = chained ? chained_deferred_.data() : deferred_.data();
  a.num_deferred = &own->num_deferred;
  a.flags = &own->flags;
  a.edges_examined = &batch->edges_examined;
  a.expansions = &batch->expansions;
  a.expanded = &batch->expanded;
  a.blocks = blocks_;
  a.records = records_.data();
  return a;
}

void warp_sampler::copy_counters() {
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.data(), 2 * sizeof(counters), cudaMemcpyDeviceToHost, stream_));
}

void warp_sampler::launch_small(std::uint32_t num_items, rr_staging& staged) {
  kernels::small_rr_sets<<<small_blocks_, kernels::small_block_threads, 0, stream_>>>(graph_,
                                                                                     args(nullptr, num_items, staged));
  WF_CUDA_CHECK(cudaGetLastError());
}

void warp_sampler::launch(const std::uint32_t* items, std::uint32_t num_items, bool big, rr_staging& staged,
                          bool chained) {
  kernels::warp_sampler_args a = args(items, num_items, staged, chained);
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
  WF_CUDA_CHECK(cudaGetLastError());
}

double warp_sampler::arena_mean(double expected_size) const noexcept {
  // Under single-round IC the lane pass hands the large sets on; a few of them can outweigh the
  // small sets seen so far, so the arena holds at least their share at their mean so far (a
  // guess before any: one set in (sets seen + 1), of first_deferred_mean members). Before the
  // lane pass has run (a pilot skips it), the sets seen are all there is to go by.
  double mean = std::max(expected_size, 1.0);
  if (small_sets_ + small_deferred_ > 0) {
    const double share = static_cast<double>(small_deferred_ + 1) / static_cast<double>(small_sets_ + small_deferred_ + 1);
    const double deferred_mean =
        warp_sets_ > 0 ? static_cast<double>(warp_members_) / static_cast<double>(warp_sets_) : first_deferred_mean;
    mean = std::max(mean, share * deferred_mean);
  }
  return mean * 1.25;
}

std::uint64_t warp_sampler::arena_entries(std::uint64_t count, double expected_size) const noexcept {
  return std::max<std::uint64_t>(static_cast<std::uint64_t>(arena_mean(expected_size) * static_cast<double>(count)),
                                 1ULL << 16);
}

void warp_sampler::launch_batch(std::uint64_t first_id, std::uint64_t count, double expected_size,
                                rr_staging& staged) {
  WF_EXPECTS(count < (1ULL << 31), "count", "at most 2^31 - 1 RR sets per batch");
  staged.count = count;
  staged.arena_used = 0;
  staged.expected_mean = expected_size;
  batch_first_id_ = first_id;
  chained_ = false;
  if (count == 0) return;
  // The per-set arrays grow to twice the batch where the budget allows: IMM's requests double
  // round after round, and each allocation is a host call the GPU waits for.
  auto fit = [&](auto& buffer, std::uint64_t entries, const char* what) {
    if (buffer.size() >= entries) return;
    const bool twice = budget_->fits(2 * entries * sizeof(*buffer.data()));
    grow_buffer(buffer, *budget_, twice ? 2 * entries : entries, 0, stream_, what);
  };
  fit(staged.set_start, count, "RR batch set starts");
  fit(staged.set_size, count + 1, "RR batch set sizes");
  fit(deferred_, count, "warp-sampler deferred list");
  batch_mean_ = arena_mean(expected_size);
  const std::uint64_t wanted = arena_entries(count, expected_size);
  if (staged.arena.size() < wanted) {
    staged.arena.reset();
    staged.arena = device_buffer<std::uint32_t>(*budget_, std::min<std::uint64_t>(wanted, budget_->available_bytes() / 8 + 1),
                                                "RR batch arena");
  }
  WF_CUDA_CHECK(cudaMemsetAsync(staged.set_size.data() + count, 0, sizeof(std::uint64_t), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(counters), stream_));

  // When the mean set so far outgrows a warp's room (the dense regime), most of the work would be
  // in sets that overflow and are sampled again: give every warp room for n members at once.
  big_first_ = expected_size > static_cast<double>(kernels::shared_members_per_warp + stage_capacity_);
  // Single-round IC: a lane per sample first; the warp kernel takes the sets it cannot hold
  // straight from its deferred list, with no host round trip between them. Their room is the
  // arena's at the mean set so far: a set that finds it full is redone by settle_batch. A batch
  // that gives every set a warp of its own (a collection's pilot) skips the lane pass: such a
  // launch takes as long as its longest set, and a warp expands up to 32 of a set's vertices at
  // a time where a lane expands one (soc-Epinions1's 64-set pilot: lane pass and warp kernel
  // about 100 and 80 us, H100).
  chained_ = small_blocks_ != 0 && !big_first_ && count > num_warps_;
  if (chained_) {
    fit(chained_deferred_, count, "warp-sampler deferred list");
    launch_small(static_cast<std::uint32_t>(count), staged);
    launch(nullptr, 0, false, staged, true);
  } else {
    launch(nullptr, static_cast<std::uint32_t>(count), big_first_, staged);
  }
  copy_counters();
}

bool warp_sampler::settle_batch(rr_staging& staged) {
  if (staged.count == 0) return false;
  const counters& batch = host_counters_[0];
  if (chained_) {
    small_deferred_ += batch.num_deferred;
    small_sets_ += staged.count - batch.num_deferred;
  }
  bool redone = false;
  const counters* last = &host_counters_[chained_ ? 1 : 0];            // the last launch's counters
  const std::uint32_t* left = chained_ ? chained_deferred_.data() : deferred_.data();  // and the sets it left
  while (last->num_deferred > 0) {
    redone = true;
    ++retries_;
    const counters seen = *last;
    const std::uint32_t redo = seen.num_deferred;
    if ((seen.flags & kernels::flag_arena_overflow) != 0) {
      // Keep what was written below the old capacity; reserve room for the lost sets beyond the
      // tail (failed reservations advanced it too). A set is a pure function of its id, so the
      // lost sets need exactly lost_members again; the mean covers sets deferred for their size.
      const std::uint64_t need =
          batch.arena_tail + seen.lost_members + static_cast<std::uint64_t>(batch_mean_ * redo) + (1ULL << 16);
      grow_buffer(staged.arena, *budget_, std::max<std::uint64_t>(need, staged.arena.size() * 2), staged.arena.size(),
                  stream_, "RR batch arena");
    }
    grow_buffer(retry_items_, *budget_, redo, 0, stream_, "warp-sampler retry list");
    WF_CUDA_CHECK(cudaMemcpyAsync(retry_items_.data(), left, redo * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice,
                                  stream_));
    // Keep the arena tail and the work counts; restart the work counter, the flags and the lost
    // members.
    WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, offsetof(counters, arena_tail), stream_));
    launch(retry_items_.data(), redo, big_first_ || (seen.flags & kernels::flag_stage_overflow) != 0, staged);
    copy_counters();
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    last = &host_counters_[0];
    left = deferred_.data();
  }
  staged.arena_used = batch.arena_tail;
  edges_examined_ += batch.edges_examined;
  expansions_ += batch.expansions;
  expanded_ += batch.expanded;
  warp_members_ += batch.warp_members;
  warp_sets_ += batch.warp_sets;
  return redone;
}

}  // namespace wildfire::cuda
