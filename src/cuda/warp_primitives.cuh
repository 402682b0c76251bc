// Warp-level building blocks shared by the kernels: the load-balanced expansion of 32 adjacency
// ranges over the lanes (RR sampling, fused sampling, forward simulation) and the warp reductions
// (sums, the greedy's argmax), and the 32 x 32 bit transpose (the fused traversal's mask draw and
// extraction).
#pragma once

#include <cstdint>
#include <type_traits>

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

/// Spreads the concatenation of the lanes' `count` items over the warp, 32 items a round: each
/// round calls round(owner, item, valid) on every lane, where the lane's item of the round is item
/// `item` of lane `owner`'s items (meaningful only when `valid`: the last round may be partial).
/// Every lane of the warp must call it; `round` may shuffle (from `owner`) and flush. A `round`
/// that returns bool ends the expansion when it returns false (the same value on every lane).
template <class Round>
__device__ __forceinline__ void warp_expand(std::uint64_t count, unsigned lane, Round round) {
  const std::uint64_t inclusive = warp_inclusive_sum(count, lane);
  const std::uint64_t exclusive = inclusive - count;
  const std::uint64_t total = __shfl_sync(warp_full_mask, inclusive, 31);
  for (std::uint64_t base = 0; base < total; base += 32) {
    const std::uint64_t f = base + lane;
    const unsigned owner = warp_owner_of(inclusive, f);
    const std::uint64_t owner_exclusive = __shfl_sync(warp_full_mask, exclusive, owner);
    if constexpr (std::is_void_v<decltype(round(owner, f - owner_exclusive, f < total))>) {
      round(owner, f - owner_exclusive, f < total);
    } else if (!round(owner, f - owner_exclusive, f < total)) {
      return;
    }
  }
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
