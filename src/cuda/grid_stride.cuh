// Grid-stride indexing for kernels that walk an array with every thread of the grid.
#pragma once

#include <cstdint>

namespace wildfire::cuda {

/// This thread's index in the whole grid (64-bit: the arrays can exceed 2^32 entries).
__device__ __forceinline__ std::uint64_t grid_thread_id() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// Threads in the grid: the stride of a grid-stride loop.
__device__ __forceinline__ std::uint64_t grid_thread_count() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

/// Grid-stride walk over `count` sets, a small set per lane and a large one per warp: a warp takes
/// 32 consecutive sets; each lane calls by_lane(i, size) for its set i if size = size_of(i) is at
/// most lane_max, then the whole warp calls by_warp(i, lane) for each larger set, one at a time.
/// Under weighted cascade most RR sets hold a few members, where a warp per set left most of its
/// lanes idle. Every lane of the warp must call it (full-warp ballots; by_warp may shuffle).
template <class SizeOf, class ByLane, class ByWarp>
__device__ __forceinline__ void for_each_set_by_lane_or_warp(std::uint64_t count, std::uint64_t lane_max,
                                                             SizeOf size_of, ByLane by_lane, ByWarp by_warp) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t first = grid_thread_id() - lane; first < count; first += grid_thread_count()) {
    const std::uint64_t i = first + lane;
    const bool valid = i < count;
    const std::uint64_t size = valid ? size_of(i) : 0;
    if (valid && size <= lane_max) by_lane(i, size);
    for (unsigned big = __ballot_sync(0xffffffffU, valid && size > lane_max); big != 0; big &= big - 1) {
      by_warp(first + static_cast<unsigned>(__ffs(static_cast<int>(big)) - 1), lane);
    }
  }
}

}  // namespace wildfire::cuda
