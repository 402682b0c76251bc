// What a greedy cover step (max_coverage_kernels.cuh, cover_sets) may do: whether the step's
// chosen vertex may be covered at all, and whose counts it lowers. The greedy keeps every count,
// or only its candidates' (greedy_candidates.hpp). Device functions only, no kernels.
#pragma once

#include <cstdint>

#include "cuda/grid_stride.cuh"

namespace wildfire::cuda::kernels {

/// bits[v / 32] bit v % 32: v is a candidate.
__device__ __forceinline__ bool is_candidate(const std::uint32_t* bits, std::uint32_t v) {
  return ((bits[v >> 5] >> (v & 31)) & 1U) != 0;
}

/// Every vertex's count is kept exact, and a step with a chosen vertex (key != 0)
/// always covers its sets.
struct lower_every_count {
  __device__ bool admits(unsigned long long key) const { return key != 0; }
  __device__ bool counted(std::uint32_t) const { return true; }
};

/// Only the candidates' counts are kept exact. Every other vertex's marginal
/// is at most its count, at most *threshold, so the best candidate is the best vertex (ties to the
/// lowest id included) exactly when its count exceeds *threshold. A step where it does not, or
/// where no candidate is left (key 0), sets *failed and covers nothing; the later steps then do
/// nothing, and the caller runs the greedy again with more candidates.
struct lower_candidate_counts {
  const std::uint32_t* bits;
  const std::uint32_t* threshold;
  unsigned long long* failed;

  __device__ bool admits(unsigned long long key) const {
    // Every thread decides alike from the same key, threshold and earlier flag; thread 0 alone
    // records the failure.
    const bool fine = *failed == 0 && (key >> 32) > *threshold;
    if (!fine && grid_thread_id() == 0) *failed = 1;
    return fine;
  }
  __device__ bool counted(std::uint32_t u) const { return is_candidate(bits, u); }
};

}  // namespace wildfire::cuda::kernels
