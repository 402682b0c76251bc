// Warp-level building blocks shared by the kernels: the load-balanced expansion of 32 adjacency
// ranges over the lanes (RR sampling, fused sampling, forward simulation) and the warp reductions
// (sums, the greedy's argmax).
#pragma once

#include <cstdint>

namespace wildfire::cuda {

inline constexpr unsigned warp_full_mask = 0xffffffffU;

/// Inclusive prefix sum of `value` over the 32 lanes of a full warp.
__device__ __forceinline__ std::uint64_t warp_inclusive_sum(std::uint64_t value, unsigned lane) {
  for (unsigned delta = 1; delta < 32; delta <<= 1) {
    const std::uint64_t other = __shfl_up_sync(warp_full_mask, value, delta);
    if (lane >= delta) value += other;
  }
  return value;
}

/// The lane owning flat index `f` of the concatenated ranges whose inclusive ends are `inclusive`
/// (one per lane): the number of lanes whose end is <= f, by a 5-step shuffle binary search.
/// Every lane of the warp must call it.
__device__ __forceinline__ unsigned warp_owner_of(std::uint64_t inclusive, std::uint64_t f) {
  unsigned owner = 0;
  for (unsigned step = 16; step > 0; step >>= 1) {
    const std::uint64_t end = __shfl_sync(warp_full_mask, inclusive, owner + step - 1);
    if (end <= f) owner += step;
  }
  return owner;
}

/// Sum of `value` over the warp; the result is valid in lane 0.
__device__ __forceinline__ std::uint64_t warp_sum(std::uint64_t value) {
  for (unsigned delta = 16; delta > 0; delta >>= 1) value += __shfl_down_sync(warp_full_mask, value, delta);
  return value;
}

/// Maximum of `value` over the warp; the result is valid in lane 0.
__device__ __forceinline__ unsigned long long warp_max(unsigned long long value) {
  for (unsigned delta = 16; delta > 0; delta >>= 1) {
    const unsigned long long other = __shfl_down_sync(warp_full_mask, value, delta);
    if (other > value) value = other;
  }
  return value;
}

}  // namespace wildfire::cuda
