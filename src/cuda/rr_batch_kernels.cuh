// Kernels that move a staged batch of RR sets into the canonical store (see rr_batch.hpp).
#pragma once

#include <cstdint>

#include "cuda/grid_stride.cuh"

namespace wildfire::cuda::kernels {

/// Members of a set gathered by one lane (sorted by comparing each with all, so kept small); a
/// larger set takes a warp.
inline constexpr std::uint64_t gather_lane_max = 8;

/// Puts set i (arena[set_start[i] ..], set_size[i] members, unsorted) at its place in sample
/// order and appends its end, base + batch_offsets[1 + i], to the store's offsets. LanePerSmallSet
/// (batches of small sets, launched with a thread per set): a lane per set of up to
/// gather_lane_max members, a warp per larger one; otherwise (a warp per set, launched so) a warp
/// per set, which measured faster where most sets are larger (LJ-like: 4.4 against 5.4 ms of IMM).
/// A set of up to 32 members is sorted
/// on the way, into `sorted` (the store): each member goes to its rank, the number of smaller
/// members (a set holds a member once); in a warp lane l holds member l. A larger set is copied to
/// `unsorted` (a sorted store's gather buffer, else the store itself) and, where `big_begin` is
/// given (a sorted store), listed (begin and end) for the segmented sort.
template <bool LanePerSmallSet>
__global__ void gather_staged_sets(const std::uint32_t* arena, const std::uint64_t* set_start,
                                   const std::uint64_t* batch_offsets, std::uint64_t count, std::uint32_t* sorted,
                                   std::uint32_t* unsorted, std::uint64_t* big_begin, std::uint64_t* big_end,
                                   unsigned long long* num_big, std::uint64_t base, std::uint64_t* offsets_end) {
  auto by_lane = [&](std::uint64_t i, std::uint64_t size) {
    const std::uint64_t from = set_start[i];
    const std::uint64_t to = batch_offsets[i];
    offsets_end[1 + i] = base + to + size;
    std::uint32_t x[gather_lane_max];  // padded with 0xffffffff, no member (universes stay below 2^32)
#pragma unroll
    for (std::uint64_t a = 0; a < gather_lane_max; ++a) x[a] = a < size ? arena[from + a] : 0xffffffffU;
#pragma unroll
    for (std::uint64_t a = 0; a < gather_lane_max; ++a) {
      unsigned rank = 0;
#pragma unroll
      for (std::uint64_t b = 0; b < gather_lane_max; ++b) rank += x[b] < x[a] ? 1U : 0U;
      if (a < size) sorted[to + rank] = x[a];
    }
  };
  auto by_warp = [&](std::uint64_t i, unsigned lane) {
    const std::uint64_t from = set_start[i];
    const std::uint64_t to = batch_offsets[i];
    const std::uint64_t end = batch_offsets[i + 1];
    const std::uint64_t size = end - to;
    if (lane == 0) offsets_end[1 + i] = base + end;
    if (size <= 32) {
      const std::uint32_t x = lane < size ? arena[from + lane] : 0U;
      unsigned rank = 0;
      for (unsigned j = 0; j < size; ++j) rank += __shfl_sync(0xffffffffU, x, j) < x ? 1U : 0U;  // size: warp-uniform
      if (lane < size) sorted[to + rank] = x;
    } else {
      for (std::uint64_t k = lane; k < size; k += 32) unsorted[to + k] = arena[from + k];
      if (lane == 0 && big_begin != nullptr) {
        const unsigned long long at = atomicAdd(num_big, 1ULL);
        big_begin[at] = to;
        big_end[at] = to + size;
      }
    }
  };
  if constexpr (LanePerSmallSet) {
    for_each_set_by_lane_or_warp(
        count, gather_lane_max, [&](std::uint64_t i) { return batch_offsets[i + 1] - batch_offsets[i]; }, by_lane,
        by_warp);
  } else {
    for (std::uint64_t i = grid_thread_id() >> 5; i < count; i += grid_thread_count() >> 5) by_warp(i, threadIdx.x & 31);
  }
}

}  // namespace wildfire::cuda::kernels
