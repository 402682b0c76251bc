// Kernels of the streamed RR representation (see streamed_coverage.hpp): member counts, argmax
// with ties to the lowest id, and the split of a regenerated chunk by membership of one seed.
// Included only by streamed_coverage.cu.
#pragma once

#include <cstdint>

#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels::streamed {

inline constexpr unsigned block_threads = 256;

/// counts[v] += 1 for every member (a set holds a vertex at most once).
__global__ void add_counts(const std::uint32_t* members, std::uint64_t num_members, std::uint32_t* counts) {
  for (std::uint64_t i = grid_thread_id(); i < num_members; i += grid_thread_count()) atomicAdd(counts + members[i], 1U);
}

/// best = max over v of (counts[v] << 32 | ~v): the largest count, lowest id on ties.
__global__ void argmax(const std::uint32_t* counts, std::uint32_t n, unsigned long long* best) {
  unsigned long long mine = 0;
  for (std::uint64_t v = grid_thread_id(); v < n; v += grid_thread_count()) {
    const unsigned long long packed = argmax_key(counts[v], v);
    if (packed > mine) mine = packed;
  }
  mine = warp_max(mine);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicMax(best, mine);
}

/// Thread per set: kept[i] = 0 when sorted set i holds `seed` (binary search), else its size;
/// kept[count] = 0 for the scan. `hits` counts the sets holding the seed.
__global__ void split_sizes(const std::uint64_t* offsets, const std::uint32_t* members, std::uint64_t count,
                            std::uint32_t seed, std::uint64_t* kept, unsigned long long* hits) {
  for (std::uint64_t i = grid_thread_id(); i <= count; i += grid_thread_count()) {
    if (i == count) {
      kept[i] = 0;
      continue;
    }
    std::uint64_t lo = offsets[i];
    std::uint64_t hi = offsets[i + 1];
    const std::uint64_t size = hi - lo;
    while (lo < hi) {  // first member >= seed
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (members[mid] < seed) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const bool holds = lo < offsets[i + 1] && members[lo] == seed;
    kept[i] = holds ? 0 : size;
    if (holds) atomicAdd(hits, 1ULL);
  }
}

/// Warp per set: copies the kept sets' members to their scanned place in the residual and
/// appends the residual's set ends (`base`: its member count before this chunk).
__global__ void gather_kept(const std::uint64_t* offsets, const std::uint32_t* members, std::uint64_t count,
                            const std::uint64_t* kept_offsets, std::uint64_t base, std::uint32_t* out_members,
                            std::uint64_t* out_offsets_end) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = grid_thread_id() >> 5; i < count; i += grid_thread_count() >> 5) {
    const std::uint64_t to = kept_offsets[i];
    const std::uint64_t size = kept_offsets[i + 1] - to;
    const std::uint64_t from = offsets[i];
    for (std::uint64_t j = lane; j < size; j += 32) out_members[to + j] = members[from + j];
    if (lane == 0) out_offsets_end[1 + i] = base + kept_offsets[i + 1];
  }
}

}  // namespace wildfire::cuda::kernels::streamed
