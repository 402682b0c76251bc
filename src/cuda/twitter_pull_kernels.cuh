// Shared-memory pull sweep of the backward phase (ours; docs/twitter.md "shared-pull"): one block
// per spreading graph walks the graph's levels (twitter/pull_layout.hpp). At each level every node
// sums its finished predecessors' shares I(u) / deg+(u), kept in shared memory, over its padded
// 16-bit in-list read 16 B per thread, adds its base, and publishes its own share. Levels are
// separated by block barriers only; no atomics, so a run is deterministic. Positions at or past
// `cap` (the shared-memory capacity) keep their shares in a global scratch array instead.
// Included only by twitter_backward.cu.
#pragma once

#include <cstdint>

#include "twitter/pull_layout.hpp"

namespace wildfire::cuda::twitter_kernels {

struct pull_view {
  const std::uint64_t* graph_offsets;             // T + 1
  const twitter::detail::pull_graph* graphs;      // T
  const twitter::detail::pull_node* nodes;        // N + T
  const twitter::detail::pull_level* levels;
  const std::uint16_t* sources;                   // padded in-lists, 16-byte aligned per graph
  const double* base;                             // N, input order
  double* influence;                              // N, input order (written for every node)
  double* spill;                                  // N scratch: shares of positions >= cap
  std::uint32_t* stalled;                         // T
  std::uint32_t* error;                           // bit 4: an in-list names a position not yet final
};

inline constexpr std::uint32_t pull_error_bit = 4u;
inline constexpr unsigned pull_line_bytes = 128;
inline constexpr std::uint32_t pull_prefetch_levels = 2;

/// Asks L2 to fetch the lines of [begin, end) (bytes), spread over the block; returns at once.
__device__ __forceinline__ void prefetch_l2(const char* begin, const char* end) {
  const auto first = reinterpret_cast<std::uintptr_t>(begin) & ~static_cast<std::uintptr_t>(pull_line_bytes - 1);
  const auto last = reinterpret_cast<std::uintptr_t>(end);
  for (std::uintptr_t a = first + static_cast<std::uintptr_t>(threadIdx.x) * pull_line_bytes; a < last;
       a += static_cast<std::uintptr_t>(blockDim.x) * pull_line_bytes) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
  }
}

/// Threads per node for a level: the next power of two at or above the mean number of 16-byte
/// in-list units per node, at most a warp, so one warp shuffle tree reduces a node.
__device__ __forceinline__ std::uint32_t group_size(std::uint32_t units, std::uint32_t count) {
  const std::uint32_t mean = count ? (units + count - 1) / count : 1;
  std::uint32_t g = 1;
  while (g < mean && g < 32) g *= 2;
  return g;
}

/// Adds the shares of the 8 entries packed in `word4` whose positions are final (< level_first)
/// as a tree (three dependent adds, not eight); padding is skipped, anything else is a layout
/// error. Shares below `cap` are in shared memory, the others in the global scratch.
__device__ __forceinline__ double sum_unit(uint4 word4, std::uint32_t level_first, std::uint32_t cap, const double* s_share,
                                          const double* spill, std::uint32_t* error) {
  const std::uint32_t words[4] = {word4.x, word4.y, word4.z, word4.w};
  double value[8];
#pragma unroll
  for (int h = 0; h < 8; ++h) {
    const std::uint32_t u = (words[h / 2] >> (16 * (h % 2))) & 0xffffu;
    value[h] = 0.0;
    if (u < level_first) {
      value[h] = u < cap ? s_share[u] : __ldcg(spill + (u - cap));
    } else if (u != twitter::detail::pull_pad) {
      atomicOr(error, pull_error_bit);
    }
  }
  return ((value[0] + value[1]) + (value[2] + value[3])) + ((value[4] + value[5]) + (value[6] + value[7]));
}

/// One graph as the pull kernels address it.
struct pull_graph_ref {
  std::uint64_t lo;  // first node of the graph (input order)
  std::uint32_t n;
  const twitter::detail::pull_node* nodes;  // n + 1 records
  const uint4* units;                       // the graph's padded in-lists, 16 B units
  double* spill;                            // shares of positions >= cap
};

__device__ __forceinline__ pull_graph_ref pull_graph_at(const pull_view& v, std::uint32_t t) {
  const std::uint64_t lo = v.graph_offsets[t];
  return {lo, static_cast<std::uint32_t>(v.graph_offsets[t + 1] - lo), v.nodes + lo + t,
          reinterpret_cast<const uint4*>(v.sources + v.graphs[t].entry_base), v.spill + lo};
}

/// Finishes position p (node record `node`): influence = base + sum, written in input order, and
/// the share I / deg+ published for later levels (shared memory below cap, else the scratch).
__device__ __forceinline__ void finish_position(const pull_view& v, const pull_graph_ref& gr, std::uint32_t p,
                                                twitter::detail::pull_node node, double base, double sum, std::uint32_t cap,
                                                double* s_share) {
  if (node.local_id >= gr.n) {
    atomicOr(v.error, pull_error_bit);
    return;
  }
  const double influence = base + sum;
  v.influence[gr.lo + node.local_id] = influence;
  const double share = node.out_degree ? influence / static_cast<double>(node.out_degree) : 0.0;
  if (p < cap) s_share[p] = share;
  else __stcg(gr.spill + (p - cap), share);
}

/// Rounds of a level's positions [from, last) with g threads per node (Block / g nodes a round),
/// every load direct: node records, then the in-list two units in flight per thread. `first` is
/// the level's first position (entries must lie below it). Every thread runs the same rounds,
/// so whole warps reach the shuffles together.
template <int Block>
__device__ __forceinline__ void pull_rounds(const pull_view& v, const pull_graph_ref& gr, std::uint32_t first,
                                            std::uint32_t from, std::uint32_t last, std::uint32_t g, std::uint32_t cap,
                                            double* s_share) {
  const std::uint32_t groups = static_cast<std::uint32_t>(Block) / g;
  const std::uint32_t member = threadIdx.x % g;
  for (std::uint32_t round = from; round < last; round += groups) {
    const std::uint32_t p = round + threadIdx.x / g;
    const bool active = p < last;
    double sum = 0.0;
    twitter::detail::pull_node node{0, 0, 0};
    if (active) {
      node = gr.nodes[p];
      const std::uint32_t end = gr.nodes[p + 1].in_begin / twitter::detail::pull_align;
      std::uint32_t j = node.in_begin / twitter::detail::pull_align + member;
      double other = 0.0;
      for (; j + g < end; j += 2 * g) {
        const uint4 x = __ldg(gr.units + j), y = __ldg(gr.units + j + g);
        sum += sum_unit(x, first, cap, s_share, gr.spill, v.error);
        other += sum_unit(y, first, cap, s_share, gr.spill, v.error);
      }
      if (j < end) sum += sum_unit(__ldg(gr.units + j), first, cap, s_share, gr.spill, v.error);
      sum += other;
    }
    for (std::uint32_t offset = g / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (active && member == 0) {
      const double base = node.local_id < gr.n ? v.base[gr.lo + node.local_id] : 0.0;
      finish_position(v, gr, p, node, base, sum, cap, s_share);
    }
  }
}

/// A level's work split in a block of Block threads: positions [first, last), g threads per node
/// (a power of two, at most a warp, and small enough that the whole level fits one round when it
/// has at most Block nodes). A pure function of two level records, so it can be planned early.
struct pull_plan {
  std::uint32_t first;
  std::uint32_t last;
  std::uint32_t g;
};

template <int Block>
__device__ __forceinline__ pull_plan plan_level(twitter::detail::pull_level cur, twitter::detail::pull_level next,
                                                std::uint32_t n) {
  const std::uint32_t first = min(cur.first_position, n);
  const std::uint32_t last = max(first, min(next.first_position, n));
  const std::uint32_t count = last - first;
  const std::uint32_t units =
      next.first_entry > cur.first_entry ? (next.first_entry - cur.first_entry) / twitter::detail::pull_align : 0;
  std::uint32_t g = group_size(units, count);
  while (g > 1 && count * g > static_cast<std::uint32_t>(Block)) g /= 2;
  return {first, last, g};
}

/// One block per listed graph (grid-stride); Block threads; dynamic shared memory of cap doubles;
/// registers bounded for MinBlocks blocks an SM (0: no bound).
template <int Block, int MinBlocks>
__global__ void __launch_bounds__(Block, MinBlocks)
    backward_shared_pull(pull_view v, const std::uint32_t* graphs, std::uint32_t num_graphs, std::uint32_t cap) {
  extern __shared__ double s_share[];
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const pull_graph_ref gr = pull_graph_at(v, t);
    const twitter::detail::pull_graph record = v.graphs[t];
    const twitter::detail::pull_level* levels = v.levels + record.level_base;
    const std::uint16_t* sources = v.sources + record.entry_base;
    const std::uint32_t num_levels = record.num_levels;
    if (threadIdx.x == 0) v.stalled[t] = record.num_stalled;
    // Level records in flight: `current` is level L, ahead[i] level L + 1 + i (the sentinel past
    // the last level). The records of L + 3 are loaded one level before they are needed, and the
    // lines of level L + 2 are prefetched into L2, so no level waits on DRAM for its layout.
    auto level_at = [&](std::uint32_t l) { return levels[min(l, num_levels)]; };  // the sentinel at most
    twitter::detail::pull_level current = level_at(0);
    twitter::detail::pull_level ahead[pull_prefetch_levels + 1];
#pragma unroll
    for (std::uint32_t i = 0; i <= pull_prefetch_levels; ++i) ahead[i] = level_at(1 + i);
    for (std::uint32_t level = 0; level < num_levels; ++level) {
      const twitter::detail::pull_level next = ahead[0];
      if (level + pull_prefetch_levels < num_levels) {
        const twitter::detail::pull_level a = ahead[pull_prefetch_levels - 1], b = ahead[pull_prefetch_levels];
        prefetch_l2(reinterpret_cast<const char*>(sources + a.first_entry), reinterpret_cast<const char*>(sources + b.first_entry));
        prefetch_l2(reinterpret_cast<const char*>(gr.nodes + a.first_position),
                    reinterpret_cast<const char*>(gr.nodes + b.first_position + 1));
      }
      const twitter::detail::pull_level fetched = level_at(level + 2 + pull_prefetch_levels);
      // g from the mean in-list length alone (not capped to one round as in the pipelined kernel:
      // these levels' loads are not prefetched, so more threads per node hide more latency).
      const std::uint32_t first = min(current.first_position, gr.n);
      const std::uint32_t last = max(first, min(next.first_position, gr.n));
      const std::uint32_t g = group_size((next.first_entry - current.first_entry) / twitter::detail::pull_align, last - first);
      pull_rounds<Block>(v, gr, first, first, last, g, cap, s_share);
      __syncthreads();  // this level's shares are visible to the next level (shared and global)
      current = next;
#pragma unroll
      for (std::uint32_t i = 0; i < pull_prefetch_levels; ++i) ahead[i] = ahead[i + 1];
      ahead[pull_prefetch_levels] = fetched;
    }
    __syncthreads();  // a graph without levels still must not race the next graph's shares
  }
}

// ---------------------------------------------------------------------------------------------
// Pipelined sweep for Large graphs (docs/twitter.md "shared-pull", Large graphs). A Large graph is
// a long chain of dependent levels on one SM (the largest RSG graph: 3,278 levels), so what
// counts is the latency of one level. Only the shares depend on the previous level; every other
// input of a level (level records, node records, in-list words, base values) is read-only and
// known in advance. This kernel therefore issues, while level L is being reduced:
//   - the in-list words (up to K 16-byte units per thread) and base values of level L + 1,
//   - the node records of level L + 2 (they give the addresses of its in-lists),
//   - an L2 prefetch of the in-lists of level L + 3, the node records of level L + 4 and the
//     level records 16 levels ahead,
// into registers (double-buffered), so the level's critical path is shared-memory reads of the
// shares, the adds, a warp reduction, one division and the block barrier. Positions past the
// first round of a level (more than Block nodes) take pull_rounds' direct loads.
// ---------------------------------------------------------------------------------------------

/// This thread's node in a level's first round: its record and the end of its in-list in units.
struct pull_work {
  twitter::detail::pull_node node;
  std::uint32_t end;  // in-list end, in 16-byte units from the graph's entry base
  bool active;
};

__device__ __forceinline__ pull_work load_work(const pull_plan& plan, const twitter::detail::pull_node* nodes) {
  const std::uint32_t p = plan.first + threadIdx.x / plan.g;
  pull_work w{{0, 0, 0}, 0, false};
  if (p < plan.last) {  // last <= n, and a graph has n + 1 node records (the sentinel)
    w.node = nodes[p];
    w.end = nodes[p + 1].in_begin / twitter::detail::pull_align;
    w.active = true;
  }
  return w;
}

/// Issues the loads of up to K of this thread's in-list units (unit j0 + k * g for k < K);
/// missing units become padding. Returns how many were loaded.
template <int K>
__device__ __forceinline__ std::uint32_t load_units(uint4 (&buffer)[K], const uint4* units, const pull_work& w,
                                                    std::uint32_t j0, std::uint32_t g) {
  std::uint32_t loaded = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::uint32_t j = j0 + static_cast<std::uint32_t>(k) * g;
    const bool in = w.active && j < w.end;
    buffer[k] = in ? __ldg(units + j) : make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
    if (in) loaded = static_cast<std::uint32_t>(k) + 1;
  }
  return loaded;
}

/// Base value of a work item (0 for an idle thread or a bad local id; the latter is reported
/// where the node is finished).
__device__ __forceinline__ double load_base(const pull_work& w, const double* base, std::uint64_t lo, std::uint32_t n) {
  return w.active && w.node.local_id < n ? __ldg(base + lo + w.node.local_id) : 0.0;
}

/// One block per listed graph (grid-stride), Block threads, K prefetched units per thread and
/// level; dynamic shared memory of cap doubles. MinBlocks blocks per SM bound the registers.
template <int Block, int MinBlocks, int K>
__global__ void __launch_bounds__(Block, MinBlocks)
    backward_pipelined_pull(pull_view v, const std::uint32_t* graphs, std::uint32_t num_graphs, std::uint32_t cap) {
  extern __shared__ double s_share[];
  constexpr std::uint32_t ring = 6;  // level records L .. L + 5 in registers
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const pull_graph_ref gr = pull_graph_at(v, t);
    const std::uint64_t lo = gr.lo;
    const std::uint32_t n = gr.n;
    const twitter::detail::pull_node* nodes = gr.nodes;
    const uint4* units = gr.units;
    const twitter::detail::pull_graph record = v.graphs[t];
    const twitter::detail::pull_level* levels = v.levels + record.level_base;
    const std::uint32_t num_levels = record.num_levels;
    if (threadIdx.x == 0) v.stalled[t] = record.num_stalled;
    auto level_at = [&](std::uint32_t l) { return levels[min(l, num_levels)]; };  // the sentinel at most
    twitter::detail::pull_level lv[ring];
#pragma unroll
    for (std::uint32_t i = 0; i < ring; ++i) lv[i] = level_at(i);
    // Prologue: level 0's work, units and base; level 1's node records.
    pull_plan plan_a = plan_level<Block>(lv[0], lv[1], n);
    pull_work work_a = load_work(plan_a, nodes);
    uint4 units_a[K], units_b[K];
    std::uint32_t member_a = threadIdx.x % plan_a.g;
    std::uint32_t loaded_a = load_units<K>(units_a, units, work_a, work_a.node.in_begin / twitter::detail::pull_align + member_a, plan_a.g);
    double base_a = load_base(work_a, v.base, lo, n);
    pull_plan plan_b = plan_level<Block>(lv[1], lv[2], n);
    pull_work work_b = load_work(plan_b, nodes);
    for (std::uint32_t level = 0; level < num_levels; ++level) {
      // Loads for later levels first, so they are in flight during this level's reduction.
      const twitter::detail::pull_level fetched = level_at(level + ring);
      const pull_plan plan_c = plan_level<Block>(lv[2], lv[3], n);
      const pull_work work_c = load_work(plan_c, nodes);
      const std::uint32_t member_b = threadIdx.x % plan_b.g;
      const std::uint32_t loaded_b =
          load_units<K>(units_b, units, work_b, work_b.node.in_begin / twitter::detail::pull_align + member_b, plan_b.g);
      const double base_b = load_base(work_b, v.base, lo, n);
      prefetch_l2(reinterpret_cast<const char*>(reinterpret_cast<const std::uint16_t*>(units) + lv[3].first_entry),
                  reinterpret_cast<const char*>(reinterpret_cast<const std::uint16_t*>(units) + lv[4].first_entry));
      prefetch_l2(reinterpret_cast<const char*>(nodes + lv[4].first_position),
                  reinterpret_cast<const char*>(nodes + min(lv[5].first_position + 1, n + 1)));
      const std::uint32_t far = min(level + ring + 16, num_levels);
      prefetch_l2(reinterpret_cast<const char*>(levels + far), reinterpret_cast<const char*>(levels + far + 1));

      // Level L, first round: the prefetched units, then any units past the K per thread.
      const std::uint32_t first = plan_a.first;
      const std::uint32_t g = plan_a.g;
      double acc0 = 0.0, acc1 = 0.0;
#pragma unroll
      for (int i = 0; i < K; ++i) {
        if (static_cast<std::uint32_t>(i) < loaded_a) {
          const double s = sum_unit(units_a[i], first, cap, s_share, gr.spill, v.error);
          if (i % 2 == 0) acc0 += s;
          else acc1 += s;
        }
      }
      if (work_a.active) {
        std::uint32_t j = work_a.node.in_begin / twitter::detail::pull_align + member_a + static_cast<std::uint32_t>(K) * g;
        for (; j + g < work_a.end; j += 2 * g) {
          const uint4 x = __ldg(units + j), y = __ldg(units + j + g);
          acc0 += sum_unit(x, first, cap, s_share, gr.spill, v.error);
          acc1 += sum_unit(y, first, cap, s_share, gr.spill, v.error);
        }
        if (j < work_a.end) acc0 += sum_unit(__ldg(units + j), first, cap, s_share, gr.spill, v.error);
      }
      double sum = acc0 + acc1;
      // Every thread reaches the shuffles (whole warps, offsets below g <= 32).
      for (std::uint32_t offset = g / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      if (work_a.active && member_a == 0) {
        finish_position(v, gr, first + threadIdx.x / g, work_a.node, base_a, sum, cap, s_share);
      }
      // Further rounds (a level of more than Block nodes, g = 1): direct loads.
      pull_rounds<Block>(v, gr, first, first + static_cast<std::uint32_t>(Block) / g, plan_a.last, g, cap, s_share);
      __syncthreads();  // this level's shares are visible to the next level (shared and global)
      // Rotate the pipeline: B becomes the current level, C the next.
      plan_a = plan_b;
      work_a = work_b;
      member_a = member_b;
      loaded_a = loaded_b;
      base_a = base_b;
#pragma unroll
      for (int i = 0; i < K; ++i) units_a[i] = units_b[i];
      plan_b = plan_c;
      work_b = work_c;
#pragma unroll
      for (std::uint32_t i = 0; i + 1 < ring; ++i) lv[i] = lv[i + 1];
      lv[ring - 1] = fetched;
    }
    __syncthreads();  // a graph without levels still must not race the next graph's shares
  }
}

}  // namespace wildfire::cuda::twitter_kernels
