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
//
// The draws are those of random/ic_block_rule.hpp, so the sets are bit-for-bit those of every
// other traversal (ARCHITECTURE.md section 1). Included only by fused_sampler.cu.
#pragma once

#include <cstdint>

#include "cuda/fused_sampler_kernels.cuh"
#include "cuda/warp_primitives.cuh"

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"

namespace wildfire::cuda::kernels {

/// Masks of group `group`, word w: mask_plane words, one per in-edge (in-CSR position).
template <class Word>
__device__ __forceinline__ const Word* mask_words(const fused_args<Word>& a, std::uint64_t group, std::uint32_t w) {
  return a.masks + (group * a.words + w) * a.mask_plane;
}

/// 32 lanes each holding a row of a 32 x 32 bit matrix (bit e of lane c) get its columns (bit c of
/// lane e): five butterfly steps, each swapping the off-diagonal s x s blocks of every 2s x 2s block.
__device__ __forceinline__ std::uint32_t warp_transpose_bits(std::uint32_t row, unsigned lane) {
  constexpr std::uint32_t low_halves[5] = {0x0000ffffU, 0x00ff00ffU, 0x0f0f0f0fU, 0x33333333U, 0x55555555U};
#pragma unroll
  for (unsigned step = 0; step < 5; ++step) {
    const unsigned s = 16U >> step;
    const std::uint32_t low = low_halves[step];
    const std::uint32_t other = __shfl_xor_sync(warp_full_mask, row, s);
    row = (lane & s) == 0 ? (row & low) | ((other & low) << s) : (row & ~low) | ((other & ~low) >> s);
  }
  return row;
}

/// Draws the masks of v's in-edges for the 32 colours of a unit (lane c: colour c, its sample's
/// key `key`) into `out` (edge j's at out[j * halves]), in rounds of at most 32 consecutive
/// in-edges (whole blocks, or 32 edges under the per-edge rule): each lane draws its colour's live
/// edges of the round into a bit set (Floyd as a bit set per block, ic_block_live_bits), the warp
/// transposes the 32 sets into the edges' 32-colour masks, and lane e stores edge e's. Blocks of
/// more than 32 edges (weighted cascade's hubs): the warp clears the vertex's masks and sets the
/// live bits by atomicOr.
/// The kernel is bound by issuing integer multiplies (Nsight Compute's SASS counts, p = 0.2,
/// topcats-like, per vertex and 32 colours: 3.6 count draws and 10 Floyd iterations, each a hash
/// with two 64-bit multiplies). Codes step instead of multiplying (ic_block_code): a Floyd iteration
/// 85 -> 45 instructions, 1,142 -> 879 per vertex, masks 0.339 -> 0.275 s (H200). Floyd's loop runs
/// as long as the busiest lane's count (10 of 32 lanes active in it), but the ways of sharing it out
/// measured no faster (H200, p = 0.2, 32 colours): walking a round's blocks as one stream of draws
/// per lane, 0.43 against 0.33 s; the round's counts first, then its picks as one stream per lane,
/// 0.336 against 0.339 s; the warp hashing all the round's picks 32 at a time from a shared-memory
/// list (26 lanes active, but more instructions for the list and the owner search), 0.383 against
/// 0.347 s.
template <class Word>
__device__ __forceinline__ void draw_vertex_masks(const graph_view& g, const fused_args<Word>& a, std::uint32_t* out,
                                                  unsigned halves, std::uint64_t key, std::uint32_t v, unsigned lane) {
  const uint2 rule = a.rules[v];
  const std::uint64_t begin = g.in_offsets[v];
  const std::uint64_t end = g.in_offsets[v + 1];
  const std::uint32_t block = rule.y;
  if (block > 32) {
    for (std::uint64_t j = begin + lane; j < end; j += 32) out[j * halves] = 0;
    __syncwarp();  // the clears are visible to the warp's atomics
    for (std::uint64_t first = begin; first < end; first += block) {
      std::uint32_t slots[block_cdf_length];
      const std::uint32_t k = ic_block_draw(key, a.blocks, rule.x, first, end, block, slots);
      for (std::uint32_t i = 0; i < k; ++i) atomicOr(out + (first + slots[i]) * halves, 1U << lane);
    }
    return;
  }
  // Edges a round: 32, or 32 / block whole blocks. floor(32.5 / block) is floor(32 / block) with a
  // margin of 1/64 either side, which the fast reciprocal keeps (the integer division is a call).
  const std::uint64_t round =
      block == 0 ? 32 : static_cast<std::uint32_t>(__fdividef(32.5F, static_cast<float>(block))) * block;
  // The full blocks' count table, whose head every full block's count reads: loaded once.
  const std::uint32_t* const full_table = block == 0 ? nullptr : ic_block_table(a.blocks, rule.x, block, block);
  const ic_table_head full_head = block == 0 ? ic_table_head{} : ic_block_table_head(full_table);
  for (std::uint64_t start = begin; start < end; start += round) {
    const auto span = static_cast<std::uint32_t>(end - start < round ? end - start : round);
    std::uint32_t live = 0;
    if (block == 0) {
      for (std::uint32_t e = 0; e < span; ++e)
        live |= static_cast<std::uint32_t>(ic_edge_live(key, start + e, __ldg(g.in_thresholds + start + e))) << e;
    } else {
      // The blocks' codes step from the round's first (ic_block_code), without multiplying.
      std::uint64_t code = ic_block_code(start);
      const std::uint64_t block_step = element_code_step(std::uint64_t{block} << 21);
      for (std::uint32_t offset = 0; offset < span; offset += block, code += block_step) {
        const std::uint64_t size = ic_block_size_at(start + offset, end, block);
        const std::uint32_t u = coded_hash32(key, code);
        std::uint32_t k;
        if (size == block) {
          k = ic_block_count(u, full_head, full_table, size);
        } else {  // the vertex's last block, shorter: its own table
          const std::uint32_t* const tail_table = ic_block_table(a.blocks, rule.x, size, block);
          k = ic_block_count(u, ic_block_table_head(tail_table), tail_table, size);
        }
        live |= ic_block_live_bits(key, code, static_cast<std::uint32_t>(size), k) << offset;
      }
    }
    const std::uint32_t column = warp_transpose_bits(live, lane);
    if (lane < span) out[(start + lane) * halves] = column;
  }
}

/// Draws the batch's masks before its first level: a warp per (unit, tile of 32 vertices), a unit
/// being 32 colours of a group's word (a 32-bit word, or half of a 64-bit one); units vary
/// fastest, so that warps side by side read the same vertices' offsets, rules and thresholds.
/// Colours past the batch's samples draw with key 0 and are never read (no frontier holds them).
/// (Drawing lazily instead, per level for the slots that first join the frontier, drew as much,
/// since the 32 colours of a group reach nearly every vertex with in-edges at p = 0.2, and its
/// per-level pass over the queue cost 0.14 s more.)
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_draw_edge_masks(graph_view g, fused_args<Word> a) {
  constexpr unsigned halves = sizeof(Word) / sizeof(std::uint32_t);
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t units = static_cast<std::uint64_t>(a.num_groups) * a.words * halves;
  const std::uint64_t tiles = (static_cast<std::uint64_t>(g.num_vertices) + 31) / 32;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  auto* const masks32 = reinterpret_cast<std::uint32_t*>(const_cast<Word*>(a.masks));
  for (std::uint64_t task = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
       task < units * tiles; task += warps) {
    const std::uint64_t unit = task % units;  // = (group * words + w) * halves + half
    const std::uint64_t tile = task / units;
    const std::uint64_t sample = unit * 32 + lane;
    const std::uint64_t key = sample < a.num_samples ? a.keys[sample] : 0;
    std::uint32_t* const out = masks32 + unit / halves * a.mask_plane * halves + unit % halves;
    const std::uint64_t last = tile * 32 + 32 < g.num_vertices ? tile * 32 + 32 : g.num_vertices;
    for (std::uint64_t v = tile * 32; v < last; ++v)
      draw_vertex_masks(g, a, out, halves, key, static_cast<std::uint32_t>(v), lane);
  }
}

/// In-edge j of v for the colours `frontier` of word w in `group`: the live ones (the edge's
/// mask) go into the source's next word by a reduction that returns nothing, so the lane never
/// waits for it (fused_settle_level finds what is new). Filtering them first by the source's
/// visited word, a dependent load, measured slower (H200, p = 0.2, 32 colours: 0.41 against 0.33 s;
/// 0.380 against 0.333 s read through the read-only cache with four rounds of loads in flight).
template <class Word>
__device__ __forceinline__ void mask_edge(const graph_view& g, const fused_args<Word>& a, std::uint64_t group,
                                          std::uint32_t w, std::uint64_t j, Word frontier) {
  // Both loads issue before either is used.
  const Word mask = __ldg(mask_words(a, group, w) + j);
  const std::uint32_t u = __ldg(g.in_sources + j);
  const Word live = frontier & mask;
  if (live != 0) atomicOr(a.next + slot_of(a, group, u, w), live);
}

/// Light slots under the masks: a warp takes 32 slots and strides over the concatenation of their
/// in-edges; the level's first kernel, on a persistent grid (as fused_ic_light). Nsight Compute
/// finds it waiting on the mask and source loads (92% long-scoreboard stalls, 0.75 TB/s, p = 0.2),
/// yet four rounds of loads in flight a lane left it as fast (0.333 against 0.330 s). Its memory
/// tables: the loads miss the L2 (7% hits) and use 15 of a sector's 32 bytes, DRAM runs at 16% and
/// the L2's atomic units at 5%, so neither bandwidth nor the reductions bound it (the 7.3 GB of
/// masks outrunning the TLBs is the next suspect). Laying the masks out edge-major (an edge's
/// words of every group side by side, slot_of's order) measured slower: 0.430 s.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_mask_light(graph_view g, fused_args<Word> a) {
  const unsigned num_light = a.counts[0];
  open_level(a, num_light, a.counts[1]);
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  std::uint64_t examined = 0;
  std::uint64_t all_items = 0;
  for (std::uint64_t first = ((static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
       first < num_light; first += warps * 32) {
    std::uint64_t begin = 0;
    std::uint64_t degree = 0;
    std::uint32_t group = 0;
    std::uint32_t w = 0;
    Word frontier = 0;
    if (first + lane < num_light) {
      const std::uint32_t slot = a.queue[first + lane];
      frontier = a.current[slot];
      a.current[slot] = 0;  // this buffer is the next level's next words: all zero after the level
      const slot_place place = place_of(a, slot);
      w = place.w;
      group = place.group;
      begin = g.in_offsets[place.v];
      degree = g.in_offsets[place.v + 1] - begin;
      examined += degree * popcount(frontier);
    }
    all_items += degree;
    warp_expand(degree, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
      const std::uint64_t owner_begin = __shfl_sync(fused_full_warp, begin, owner);
      const std::uint32_t owner_group = __shfl_sync(fused_full_warp, group, owner);
      const std::uint32_t owner_w = __shfl_sync(fused_full_warp, w, owner);
      const Word owner_frontier = __shfl_sync(fused_full_warp, frontier, owner);
      if (valid) mask_edge(g, a, owner_group, owner_w, owner_begin + item, owner_frontier);
    });
  }
  add_warp_counts(a, lane, examined, all_items);
}

/// Heavy slots under the masks (in-degree of at least fused_heavy_degree, queued from the back): a
/// block per slot, its threads striding over the in-edges; a persistent grid.
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_mask_heavy(graph_view g, fused_args<Word> a) {
  const unsigned num_heavy = a.counts[1];
  std::uint64_t examined = 0;  // thread 0's, added once per block
  std::uint64_t all_items = 0;
  for (std::uint64_t i = blockIdx.x; i < num_heavy; i += gridDim.x) {
    const std::uint32_t slot = a.queue[a.queue_capacity - 1 - i];
    const Word colours = a.current[slot];
    const auto [v, group, w] = place_of(a, slot);
    const std::uint64_t begin = g.in_offsets[v];
    const std::uint64_t degree = g.in_offsets[v + 1] - begin;
    for (std::uint64_t e = threadIdx.x; e < degree; e += blockDim.x) mask_edge(g, a, group, w, begin + e, colours);
    if (threadIdx.x == 0) {
      examined += degree * popcount(colours);
      all_items += degree;
    }
    __syncthreads();  // every thread has read the slot's colours
    if (threadIdx.x == 0) a.current[slot] = 0;
  }
  add_block_counts(a, examined, all_items);
}

/// The level's last kernel under the masks, thread per slot: the colours its next word gathered
/// that the slot has not settled become settled and its frontier for the next level (in the same
/// word, which that level reads as current), and the slot is queued. A pass over every slot, ~1 ms
/// at 64 groups on topcats-like, replaces the returning atomics and per-discovery queueing that
/// left the expansion waiting on memory (Nsight Compute, p = 0.2: 96% long-scoreboard stalls).
template <class Word>
__global__ void __launch_bounds__(fused_block_threads) fused_settle_level(graph_view g, fused_args<Word> a) {
  const std::uint64_t slots = static_cast<std::uint64_t>(a.num_groups) * g.num_vertices * a.words;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t slot = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; slot < slots;
       slot += stride) {
    const Word reached = a.next[slot];
    if (reached == 0) continue;
    const Word settled = a.visited[slot];
    const Word fresh = reached & ~settled;
    a.next[slot] = fresh;
    if (fresh == 0) continue;
    a.visited[slot] = settled | fresh;
    enqueue_slot(a, a.next_queue, a.next_light, a.next_heavy, place_of(a, static_cast<std::uint32_t>(slot)).v,
                 static_cast<std::uint32_t>(slot));
  }
}

}  // namespace wildfire::cuda::kernels
