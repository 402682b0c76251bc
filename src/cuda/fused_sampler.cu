// Launcher of the fused multi-colour RR traversal (see fused_sampler.hpp).
#include "cuda/fused_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <type_traits>
#include <utility>

#include <cub/device/device_scan.cuh>

#include "cuda/environment_knobs.hpp"
#include "cuda/fused_mask_kernels.cuh"
#include "cuda/fused_sampler_kernels.cuh"
#include "cuda/resident_grid.hpp"

namespace wildfire::cuda {
namespace {

unsigned blocks_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::fused_block_threads - 1) / kernels::fused_block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 20));
}

/// Groups in flight at most by default; WF_FUSED_GROUPS may ask for fewer or more.
constexpr std::uint32_t group_cap = 64;
/// The live stage under WF_FUSED_QUEUE=late: rounds of more than 24 live pairs go the lane path.
constexpr unsigned late_live_capacity = 24;
constexpr unsigned late_live_resolve = 16;
/// Levels queued before the first poll of the level counts, and at most per poll later (the
/// chunk doubles): a batch ends with at most max_poll_levels - 1 empty levels (two empty
/// persistent-grid launches each) instead of a host round trip per level.
constexpr std::uint32_t first_poll_levels = 4;
constexpr std::uint32_t max_poll_levels = 16;
/// Profiling events a level records (launch_level).
constexpr std::size_t events_per_level = 3;

/// Blocks a multiprocessor gives to drawing the next batch's masks beside a batch's levels, unless
/// WF_FUSED_OVERLAP says otherwise. H200, topcats-like, p = 0.2, 4,096 sets, 32 colours: none
/// 0.182 s, 1 block 0.180 s, 2 blocks 0.175 s, 3 blocks 0.178-0.181 s (the levels beside them
/// slow down: pulls 3.5 -> 5.0 ms at 2 blocks); p = 0.1, 8,192 sets: 0.370, 0.359, 0.341 s.
constexpr unsigned fused_overlap_blocks = 2;

unsigned overlap_from_environment() {
  const char* text = std::getenv("WF_FUSED_OVERLAP");
  if (text == nullptr) return fused_overlap_blocks;
  const long long blocks = std::atoll(text);
  return blocks > 0 ? static_cast<unsigned>(std::min<long long>(blocks, 8)) : 0;
}

std::uint64_t groups_from_environment() {
  const char* text = std::getenv("WF_FUSED_GROUPS");
  if (text == nullptr) return group_cap;
  const long long groups = std::atoll(text);
  return groups > 0 ? static_cast<std::uint64_t>(groups) : group_cap;
}

/// The mask draw by four units a warp (`quads`: edge-major masks only) or by pairs.
template <class Word>
auto draw_kernel(bool quads) {
  return quads ? kernels::fused_draw_edge_masks<Word, true> : kernels::fused_draw_edge_masks<Word, false>;
}

/// Blocks of a persistent grid for `kernel`: as many as the device holds at once.
template <class Kernel>
unsigned persistent_grid(Kernel kernel) {
  return resident_grid(kernel, kernels::fused_block_threads);
}

}  // namespace

fused_sampler::fused_sampler(const graph_view& graph, const ic_block_view& blocks, const sampling_params& params,
                             std::uint32_t colours, memory_budget& budget, cudaStream_t stream)
    : graph_(graph), blocks_(blocks), params_(params), colours_(colours), budget_(&budget), stream_(stream) {
  WF_EXPECTS(params.model != diffusion_model::ic || graph.num_vertices == 0 || blocks.vertex_class != nullptr,
             "blocks", "IC sampling on the GPU needs the graph's IC block plan on the device");
  WF_EXPECTS(fused_colours_supported(colours), "--colours",
             "colours must be 8, 16 or a multiple of 32 between 32 and 1024");
  // WF_FUSED_QUEUE=late (tests): flush only full buffers and stage few live pairs, so that the
  // direct fallbacks run.
  late_queue_ = environment_is("WF_FUSED_QUEUE", "late");
  if (environment_is("WF_FUSED_MASKS", "on")) mask_mode_ = mask_mode::on;
  if (environment_is("WF_FUSED_MASKS", "off")) mask_mode_ = mask_mode::off;
  if (params.model != diffusion_model::ic || colours % 32 != 0) mask_mode_ = mask_mode::off;
  // Pull on: every level (pull_from 1); off: none; a share: levels that queue that share. Touch on:
  // every pushing level marks the regions it touches; off: none; a share: levels that queue less.
  pull_share_ = share_from_environment("WF_FUSED_PULL", 0, -1, pull_share_);
  touch_share_ = share_from_environment("WF_FUSED_TOUCH", 2, 0, touch_share_);
  quads_alone_ = !environment_is("WF_FUSED_QUADS", "off");
  overlap_blocks_ = overlap_from_environment();
  buffer_flush_ = late_queue_ ? kernels::fused_buffer_capacity : kernels::fused_buffer_flush;
  word_bytes_ = colours % 64 == 0 ? 8 : 4;
  words_ = (colours + word_bytes_ * 8 - 1) / (word_bytes_ * 8);  // 8 and 16 colours: one 32-bit word
  const std::uint64_t n = std::max<std::uint32_t>(graph.num_vertices, 1);
  spans_ = (n + kernels::fused_span_vertices - 1) / kernels::fused_span_vertices;
  // Per group: visited, current and next words, two queues of slots, keys; a flat store's groups
  // also span counts.
  const std::uint64_t slots = n * words_;
  const std::uint64_t span_bytes = static_cast<std::uint64_t>(colours) * spans_ * sizeof(std::uint32_t);
  const std::uint64_t per_group =
      slots * (3 * word_bytes_ + 2 * sizeof(std::uint32_t)) + span_bytes + colours * sizeof(std::uint64_t);
  const std::uint64_t fixed = n * (sizeof(uint2) + 2);  // the per-vertex rules
  std::uint64_t groups = budget.available_bytes() > 2 * fixed ? (budget.available_bytes() / 2 - fixed) / per_group : 0;
  // Slot ids are 32-bit.
  groups = std::min<std::uint64_t>(groups, ((1ULL << 32) - 2) / slots);
  // Fewer than 32 colours: as many samples in flight as 32 colours would have.
  const std::uint64_t cap = groups_from_environment();
  groups = std::min<std::uint64_t>(groups, colours < 32 ? cap * 32 / colours : cap);
  max_groups_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(groups, 1));  // charge() reports a shortfall
  // Member positions in a flat batch are 32-bit: fewer groups per batch into a store.
  const std::uint64_t flat =
      ((1ULL << 32) - 2) / (static_cast<std::uint64_t>(colours) * spans_ * kernels::fused_span_vertices);
  flat_groups_ = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(flat, 1, max_groups_));
  const std::uint64_t all_slots = slots * max_groups_;
  visited_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused visited colour masks");
  current_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused frontier colour masks");
  next_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused next-frontier colour masks");
  if (mask_mode_ != mask_mode::off) {
    // Flags of whole regions and of the last, partial one; a settle pass clears those it reads.
    touched_ = device_buffer<std::uint8_t>(budget, all_slots * word_bytes_ / kernels::fused_settle_region_bytes + 1,
                                           "fused touched next-word regions");
    WF_CUDA_CHECK(cudaMemsetAsync(touched_.data(), 0, touched_.bytes(), stream));
  }
  queue_ = device_buffer<std::uint32_t>(budget, all_slots, "fused frontier queue");
  next_queue_ = device_buffer<std::uint32_t>(budget, all_slots, "fused next-frontier queue");
  keys_ = device_buffer<std::uint64_t>(budget, static_cast<std::uint64_t>(colours) * max_groups_, "fused sample keys");
  span_counts_ = device_buffer<std::uint32_t>(budget, static_cast<std::uint64_t>(colours) * flat_groups_ * spans_ + 1,
                                              "fused per-span set sizes");
  counters_ = device_buffer<unsigned>(budget, 8, "fused level counts");  // a ring of three (light, heavy), queue places
  draw_claims_ = device_buffer<unsigned long long>(budget, 2, "fused mask draw claims");
  examined_ = device_buffer<unsigned long long>(budget, 1 + kernels::fused_stat_count, "fused edge and level counters");
  rules_ = device_buffer<uint2>(budget, n, "fused per-vertex rules");
  heavy_ = device_buffer<std::uint8_t>(budget, n, "fused per-vertex heavy flags");
  mask_heavy_ = device_buffer<std::uint8_t>(budget, n, "fused per-vertex heavy flags under edge masks");
  if (graph.num_vertices > 0) {
    kernels::fused_plan_vertices<<<blocks_for(graph.num_vertices), kernels::fused_block_threads, 0, stream>>>(
        graph, params.model == diffusion_model::ic ? blocks : ic_block_view{}, rules_.data(), heavy_.data(),
        mask_heavy_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  if (mask_mode_ != mask_mode::off && pull_share_ >= 0 && graph.num_edges > 0) {
    // Pulling levels (fused_chunk_pull) walk the out-CSR in segments, each from its first source.
    const std::uint64_t segments = (graph.num_edges + fused_pull_segment - 1) / fused_pull_segment;
    pull_first_ = device_buffer<std::uint32_t>(budget, segments, "fused pull segments' first sources");
    kernels::fused_plan_pull<<<blocks_for(segments), kernels::fused_block_threads, 0, stream>>>(graph, pull_first_.data(),
                                                                                              segments);
    WF_CUDA_CHECK(cudaGetLastError());
  }
  if (mask_mode_ != mask_mode::off && overlap_blocks_ > 0) {
    WF_CUDA_CHECK(cudaStreamCreateWithFlags(&draw_stream_, cudaStreamNonBlocking));
    WF_CUDA_CHECK(cudaEventCreateWithFlags(&drawn_ahead_, cudaEventDisableTiming));
    WF_CUDA_CHECK(cudaEventCreateWithFlags(&ahead_start_, cudaEventDisableTiming));
  }
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counters_), 4 * sizeof(unsigned)));
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_stats_),
                               (1 + kernels::fused_stat_count) * sizeof(unsigned long long)));
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, span_counts_.data(), span_counts_.data(),
                                              span_counts_.size(), stream));
  scan_scratch_ = device_buffer<unsigned char>(budget, std::max<std::size_t>(scan_bytes, 1), "CUB scan scratch");
  if (word_bytes_ == 8) {
    size_grids<unsigned long long>();
  } else {
    size_grids<unsigned>();
  }
}

template <class Word>
void fused_sampler::size_grids() {
  const auto light = params_.model == diffusion_model::ic ? kernels::fused_ic_light<Word> : kernels::fused_lt<Word>;
  grids_.light = persistent_grid(light);
  grids_.heavy = persistent_grid(kernels::fused_ic_heavy<Word>);
  beside_grids_ = grids_;
  if (mask_mode_ == mask_mode::off) return;
  mask_draw_grids_[0] = persistent_grid(draw_kernel<Word>(false));
  mask_draw_grids_[1] = persistent_grid(draw_kernel<Word>(true));
  // The levels beside a draw ahead: what its blocks leave of each multiprocessor (a level grid
  // larger than the device holds would run its last blocks after the others).
  const sm_share draw =
      share_of(draw_kernel<Word>(false), kernels::fused_block_threads, std::max(overlap_blocks_, 1U));
  const auto size = [&](level_grids& grids, auto&& grid) {
    grids.mask_light = grid(kernels::fused_mask_light<Word>);
    grids.mask_heavy = grid(kernels::fused_mask_heavy<Word>);
    grids.mask_settle = grid(kernels::fused_settle_level<Word>);
    grids.chunk_light = grid(kernels::fused_chunk_light<Word>);
    grids.chunk_heavy = grid(kernels::fused_chunk_heavy<Word>);
    grids.pull = grid(kernels::fused_chunk_pull<Word, Word>);
    grids.pull_wide = grid(kernels::fused_chunk_pull<Word, unsigned long long>);
  };
  size(grids_, [](auto kernel) { return persistent_grid(kernel); });
  size(beside_grids_, [&](auto kernel) { return resident_grid_beside(kernel, kernels::fused_block_threads, draw); });
}

fused_sampler::~fused_sampler() {
  if (draw_stream_ != nullptr) {
    (void)cudaStreamSynchronize(draw_stream_);  // a draw ahead writes a buffer freed below
    (void)cudaStreamDestroy(draw_stream_);
  }
  if (drawn_ahead_ != nullptr) (void)cudaEventDestroy(drawn_ahead_);
  if (ahead_start_ != nullptr) (void)cudaEventDestroy(ahead_start_);
  for (cudaEvent_t e : events_) (void)cudaEventDestroy(e);
  if (host_counters_ != nullptr) (void)cudaFreeHost(host_counters_);
  if (host_stats_ != nullptr) (void)cudaFreeHost(host_stats_);
}

void fused_sampler::set_profiling(bool on) {
  profiling_ = on;
  // Per poll: three events per level (before the light kernel, between, after the heavy one and
  // the settling), then two for the setup, two for the extraction and one where the edge masks start.
  while (on && events_.size() < events_per_level * max_poll_levels + 5) {
    cudaEvent_t e = nullptr;
    WF_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
}

void fused_sampler::add_event_time(std::size_t from, std::size_t to, double& sum) {
  float ms = 0;
  WF_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
  sum += ms;
}

void fused_sampler::sample(std::uint64_t first_id, std::uint64_t count, rr_store& store) {
  sample_batches(first_id, count, flat_groups_, store);
}

void fused_sampler::sample(std::uint64_t first_id, std::uint64_t count, rr_bitmap& bitmap) {
  sample_batches(first_id, count, max_groups_, bitmap);
}

std::uint32_t fused_sampler::mask_groups_for_next_batch(std::uint32_t group_cap) {
  if (mask_mode_ == mask_mode::off || masks_refused_) return 0;
  // Automatic: without an expected set size, a pilot of one group measures it, with the masks,
  // whose cost per group is bounded by the graph's blocks (the draws' per-level work on dense sets
  // is not); below the threshold the masks' memory goes back to the budget.
  const bool pilot = mask_mode_ == mask_mode::automatic && expected_set_size_ < 0;
  if (mask_mode_ == mask_mode::automatic && !pilot && !expected_sets_take_masks()) {
    drop_draw_ahead();
    masks_[0].reset();
    masks_[1].reset();
    mask_groups_ = 0;
    return 0;
  }
  const std::uint32_t wanted = pilot ? 1 : group_cap;
  if (mask_groups_ < wanted) {
    // A group's masks: a colour word per in-edge and word. They take at most half the budget left,
    // as the colour words did (the sets and their index need the rest).
    drop_draw_ahead();
    masks_[0].reset();
    masks_[1].reset();
    mask_groups_ = 0;
    const std::uint64_t per_group = std::max<std::uint64_t>(graph_.num_edges, 1) * words_ * word_bytes_;
    const std::uint64_t groups = std::min<std::uint64_t>(budget_->available_bytes() / 2 / per_group, wanted);
    if (groups == 0) {
      masks_refused_ = true;  // draw per item from then on
      return 0;
    }
    masks_[0] = device_buffer<unsigned char>(*budget_, groups * per_group, "fused edge masks");
    mask_groups_ = static_cast<std::uint32_t>(groups);
  }
  return std::min(wanted, mask_groups_);
}

fused_sampler::batch_shape fused_sampler::shape_of(std::uint64_t left, std::uint32_t group_cap,
                                                   std::uint32_t mask_groups) const {
  const bool masks = mask_groups > 0;
  // With masks, whole chunks of 32 (group, word) slots a vertex where the cap allows: such a
  // batch's levels go by chunks (fused_args::chunked).
  const std::uint32_t chunk_groups = 32 / std::gcd(32U, words_);
  const bool chunks = masks && mask_groups >= chunk_groups;
  const std::uint32_t groups_cap = !masks ? group_cap : chunks ? mask_groups / chunk_groups * chunk_groups : mask_groups;
  const std::uint64_t per_batch = static_cast<std::uint64_t>(colours_) * groups_cap;
  const auto batch = static_cast<std::uint32_t>(std::min(per_batch, left));
  std::uint32_t groups = (batch + colours_ - 1) / colours_;
  // A batch short of whole chunks traverses empty groups up to the next chunk when they add at
  // most a quarter to its mask draws, so that its levels too go by chunks (at p = 0.2 the light
  // kernel's 63 of 127 groups took ~0.13 s unchunked). Within the cap, a whole number of chunks.
  const std::uint32_t padded = (groups + chunk_groups - 1) / chunk_groups * chunk_groups;
  if (chunks && padded - groups <= groups / 4) groups = padded;
  return {batch, groups};
}

void fused_sampler::drop_draw_ahead() {
  if (!ahead_.valid) return;
  WF_CUDA_CHECK(cudaStreamSynchronize(draw_stream_));
  ahead_.valid = false;
}

template <class Word>
void fused_sampler::draw_ahead(std::uint64_t first_id, const batch_shape& next, unsigned buffer) {
  // The next batch takes masks if the expected set does not change its mind: a pilot's does.
  const bool expected = mask_mode_ == mask_mode::on || expected_sets_take_masks();
  if (draw_stream_ == nullptr || !expected || second_refused_) return;
  const unsigned other = 1 - buffer;
  if (masks_[other].empty()) {
    // As the first, at most half the budget left (the request's sets are reserved by now: the
    // store's rest before this call, the bitmap before the request).
    const std::uint64_t bytes = masks_[buffer].size();
    if (bytes > budget_->available_bytes() / 2) {
      second_refused_ = true;
      return;
    }
    masks_[other] = device_buffer<unsigned char>(*budget_, bytes, "fused edge masks drawn ahead");
  }
  const kernels::fused_args<Word> a = batch_args<Word>(first_id, next.samples, next.groups, true, other);
  // After the work queued so far: the budget allocates and frees in the order of stream_, and this
  // batch's own draw then has the device to itself.
  WF_CUDA_CHECK(cudaEventRecord(ahead_start_, stream_));
  WF_CUDA_CHECK(cudaStreamWaitEvent(draw_stream_, ahead_start_, 0));
  WF_CUDA_CHECK(cudaMemsetAsync(a.draw_claims, 0, sizeof(unsigned long long), draw_stream_));
  // Pairs: quads beside the levels slowed them more than they drew faster (fused_draw_edge_masks).
  draw_kernel<Word>(false)
      <<<multiprocessor_count() * overlap_blocks_, kernels::fused_block_threads, 0, draw_stream_>>>(graph_, a);
  WF_CUDA_CHECK(cudaGetLastError());
  WF_CUDA_CHECK(cudaEventRecord(drawn_ahead_, draw_stream_));
  ahead_.valid = true;
  ahead_.first_id = first_id;
  ahead_.shape = next;
  ahead_.buffer = other;
}

template <class Word>
void fused_sampler::finish_draw_ahead() {
  // A full grid draws what the draw ahead has not claimed, beside its blocks, before this batch's
  // extraction: kernels that need more shared memory than the level kernels (CUB's scan) wait for
  // multiprocessors the draw ahead has left, so the extraction would wait for all of its draw
  // (H200, p = 0.2: 20 ms).
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[0], stream_));
  const kernels::fused_args<Word> a = batch_args<Word>(ahead_.first_id, ahead_.shape.samples, ahead_.shape.groups,
                                                       true, ahead_.buffer);
  draw_kernel<Word>(false)<<<mask_draw_grids_[0], kernels::fused_block_threads, 0, stream_>>>(graph_, a);
  WF_CUDA_CHECK(cudaGetLastError());
  WF_CUDA_CHECK(cudaStreamWaitEvent(stream_, drawn_ahead_, 0));
  if (profiling_) {
    WF_CUDA_CHECK(cudaEventRecord(events_[1], stream_));
    WF_CUDA_CHECK(cudaEventSynchronize(events_[1]));
    add_event_time(0, 1, profile_.masks_ms);
  }
}

template <class Target>
void fused_sampler::sample_batches(std::uint64_t first_id, std::uint64_t count, std::uint32_t group_cap,
                                   Target& target) {
  second_refused_ = false;
  for (std::uint64_t done = 0; done < count;) {
    const std::uint32_t mask_groups = mask_groups_for_next_batch(group_cap);
    const bool masks = mask_groups > 0;
    const batch_shape shape = shape_of(count - done, group_cap, mask_groups);
    const std::uint32_t batch = shape.samples;
    // This batch's masks were drawn ahead (the last batch started them), or a draw ahead for a
    // batch that turned out otherwise is waited for and left.
    const bool drawn = masks && ahead_.valid && ahead_.first_id == first_id + done &&
                       ahead_.shape.samples == batch && ahead_.shape.groups == shape.groups;
    if (!drawn) drop_draw_ahead();
    const unsigned buffer = drawn ? ahead_.buffer : 0;
    ahead_.valid = false;
    // Once the batch's first levels are queued: room for the rest of the request at the mean set
    // so far (a tenth more), once, where the budget affords it: dense batches hold billions of
    // members, and the store grew by half batch after batch, each time a new block and a copy of
    // every member held (topcats-like at p = 0.2: 8.4 GB after the first of two batches of 2,048
    // sets). Mapping the block keeps the host ~1.3 ms a GB (H200: 23.7 ms for the rest of 4,096
    // sets at p = 0.2), which left the GPU idle when it came before the launches. Then the next
    // batch's masks start drawing beside this batch's levels.
    const auto queued = [&](auto word) {
      using Word = decltype(word);
      if constexpr (std::is_same_v<Target, rr_store>) {
        if (expected_set_size_ >= 0 && count - done > batch)
          target.reserve_ahead(count - done,
                               static_cast<std::uint64_t>(1.1 * expected_set_size_ * static_cast<double>(count - done)),
                               stream_);
      }
      if (masks && count - done > batch)
        draw_ahead<Word>(first_id + done + batch, shape_of(count - done - batch, group_cap, mask_groups), buffer);
    };
    const std::size_t extract_events = events_per_level * max_poll_levels + 2;
    std::uint64_t members = 0;
    if (word_bytes_ == 8) {
      const auto a = traverse<unsigned long long>(first_id + done, shape, masks, buffer, drawn, queued);
      if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[extract_events], stream_));
      members = extract(a, target);
    } else {
      const auto a = traverse<unsigned>(first_id + done, shape, masks, buffer, drawn, queued);
      if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[extract_events], stream_));
      members = extract(a, target);
    }
    expected_set_size_ = static_cast<double>(members) / batch;
    if (profiling_) {
      WF_CUDA_CHECK(cudaEventRecord(events_[extract_events + 1], stream_));
      WF_CUDA_CHECK(cudaEventSynchronize(events_[extract_events + 1]));
      add_event_time(extract_events, extract_events + 1, profile_.extract_ms);
    }
    done += batch;
  }
  // The second mask buffer goes back to the budget between requests: the sets' memory for a
  // request is reserved before its first draw ahead, but later phases (the index, selection, the
  // next request's store) may need it.
  drop_draw_ahead();
  masks_[1].reset();
}

template <class Word>
void fused_sampler::launch_level(kernels::fused_args<Word> a, std::uint32_t level) {
  // Level L expands the slots queued by level L - 1 (the roots for L = 0) into the other buffers.
  Word* masks[2] = {reinterpret_cast<Word*>(current_.data()), reinterpret_cast<Word*>(next_.data())};
  std::uint32_t* queues[2] = {queue_.data(), next_queue_.data()};
  a.current = masks[level % 2];
  a.next = masks[(level + 1) % 2];
  a.queue = queues[level % 2];
  a.next_queue = queues[(level + 1) % 2];
  // Once a draw ahead has started (this batch's ahead_), the rest of the levels leave it room.
  const level_grids& grids = ahead_.valid ? beside_grids_ : grids_;
  a.counts = counters_.data() + 2 * (level % 3);
  a.next_light = counters_.data() + 2 * ((level + 1) % 3);
  a.next_heavy = a.next_light + 1;
  a.stale_counts = counters_.data() + 2 * ((level + 2) % 3);
  a.padded = a.chunked && level > 0;  // the roots are queued unpadded
  const std::size_t event = events_per_level * (level % max_poll_levels);
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[event], stream_));
  if (a.masks != nullptr) {
    if (a.chunked) {
      kernels::fused_chunk_light<Word><<<grids.chunk_light, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
      WF_CUDA_CHECK(cudaGetLastError());
      // Returns at once unless the level pulls (kernels::pulls), when the light and heavy kernels
      // do; the profile counts it as light.
      if (a.pull_segments > 0 && kernels::pull_lanes_fit<Word>(a.mask_edge_stride)) {
        kernels::fused_chunk_pull<Word, unsigned long long>
            <<<grids.pull_wide, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
      } else if (a.pull_segments > 0) {
        kernels::fused_chunk_pull<Word, Word><<<grids.pull, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
      }
    } else {
      kernels::fused_mask_light<Word><<<grids.mask_light, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    }
    WF_CUDA_CHECK(cudaGetLastError());
    if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[event + 1], stream_));
    if (a.chunked) {
      kernels::fused_chunk_heavy<Word><<<grids.chunk_heavy, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    } else {
      kernels::fused_mask_heavy<Word><<<grids.mask_heavy, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    }
    WF_CUDA_CHECK(cudaGetLastError());
    kernels::fused_settle_level<Word><<<grids.mask_settle, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    WF_CUDA_CHECK(cudaGetLastError());
  } else if (params_.model == diffusion_model::ic) {
    kernels::fused_ic_light<Word><<<grids.light, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    WF_CUDA_CHECK(cudaGetLastError());
    if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[event + 1], stream_));
    kernels::fused_ic_heavy<Word><<<grids.heavy, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    WF_CUDA_CHECK(cudaGetLastError());
  } else {
    kernels::fused_lt<Word><<<grids.light, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    WF_CUDA_CHECK(cudaGetLastError());
    if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[event + 1], stream_));
  }
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[event + 2], stream_));
}

template <class Word>
kernels::fused_args<Word> fused_sampler::batch_args(std::uint64_t first_id, std::uint32_t num_samples,
                                                    std::uint32_t groups, bool masks, unsigned buffer) const {
  kernels::fused_args<Word> a{};
  a.seed = params_.seed;
  a.mean_roots = params_.mean_roots;
  a.first_id = first_id;
  a.num_samples = num_samples;
  a.colours = colours_;
  a.words = words_;
  a.num_groups = groups;
  a.blocks = params_.model == diffusion_model::ic ? blocks_ : ic_block_view{};
  a.rules = rules_.data();
  a.masks = masks ? reinterpret_cast<const Word*>(masks_[buffer].data()) : nullptr;
  a.chunked = masks && groups * words_ % 32 == 0;
  a.mask_slot_stride = a.chunked ? 1 : graph_.num_edges;
  a.mask_edge_stride = a.chunked ? static_cast<std::uint64_t>(groups) * words_ : 1;
  a.draw_claims = draw_claims_.data() + buffer;
  return a;
}

template <class Word, class Queued>
kernels::fused_args<Word> fused_sampler::traverse(std::uint64_t first_id, const batch_shape& shape, bool masks,
                                                  unsigned buffer, bool drawn, Queued&& queued) {
  const std::uint64_t n = graph_.num_vertices;
  const std::uint32_t num_samples = shape.samples;
  const std::uint64_t slots = n * words_ * shape.groups;
  kernels::fused_args<Word> a = batch_args<Word>(first_id, num_samples, shape.groups, masks, buffer);
  a.keys = keys_.data();
  a.visited = reinterpret_cast<Word*>(visited_.data());
  a.touched = touched_.data();
  // The roots are level 0's frontier: launch_level(0) reads current_ / queue_ / ring entry 0.
  a.current = reinterpret_cast<Word*>(next_.data());
  a.next = reinterpret_cast<Word*>(current_.data());
  a.queue = next_queue_.data();
  a.next_queue = queue_.data();
  a.queue_capacity = queue_.size();
  a.next_light = counters_.data();
  a.next_heavy = counters_.data() + 1;
  a.queue_places = counters_.data() + 6;  // after the ring of three (light, heavy) entries
  a.edges_examined = examined_.data();
  a.stats = examined_.data() + 1;
  a.heavy = masks ? mask_heavy_.data() : heavy_.data();
  // Chunked levels pull when they queue at least pull_share_ of the batch's slots (WF_FUSED_PULL);
  // the count is the queue's, padding included.
  a.pull_first = pull_first_.data();
  a.pull_segments = a.chunked ? pull_first_.size() : 0;
  a.pull_from = a.pull_segments == 0 ? 0xffffffffU
                : static_cast<unsigned>(std::max<double>(std::ceil(pull_share_ * static_cast<double>(slots)), 1));
  // Pushing levels that queue less than touch_share_ of the slots settle only the regions their
  // reductions touched (WF_FUSED_TOUCH).
  const double touch_below = std::ceil(touch_share_ * static_cast<double>(slots));
  a.touch_below = static_cast<unsigned>(std::min<double>(touch_below, 0xffffffffU));
  a.buffer_flush = buffer_flush_;
  a.live_capacity = late_queue_ ? late_live_capacity : kernels::fused_live_capacity;
  a.live_resolve = late_queue_ ? late_live_resolve : kernels::fused_live_resolve;
  const std::size_t setup_events = events_per_level * max_poll_levels;
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[setup_events], stream_));
  if (slots > 0) {
    WF_CUDA_CHECK(cudaMemsetAsync(a.visited, 0, slots * sizeof(Word), stream_));
    WF_CUDA_CHECK(cudaMemsetAsync(current_.data(), 0, slots * sizeof(Word), stream_));
    WF_CUDA_CHECK(cudaMemsetAsync(next_.data(), 0, slots * sizeof(Word), stream_));
  }
  WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, counters_.bytes(), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(examined_.data(), 0, examined_.bytes(), stream_));

  kernels::fused_roots<Word><<<blocks_for(num_samples), kernels::fused_block_threads, 0, stream_>>>(graph_, a);
  WF_CUDA_CHECK(cudaGetLastError());
  const std::size_t mask_event = events_per_level * max_poll_levels + 4;
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[mask_event], stream_));
  if (masks) {
    if (!drawn) {  // drawn ahead: finish_draw_ahead drew the rest after the last batch's levels
      WF_CUDA_CHECK(cudaMemsetAsync(a.draw_claims, 0, sizeof(unsigned long long), stream_));
      const bool quads = a.chunked && quads_alone_;
      draw_kernel<Word>(quads)<<<mask_draw_grids_[quads], kernels::fused_block_threads, 0, stream_>>>(graph_, a);
      WF_CUDA_CHECK(cudaGetLastError());
    }
    ++profile_.mask_batches;
    if (a.chunked) ++profile_.chunked_batches;
    if (drawn) ++profile_.drawn_ahead_batches;
  }
  if (profiling_) WF_CUDA_CHECK(cudaEventRecord(events_[setup_events + 1], stream_));
  // Levels are queued a chunk at a time; the ring entry the next level would read tells whether
  // the traversal has ended (empty levels past the end do nothing and keep it empty).
  std::uint32_t level = 0;
  for (std::uint32_t chunk = first_poll_levels;; chunk = std::min(2 * chunk, max_poll_levels)) {
    const std::uint32_t chunk_first = level;
    for (std::uint32_t i = 0; i < chunk; ++i) launch_level(a, level++);
    if (chunk_first == 0) queued(Word{});
    WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.data() + 2 * (level % 3), 2 * sizeof(unsigned),
                                  cudaMemcpyDeviceToHost, stream_));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ++profile_.polls;
    if (profiling_) {
      if (chunk_first == 0) {
        add_event_time(setup_events, mask_event, profile_.setup_ms);
        add_event_time(mask_event, setup_events + 1, profile_.masks_ms);
      }
      for (std::uint32_t l = chunk_first; l < level; ++l) {
        const std::size_t event = events_per_level * (l % max_poll_levels);
        add_event_time(event, event + 1, profile_.light_ms);
        add_event_time(event + 1, event + 2, profile_.heavy_ms);
      }
    }
    if (host_counters_[0] == 0 && host_counters_[1] == 0) break;
  }
  profile_.levels_launched += level;
  if (ahead_.valid) finish_draw_ahead<Word>();
  if (masks) {  // the levels under the masks leave the edges examined to this count
    kernels::fused_count_member_in_edges<Word><<<grids_.mask_settle, kernels::fused_block_threads, 0, stream_>>>(graph_, a);
    WF_CUDA_CHECK(cudaGetLastError());
  }

  WF_CUDA_CHECK(cudaMemcpyAsync(host_stats_, examined_.data(), examined_.bytes(), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  edges_examined_ += host_stats_[0];
  const unsigned long long* stats = host_stats_ + 1;
  ++profile_.traversals;
  profile_.samples += num_samples;
  profile_.levels += stats[kernels::fused_stat_levels];
  profile_.max_levels = std::max<std::uint64_t>(profile_.max_levels, stats[kernels::fused_stat_levels]);
  profile_.light_slots += stats[kernels::fused_stat_light];
  profile_.heavy_slots += stats[kernels::fused_stat_heavy];
  profile_.items += stats[kernels::fused_stat_items];
  profile_.early_slots += stats[kernels::fused_stat_early];
  profile_.pulled_levels += stats[kernels::fused_stat_pulled];
  profile_.touched_levels += stats[kernels::fused_stat_touched];
  return a;  // the extraction reads the visited words (and the batch's shape) only
}

template <class Word>
std::uint64_t fused_sampler::extract(const kernels::fused_args<Word>& a, rr_store& store) {
  const std::uint32_t groups = a.num_groups;
  const std::uint32_t num_samples = a.num_samples;
  // Extraction: per-span popcounts, one scan, then a write pass that keeps each set sorted.
  const std::uint64_t cells = static_cast<std::uint64_t>(groups) * colours_ * spans_;
  WF_CUDA_CHECK(cudaMemsetAsync(span_counts_.data() + cells, 0, sizeof(std::uint32_t), stream_));
  const unsigned extract_blocks = blocks_for(static_cast<std::uint64_t>(groups) * spans_ * 32);
  kernels::fused_count_spans<Word><<<extract_blocks, kernels::fused_block_threads, 0, stream_>>>(graph_, a, spans_,
                                                                                                span_counts_.data());
  WF_CUDA_CHECK(cudaGetLastError());
  std::size_t scan_bytes = scan_scratch_.size();
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch_.data(), scan_bytes, span_counts_.data(),
                                              span_counts_.data(), cells + 1, stream_));
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_ + 2, span_counts_.data() + cells, sizeof(std::uint32_t),
                                cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const std::uint64_t total = host_counters_[2];
  store.reserve(num_samples, total, stream_);
  kernels::fused_write_members<Word><<<extract_blocks, kernels::fused_block_threads, 0, stream_>>>(
      graph_, a, spans_, span_counts_.data(), store.members_end());
  WF_CUDA_CHECK(cudaGetLastError());
  kernels::fused_append_offsets<<<blocks_for(num_samples), kernels::fused_block_threads, 0, stream_>>>(
      span_counts_.data(), spans_, num_samples, store.num_members(), store.offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  store.commit(num_samples, total);
  return total;
}

template <class Word>
std::uint64_t fused_sampler::extract(const kernels::fused_args<Word>& a, rr_bitmap& bitmap) {
  // examined_ now counts the batch's members (its edge count was read by traverse).
  WF_CUDA_CHECK(cudaMemsetAsync(examined_.data(), 0, sizeof(unsigned long long), stream_));
  const std::uint64_t slots = static_cast<std::uint64_t>(a.num_groups) * graph_.num_vertices * words_;
  if (slots > 0) {
    kernels::fused_or_into_bitmap<Word><<<blocks_for(slots), kernels::fused_block_threads, 0, stream_>>>(
        graph_, a, bitmap.view(), bitmap.num_sets(), examined_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long members = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&members, examined_.data(), sizeof(members), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  bitmap.commit(a.num_samples, members);
  return members;
}

}  // namespace wildfire::cuda
