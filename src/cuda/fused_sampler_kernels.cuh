// Fused multi-colour RR traversal in the spirit of fused BPT (Neff et al., sections 3 and 4.2):
// C samples ("colours") of a group share one level-synchronous frontier; each vertex holds a
// colour bitmask in 32- or 64-bit words (8 or 16 colours: the low bits of one 32-bit word). A colour is marked visited at discovery by an atomicOr
// that returns the old bits, so a (vertex, colour) enters the frontier once (digest section
// 3.5). Frontier entries are (group, vertex, word) slots, binned by in-degree: light slots are
// expanded a warp per 32 slots with their work items flattened over the lanes, heavy slots a
// block each. Every (edge, colour) draws its own counter-hash number, as the unfused traversal does.
// Under IC, a vertex of the block rule (random/ic_block_rule.hpp) has one work item per (block,
// colour) instead of per edge: the item draws that colour's live count and slots in the block,
// which the warp stages in shared memory and then resolves together (live_stage): the colour is
// set at each live edge's source.
// Levels run without a host round trip: a level's kernels read its slot counts from a device ring
// of three (light, heavy) pairs (level L reads entry L % 3, queues into entry (L + 1) % 3, and its
// first kernel clears entry (L + 2) % 3 for level L + 1), on persistent grids, so the launcher
// queues several levels and polls the ring once for all of them. Included only by fused_sampler.cu.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "cuda/bitmap_coverage.hpp"
#include "cuda/fused_sampler.hpp"
#include "cuda/warp_primitives.cuh"

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"

namespace wildfire::cuda::kernels {

inline constexpr unsigned fused_full_warp = 0xffffffffU;
inline constexpr unsigned fused_block_threads = 256;
/// In-degree from which a frontier slot is expanded by a whole block.
inline constexpr std::uint64_t fused_heavy_degree = 512;

/// The state of one batch of `num_groups` groups of `colours` samples.
template <class Word>
struct fused_args {
  std::uint64_t seed;
  double mean_roots;
  std::uint64_t first_id;
  std::uint32_t num_samples;      // active samples: batch-local 0 .. num_samples - 1
  std::uint32_t colours;          // per group, a multiple of the word width
  std::uint32_t words;            // colours / bits of Word
  std::uint32_t num_groups;
  std::uint64_t* keys;            // per batch-local sample
  Word* visited;                  // slot (v * num_groups + g) * words + w (slot_of)
  Word* current;                  // colours to expand from the slot at this level
  Word* next;                     // colours discovered at this level
  std::uint8_t* touched;          // edge masks: per region of next words, set where a pushing level
                                  //   reduced into it (touch_region; a settle pass clears those it reads)
  unsigned touch_below;           // edge masks: a pushing level that queues fewer slots marks the
                                  //   regions it reduces into, and only those are settled
  std::uint32_t* queue;           // this level's slots: light from the front, heavy from the back
  std::uint32_t* next_queue;
  std::uint64_t queue_capacity;   // num_groups * n * words
  const unsigned* counts;         // this level's (light, heavy) slot counts (ring entry L % 3)
  unsigned* next_light;           // counters of next_queue (ring entry (L + 1) % 3)
  unsigned* next_heavy;
  unsigned* stale_counts;         // ring entry (L + 2) % 3, cleared by the level's first kernel
  unsigned* queue_places;         // (light, heavy) places of a queue built after a pulling level,
                                  //   whose counts the ring holds already (fused_settle_level)
  unsigned long long* edges_examined;
  unsigned long long* stats;      // fused_stat_* counters of the batch
  ic_block_view blocks;           // IC: the block plan of the graph (device pointers)
  const uint2* rules;             // per vertex: (class, block size), as ic_rule_of needs them
  const std::uint8_t* heavy;      // per vertex: 1 if its slots are expanded a block each
  unsigned buffer_flush;          // fill from which a warp flushes its buffer (fused_buffer_flush)
  unsigned live_capacity;         // pairs a warp's live stage takes (fused_live_capacity)
  unsigned live_resolve;          // fill from which a warp resolves it (fused_live_resolve)
  const Word* masks;              // IC edge masks (fused_mask_kernels.cuh), or nullptr: draw per item
  bool chunked;                   // masks and num_groups * words a multiple of 32: queues by chunks
  bool padded;                    // chunked, past the roots' level: a warp's 32 queue entries are one
                                  //   chunk, lane l's its l-th slot or fused_no_slot (fused_settle_level)
  std::uint64_t mask_slot_stride; // the mask of (group, word) w, in-edge j: masks[(group * words + w) *
  std::uint64_t mask_edge_stride; //   mask_slot_stride + j * mask_edge_stride] (fused_mask_kernels.cuh)
  unsigned pull_from;             // chunked: queued slots (light + heavy) from which a level pulls
                                  //   (fused_chunk_pull; 0xffffffff: never)
  const std::uint32_t* pull_first; // source vertex of out-edge segment t's first edge (fused_pull_segment)
  std::uint64_t pull_segments;    // out-edge segments of fused_pull_segment edges
  unsigned long long* draw_claims; // the mask draw's next unclaimed task (fused_draw_edge_masks)
};

/// Tasks (unit, tile) a warp of the mask draw claims at once (fused_draw_edge_masks; four were slower).
inline constexpr unsigned fused_draw_claim = 1;

/// Whether a level whose queue holds `queued` slots (light and heavy) pulls (fused_chunk_pull)
/// instead of pushing from them.
template <class Word>
__device__ __forceinline__ bool queue_pulls(const fused_args<Word>& a, unsigned queued) {
  return a.chunked && queued != 0 && queued >= a.pull_from;
}

/// Whether this level pulls (its queue counts are a.counts).
template <class Word>
__device__ __forceinline__ bool pulls(const fused_args<Word>& a) {
  return queue_pulls(a, a.counts[0] + a.counts[1]);
}

/// A queue entry that holds no slot (a chunked queue's padding, fused_settle_level).
inline constexpr std::uint32_t fused_no_slot = 0xffffffffU;  // slots stay below 2^32 - 2

/// Slot of word w of vertex v in group `group`: vertex-major, so that a vertex's words of every
/// group of the batch share cache lines. Hubs are the sources of many live edges in every group;
/// group-major, 64 groups put each hub's words in 64 scattered sectors, and the hot words of a
/// few thousand hubs outgrow the L2 (they fit it vertex-major, 4 lines per hub at 64 groups).
template <class Word>
__device__ __forceinline__ std::uint64_t slot_of(const fused_args<Word>& a, std::uint64_t group, std::uint64_t v,
                                                 std::uint32_t w) {
  return (v * a.num_groups + group) * a.words + w;
}

/// The vertex, group and word of a 32-bit slot id (the inverse of slot_of).
struct slot_place {
  std::uint32_t v;
  std::uint32_t group;
  std::uint32_t w;
};
template <class Word>
__device__ __forceinline__ slot_place place_of(const fused_args<Word>& a, std::uint32_t slot) {
  const std::uint32_t vertex_slot = slot / a.words;
  const std::uint32_t v = vertex_slot / a.num_groups;
  return slot_place{v, vertex_slot - v * a.num_groups, slot % a.words};
}

/// Counters in fused_args::stats (the launcher's profile): levels with work, slots expanded by the
/// light and the heavy kernels (or the LT kernel), IC work items, and slots that took colours
/// early (take_early, under the edge masks).
inline constexpr unsigned fused_stat_levels = 0;
inline constexpr unsigned fused_stat_light = 1;
inline constexpr unsigned fused_stat_heavy = 2;
inline constexpr unsigned fused_stat_items = 3;
inline constexpr unsigned fused_stat_early = 4;
inline constexpr unsigned fused_stat_pulled = 5;   // levels that pulled (fused_chunk_pull)
inline constexpr unsigned fused_stat_touched = 6;  // levels settled by touched regions (touches_regions)
inline constexpr unsigned fused_stat_count = 7;

/// The first kernel of a level, thread 0 of block 0: clears the ring entry level L + 1 will queue
/// into (level L - 1 read it and has finished) and counts the level.
template <class Word>
__device__ __forceinline__ void open_level(const fused_args<Word>& a, unsigned light, unsigned heavy,
                                           bool slots = true) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  a.stale_counts[0] = 0;
  a.stale_counts[1] = 0;
  if (light + heavy == 0) return;
  atomicAdd(a.stats + fused_stat_levels, 1ULL);
  if (!slots) return;  // queue entries with padding: the chunked kernels count the slots they expand
  atomicAdd(a.stats + fused_stat_light, static_cast<unsigned long long>(light));
  atomicAdd(a.stats + fused_stat_heavy, static_cast<unsigned long long>(heavy));
}

/// Whole warp, once per kernel (the grids are persistent): adds the lanes' edges examined, IC work
/// items and slots that took colours early to the batch's counters, one atomic each per warp.
template <class Word>
__device__ __forceinline__ void add_warp_counts(const fused_args<Word>& a, unsigned lane, std::uint64_t examined,
                                                std::uint64_t items, std::uint64_t early = 0) {
  examined = warp_sum(examined);
  items = warp_sum(items);
  early = warp_sum(early);
  if (lane == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
  if (lane == 0 && items != 0) atomicAdd(a.stats + fused_stat_items, static_cast<unsigned long long>(items));
  if (lane == 0 && early != 0) atomicAdd(a.stats + fused_stat_early, static_cast<unsigned long long>(early));
}

/// The same for a block whose counts thread 0 kept.
template <class Word>
__device__ __forceinline__ void add_block_counts(const fused_args<Word>& a, std::uint64_t examined,
                                                 std::uint64_t items, std::uint64_t early = 0) {
  if (threadIdx.x != 0) return;
  if (examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
  if (items != 0) atomicAdd(a.stats + fused_stat_items, static_cast<unsigned long long>(items));
  if (early != 0) atomicAdd(a.stats + fused_stat_early, static_cast<unsigned long long>(early));
}

/// Returns `*counter` + the calling lane's rank among the lanes that call it together, and adds
/// their number: one atomic per warp instead of one per lane. Dense frontiers queue millions of
/// slots per level through two counters, so per-lane atomics would serialise on them.
__device__ __forceinline__ unsigned warp_aggregated_increment(unsigned* counter) {
  const cooperative_groups::coalesced_group active = cooperative_groups::coalesced_threads();
  unsigned base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, active.size());
  return active.shfl(base, 0) + active.thread_rank();
}

/// Queues a slot: heavy (a block per slot) when its vertex's work reaches fused_heavy_degree
/// (fused_plan_vertices), else light.
template <class Word>
__device__ __forceinline__ void enqueue_slot(const fused_args<Word>& a, std::uint32_t* queue, unsigned* light,
                                             unsigned* heavy, std::uint32_t v, std::uint32_t slot) {
  if (a.heavy[v] != 0) {
    queue[a.queue_capacity - 1 - warp_aggregated_increment(heavy)] = slot;
  } else {
    queue[warp_aggregated_increment(light)] = slot;
  }
}

/// Thread per vertex, once per sampler: the rule a slot of v is expanded by (class and block size
/// of random/ic_block_rule.hpp; block 0 for the per-edge rule and LT) and whether its slots are
/// heavy: its work reaches fused_heavy_degree, the work being its in-degree under the per-edge rule
/// and LT, its blocks times 32 colours under the block rule. Saves the traversal a dependent read
/// (the first in-edge's threshold) per expanded slot and three per queued slot.
/// `mask_heavy`: the same under the edge masks (fused_mask_kernels.cuh), where a slot's work is its
/// in-degree whatever the rule.
__global__ void fused_plan_vertices(graph_view g, ic_block_view blocks, uint2* rules, std::uint8_t* heavy,
                                    std::uint8_t* mask_heavy) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t v = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < g.num_vertices;
       v += stride) {
    const std::uint64_t begin = g.in_offsets[v];
    const std::uint64_t degree = g.in_offsets[v + 1] - begin;
    const std::uint32_t cls = blocks.vertex_class != nullptr ? blocks.vertex_class[v] : per_edge_class;
    std::uint64_t block = 0;
    std::uint64_t work = degree;
    if (cls != per_edge_class && degree > 0) {
      block = ic_block_size(degree, g.in_thresholds[begin]);
      if (degree >= fused_heavy_degree) work = (degree + block - 1) / block * 32;
    }
    rules[v] = make_uint2(cls, static_cast<std::uint32_t>(block));  // block <= degree < 2^32
    heavy[v] = work >= fused_heavy_degree ? 1 : 0;
    mask_heavy[v] = degree >= fused_heavy_degree ? 1 : 0;
  }
}

/// Slots per warp in a level kernel's shared queue buffer, and the fill from which the warp
/// flushes it at its next convergence point (a resolve pass of 128 staged edges leaves room for
/// 128 discoveries; the launcher's "late" test mode flushes only full buffers, so that the direct
/// fallback runs).
inline constexpr unsigned fused_buffer_capacity = 256;
inline constexpr unsigned fused_buffer_flush = 128;

/// Where a warp queues the slots it discovers: straight into the next queue (buffer == nullptr:
/// the roots and LT), or into its shared-memory buffer (the IC kernels), which flush_slots moves to the next queue with one counter
/// atomic per class and 32 slots. Discoveries happen deep in divergent code, where few lanes
/// share a warp-aggregated atomic; dense levels queue hundreds of millions of slots through two
/// counters. A full buffer falls back to the direct path.
struct slot_sink {
  std::uint32_t* buffer;
  unsigned* fill;  // may exceed the capacity: the excess went the direct way
};

template <class Word>
__device__ __forceinline__ void push_slot(const fused_args<Word>& a, const slot_sink& sink, std::uint32_t v,
                                          std::uint32_t slot) {
  if (sink.buffer != nullptr) {
    const unsigned position = atomicAdd(sink.fill, 1U);  // shared memory
    if (position < fused_buffer_capacity) {
      sink.buffer[position] = slot;
      return;
    }
  }
  enqueue_slot(a, a.next_queue, a.next_light, a.next_heavy, v, slot);
}

/// Whole warp, converged: moves the buffered slots to the next queue (light from the front, heavy
/// from the back) and empties the buffer, when it holds at least `at_least` slots.
template <class Word>
__device__ __forceinline__ void flush_slots(const fused_args<Word>& a, const slot_sink& sink, unsigned lane,
                                            unsigned at_least) {
  if (sink.buffer == nullptr) return;
  __syncwarp();  // the lanes' buffer writes are visible
  const unsigned fill = *sink.fill;
  if (fill < at_least || fill == 0) return;
  const unsigned count = fill < fused_buffer_capacity ? fill : fused_buffer_capacity;
  const unsigned below = (1U << lane) - 1U;
  for (unsigned base = 0; base < count; base += 32) {
    const unsigned i = base + lane;
    const bool valid = i < count;
    const std::uint32_t slot = valid ? sink.buffer[i] : 0U;
    const bool heavy = valid && a.heavy[slot / a.words / a.num_groups] != 0;
    const unsigned heavy_mask = __ballot_sync(fused_full_warp, heavy);
    const unsigned light_mask = __ballot_sync(fused_full_warp, valid && !heavy);
    unsigned light_base = 0;
    unsigned heavy_base = 0;
    if (lane == 0 && light_mask != 0) light_base = atomicAdd(a.next_light, static_cast<unsigned>(__popc(light_mask)));
    if (lane == 0 && heavy_mask != 0) heavy_base = atomicAdd(a.next_heavy, static_cast<unsigned>(__popc(heavy_mask)));
    light_base = __shfl_sync(fused_full_warp, light_base, 0);
    heavy_base = __shfl_sync(fused_full_warp, heavy_base, 0);
    if (heavy) {
      a.next_queue[a.queue_capacity - 1 - (heavy_base + static_cast<unsigned>(__popc(heavy_mask & below)))] = slot;
    } else if (valid) {
      a.next_queue[light_base + static_cast<unsigned>(__popc(light_mask & below))] = slot;
    }
  }
  __syncwarp();  // every lane has read the buffer
  if (lane == 0) *sink.fill = 0;
  __syncwarp();
}

/// Records that colours `keep` reach vertex u in group `group`, word `w`: new ones join the next
/// frontier, and the slot is queued the first time it gets a colour at this level.
template <class Word>
__device__ __forceinline__ void discover(const fused_args<Word>& a, const slot_sink& sink, std::uint64_t slot,
                                         std::uint32_t u, Word keep) {
  const Word old = atomicOr(a.visited + slot, keep);
  const Word fresh = keep & ~old;
  if (fresh != 0 && atomicOr(a.next + slot, fresh) == 0) push_slot(a, sink, u, static_cast<std::uint32_t>(slot));
}

/// Thread per sample: the sample's key and its roots (Floyd, as the reference), which form the
/// first frontier (queued through next_queue, which the launcher then makes current).
template <class Word>
__global__ void fused_roots(graph_view g, fused_args<Word> a) {
  constexpr unsigned bits = sizeof(Word) * 8;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t s = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < a.num_samples;
       s += stride) {
    const std::uint64_t key = sample_key(a.seed, a.first_id + s);
    a.keys[s] = key;
    const std::uint64_t group = s / a.colours;
    const std::uint32_t colour = static_cast<std::uint32_t>(s % a.colours);
    const std::uint32_t w = colour / bits;
    const Word bit = Word{1} << (colour % bits);
    const std::uint32_t count = root_count(key, a.mean_roots, g.num_vertices);
    draw_distinct_roots(
        key, g.num_vertices, count,
        [&](std::uint32_t v) { return (__ldcg(a.visited + slot_of(a, group, v, w)) & bit) != 0; },
        [&](std::uint32_t v) {
          discover(a, slot_sink{nullptr, nullptr}, slot_of(a, group, v, w), v, bit);
        });
  }
}

template <class Word>
__device__ __forceinline__ unsigned popcount(Word x) {
  if constexpr (sizeof(Word) == 8) {
    return static_cast<unsigned>(__popcll(x));
  } else {
    return static_cast<unsigned>(__popc(x));
  }
}

template <class Word>
__device__ __forceinline__ unsigned lowest_bit(Word x) {
  if constexpr (sizeof(Word) == 8) {
    return static_cast<unsigned>(__ffsll(static_cast<long long>(x)) - 1);
  } else {
    return static_cast<unsigned>(__ffs(static_cast<int>(x)) - 1);
  }
}

/// IC, one in-edge j of v for the colours `frontier` of word w in `group` (per-edge rule).
template <class Word>
__device__ __forceinline__ void ic_edge(const graph_view& g, const fused_args<Word>& a, const slot_sink& sink,
                                        std::uint64_t group,
                                        std::uint32_t w, std::uint64_t j, Word frontier) {
  constexpr unsigned bits = sizeof(Word) * 8;
  const std::uint32_t u = g.in_sources[j];
  const std::uint64_t slot = slot_of(a, group, u, w);
  Word candidates = frontier & ~__ldcg(a.visited + slot);
  if (candidates == 0) return;
  const std::uint32_t threshold = g.in_thresholds[j];
  const std::uint64_t* keys = a.keys + group * a.colours + static_cast<std::uint64_t>(w) * bits;
  Word keep = 0;
  while (candidates != 0) {
    const unsigned c = lowest_bit(candidates);
    candidates &= candidates - 1;
    if (ic_edge_live(keys[c], j, threshold)) keep |= Word{1} << c;
  }
  if (keep != 0) discover(a, sink, slot, u, keep);
}

/// Position of the n-th (from 0) set bit of x; n < popcount(x).
__device__ __forceinline__ unsigned nth_set_bit(unsigned long long x, unsigned n) {
  unsigned position = 0;
  for (unsigned width = 32; width > 0; width >>= 1) {
    const auto below = static_cast<unsigned>(__popcll(x & ((1ULL << width) - 1ULL)));
    if (n >= below) {
      n -= below;
      x >>= width;
      position += width;
    }
  }
  return position;
}

/// Where a slot's in-edges are and how they are drawn: block == 0 for the per-edge rule, else the
/// block size of random/ic_block_rule.hpp and the vertex's class (a vertex's in-degree is below
/// 2^32, fused_plan_vertices).
struct ic_slot_rule {
  std::uint64_t begin;
  std::uint64_t degree;
  std::uint32_t block;
  std::uint32_t cls;
};

template <class Word>
__device__ __forceinline__ ic_slot_rule ic_rule_of(const graph_view& g, const fused_args<Word>& a, std::uint32_t v) {
  const uint2 rule = a.rules[v];  // independent of the offsets: both loads are in flight at once
  const std::uint64_t begin = g.in_offsets[v];
  return ic_slot_rule{begin, g.in_offsets[v + 1] - begin, rule.y, rule.x};
}

/// Work items of a slot: its in-edges (per-edge rule) or (block, colour) pairs.
template <class Word>
__device__ __forceinline__ std::uint64_t ic_slot_items(const ic_slot_rule& r, Word frontier) {
  if (r.block == 0 || r.degree == 0) return r.degree;
  return std::uint64_t{static_cast<std::uint32_t>(r.degree - 1) / r.block + 1} * popcount(frontier);
}

/// Live (edge, colour) pairs of the block rule, staged per warp in shared memory between drawing
/// and resolving them. Resolving one is a chain of dependent loads: the edge's source, then the
/// source's visited word, then (if the colour is new there) the atomics. Done where the pair is
/// drawn, a lane waits out that chain alone while lanes without a live edge idle (Nsight Compute,
/// p = 0.2: 86% of the light kernel's stalls on it, 17 of 32 lanes active, 0.37 TB/s). Staged, the
/// whole warp resolves them fused_resolve_depth a lane at a time, their loads in flight together.
/// Entries: the in-CSR position and a tag (group * words + w) << 6 | colour bit.
/// (The launcher's "late" test mode shrinks the stage, so that every branch of stage_live runs.)
/// 320 pairs: five blocks of the light kernel fit an SM's shared memory (fused_light_min_blocks).
inline constexpr unsigned fused_live_capacity = 320;
/// Fill from which a warp resolves its stage: a round of up to 128 more pairs still fits.
inline constexpr unsigned fused_live_resolve = fused_live_capacity - 128;
/// Blocks of the light kernel an SM holds at least (registers capped at 48): the kernel waits on
/// memory, and 40 warps an SM that spill ~190 bytes beat 32 warps that spill less (H100, p = 0.2
/// and 0.1, 32 colours: 6-9% faster; 64 colours 2%).
inline constexpr int fused_light_min_blocks = 5;
/// Staged pairs a lane resolves per pass, their loads issued before any is used (H100, p = 0.2:
/// depth 2 as fast, 8 slower). A pass of 32 x depth pairs discovers at most that many slots, the
/// room fused_buffer_flush leaves.
inline constexpr unsigned fused_resolve_depth = 4;
static_assert(32 * fused_resolve_depth <= fused_buffer_capacity - fused_buffer_flush);

struct live_stage {
  std::uint64_t* edges;
  std::uint32_t* tags;
  unsigned fill;  // warp-uniform
};

/// A staged pair's slot at source u (its tag's group * words + w, laid out as slot_of) and colour.
template <class Word>
__device__ __forceinline__ std::uint64_t tagged_slot(const fused_args<Word>& a, std::uint32_t u, std::uint32_t tag) {
  return u * (static_cast<std::uint64_t>(a.num_groups) * a.words) + (tag >> 6);
}
template <class Word>
__device__ __forceinline__ Word tagged_bit(std::uint32_t tag) {
  return Word{1} << (tag & 63U);
}

/// Whole warp, converged: resolves the stage's pairs (the colour joins the source's next frontier
/// where it is new) and empties it.
template <class Word>
__device__ __forceinline__ void resolve_live(const graph_view& g, const fused_args<Word>& a, const slot_sink& sink,
                                             live_stage& stage, unsigned lane) {
  constexpr unsigned depth = fused_resolve_depth;
  __syncwarp();  // the lanes' stage writes are visible
  for (unsigned base = 0; base < stage.fill; base += 32 * depth) {
    flush_slots(a, sink, lane, a.buffer_flush);  // room for this pass's discoveries
    std::uint32_t source[depth];
    std::uint32_t tag[depth];
#pragma unroll
    for (unsigned r = 0; r < depth; ++r) {
      const unsigned e = base + r * 32 + lane;
      source[r] = e < stage.fill ? __ldg(g.in_sources + stage.edges[e]) : 0U;
      tag[r] = e < stage.fill ? stage.tags[e] : 0U;
    }
    Word word[depth];
#pragma unroll
    for (unsigned r = 0; r < depth; ++r) {
      const unsigned e = base + r * 32 + lane;
      word[r] = e < stage.fill ? __ldcg(a.visited + tagged_slot(a, source[r], tag[r])) : Word{0};
    }
#pragma unroll
    for (unsigned r = 0; r < depth; ++r) {
      const unsigned e = base + r * 32 + lane;
      const Word bit = tagged_bit<Word>(tag[r]);
      if (e < stage.fill && (word[r] & bit) == 0) discover(a, sink, tagged_slot(a, source[r], tag[r]), source[r], bit);
    }
  }
  __syncwarp();  // every lane has read the stage before it is written again
  stage.fill = 0;
}

/// A (block, colour) item after its count draw: how many of the block's edges are live, and what
/// picking them needs (the sample's key, the block's first edge and size) and the pairs' tag.
struct ic_counted_item {
  std::uint64_t key = 0;
  std::uint64_t first = 0;
  std::uint64_t size = 0;
  std::uint32_t tag = 0;
  std::uint32_t live = 0;
  std::uint32_t picks = 0;  // the count draw's low half (ic_block_counted)
};

/// IC, item `item` of a slot (group, word w, frontier colours): one in-edge for the per-edge
/// rule, resolved at once (live 0); otherwise the count draw of block item / |frontier| for the
/// item % |frontier|-th colour of the frontier. Block-major: a block's colours are neighbouring
/// lanes, whose staged pairs then share the block's sources (colour-major measured 6% slower).
template <class Word>
__device__ __forceinline__ ic_counted_item ic_item_count(const graph_view& g, const fused_args<Word>& a,
                                                         const slot_sink& sink, std::uint64_t group, std::uint32_t w,
                                                         const ic_slot_rule& r, Word frontier, std::uint64_t item) {
  constexpr unsigned bits = sizeof(Word) * 8;
  ic_counted_item d;
  if (r.block == 0) {
    ic_edge(g, a, sink, group, w, r.begin + item, frontier);
    return d;
  }
  const unsigned colours = popcount(frontier);
  // (block, colour rank) = (item / colours, item % colours), in 32 bits whenever the item fits them
  std::uint64_t block_index;
  unsigned colour_index;
  if (item <= 0xffffffffULL) {
    block_index = static_cast<std::uint32_t>(item) / colours;
    colour_index = static_cast<std::uint32_t>(item) - static_cast<std::uint32_t>(block_index) * colours;
  } else {
    block_index = item / colours;
    colour_index = static_cast<unsigned>(item % colours);
  }
  const unsigned c = nth_set_bit(static_cast<unsigned long long>(frontier), colour_index);
  d.first = r.begin + block_index * r.block;
  d.size = ic_block_size_at(d.first, r.begin + r.degree, r.block);
  d.tag = static_cast<std::uint32_t>((group * a.words + w) << 6) | c;
  d.key = a.keys[group * a.colours + static_cast<std::uint64_t>(w) * bits + c];
  const ic_block_counted drawn =
      ic_block_live_count(d.key, d.first, ic_block_table(a.blocks, r.cls, d.size, r.block), d.size);
  d.live = drawn.count;
  d.picks = drawn.picks;
  return d;
}

/// Whole warp, converged, once per round: picks every lane's live edges (ic_block_live_slots, as the reference)
/// straight into the stage, resolving the stage first when they do not fit it and after when it
/// reaches a.live_resolve. A round with more pairs than the stage holds resolves them lane by
/// lane where they are drawn.
template <class Word>
__device__ __forceinline__ void stage_live(const graph_view& g, const fused_args<Word>& a, const slot_sink& sink,
                                           live_stage& stage, unsigned lane, const ic_counted_item& d) {
  const auto inclusive = static_cast<unsigned>(warp_inclusive_sum(d.live, lane));
  const unsigned total = __shfl_sync(fused_full_warp, inclusive, 31);
  if (total == 0) return;
  if (stage.fill + total > a.live_capacity) resolve_live(g, a, sink, stage, lane);
  if (total > a.live_capacity) {
    std::uint32_t drawn[block_cdf_length];
    ic_block_live_slots(*a.blocks.subsets, d.key, d.first, d.size, d.live, d.picks, drawn);
    const Word bit = tagged_bit<Word>(d.tag);
    for (std::uint32_t i = 0; i < d.live; ++i) {
      const std::uint32_t u = g.in_sources[d.first + drawn[i]];
      const std::uint64_t slot = tagged_slot(a, u, d.tag);
      if ((__ldcg(a.visited + slot) & bit) == 0) discover(a, sink, slot, u, bit);
    }
    return;
  }
  // The offsets go to the tags' places first (shared memory, no local array), then become edges.
  const unsigned position = stage.fill + inclusive - d.live;
  ic_block_live_slots(*a.blocks.subsets, d.key, d.first, d.size, d.live, d.picks, stage.tags + position);
  for (std::uint32_t i = 0; i < d.live; ++i) {
    stage.edges[position + i] = d.first + stage.tags[position + i];
    stage.tags[position + i] = d.tag;
  }
  stage.fill += total;
  if (stage.fill >= a.live_resolve) resolve_live(g, a, sink, stage, lane);
}

/// IC, light slots: a warp takes 32 slots and strides over the concatenation of their items. The
/// grid is persistent (the launcher does not know the level's counts); the level's first kernel.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads, fused_light_min_blocks) fused_ic_light(graph_view g,
                                                                                       fused_args<Word> a) {
  __shared__ std::uint32_t buffers[fused_block_threads / 32][fused_buffer_capacity];
  __shared__ unsigned fills[fused_block_threads / 32];
  __shared__ std::uint64_t live_edges[fused_block_threads / 32][fused_live_capacity];
  __shared__ std::uint32_t live_tags[fused_block_threads / 32][fused_live_capacity];
  const unsigned num_light = a.counts[0];
  open_level(a, num_light, a.counts[1]);
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  if (lane == 0) fills[threadIdx.x >> 5] = 0;
  __syncwarp();
  const slot_sink sink{buffers[threadIdx.x >> 5], &fills[threadIdx.x >> 5]};
  live_stage stage{live_edges[threadIdx.x >> 5], live_tags[threadIdx.x >> 5], 0};
  std::uint64_t examined = 0;
  std::uint64_t all_items = 0;
  for (std::uint64_t first = ((static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
       first < num_light; first += warps * 32) {
    ic_slot_rule rule{0, 0, 0, per_edge_class};
    std::uint64_t items = 0;
    std::uint32_t group = 0;
    std::uint32_t w = 0;
    Word frontier = 0;
    if (first + lane < num_light) {
      const std::uint32_t slot = a.queue[first + lane];  // slot ids are 32-bit: 32-bit divisions
      frontier = a.current[slot];
      a.current[slot] = 0;  // the slot is queued once per level and only this level reads it
      const slot_place place = place_of(a, slot);
      w = place.w;
      group = place.group;
      rule = ic_rule_of(g, a, place.v);
      items = ic_slot_items(rule, frontier);
      examined += rule.degree * popcount(frontier);  // edges examined: whole in-degree per colour
    }
    all_items += items;
    warp_expand(items, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
      const ic_slot_rule owner_rule{__shfl_sync(fused_full_warp, rule.begin, owner),
                                    __shfl_sync(fused_full_warp, rule.degree, owner),
                                    __shfl_sync(fused_full_warp, rule.block, owner),
                                    __shfl_sync(fused_full_warp, rule.cls, owner)};
      const std::uint32_t owner_group = __shfl_sync(fused_full_warp, group, owner);
      const std::uint32_t owner_w = __shfl_sync(fused_full_warp, w, owner);
      const Word owner_frontier = __shfl_sync(fused_full_warp, frontier, owner);
      ic_counted_item counted;
      if (valid) counted = ic_item_count(g, a, sink, owner_group, owner_w, owner_rule, owner_frontier, item);
      stage_live(g, a, sink, stage, lane, counted);
      flush_slots(a, sink, lane, a.buffer_flush);
    });
  }
  resolve_live(g, a, sink, stage, lane);
  flush_slots(a, sink, lane, 1);
  add_warp_counts(a, lane, examined, all_items);
}

/// IC, heavy slots (queued from the back of the queue): a block per slot, its threads striding
/// over the slot's items; a persistent grid striding over the level's heavy slots.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_ic_heavy(graph_view g, fused_args<Word> a) {
  __shared__ Word frontier;
  __shared__ std::uint32_t slot;
  __shared__ std::uint32_t buffers[fused_block_threads / 32][fused_buffer_capacity];
  __shared__ unsigned fills[fused_block_threads / 32];
  __shared__ std::uint64_t live_edges[fused_block_threads / 32][fused_live_capacity];
  __shared__ std::uint32_t live_tags[fused_block_threads / 32][fused_live_capacity];
  const unsigned lane = threadIdx.x & 31;
  if (lane == 0) fills[threadIdx.x >> 5] = 0;
  __syncwarp();
  const slot_sink sink{buffers[threadIdx.x >> 5], &fills[threadIdx.x >> 5]};
  live_stage stage{live_edges[threadIdx.x >> 5], live_tags[threadIdx.x >> 5], 0};
  const unsigned num_heavy = a.counts[1];
  std::uint64_t examined = 0;  // thread 0's, added once per block
  std::uint64_t all_items = 0;
  for (std::uint64_t i = blockIdx.x; i < num_heavy; i += gridDim.x) {
    if (threadIdx.x == 0) {
      slot = a.queue[a.queue_capacity - 1 - i];
      frontier = a.current[slot];
      a.current[slot] = 0;
    }
    __syncthreads();
    const auto [v, group, w] = place_of(a, slot);
    const Word colours = frontier;
    const ic_slot_rule rule = ic_rule_of(g, a, v);
    const std::uint64_t items = ic_slot_items(rule, colours);
    // Warp-uniform trip counts, so that each warp can stage and flush after every round.
    for (std::uint64_t base = threadIdx.x - lane; base < items; base += blockDim.x) {
      ic_counted_item counted;
      if (base + lane < items) counted = ic_item_count(g, a, sink, group, w, rule, colours, base + lane);
      stage_live(g, a, sink, stage, lane, counted);
      flush_slots(a, sink, lane, a.buffer_flush);
    }
    if (threadIdx.x == 0) {
      examined += rule.degree * popcount(colours);
      all_items += items;
    }
    __syncthreads();  // before thread 0 overwrites the shared slot
  }
  resolve_live(g, a, sink, stage, lane);
  flush_slots(a, sink, lane, 1);
  add_block_counts(a, examined, all_items);
}

/// LT, a warp per slot (light and heavy alike): a warp scan of the cumulative in-weights, shared
/// by every colour; each colour's draw then finds its edge (the same as lt_chosen_in_edge). The
/// level's only kernel, on a persistent grid.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_lt(graph_view g, fused_args<Word> a) {
  constexpr unsigned bits = sizeof(Word) * 8;
  const unsigned num_light = a.counts[0];
  const unsigned num_heavy = a.counts[1];
  open_level(a, num_light, num_heavy);
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t entries = static_cast<std::uint64_t>(num_light) + num_heavy;
  std::uint64_t examined = 0;
  for (std::uint64_t i = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < entries;
       i += warps) {
    const std::uint64_t position = i < num_light ? i : a.queue_capacity - 1 - (i - num_light);
    const std::uint64_t slot = a.queue[position];
    const Word frontier = a.current[slot];
    __syncwarp();
    if (lane == 0) a.current[slot] = 0;
    const std::uint32_t w = static_cast<std::uint32_t>(slot % a.words);
    const std::uint64_t group = slot / a.words % a.num_groups;
    const std::uint32_t v = static_cast<std::uint32_t>(slot / a.words / a.num_groups);
    const std::uint64_t* keys = a.keys + group * a.colours + static_cast<std::uint64_t>(w) * bits;
    const std::uint64_t begin = g.in_offsets[v];
    const std::uint64_t end = g.in_offsets[v + 1];
    Word pending = frontier;
    std::uint64_t carry = 0;
    for (std::uint64_t chunk = begin; chunk < end && pending != 0; chunk += 32) {
      const std::uint64_t j = chunk + lane;
      const std::uint64_t weight = j < end ? threshold_weight(g.in_thresholds[j]) : 0;
      const std::uint64_t inclusive = carry + warp_inclusive_sum(weight, lane);
      Word unresolved = pending;
      while (unresolved != 0) {
        const unsigned c = lowest_bit(unresolved);
        unresolved &= unresolved - 1;
        const std::uint64_t draw = lt_vertex_draw(keys[c], v);
        const unsigned hit = __ballot_sync(fused_full_warp, j < end && draw < inclusive);
        if (hit != 0) {
          const unsigned winner = static_cast<unsigned>(__ffs(static_cast<int>(hit)) - 1);
          pending &= ~(Word{1} << c);
          if (lane == winner) {
            examined += j - begin + 1;
            const std::uint32_t u = g.in_sources[j];
            discover(a, slot_sink{nullptr, nullptr}, slot_of(a, group, u, w), u, Word{1} << c);
          }
        }
      }
      carry = __shfl_sync(fused_full_warp, inclusive, 31);
    }
    if (lane == 0) examined += (end - begin) * popcount(pending);  // colours that pick no edge read all
  }
  examined = warp_sum(examined);
  if (lane == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
}

/// Tiles of 32 vertices that the flat extraction takes a warp at a time (a span): a set's members
/// in a span are one run of the store, and the scan covers one count per (set, span). Spans of one
/// tile wrote 8 times the counts (459 MB a batch of 64 groups at 32 colours on topcats-like) and
/// runs of ~18 members.
inline constexpr unsigned fused_span_tiles = 8;
inline constexpr unsigned fused_span_vertices = fused_span_tiles * 32;

/// The flat extraction's walk, whole warps: a warp per (group, span), calling visit(group, span,
/// first), `first` being the lane's vertex in the span's first tile (span_words loads the span's
/// colour words). Warps side by side take one span's groups: slots are vertex-major, so they read
/// the same lines, which the L2 then serves; taking a group's spans in turn, each lane's 4-byte
/// word was a 32-byte sector of its own, read again by every group's warp much later.
template <class Word, class Visit>
__device__ __forceinline__ void for_each_group_span(const fused_args<Word>& a, std::uint64_t spans, Visit visit) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t work = static_cast<std::uint64_t>(a.num_groups) * spans;
  for (std::uint64_t i = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < work;
       i += warps) {
    const std::uint64_t span = i / a.num_groups;
    visit(i % a.num_groups, span, span * fused_span_vertices + lane);
  }
}

/// The visited words of word index w of group `group` at the lane's vertex of each of the span's
/// tiles (0 past the graph), all loads in flight before any is used.
template <class Word>
__device__ __forceinline__ void span_words(const graph_view& g, const fused_args<Word>& a, std::uint64_t group,
                                           std::uint64_t first, std::uint32_t w, Word (&words)[fused_span_tiles]) {
#pragma unroll
  for (unsigned t = 0; t < fused_span_tiles; ++t) {
    const std::uint64_t v = first + t * 32;
    words[t] = v < g.num_vertices ? a.visited[slot_of(a, group, v, w)] : Word{0};
  }
}

/// Colours of word index w that the batch holds: the word's width, or fewer with 8 or 16 colours.
template <class Word>
__device__ __forceinline__ unsigned colours_in_word(const fused_args<Word>& a, std::uint32_t w) {
  constexpr unsigned bits = sizeof(Word) * 8;
  return a.colours - w * bits < bits ? a.colours - w * bits : bits;
}

/// Extraction, pass 1: the size of every set's slice of every span goes to
/// span_counts[sample * spans + span] (the scan over these gives every member's position). Each
/// tile's 32 x 32 bit matrix of (vertex, colour) is transposed across the warp, so that lane c
/// counts colour c's members by popcounts: a ballot and a popcount per colour and tile made the
/// pass bound by issuing instructions (1.1 ms a batch of 64 groups at 32 colours on topcats-like,
/// p = 0.2, H200).
template <class Word>
__global__ void fused_count_spans(graph_view g, fused_args<Word> a, std::uint64_t spans, std::uint32_t* span_counts) {
  constexpr unsigned halves = sizeof(Word) / sizeof(std::uint32_t);  // 32-colour halves of a word
  const unsigned lane = threadIdx.x & 31;
  for_each_group_span(a, spans, [&](std::uint64_t group, std::uint64_t span, std::uint64_t first) {
    for (std::uint32_t w = 0; w < a.words; ++w) {
      Word words[fused_span_tiles];
      span_words(g, a, group, first, w, words);
      const unsigned in_word = colours_in_word(a, w);
      const std::uint64_t word_sample = group * a.colours + w * sizeof(Word) * 8;
#pragma unroll
      for (unsigned h = 0; h < halves; ++h) {
        unsigned count = 0;
#pragma unroll
        for (unsigned t = 0; t < fused_span_tiles; ++t) {
          const auto row = static_cast<std::uint32_t>(words[t] >> (32 * h));  // lane: vertex, bit: colour
          count += static_cast<unsigned>(__popc(warp_transpose_bits(row, lane)));
        }
        const unsigned colour = 32 * h + lane;
        if (colour < in_word) span_counts[(word_sample + colour) * spans + span] = count;
      }
    }
  });
}

/// Extraction, pass 2: for every colour, the ballot of its bit over each tile (its slice of that
/// RR set); each member lane writes its vertex at the span's scanned position plus the members of
/// the earlier tiles and of lower lanes, so every set comes out sorted ascending, a span's run from
/// one warp. Loading the word's positions at once (a lane's each, shuffled to the colours) instead
/// of each colour's before its writes made the pass slower (3.4 -> 4.3 ms a batch of 64 groups at
/// 32 colours, topcats-like, p = 0.2, H200), though a third of its stall samples wait on that load.
template <class Word>
__global__ void fused_write_members(graph_view g, fused_args<Word> a, std::uint64_t spans,
                                    const std::uint32_t* span_positions, std::uint32_t* members_out) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned lower_lanes = (1U << lane) - 1U;
  for_each_group_span(a, spans, [&](std::uint64_t group, std::uint64_t span, std::uint64_t first) {
    for (std::uint32_t w = 0; w < a.words; ++w) {
      Word words[fused_span_tiles];
      span_words(g, a, group, first, w, words);
      const std::uint64_t word_sample = group * a.colours + w * sizeof(Word) * 8;
      const unsigned in_word = colours_in_word(a, w);
      for (unsigned b = 0; b < in_word && word_sample + b < a.num_samples; ++b) {
        std::uint32_t position = span_positions[(word_sample + b) * spans + span];
#pragma unroll
        for (unsigned t = 0; t < fused_span_tiles; ++t) {
          const unsigned slice = __ballot_sync(fused_full_warp, ((words[t] >> b) & 1U) != 0);
          if (((slice >> lane) & 1U) != 0)
            members_out[position + __popc(slice & lower_lanes)] = static_cast<std::uint32_t>(first + t * 32);
          position += static_cast<std::uint32_t>(__popc(slice));
        }
      }
    }
  });
}

/// Bitmap extraction: thread per (group, vertex, word) slot. The word's bit j is batch-local
/// sample group * colours + w * bits + j, i.e. held set first_index + that sample (bits of
/// samples past the batch's end are never set). The word goes in shifted to those positions, over
/// one or two 64-bit bitmap words (atomicOr: when first_index is not a multiple of 64, two slots
/// share a bitmap word; a 64-bit word at a multiple of 64 owns its bitmap word and is stored).
/// `members` counts the set bits.
template <class Word>
__global__ void fused_or_into_bitmap(graph_view g, fused_args<Word> a, bitmap_view bitmap, std::uint64_t first_index,
                                     unsigned long long* members) {
  constexpr unsigned bits = sizeof(Word) * 8;
  const std::uint64_t slots = static_cast<std::uint64_t>(a.num_groups) * g.num_vertices * a.words;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long count = 0;
  for (std::uint64_t slot = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; slot < slots;
       slot += stride) {
    const auto word = static_cast<unsigned long long>(a.visited[slot]);
    if (word == 0) continue;
    count += static_cast<unsigned long long>(__popcll(word));
    const std::uint32_t w = static_cast<std::uint32_t>(slot % a.words);
    const std::uint64_t vertex_slot = slot / a.words;
    const std::uint64_t group = vertex_slot % a.num_groups;
    const std::uint64_t v = vertex_slot / a.num_groups;
    const std::uint64_t index = first_index + group * a.colours + static_cast<std::uint64_t>(w) * bits;
    const unsigned shift = static_cast<unsigned>(index % 64);
    if (bits == 64 && shift == 0) {
      bitmap.batch(index / 64)[v] = word;  // the whole bitmap word is this slot's: a plain store
      continue;
    }
    const unsigned long long low = word << shift;
    const unsigned long long high = shift == 0 ? 0ULL : word >> (64 - shift);
    if (low != 0) atomicOr(bitmap.batch(index / 64) + v, low);
    if (high != 0) atomicOr(bitmap.batch(index / 64 + 1) + v, high);
  }
  count = warp_sum(count);
  if ((threadIdx.x & 31) == 0 && count != 0) atomicAdd(members, count);
}

/// offsets_end[1 + s] = base + (start of sample s + 1) for the batch's active samples.
__global__ void fused_append_offsets(const std::uint32_t* span_positions, std::uint64_t spans, std::uint32_t num_samples,
                                     std::uint64_t base, std::uint64_t* offsets_end) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t s = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < num_samples;
       s += stride) {
    offsets_end[1 + s] = base + span_positions[(s + 1) * spans];
  }
}

}  // namespace wildfire::cuda::kernels
