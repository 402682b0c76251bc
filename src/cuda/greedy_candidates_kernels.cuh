// Kernels of the greedy's candidates (greedy_candidates.hpp): the candidates marked from the
// sorted counts, and the argmax over them. Included only by greedy_candidates.cu.
#pragma once

#include <cstdint>

#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels {

inline constexpr unsigned candidate_block_threads = 256;

/// The candidates are the vertices whose count exceeds *threshold, the (T + 1)-th largest count,
/// so at most T of them. Sets their bits (every word of `bits` is written) and appends them to ids
/// (in no particular order), counting them in *num_ids (0 before). Whole warps walk the vertices,
/// 32 consecutive ones per word.
__global__ void mark_candidates(const std::uint32_t* counts, std::uint32_t n, const std::uint32_t* threshold,
                                std::uint32_t* bits, std::uint32_t* ids, std::uint32_t* num_ids) {
  const std::uint32_t above = *threshold;
  const unsigned lane = threadIdx.x & 31;
  // The grid's thread count is a multiple of 32, so `base` stays a multiple of 32.
  for (std::uint64_t base = grid_thread_id() - lane; base < n; base += grid_thread_count()) {
    const std::uint64_t v = base + lane;
    const bool candidate = v < n && counts[v] > above;
    const unsigned mask = __ballot_sync(warp_full_mask, candidate);
    if (lane == 0) bits[base >> 5] = mask;
    if (mask == 0) continue;
    std::uint32_t first = 0;
    if (lane == 0) first = atomicAdd(num_ids, static_cast<std::uint32_t>(__popc(mask)));
    first = __shfl_sync(warp_full_mask, first, 0);
    if (candidate) ids[first + __popc(mask & ((1U << lane) - 1))] = static_cast<std::uint32_t>(v);
  }
}

/// best = max over unselected candidates of (counts[v] << 32 | ~v); stays 0 when none is left or
/// an earlier step failed (*failed != 0).
__global__ void argmax_candidates(const std::uint32_t* counts, const std::uint8_t* selected, const std::uint32_t* ids,
                                  const std::uint32_t* num_ids, const unsigned long long* failed,
                                  unsigned long long* best) {
  if (*failed != 0) return;
  const std::uint32_t listed = *num_ids;
  unsigned long long mine = 0;
  for (std::uint64_t i = grid_thread_id(); i < listed; i += grid_thread_count()) {
    const std::uint32_t v = ids[i];
    if (selected[v] == 0) {
      const unsigned long long key = argmax_key(counts[v], v);
      if (key > mine) mine = key;
    }
  }
  mine = warp_max(mine);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicMax(best, mine);
}

}  // namespace wildfire::cuda::kernels
