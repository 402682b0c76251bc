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

/// Adds the shares of the 8 entries packed in `word4` whose positions are final (< level_first);
/// padding is skipped, anything else is a layout error.
__device__ __forceinline__ double sum_unit(uint4 word4, std::uint32_t level_first, std::uint32_t cap, const double* s_share,
                                          const double* spill, std::uint32_t* error) {
  const std::uint32_t words[4] = {word4.x, word4.y, word4.z, word4.w};
  double sum = 0.0;
#pragma unroll
  for (int h = 0; h < 8; ++h) {
    const std::uint32_t u = (words[h / 2] >> (16 * (h % 2))) & 0xffffu;
    if (u < level_first) {
      sum += u < cap ? s_share[u] : __ldcg(spill + (u - cap));
    } else if (u != twitter::detail::pull_pad) {
      atomicOr(error, pull_error_bit);
    }
  }
  return sum;
}

/// One block per listed graph (grid-stride); Block threads; dynamic shared memory of cap doubles.
template <int Block>
__global__ void __launch_bounds__(Block)
    backward_shared_pull(pull_view v, const std::uint32_t* graphs, std::uint32_t num_graphs, std::uint32_t cap) {
  extern __shared__ double s_share[];
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const std::uint64_t lo = v.graph_offsets[t];
    const auto n = static_cast<std::uint32_t>(v.graph_offsets[t + 1] - lo);
    const twitter::detail::pull_graph record = v.graphs[t];
    const twitter::detail::pull_node* nodes = v.nodes + lo + t;
    const twitter::detail::pull_level* levels = v.levels + record.level_base;
    const std::uint16_t* sources = v.sources + record.entry_base;
    const auto* units = reinterpret_cast<const uint4*>(sources);
    double* spill = v.spill + lo;
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
        prefetch_l2(reinterpret_cast<const char*>(nodes + a.first_position),
                    reinterpret_cast<const char*>(nodes + b.first_position + 1));
      }
      const twitter::detail::pull_level fetched = level_at(level + 2 + pull_prefetch_levels);
      const std::uint32_t first = current.first_position;
      const std::uint32_t last = min(next.first_position, n);
      const std::uint32_t count = last > first ? last - first : 0;
      const std::uint32_t g = min(group_size((next.first_entry - current.first_entry) / twitter::detail::pull_align, count),
                                  static_cast<std::uint32_t>(Block));
      const std::uint32_t groups = Block / g;
      const std::uint32_t member = threadIdx.x % g;
      // Every thread runs the same number of rounds, so whole warps reach the shuffles together.
      for (std::uint32_t round = first; round < last; round += groups) {
        const std::uint32_t p = round + threadIdx.x / g;
        const bool active = p < last;
        double sum = 0.0;
        twitter::detail::pull_node node{0, 0, 0};
        if (active) {
          node = nodes[p];
          const std::uint32_t end = nodes[p + 1].in_begin / twitter::detail::pull_align;
          std::uint32_t j = node.in_begin / twitter::detail::pull_align + member;
          // Two 16-byte loads in flight per thread before their shares are summed.
          for (; j + g < end; j += 2 * g) {
            const uint4 x = __ldg(units + j), y = __ldg(units + j + g);
            sum += sum_unit(x, first, cap, s_share, spill, v.error) + sum_unit(y, first, cap, s_share, spill, v.error);
          }
          if (j < end) sum += sum_unit(__ldg(units + j), first, cap, s_share, spill, v.error);
        }
        for (std::uint32_t offset = g / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
        if (active && member == 0) {
          if (node.local_id < n) {
            const double influence = v.base[lo + node.local_id] + sum;
            v.influence[lo + node.local_id] = influence;
            const double share = node.out_degree ? influence / static_cast<double>(node.out_degree) : 0.0;
            if (p < cap) s_share[p] = share;
            else __stcg(spill + (p - cap), share);
          } else {
            atomicOr(v.error, pull_error_bit);
          }
        }
      }
      __syncthreads();  // this level's shares are visible to the next level (shared and global)
      current = next;
#pragma unroll
      for (std::uint32_t i = 0; i < pull_prefetch_levels; ++i) ahead[i] = ahead[i + 1];
      ahead[pull_prefetch_levels] = fetched;
    }
    __syncthreads();  // a graph without levels still must not race the next graph's shares
  }
}

}  // namespace wildfire::cuda::twitter_kernels
