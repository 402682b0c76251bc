// The fused IC traversal with edge masks: before a batch traverses, one kernel draws every in-edge's
// liveness for every colour of the batch, 32 colours a warp, into a colour word per (group, word,
// edge), the "mask"; the levels then propagate colours with bit operations alone (a frontier word
// ANDed with the edge's mask), with no random draw and no per-colour work.
//
// Why: the draw-per-item traversal (fused_sampler_kernels.cuh) makes, at every level, one item per
// (block, colour) of the colours that reach a vertex there, with its count draw, Floyd draw,
// staging and resolution; a vertex gains its colours over several levels, so its in-edges are
// drawn level after level with ~3 colours a time (p = 0.2, 32 colours, topcats-like). The masks
// draw each (block, colour) once, 32 colours a warp with no divergence but Floyd's, and leave the
// levels a coalesced read of sources and masks. They also draw for colours that never reach the
// vertex, and for vertices none reaches: worth it only where sets hold much of the graph (the
// launcher's choice, fused_sampler.cu).
// A level expands its queued slots into the sources' next words by non-returning atomicOr, then
// one pass over the slots settles what is new and queues it (fused_settle_level): the returning
// atomics and per-discovery queueing of the draw-per-item levels left these waiting on memory.
// A slot expanded at a level also takes the colours that reached it earlier in the same level
// (take_early): each set is the reachable set of its live edges whatever the order of expansion,
// and a vertex then expands fewer times.
// Batches whose (group, word) slots a vertex fill whole chunks of 32 go by chunks
// (fused_args::chunked): the settle pass queues a vertex's 32 slots side by side, and a warp
// expands them together, so that an in-edge costs the warp one source load, one line of masks
// (laid out edge-major) and reductions into one line of the source's slots, where a warp of 32
// unrelated slots scattered them over 32 (H200, p = 0.2, 32 colours: light 0.338 -> 0.207 s).
//
// The draws are those of random/ic_block_rule.hpp, so the sets are bit-for-bit those of every
// other traversal (ARCHITECTURE.md section 1). Included only by fused_sampler.cu.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/fused_sampler_kernels.cuh"
#include "cuda/warp_primitives.cuh"

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"

namespace wildfire::cuda::kernels {

/// Masks of group `group`, word w: in-edge j's (in-CSR position) at [j * mask_edge_stride]. Chunked
/// levels lay them edge-major (an edge's words of every group and word side by side, in slot_of's
/// order), so that a warp reads the 32 slots' masks of an edge as one line; other batches plane by
/// plane, a (group, word)'s masks side by side, as their light kernel reads a slot's in-edges
/// (edge-major measured slower there: light 0.430 against 0.330 s, H200, p = 0.2, 32 colours).
template <class Word>
__device__ __forceinline__ const Word* mask_words(const fused_args<Word>& a, std::uint64_t group, std::uint32_t w) {
  return a.masks + (group * a.words + w) * a.mask_slot_stride;
}

/// The colours a lane draws: colour `lane` of N consecutive units of a batch from `unit` (a unit
/// being 32 colours of a group's word, or half of a 64-bit one), their samples' keys and where
/// their masks go: edge j's of unit + c at word(c)[j * stride]. Edge-major masks (chunked batches,
/// `Adjacent`) hold an edge's units side by side, so that a lane stores its N words of an edge at
/// once; other layouts keep a pointer a unit.
template <unsigned N, bool Adjacent>
struct colour_set {
  std::uint64_t key[N];
  std::uint32_t* out[Adjacent ? 1 : N];
  bool side_by_side = false;  // !Adjacent, N == 2: out[1] == out[0] + 1 at an 8-byte boundary
  __device__ __forceinline__ std::uint32_t* word(unsigned c) const { return Adjacent ? out[0] + c : out[c]; }
};

/// The live bits of up to 32 consecutive in-edges from in-CSR position `start` (bit i: edge start +
/// i), for the lane's N colours, gathered block by block across vertices; flush() transposes the 32
/// lanes' bits into the edges' 32-colour masks (lane e stores edge e's) and starts the next round.
/// Packing small vertices' blocks into shared rounds, where each vertex took a round of its own,
/// halves the transposes (topcats-like: 2.3M rounds a unit, 1.0M packed; median in-degree 8):
/// H200, p = 0.2, masks 0.114 -> 0.089 s at 32 colours, 0.113 -> 0.093 s at 64.
/// A lane's store of 4 bytes writes a sector of its own (edges lie a row of units apart), which
/// the L2 merges with the other units' partial sectors; the levels beside a draw ahead contend
/// with those writes for the L2. An edge's words stored at once take fewer, fuller writes (H200,
/// topcats-like, p = 0.2, 32 colours: a pair as one 8-byte store instead of two, a batch's draw
/// 28.1 -> 27.5 ms, a pull beside the draw ahead 6.9 -> 6.5 ms, fused 0.142 -> 0.139-0.140 s).
template <unsigned N, bool Adjacent>
struct mask_round {
  std::uint64_t start;
  std::uint32_t fill = 0;
  std::uint32_t live[N] = {};
  __device__ __forceinline__ void flush(const colour_set<N, Adjacent>& set, std::uint64_t stride, unsigned lane) {
    if (fill == 0) return;
    std::uint32_t words[N];
#pragma unroll
    for (unsigned c = 0; c < N; ++c) words[c] = warp_transpose_bits(live[c], lane);
    if (lane < fill) {
      const std::uint64_t at = (start + lane) * stride;
      if constexpr (Adjacent && N == 4) {
        *reinterpret_cast<uint4*>(set.out[0] + at) = make_uint4(words[0], words[1], words[2], words[3]);
      } else if constexpr (N == 2) {
        if (set.side_by_side) {
          *reinterpret_cast<uint2*>(set.out[0] + at) = make_uint2(words[0], words[1]);
        } else {
          set.out[0][at] = words[0];
          set.out[1][at] = words[1];
        }
      } else {
#pragma unroll
        for (unsigned c = 0; c < N; ++c) set.word(c)[at] = words[c];
      }
    }
    start += fill;
    fill = 0;
#pragma unroll
    for (unsigned c = 0; c < N; ++c) live[c] = 0;
  }
  /// The next `size` edges' bits of every colour (size <= 32), after a flush where they do not fit.
  __device__ __forceinline__ void add(const std::uint32_t (&bits)[N], std::uint32_t size,
                                      const colour_set<N, Adjacent>& set, std::uint64_t stride, unsigned lane) {
    if (fill + size > 32) flush(set, stride, lane);
#pragma unroll
    for (unsigned c = 0; c < N; ++c) live[c] |= bits[c] << fill;
    fill += size;
  }
};

/// A count table's head (ic_table_head<8>) as two 16-byte loads: the tables are 64-byte aligned
/// (block_cdf_length entries each, from a device allocation).
__device__ __forceinline__ ic_table_head<8> load_table_head(const std::uint32_t* table) {
  const uint4 low = __ldg(reinterpret_cast<const uint4*>(table));
  const uint4 high = __ldg(reinterpret_cast<const uint4*>(table) + 1);
  return {{low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w}};
}

/// The live edges of a block of `size` <= 32 edges (code `code`) for the sample whose key is `key`,
/// as a bit set: its count from the table `table` (whose head is `head`), then the picks
/// (ic_block_live_bits). Whole warp, on one block: a small block takes the subset table's mask at
/// once when every lane's rank draw is exact by Lemire's first test (all but ~2^-16 of a warp's
/// blocks), a branch the warp takes together; otherwise ic_block_live_bits decides, with the same
/// result where the draw is exact.
__device__ __forceinline__ std::uint32_t draw_block_bits(const small_block_subsets& subsets, std::uint64_t key,
                                                         std::uint64_t code, std::uint32_t size,
                                                         const ic_table_head<8>& head, const std::uint32_t* table) {
  const std::uint64_t hash = coded_hash64(key, code);  // count draw: the count high, the picks low
  const auto picks = static_cast<std::uint32_t>(hash);
  const std::uint32_t k = ic_block_count(static_cast<std::uint32_t>(hash >> 32), head, table, size);
  if (size <= small_block_max) {
    const std::uint32_t entry = subsets.ranks[size][k];
    const std::uint64_t product = std::uint64_t{picks} * subset_count(entry);
    if (__all_sync(fused_full_warp, static_cast<std::uint32_t>(product) >= subset_count(entry)))
      return subsets.masks[subset_first(entry) + static_cast<std::uint32_t>(product >> 32)];
  }
  return ic_block_live_bits(subsets, key, code, size, k, picks);
}

/// Draws the masks of the in-edges of vertices first .. last - 1 for the lane's N colours (`set`)
/// into rounds of at most 32 consecutive edges of whole blocks (mask_round): each colour's live edges
/// block by block (ic_block_live_bits: a block of at most 12 edges from the subset table in
/// `subsets`, shared memory; a larger one by Floyd as a bit set; the per-edge rule edge by edge).
/// Blocks of more than 32 edges (weighted cascade's hubs): the warp clears the vertex's masks and
/// sets the live bits by atomicOr.
/// The kernel is bound by issuing instructions (Nsight Compute, H200, p = 0.2: IPC 3.3, issue slots
/// 83% busy). History (topcats-like, per vertex and 32 colours, Nsight Compute's counts): a hash per
/// Floyd pick, 1,142 warp instructions; element codes stepped instead of multiplied (ic_block_code),
/// 879; the picks from the count's hash (ic_batched_picks), 750, with Floyd's loop running as long as
/// the busiest lane's count (34% of the stall samples); blocks of at least 12 edges whose live edges
/// come from the subset table, 373 (one batch's draw 140.8 -> 74.0 ms, masks 0.218 -> 0.114 s:
/// blocks of 12 edges, not 5, and no loop over the picks); the count's head searched by halves and
/// a 32-bit block loop, 48 registers instead of 62 (masks 0.090 -> 0.081 s); rounds packed across
/// vertices and claimed tasks, 252. Of a block's ~90 instructions, ~35 were the loop, the rounds
/// and the vertex's control, the same for every colour, so a lane draws two colours: the control
/// and the per-vertex loads (offsets, rule, the count table's head) serve both (thirty-eighth
/// session: 28.9e9 -> 23.6e9 warp instructions a 64-group batch, its draw 44.0 -> 38.5 ms under
/// Nsight Compute at 64 registers, 4 blocks an SM instead of 5; fused 32 at p = 0.2 0.172 ->
/// 0.165 s); the subset mask in a branch the warp takes together (draw_block_bits) and C(s, k)
/// with the masks' start in one entry, 22.4e9 (37.0 ms). Held to 5 blocks an SM (48 registers,
/// spilling), the two colours were slower: 0.178 s. Four colours a lane (fused_draw_edge_masks'
/// quads) keep 64 registers: a batch's draw alone 27.5 -> 25.4 ms (fortieth session).
/// Sharing Floyd's loop out measured no faster when each pick
/// hashed: a round's blocks as one stream of draws per lane (0.43 against 0.33 s), the round's
/// counts first and then its picks (0.336 against 0.339 s), the warp hashing all the round's picks
/// 32 at a time from a shared-memory list (0.383 against 0.347 s).
template <unsigned N, bool Adjacent, class Word>
__device__ __forceinline__ void draw_tile_masks(const graph_view& g, const fused_args<Word>& a,
                                                const small_block_subsets& subsets,
                                                const colour_set<N, Adjacent>& set, std::uint64_t stride,
                                                std::uint32_t first, std::uint32_t last, unsigned lane) {
  std::uint64_t end = g.in_offsets[first];
  mask_round<N, Adjacent> round{end};
  std::uint32_t bits[N];
  for (std::uint32_t v = first; v < last; ++v) {
    const std::uint64_t begin = end;
    end = g.in_offsets[v + 1];
    if (begin == end) continue;
    const uint2 rule = a.rules[v];
    const std::uint32_t block = rule.y;
    if (block == 0) {  // the per-edge rule
      for (std::uint64_t j = begin; j < end; ++j) {
        const std::uint32_t threshold = __ldg(g.in_thresholds + j);
#pragma unroll
        for (unsigned c = 0; c < N; ++c) bits[c] = static_cast<std::uint32_t>(ic_edge_live(set.key[c], j, threshold));
        round.add(bits, 1, set, stride, lane);
      }
      continue;
    }
    if (block > 32) {
      round.flush(set, stride, lane);
      for (std::uint64_t j = begin + lane; j < end; j += 32) {
#pragma unroll
        for (unsigned c = 0; c < N; ++c) set.word(c)[j * stride] = 0;
      }
      __syncwarp();  // the clears are visible to the warp's atomics
#pragma unroll
      for (unsigned c = 0; c < N; ++c) {
        for (std::uint64_t at = begin; at < end; at += block) {
          std::uint32_t slots[block_cdf_length];
          const std::uint32_t k = ic_block_draw(set.key[c], a.blocks, rule.x, at, end, block, slots);
          for (std::uint32_t i = 0; i < k; ++i) atomicOr(set.word(c) + (at + slots[i]) * stride, 1U << lane);
        }
      }
      round.start = end;
      continue;
    }
    // The full blocks' count table, whose head every full block's count reads: loaded once a vertex.
    const std::uint32_t* const full_table = ic_block_table(a.blocks, rule.x, block, block);
    const ic_table_head<8> full_head = load_table_head(full_table);
    // The blocks' codes step from the vertex's first (ic_block_code), without multiplying; the
    // loop counts the edges left in 32 bits (in-degrees are below 2^32, as the rules assume), not
    // 64-bit positions.
    std::uint64_t code = ic_block_code(begin);
    const std::uint64_t block_step = element_code_step(std::uint64_t{block} << 21);
    std::uint32_t size = 0;
    for (auto left = static_cast<std::uint32_t>(end - begin); left != 0; left -= size, code += block_step) {
      size = left < block ? left : block;  // ic_block_size_at
      if (size == block) {
#pragma unroll
        for (unsigned c = 0; c < N; ++c) bits[c] = draw_block_bits(subsets, set.key[c], code, size, full_head, full_table);
      } else {  // the vertex's last block, shorter: its own table
        const std::uint32_t* const tail_table = ic_block_table(a.blocks, rule.x, size, block);
        const ic_table_head<8> tail_head = load_table_head(tail_table);
#pragma unroll
        for (unsigned c = 0; c < N; ++c) bits[c] = draw_block_bits(subsets, set.key[c], code, size, tail_head, tail_table);
      }
      round.add(bits, size, set, stride, lane);
    }
  }
  round.flush(set, stride, lane);
}

/// Draws the batch's masks before its first level: a warp per (set of units, tile of 32 vertices),
/// a unit being 32 colours of a group's word (a 32-bit word, or half of a 64-bit one), a lane
/// drawing a colour of each unit of the set (draw_tile_masks); sets vary fastest, so that warps
/// side by side read the same vertices' offsets, rules and thresholds. `Quads`: sets of four
/// units, side by side in edge-major masks only, stored 16 bytes a lane; else pairs in any layout
/// (8 bytes a lane where side by side). Quads draw a batch alone faster (H200, topcats-like, p =
/// 0.2, 32 colours: 27.5 -> 25.4 ms), but beside the levels they slowed them more (a pull 6.5 ->
/// 7.1 ms; p = 0.05, nine batches, seven drawn ahead: 0.610 -> 0.658 s with quads everywhere), so
/// a draw ahead and the grid that finishes it draw pairs (fused_sampler.cu; both: 0.136-0.137 s
/// against 0.138-0.139 s with pairs only).
/// Warps claim fused_draw_claim tasks at a time from a.draw_claims (zero before the first grid),
/// so that grids launched one after another on the same claims share the work: a small grid
/// draws the next batch's masks beside this batch's levels, and a full grid draws what is left
/// once they end (fused_sampler.cu). Claiming also balances the tiles' uneven work: alone, a
/// batch's draw went 40 -> 34 ms against a fixed stride of tasks a warp (H200, p = 0.2, 32
/// colours); claims of four tasks were slower (55 ms), as warps side by side then wrote lines
/// of the edge-major masks far apart in time. Each lane's keys are its samples' (sample_key, as
/// fused_roots computes it): the next batch's keys are not drawn yet. Colours past the batch's
/// samples draw with key 0 and are never read (no frontier holds them).
/// (Drawing lazily instead, per level for the slots that first join the frontier, drew as much,
/// since the 32 colours of a group reach nearly every vertex with in-edges at p = 0.2, and its
/// per-level pass over the queue cost 0.14 s more.)
template <class Word, bool Quads>
__global__ void __launch_bounds__(fused_block_threads) fused_draw_edge_masks(graph_view g, fused_args<Word> a) {
  constexpr unsigned halves = sizeof(Word) / sizeof(std::uint32_t);
  constexpr unsigned per_task = Quads ? 4 : 2;
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t units = static_cast<std::uint64_t>(a.num_groups) * a.words * halves;
  const std::uint64_t sets = (units + per_task - 1) / per_task;
  const std::uint64_t tiles = (static_cast<std::uint64_t>(g.num_vertices) + 31) / 32;
  const std::uint64_t tasks = sets * tiles;
  const std::uint64_t stride = a.mask_edge_stride * halves;  // 32-bit words from an edge's to the next's
  auto* const masks32 = reinterpret_cast<std::uint32_t*>(const_cast<Word*>(a.masks));
  // The small blocks' subset table, read at random by every lane: shared memory, not the L1.
  __shared__ small_block_subsets subsets;
  if (a.blocks.subsets != nullptr) {
    constexpr unsigned words = sizeof(small_block_subsets) / sizeof(std::uint32_t);
    const auto* const from = reinterpret_cast<const std::uint32_t*>(a.blocks.subsets);
    auto* const to = reinterpret_cast<std::uint32_t*>(&subsets);
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) to[i] = from[i];
  }
  __syncthreads();
  const auto claim = [&] {
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(a.draw_claims, static_cast<unsigned long long>(fused_draw_claim));
    return static_cast<std::uint64_t>(__shfl_sync(fused_full_warp, first, 0));
  };
  const auto key_of = [&](std::uint64_t unit) {  // unit = (group * words + w) * halves + half
    const std::uint64_t sample = unit * 32 + lane;
    return sample < a.num_samples ? sample_key(a.seed, a.first_id + sample) : std::uint64_t{0};
  };
  // Claims start at multiples of fused_draw_claim.
  for (std::uint64_t task = claim(); task < tasks;) {
    const std::uint64_t first_unit = task % sets * per_task;
    const std::uint64_t tile = task / sets;
    const auto first = static_cast<std::uint32_t>(tile * 32);
    const auto last = static_cast<std::uint32_t>(tile * 32 + 32 < g.num_vertices ? tile * 32 + 32 : g.num_vertices);
    if constexpr (Quads) {
      // Edge-major masks: a row of whole chunks holds a multiple of 32 units, so a task's units are
      // side by side at a multiple of 4 words.
      colour_set<4, true> set;
#pragma unroll
      for (unsigned c = 0; c < 4; ++c) set.key[c] = key_of(first_unit + c);
      set.out[0] = masks32 + first_unit;
      draw_tile_masks(g, a, subsets, set, stride, first, last, lane);
    } else {
      colour_set<2, false> pair;
#pragma unroll
      for (unsigned c = 0; c < 2; ++c) {
        const std::uint64_t unit = first_unit + c;
        pair.key[c] = key_of(unit);
        pair.out[c] = masks32 + (unit / halves * a.mask_slot_stride) * halves + unit % halves;
      }
      // Edge-major masks (chunked) hold the pair's words side by side: first_unit is even, and so
      // are the stride and the units of a row. A run-time flag, not colour_set<2, true>: compiled
      // so (58 registers) the pair draw measured no faster than two 4-byte stores (H200, p = 0.2:
      // 0.143 s against 0.143-0.144), with the flag 0.139-0.140 s against 0.142.
      pair.side_by_side = a.mask_slot_stride == 1 && stride % 2 == 0;
      // The second colour draws only where the batch has it: an odd number of units, as a pilot's
      // one group has, would otherwise draw twice its masks. A template argument, as the test in
      // the block loop was computed again at every block.
      if (first_unit + 1 < units) {
        draw_tile_masks(g, a, subsets, pair, stride, first, last, lane);
      } else {
        const colour_set<1, false> single{{pair.key[0]}, {pair.out[0]}};
        draw_tile_masks(g, a, subsets, single, stride, first, last, lane);
      }
    }
    if (++task % fused_draw_claim == 0) task = claim();
  }
}

/// Regions of next words the settle pass tests at once (a 16-byte load a lane), and regions a warp
/// settles at once (loads in flight, one queue reservation).
inline constexpr unsigned fused_settle_region_bytes = 32 * sizeof(uint4);
inline constexpr unsigned fused_settle_ahead = 2;

/// Whether this level marks the settle regions its reductions touch, so that its settle pass
/// reads only those (fused_settle_level): a pushing level that queues fewer than a.touch_below
/// slots. A level that queues many reaches most regions anyway, and the marks slowed its expansion
/// (H200, p = 0.2, 32 colours: a batch's densest pushing level 4.07 -> 4.26 ms, and with one group
/// and 128 vertices a region, the pilot's 0.34 -> 1.96 ms, every SM storing to a few lines).
template <class Word>
__device__ __forceinline__ bool touches_regions(const fused_args<Word>& a) {
  return a.counts[0] + a.counts[1] < a.touch_below;
}

/// A pushing kernel's expansion: body(std::true_type{}) where the level touches regions (`touch`,
/// touches_regions), else body(std::false_type{}), so that the expansion marks them or not by a
/// template argument (a test at every reduction spilled more registers from the light chunks' 32).
template <class Body>
__device__ __forceinline__ void with_region_flags(bool touch, Body body) {
  if (touch) {
    body(std::true_type{});
  } else {
    body(std::false_type{});
  }
}

/// Marks the settle region of `slot`'s next word as reduced into by this pushing level when it
/// touches regions (`Touch`, with_region_flags).
template <bool Touch, class Word>
__device__ __forceinline__ void touch_region(const fused_args<Word>& a, std::uint64_t slot) {
  if constexpr (Touch) a.touched[slot * sizeof(Word) / fused_settle_region_bytes] = 1;
}

/// In-edge j of v for the colours `frontier` of word w in `group`: the live ones (the edge's
/// mask) go into the source's next word by a reduction that returns nothing, so the lane never
/// waits for it (fused_settle_level finds what is new). Filtering them first by the source's
/// visited word, a dependent load, measured slower (H200, p = 0.2, 32 colours: 0.41 against 0.33 s;
/// 0.380 against 0.333 s read through the read-only cache with four rounds of loads in flight).
template <bool Touch, class Word>
__device__ __forceinline__ void mask_edge(const graph_view& g, const fused_args<Word>& a, std::uint64_t group,
                                          std::uint32_t w, std::uint64_t j, Word frontier) {
  // Both loads issue before either is used.
  const Word mask = __ldg(mask_words(a, group, w) + j * a.mask_edge_stride);
  const std::uint32_t u = __ldg(g.in_sources + j);
  const Word live = frontier & mask;
  if (live != 0) {
    const std::uint64_t slot = slot_of(a, group, u, w);
    atomicOr(a.next + slot, live);
    touch_region<Touch>(a, slot);
  }
}

/// The colours that reached `slot` earlier in this level (reductions into its next word by slots
/// expanded before it) and are not yet settled: they are settled here and join the slot's frontier
/// now, instead of waiting for the settle pass and the next level. A vertex reached at several
/// levels then expands fewer times: a CPU model of one chunk of 1,024 colours on topcats-like at
/// p = 0.2, 8,448 slots expanded at once, takes 100.6M in-edge expansions and 15 levels instead of
/// 195.5M and 18. The sets do not change: every colour that reaches the slot is still settled and
/// expanded exactly once (the settle pass finds next & ~visited, which leaves out what was taken
/// here), and the colours arriving after the load wait for the settle pass as before. Only the
/// expanding warp writes a slot's visited word during the level. The next word's load bypasses
/// L1, whose line may predate other SMs' reductions (a stale word only takes fewer colours early);
/// the visited word is loaded beside it, not after it, as the chunk's expansion waits for both.
/// `early_slots` counts the slots that took any (the profile's fused_stat_early).
template <class Word>
__device__ __forceinline__ Word take_early(const fused_args<Word>& a, std::uint32_t slot,
                                           std::uint64_t& early_slots) {
  const Word reached = __ldcg(a.next + slot);
  const Word settled = a.visited[slot];
  const Word early = reached & ~settled;
  if (early == 0) return 0;
  a.visited[slot] = settled | early;
  ++early_slots;
  return early;
}

/// Light slots under the masks, unchunked batches (fused_chunk_light takes the others): a warp
/// takes 32 slots and strides over the concatenation of their in-edges; the level's first kernel,
/// on a persistent grid (as fused_ic_light). Nsight Compute
/// finds it waiting on the mask and source loads (92% long-scoreboard stalls, 0.75 TB/s, p = 0.2),
/// yet four rounds of loads in flight a lane left it as fast (0.333 against 0.330 s). Its memory
/// tables: the loads miss the L2 (7% hits) and use 15 of a sector's 32 bytes, DRAM runs at 16% and
/// the L2's atomic units at 5%, so neither bandwidth nor the reductions bound it (the 7.3 GB of
/// masks outrunning the TLBs was a suspect, but 4 groups a batch instead of 64 left it as fast:
/// 0.303 against 0.330 s). Laying the masks out edge-major (an edge's words of every group side by
/// side, slot_of's order) measured slower here, 0.430 s: its 32 slots are unrelated.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_mask_light(graph_view g, fused_args<Word> a) {
  const unsigned num_light = a.counts[0];
  const bool touch = touches_regions(a);
  open_level(a, num_light, a.counts[1]);
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  std::uint64_t all_items = 0;
  std::uint64_t early_slots = 0;
  for (std::uint64_t first = ((static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
       first < num_light; first += warps * 32) {
    std::uint64_t begin = 0;
    std::uint64_t degree = 0;
    std::uint32_t group = 0;
    std::uint32_t w = 0;
    Word frontier = 0;
    if (first + lane < num_light) {
      const std::uint32_t slot = a.queue[first + lane];
      frontier = a.current[slot] | take_early(a, slot, early_slots);
      a.current[slot] = 0;  // this buffer is the next level's next words: all zero after the level
      const slot_place place = place_of(a, slot);
      w = place.w;
      group = place.group;
      begin = g.in_offsets[place.v];
      degree = g.in_offsets[place.v + 1] - begin;
    }
    all_items += degree;
    with_region_flags(touch, [&](auto marks) {
      warp_expand(degree, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
        const std::uint64_t owner_begin = __shfl_sync(fused_full_warp, begin, owner);
        const std::uint32_t owner_group = __shfl_sync(fused_full_warp, group, owner);
        const std::uint32_t owner_w = __shfl_sync(fused_full_warp, w, owner);
        const Word owner_frontier = __shfl_sync(fused_full_warp, frontier, owner);
        if (valid) mask_edge<decltype(marks)::value>(g, a, owner_group, owner_w, owner_begin + item, owner_frontier);
      });
    });
  }
  add_warp_counts(a, lane, 0, all_items, early_slots);
}

/// Heavy slots under the masks (in-degree of at least fused_heavy_degree, queued from the back),
/// unchunked batches: a block per slot, its threads striding over the in-edges; a persistent grid.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_mask_heavy(graph_view g, fused_args<Word> a) {
  const unsigned num_heavy = a.counts[1];
  const bool touch = touches_regions(a);
  __shared__ Word slot_colours;
  std::uint64_t all_items = 0;  // thread 0's, added once per block
  std::uint64_t early_slots = 0;
  for (std::uint64_t i = blockIdx.x; i < num_heavy; i += gridDim.x) {
    const std::uint32_t slot = a.queue[a.queue_capacity - 1 - i];
    if (threadIdx.x == 0) {
      slot_colours = a.current[slot] | take_early(a, slot, early_slots);
      a.current[slot] = 0;
    }
    __syncthreads();
    const Word colours = slot_colours;
    const auto [v, group, w] = place_of(a, slot);
    const std::uint64_t begin = g.in_offsets[v];
    const std::uint64_t degree = g.in_offsets[v + 1] - begin;
    with_region_flags(touch, [&](auto marks) {
      for (std::uint64_t e = threadIdx.x; e < degree; e += blockDim.x)
        mask_edge<decltype(marks)::value>(g, a, group, w, begin + e, colours);
    });
    if (threadIdx.x == 0) all_items += degree;
    __syncthreads();  // every thread has read the slot's colours before thread 0 takes the next
  }
  add_block_counts(a, 0, all_items, early_slots);
}

/// The settling of one slot whose next word is `reached`: the colours it gathered that it has not
/// settled become settled and its frontier for the next level (in the same word, which that level
/// reads as current). Returns them.
template <class Word>
__device__ __forceinline__ Word settle_word(const fused_args<Word>& a, std::uint64_t slot, Word reached) {
  if (reached == 0) return 0;
  const Word settled = a.visited[slot];
  const Word fresh = reached & ~settled;
  a.next[slot] = fresh;
  if (fresh != 0) a.visited[slot] = settled | fresh;
  return fresh;
}

/// One slot of the settle pass: settle_word (unless `settled`: after a pulling level the slot's
/// next word is its fresh colours already), and the slot is queued where it has fresh colours, its
/// place reserved on the counters `light` and `heavy`. Chunked (fused_args::chunked; whole warp),
/// the warp's 32 slots are 32 of one vertex's (group, word) slots: when any is new, the warp queues
/// all 32 side by side, fused_no_slot in place of the others.
template <class Word>
__device__ __forceinline__ void settle_slot(const fused_args<Word>& a, std::uint64_t slot, Word reached, bool settled,
                                            unsigned* light, unsigned* heavy) {
  const Word fresh = settled ? reached : settle_word(a, slot, reached);
  const auto id = static_cast<std::uint32_t>(slot);
  if (!a.chunked) {
    if (fresh != 0) enqueue_slot(a, a.next_queue, light, heavy, place_of(a, id).v, id);
    return;
  }
  if (__ballot_sync(fused_full_warp, fresh != 0) == 0) return;
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t v = place_of(a, id).v;  // the chunk's
  const bool is_heavy = a.heavy[v] != 0;
  unsigned base = 0;
  if (lane == 0) base = atomicAdd(is_heavy ? heavy : light, 32U);
  base = __shfl_sync(fused_full_warp, base, 0);
  const std::uint32_t entry = fresh != 0 ? id : fused_no_slot;
  a.next_queue[is_heavy ? a.queue_capacity - 1 - (base + lane) : base + lane] = entry;
}

/// Whether the level after this one pulls: its queue counts (the ring entry this level queues
/// into) are final once this level's expanding kernels have run.
template <class Word>
__device__ __forceinline__ bool next_level_pulls(const fused_args<Word>& a) {
  return queue_pulls(a, *a.next_light + *a.next_heavy);
}

/// Whole warp, once per kernel of a pulling level: the warp's fresh chunks of light and heavy
/// sources (warp-uniform counts) into the next level's ring entry, 32 queue entries a chunk.
template <class Word>
__device__ __forceinline__ void add_fresh_chunks(const fused_args<Word>& a, unsigned lane, unsigned light,
                                                 unsigned heavy) {
  if (lane == 0 && light != 0) atomicAdd(a.next_light, 32U * light);
  if (lane == 0 && heavy != 0) atomicAdd(a.next_heavy, 32U * heavy);
}

/// Regions of next words a warp settles together (settle_regions).
struct settle_places {
  std::uint64_t region[fused_settle_ahead];
};

/// Whole warp: settles the regions at.region[i] of next words whose bit i of `valid` (warp-uniform)
/// is set, after a pulling level (`pulled`: the next words are fresh colours already, and the
/// frontier words are cleared here) or a pushing one, queueing their fresh slots on `light` and
/// `heavy`. Warp-uniform control throughout: chunked, a region is whole chunks (settle_slot's ballot).
template <class Word>
__device__ __forceinline__ void settle_regions(const fused_args<Word>& a, settle_places at, unsigned valid, bool pulled,
                                               unsigned* light_places, unsigned* heavy_places, unsigned lane) {
  constexpr unsigned per_lane = sizeof(uint4) / sizeof(Word);  // slots a lane's load covers
  constexpr std::uint64_t region = 32 * per_lane;
  const auto* const words = reinterpret_cast<const uint4*>(a.next);  // the buffer is 256-byte aligned
  auto* const frontier_words = reinterpret_cast<uint4*>(a.current);
  uint4 loaded[fused_settle_ahead];
#pragma unroll
  for (unsigned i = 0; i < fused_settle_ahead; ++i) {
    const bool inside = ((valid >> i) & 1U) != 0;
    loaded[i] = inside ? words[at.region[i] * 32 + lane] : make_uint4(0, 0, 0, 0);
    if (inside && pulled) frontier_words[at.region[i] * 32 + lane] = make_uint4(0, 0, 0, 0);
  }
  // Chunked, the warp queues the chunks of its regions that took fresh colours with one
  // reservation per kind (light, heavy) instead of one per chunk: every warp reserves on the same
  // two counters, and a dense level's 3.6M reservations one by one took ~1.5 ms of atomics on one
  // L2 address (H200, p = 0.2, 32 colours).
  constexpr unsigned chunks = fused_settle_ahead * per_lane;
  std::uint32_t entries[chunks];  // the lane's slot of chunk i of the regions, or fused_no_slot
  unsigned light = 0;             // bit i: chunk i took fresh colours, light (heavy) vertex
  unsigned heavy = 0;
#pragma unroll
  for (unsigned i = 0; i < fused_settle_ahead; ++i) {
#pragma unroll
    for (unsigned c = 0; c < per_lane; ++c) entries[i * per_lane + c] = fused_no_slot;
    const uint4 w = loaded[i];
    if (((valid >> i) & 1U) == 0 || !__any_sync(fused_full_warp, (w.x | w.y | w.z | w.w) != 0)) continue;
#pragma unroll
    for (unsigned c = 0; c < per_lane; ++c) {
      const std::uint64_t slot = at.region[i] * region + c * 32 + lane;  // its word is in the L1 now
      if (!a.chunked) {
        settle_slot(a, slot, a.next[slot], false, light_places, heavy_places);
        continue;
      }
      const bool fresh = (pulled ? a.next[slot] : settle_word(a, slot, a.next[slot])) != 0;
      if (__ballot_sync(fused_full_warp, fresh) == 0) continue;
      entries[i * per_lane + c] = fresh ? static_cast<std::uint32_t>(slot) : fused_no_slot;
      const unsigned bit = 1U << (i * per_lane + c);
      (a.heavy[place_of(a, static_cast<std::uint32_t>(slot)).v] != 0 ? heavy : light) |= bit;
    }
  }
  if ((light | heavy) == 0) return;  // warp-uniform
  unsigned light_base = 0;
  unsigned heavy_base = 0;
  if (lane == 0 && light != 0) light_base = atomicAdd(light_places, 32U * __popc(light));
  if (lane == 0 && heavy != 0) heavy_base = atomicAdd(heavy_places, 32U * __popc(heavy));
  light_base = __shfl_sync(fused_full_warp, light_base, 0);
  heavy_base = __shfl_sync(fused_full_warp, heavy_base, 0);
#pragma unroll
  for (unsigned i = 0; i < chunks; ++i) {
    const unsigned below = (1U << i) - 1;
    if ((light >> i) & 1U) a.next_queue[light_base + 32 * __popc(light & below) + lane] = entries[i];
    if ((heavy >> i) & 1U) a.next_queue[a.queue_capacity - 1 - (heavy_base + 32 * __popc(heavy & below) + lane)] = entries[i];
  }
}

/// The level's last kernel under the masks (settle_slot for every slot with a next word), which
/// replaces the returning atomics and per-discovery queueing that left the expansion waiting on
/// memory (Nsight Compute, p = 0.2: 96% long-scoreboard stalls). Its slots go by regions of 512
/// bytes of next words (settle_regions), two in flight a warp: a pass of 4-byte loads a thread,
/// four in flight, took 0.345 ms over 20 sparse levels (H200, p = 0.2, 32 colours).
/// After a pushing level that touched regions (touches_regions) it settles only the regions its
/// reductions touched, clearing their flags: a pass over every region (458 MB of next words at 64
/// groups on topcats-like) took 0.11 ms a level however few slots the level reached, 0.22 ms beside
/// a draw ahead, and most of a batch's levels reach few.
/// A pulling level settled its sources itself (fused_chunk_pull, its hubs fused_chunk_heavy) and
/// counted its fresh chunks; when the next level pulls as well, there is nothing left to do (each
/// pass cost ~1.1 ms of a ~3.5 ms sweep, 1.5 ms beside a draw ahead). When it pushes, the pass
/// goes over every region: it queues the fresh chunks (its places from the pull's own counters: the
/// ring's hold the counts already) and clears the frontier words the pull read, the next level's
/// next words.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_settle_level(graph_view g, fused_args<Word> a) {
  // A level that expanded nothing left every next word zero: the batch's trailing empty levels
  // (up to 15 a batch) cost nothing.
  if (a.counts[0] + a.counts[1] == 0) return;
  const bool pulled = pulls(a);
  if (pulled && next_level_pulls(a)) return;
  unsigned* const light_places = pulled ? a.queue_places : a.next_light;
  unsigned* const heavy_places = pulled ? a.queue_places + 1 : a.next_heavy;
  constexpr std::uint64_t region = fused_settle_region_bytes / sizeof(Word);  // slots
  const std::uint64_t slots = static_cast<std::uint64_t>(a.num_groups) * g.num_vertices * a.words;
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t regions = slots / region;  // whole ones
  // A warp takes 32 regions at a time, a lane's flag each, and settles those it must two at a time.
  // The 32 lie `warps` apart, so that regions side by side go to different warps: the regions a
  // level touches cluster (the hubs' ids are low), and a warp of 32 adjacent ones settled them one
  // pair after another while the other warps idled (a batch's second level 0.12 -> 0.31 ms).
  const bool touched_only = !pulled && touches_regions(a);
  if (touched_only && blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(a.stats + fused_stat_touched, 1ULL);
  for (std::uint64_t first = warp; first < regions; first += 32 * warps) {
    const std::uint64_t mine = first + lane * warps;
    bool take = mine < regions;
    if (touched_only) {
      take = take && a.touched[mine] != 0;
      if (take) a.touched[mine] = 0;
    }
    for (unsigned list = __ballot_sync(fused_full_warp, take); list != 0;) {
      settle_places at;
      unsigned valid = 0;
#pragma unroll
      for (unsigned i = 0; i < fused_settle_ahead; ++i) {
        at.region[i] = first + (list != 0 ? __ffs(static_cast<int>(list)) - 1 : 0) * warps;
        valid |= (list != 0 ? 1U : 0U) << i;
        list &= list - 1;
      }
      settle_regions(a, at, valid, pulled, light_places, heavy_places, lane);
    }
  }
  // The slots past the whole regions, fewer than one region (chunked: whole chunks); their flag
  // is never read.
  for (std::uint64_t slot = regions * region + warp * 32 + lane; slot < slots; slot += warps * 32) {
    if (pulled) a.current[slot] = 0;
    settle_slot(a, slot, a.next[slot], pulled, light_places, heavy_places);
  }
}

/// A chunked level's queue entry `index` of `count` (light from the front, heavy from the back):
/// its slot, or fused_no_slot for padding and for indices past the count (the roots' level is
/// queued unpadded: its count need not be a multiple of 32).
template <class Word>
__device__ __forceinline__ std::uint32_t chunk_entry(const fused_args<Word>& a, std::uint64_t index, unsigned count,
                                                     bool heavy) {
  if (index >= count) return fused_no_slot;
  return a.queue[heavy ? a.queue_capacity - 1 - index : index];
}

/// Whole warp: the frontier of the lane's queue entry `slot` (0 for padding), its current word
/// cleared (this buffer is the next level's next words: all zero after the level), with the
/// colours taken early (take_early, which counts the lane's slots that took any). In a
/// padded chunk a padding lane takes them for its slot of the chunk as well, and `slot` becomes
/// that slot where it took any.
template <class Word>
__device__ __forceinline__ Word open_entry(const fused_args<Word>& a, std::uint32_t& slot, unsigned lane,
                                           std::uint64_t& early_slots) {
  Word frontier = 0;
  if (slot != fused_no_slot) {
    frontier = a.current[slot];
    a.current[slot] = 0;
  }
  if (a.padded) {
    const unsigned queued = __ballot_sync(fused_full_warp, slot != fused_no_slot);
    if (queued == 0) return 0;  // past the level's count
    const std::uint32_t chunk_first = __shfl_sync(fused_full_warp, slot, __ffs(static_cast<int>(queued)) - 1) & ~31U;
    slot = chunk_first + lane;
  }
  if (slot != fused_no_slot) frontier |= take_early(a, slot, early_slots);
  if (frontier == 0) slot = fused_no_slot;
  return frontier;
}

/// Expands slot `slot` (colours `frontier`) over in-edges begin + first, begin + first + step, ...
/// of its vertex. In a chunk the lanes' slots are one vertex's: each in-edge's source is one load
/// for the warp, the slots' masks of the edge are side by side (edge-major), and so are the
/// sources' next words the reductions go to (slot_of is vertex-major).
template <bool Touch, class Word>
__device__ __forceinline__ void expand_chunk_slot(const graph_view& g, const fused_args<Word>& a,
                                                  const slot_place& place, Word frontier, std::uint64_t first,
                                                  std::uint64_t step) {
  const std::uint64_t end = g.in_offsets[place.v + 1];
#pragma unroll 4
  for (std::uint64_t j = g.in_offsets[place.v] + first; j < end; j += step)
    mask_edge<Touch>(g, a, place.group, place.w, j, frontier);
}

/// Whole warp, converged: expands the lanes' slots (`slot`, fused_no_slot for none; `place` and
/// `frontier` its own) over in-edges first, first + step, ... of their vertex. When all are one
/// vertex's (a settled chunk) the valid slots are packed: with P the power of two from their
/// number, a pass takes 32 / P in-edges, P lanes each (lane: edge lane / P, slot of rank lane % P),
/// so a sparse chunk takes fewer passes (H200, p = 0.05, 32 colours: heavy 0.363 -> 0.343 s, 0.279
/// unchunked; light 0.817 -> 0.874 s, but 0.564 -> 0.528 s at 64 colours). Otherwise (the roots'
/// level, queued unpadded) each lane walks its own slot's in-edges. `lanes_by_rank`: the warp's
/// 32 bytes of shared memory.
template <bool Touch, class Word>
__device__ __forceinline__ void expand_chunk(const graph_view& g, const fused_args<Word>& a, std::uint32_t slot,
                                             const slot_place& place, Word frontier, unsigned lane,
                                             std::uint8_t* lanes_by_rank, std::uint64_t first, std::uint64_t step) {
  const unsigned valid = __ballot_sync(fused_full_warp, slot != fused_no_slot);
  if (valid == 0) return;
  const std::uint32_t v = __shfl_sync(fused_full_warp, place.v, __ffs(static_cast<int>(valid)) - 1);
  if (!__all_sync(fused_full_warp, slot == fused_no_slot || place.v == v)) {
    if (slot != fused_no_slot) expand_chunk_slot<Touch>(g, a, place, frontier, first, step);
    return;
  }
  const auto count = static_cast<unsigned>(__popc(valid));
  unsigned width = 32;
  unsigned owner = lane;  // a full chunk (dense sets) skips the ranks
  if (count < 32) {
    if (slot != fused_no_slot) lanes_by_rank[__popc(valid & ((1U << lane) - 1U))] = static_cast<std::uint8_t>(lane);
    __syncwarp();
    width = count == 1 ? 1U : 1U << (32 - __clz(static_cast<int>(count - 1)));
    owner = lanes_by_rank[min(lane & (width - 1), count - 1)];  // lanes past the ranks return below
    __syncwarp();  // read before the warp's next chunk writes its ranks
  }
  const unsigned rank = lane & (width - 1);
  const std::uint64_t column = static_cast<std::uint64_t>(place.group) * a.words + place.w;  // slot_of(.., 0, ..)
  const std::uint64_t owner_column = __shfl_sync(fused_full_warp, column, owner);
  const Word owner_frontier = __shfl_sync(fused_full_warp, frontier, owner);
  if (rank >= count) return;
  const std::uint64_t row = a.mask_edge_stride;  // chunked: edge-major masks, num_groups * words a row
  const Word* const masks = a.masks + owner_column;  // edge j's at masks[j * row]
  Word* const next = a.next + owner_column;          // source u's at next[u * row]
  const std::uint64_t end = g.in_offsets[v + 1];
  const std::uint64_t pass = 32 / width * step;
#pragma unroll 4
  for (std::uint64_t j = g.in_offsets[v] + first + lane / width * step; j < end; j += pass) {
    const Word mask = __ldg(masks + j * row);
    const std::uint32_t u = __ldg(g.in_sources + j);
    const Word live = owner_frontier & mask;
    if (live != 0) {
      atomicOr(next + u * row, live);
      touch_region<Touch>(a, owner_column + u * row);
    }
  }
}

/// A chunk kernel lane's counts: IC items (in-degree per slot), slots expanded and slots that took
/// colours early (open_entry), added to the batch's counters once per kernel (add).
struct chunk_tally {
  std::uint64_t items = 0;
  std::uint64_t slots = 0;
  std::uint64_t early = 0;
  __device__ __forceinline__ void count(const graph_view& g, std::uint32_t v) {
    items += g.in_degree(v);
    ++slots;
  }
  /// Whole warp: into the batch's counters, the slots to `stat` (fused_stat_light or _heavy).
  template <class Word>
  __device__ __forceinline__ void add(const fused_args<Word>& a, unsigned lane, unsigned stat) {
    add_warp_counts(a, lane, 0, items, early);
    const std::uint64_t all_slots = warp_sum(slots);
    if (lane == 0 && all_slots != 0) atomicAdd(a.stats + stat, static_cast<unsigned long long>(all_slots));
  }
};

/// Whether out-degree `degree` makes a source a hub of the pulls: its out-edges spread over the
/// segments they fall in, and the segments' partial colours meet in its next words (fused_chunk_pull).
__device__ __forceinline__ bool pull_hub(std::uint64_t degree) { return degree > fused_pull_segment; }

/// A pulling level's hubs (pull_hub), settled once the pull has ORed every segment's colours into
/// their next words (the heavy kernel's work in such a level): a warp per tile of 32 vertices
/// settles its hubs' slots, 32 at a time (a queue chunk), counts their fresh chunks into the next
/// level's ring entry, and clears their frontier words, which the next level reduces into.
template <class Word>
__device__ __forceinline__ void settle_pulled_hubs(const graph_view& g, const fused_args<Word>& a) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t row = a.mask_edge_stride;  // chunked: a vertex's slots, a multiple of 32
  const std::uint64_t tiles = (static_cast<std::uint64_t>(g.num_vertices) + 31) / 32;
  unsigned fresh_light = 0;
  unsigned fresh_heavy = 0;
  for (std::uint64_t tile = warp; tile < tiles; tile += warps) {
    const std::uint64_t v = tile * 32 + lane;
    const bool hub = v < g.num_vertices && pull_hub(g.out_offsets[v + 1] - g.out_offsets[v]);
    for (unsigned hubs = __ballot_sync(fused_full_warp, hub); hubs != 0; hubs &= hubs - 1) {
      const std::uint64_t u = tile * 32 + static_cast<unsigned>(__ffs(static_cast<int>(hubs)) - 1);
      unsigned fresh_chunks = 0;
      for (std::uint64_t slot = u * row + lane; slot < (u + 1) * row; slot += 32) {
        a.current[slot] = 0;
        fresh_chunks += __ballot_sync(fused_full_warp, settle_word(a, slot, a.next[slot]) != 0) != 0 ? 1U : 0U;
      }
      (a.heavy[u] != 0 ? fresh_heavy : fresh_light) += fresh_chunks;
    }
  }
  add_fresh_chunks(a, lane, fresh_light, fresh_heavy);
}

/// Light chunks: a warp per 32 queue entries (a persistent grid), expanded by expand_chunk. Bound
/// by the latency of its loads (Nsight Compute, p = 0.2, 32 colours: 92% long-scoreboard stalls,
/// 0.16 eligible warps a scheduler, DRAM at 20%), so it is held to 32 registers for 8 blocks an SM
/// (a few bytes spilled): light 0.218 -> 0.195 s (H200; 6 blocks: 0.209 s). Not faster: 8
/// in-edges' loads in flight instead of 4, the same cap on the heavy kernel, full chunks expanding
/// their 32-bit slots in pairs as 64-bit words (half the reductions' elements: 0.122-0.124 against
/// 0.122-0.126 s, so the L2's atomics do not bound it), and reductions filtered by the source's
/// visited word (a dependent load: 0.135 s). Most of its time goes to the few levels that queue
/// nearly every chunk (docs/gpu.md).
template <class Word>
__global__ void __launch_bounds__(fused_block_threads, 8) fused_chunk_light(graph_view g, fused_args<Word> a) {
  const unsigned num_light = a.counts[0];
  open_level(a, num_light, a.counts[1], false);
  if (pulls(a)) return;  // fused_chunk_pull expands this level
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  __shared__ std::uint8_t lanes_by_rank[fused_block_threads / 32][32];
  chunk_tally tally;
  // Each chunk's queue entry is loaded while the warp's previous chunk expands: the entry is the
  // head of the chunk's chain of dependent loads (entry, words, offsets, edges), and Nsight Compute
  // found a quarter of the stall samples waiting on it (the queue streams from DRAM). Light
  // 0.129-0.133 -> 0.126-0.129 s with take_early's visited load beside its next load (H200, p = 0.2).
  with_region_flags(touches_regions(a), [&](auto marks) {
    std::uint64_t first = ((static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
    std::uint32_t ahead = chunk_entry(a, first + lane, num_light, false);
    for (; first < num_light; first += warps * 32) {
      std::uint32_t slot = ahead;
      ahead = chunk_entry(a, first + warps * 32 + lane, num_light, false);
      const Word frontier = open_entry(a, slot, lane, tally.early);
      slot_place place{0, 0, 0};
      if (slot != fused_no_slot) {
        place = place_of(a, slot);
        tally.count(g, place.v);
      }
      expand_chunk<decltype(marks)::value>(g, a, slot, place, frontier, lane, lanes_by_rank[threadIdx.x >> 5], 0, 1);
    }
  });
  tally.add(a, lane, fused_stat_light);
}

/// Heavy chunks: a block per 32 queue entries (a persistent grid), every warp expanding them
/// (expand_chunk) over every (warps per block)-th in-edge.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_chunk_heavy(graph_view g, fused_args<Word> a) {
  if (pulls(a)) {  // fused_chunk_pull expanded this level
    settle_pulled_hubs(g, a);
    return;
  }
  const unsigned num_heavy = a.counts[1];
  const bool touch = touches_regions(a);
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = threadIdx.x >> 5;
  constexpr unsigned warps = fused_block_threads / 32;
  __shared__ std::uint8_t lanes_by_rank[warps][32];
  __shared__ std::uint32_t chunk_slots[32];  // the chunk as warp 0 opened it (open_entry)
  __shared__ Word chunk_frontiers[32];
  chunk_tally tally;  // warp 0's
  for (std::uint64_t chunk = blockIdx.x; chunk * 32 < num_heavy; chunk += gridDim.x) {
    if (warp == 0) {
      std::uint32_t entry = chunk_entry(a, chunk * 32 + lane, num_heavy, true);
      chunk_frontiers[lane] = open_entry(a, entry, lane, tally.early);
      chunk_slots[lane] = entry;
    }
    __syncthreads();
    const std::uint32_t slot = chunk_slots[lane];
    const Word frontier = chunk_frontiers[lane];
    slot_place place{0, 0, 0};
    if (slot != fused_no_slot) place = place_of(a, slot);
    with_region_flags(touch, [&](auto marks) {
      expand_chunk<decltype(marks)::value>(g, a, slot, place, frontier, lane, lanes_by_rank[warp], warp, warps);
    });
    if (warp == 0 && slot != fused_no_slot) tally.count(g, place.v);
    __syncthreads();  // every warp has read the chunk before warp 0 opens the next
  }
  if (warp != 0) return;
  tally.add(a, lane, fused_stat_heavy);
}

/// Thread per out-edge segment (fused_pull_segment edges of the out-CSR), once per sampler: the
/// source of its first edge, the last vertex whose out-edges start at or before it.
__global__ void fused_plan_pull(graph_view g, std::uint32_t* first, std::uint64_t segments) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < segments;
       t += stride) {
    const std::uint64_t edge = t * fused_pull_segment;
    std::uint32_t low = 0;                 // out_offsets[low] <= edge
    std::uint32_t high = g.num_vertices;   // out_offsets[high] > edge (out_offsets[n] = m)
    while (high - low > 1) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (g.out_offsets[middle] <= edge) {
        low = middle;
      } else {
        high = middle;
      }
    }
    first[t] = low;
  }
}

/// Whether a pull may take two 32-bit words a lane (fused_chunk_pull): a row of `row` words is whole
/// runs of 64.
template <class Word>
constexpr bool pull_lanes_fit(std::uint64_t row) {
  return sizeof(Word) == 4 && row % 64 == 0;
}

/// The levels that queue at least a.pull_from slots (pulls(): nearly every chunk of the graph in a
/// dense batch's sweeps) pull instead of pushing: a warp takes a segment of fused_pull_segment
/// out-edges (u -> v) in out-CSR order, lane c a chunk's column c, and ORs v's frontier word
/// through the edge's mask (the in-edge's, by the out-edge's id) into the colours reaching u. Those
/// are the colours the pushes would bring; no colours are taken early in such a level.
/// A segment owns the sources whose out-edges start in it (all of their edges, past its end too),
/// unless they are hubs (pull_hub): the warp settles an owned source itself, as the settle pass
/// would (the fresh colours, those not yet visited, become visited and the source's frontier for
/// the next level, in its next word), and writes its next words whole, so that they need no
/// clearing. It counts the source's fresh chunks into the next level's ring entry; the queue is
/// built only when that level pushes (fused_settle_level). A hub's edges go to the segments they
/// fall in, which OR their colours into its next words; the heavy kernel then settles the hubs.
/// Before, a settle pass over every slot followed each pull (~1.1 ms of a ~3.5 ms sweep: 458 MB of
/// next, frontier and visited words each read and written at 64 groups on topcats-like).
/// Why pull: a push sweep reads every mask line in order and reduces into a random line per
/// in-edge, which the L2 fetches and writes back; a pull reads a random frontier line and, where it
/// is not empty, a random mask line per out-edge, and writes each source's line once (H200, p =
/// 0.2, 32 colours: such a level 14-17 ms pushed, 6 ms pulled, at ~2.15 TB/s of random lines;
/// keeping 8 or 16 loads in flight a warp was slower, with fewer warps resident).
/// A pull is the same OR, AND and AND-NOT on every column of a row, so a lane may take any run of
/// columns: `Lane` is Word, or two 32-bit words side by side where a row holds whole runs of 64
/// (pull_lanes_fit), so that a warp's loads are 256-byte pairs of lines, as at 64 colours, and a
/// segment's targets and edge ids are read once for twice the columns. 8-byte lanes are held to 32
/// registers for 8 blocks an SM (~80 bytes spilled), 4-byte ones keep 40 (8 blocks made them ~9 ms
/// slower). H200, p = 0.2, light + pull: 32 colours 0.087 s with 4-byte lanes, 0.076 s with two
/// words a lane at 6 blocks, 0.068 s at 8 (a sweep 2.3-3.9 ms); 64 colours 0.076 -> 0.068 s.
template <class Word, class Lane>
__global__ void __launch_bounds__(fused_block_threads, sizeof(Lane) == 8 ? 8 : 6)
    fused_chunk_pull(graph_view g, fused_args<Word> a) {
  if (!pulls(a)) return;
  const unsigned lane = threadIdx.x & 31;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.queue_places[0] = 0;  // for the settle pass, should the next level push
    a.queue_places[1] = 0;
    atomicAdd(a.stats + fused_stat_pulled, 1ULL);
  }
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  // chunked: lanes an edge's masks and a vertex's slots take
  const std::uint64_t row = a.mask_edge_stride * sizeof(Word) / sizeof(Lane);
  const std::uint64_t chunks = row / 32;  // runs of 32 lanes a vertex
  // Queue chunks (32 slots) a run of 32 lanes holds: bit i of a ballot is lane i's.
  constexpr unsigned chunk_lanes = 32 / (sizeof(Lane) / sizeof(Word));
  constexpr unsigned chunk_bits = chunk_lanes == 32 ? 0xffffffffU : (1U << chunk_lanes) - 1;
  auto* const visited = reinterpret_cast<Lane*>(a.visited);
  const auto* const current = reinterpret_cast<const Lane*>(a.current);
  const auto* const masks = reinterpret_cast<const Lane*>(a.masks);
  auto* const next = reinterpret_cast<Lane*>(a.next);
  std::uint64_t items = 0;
  unsigned fresh_light = 0;  // the warp's fresh chunks of light (heavy) sources; warp-uniform
  unsigned fresh_heavy = 0;
  for (std::uint64_t task = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
       task < a.pull_segments * chunks; task += warps) {
    const std::uint64_t segment = task / chunks;
    const std::uint64_t column = task % chunks * 32 + lane;
    const std::uint64_t segment_first = segment * fused_pull_segment;
    const std::uint64_t segment_end =
        segment_first + fused_pull_segment < g.num_edges ? segment_first + fused_pull_segment : g.num_edges;
    // Sources in out-CSR order from the one holding the segment's first edge; warp-uniform.
    for (std::uint32_t u = a.pull_first[segment]; u < g.num_vertices; ++u) {
      const std::uint64_t begin = g.out_offsets[u];
      if (begin >= segment_end) break;
      const std::uint64_t end = g.out_offsets[u + 1];
      const bool hub = pull_hub(end - begin);
      if (!hub && begin < segment_first) continue;  // the last segment's
      const std::uint64_t first = hub && begin < segment_first ? segment_first : begin;
      const std::uint64_t last = hub && end > segment_end ? segment_end : end;
      items += last - first;
      const std::uint64_t at = u * row + column;
      // Colours u has settled cannot be new there: a source settled in every colour of the chunk
      // is skipped, and a lane settled in its word loads nothing (a high out-degree source settles
      // in every colour early in a batch's sweeps; H200, p = 0.2, 32 colours: light and pulling
      // kernels 0.100 -> 0.090 s).
      const Lane open = ~visited[at];
      Lane reached = 0;
      if (__any_sync(fused_full_warp, open != 0)) {
#pragma unroll 4
        for (std::uint64_t k = first; k < last; ++k) {
          const std::uint32_t v = __ldg(g.out_targets + k);
          const std::uint64_t j = __ldg(g.out_edge_ids + k);
          // The frontier is read-only in a pulling level. The mask is loaded only where the
          // frontier word is not empty: loading it beside the frontier word, to save a round trip,
          // read more lines and was slower (H200, p = 0.2, 32 colours: light + pull 0.067 -> 0.087 s).
          const Lane frontier = open != 0 ? __ldg(current + v * row + column) & open : 0;
          if (frontier != 0) reached |= frontier & __ldg(masks + j * row + column);
        }
      }
      if (hub) {
        if (reached != 0) atomicOr(next + at, reached);
        continue;
      }
      next[at] = reached;  // the fresh colours: `reached` holds open ones only
      if (reached != 0) visited[at] = ~open | reached;
      const unsigned fresh = __ballot_sync(fused_full_warp, reached != 0);
      if (fresh == 0) continue;
      unsigned fresh_chunks = 0;
#pragma unroll
      for (unsigned first_lane = 0; first_lane < 32; first_lane += chunk_lanes)
        fresh_chunks += ((fresh >> first_lane) & chunk_bits) != 0 ? 1U : 0U;
      (a.heavy[u] != 0 ? fresh_heavy : fresh_light) += fresh_chunks;
    }
  }
  add_warp_counts(a, lane, 0, items);
  add_fresh_chunks(a, lane, fresh_light, fresh_heavy);
}

/// The batch's edges examined under the masks, once its levels have run: each member's colour
/// examines every in-edge of its vertex once, whether its level pushed (the expansion) or pulled
/// (the frontier words the pulls read), so the count is the members' in-degrees, from the visited
/// words (a thread per 16 bytes of them, the in-degree loaded once per vertex's row). The levels
/// do not count: a pulling level does not read the frontier words of the sources it skips.
template <class Word>
__global__ void fused_count_member_in_edges(graph_view g, fused_args<Word> a) {
  constexpr unsigned per_load = sizeof(uint4) / sizeof(Word);
  const std::uint64_t row = static_cast<std::uint64_t>(a.num_groups) * a.words;  // a vertex's slots
  const std::uint64_t slots = static_cast<std::uint64_t>(g.num_vertices) * row;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t examined = 0;
  if (row % per_load == 0) {  // a load within one vertex's row (chunked batches)
    const auto* const visited = reinterpret_cast<const uint4*>(a.visited);  // 256-byte aligned
    for (std::uint64_t i = first; i < slots / per_load; i += stride) {
      const uint4 w = visited[i];
      const unsigned colours = __popc(w.x) + __popc(w.y) + __popc(w.z) + __popc(w.w);
      if (colours != 0) examined += colours * g.in_degree(static_cast<std::uint32_t>(i * per_load / row));
    }
  } else {
    for (std::uint64_t slot = first; slot < slots; slot += stride)
      examined += popcount(a.visited[slot]) * g.in_degree(static_cast<std::uint32_t>(slot / row));
  }
  examined = warp_sum(examined);
  if ((threadIdx.x & 31) == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
}

}  // namespace wildfire::cuda::kernels
