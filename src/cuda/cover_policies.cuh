// What a greedy cover step (max_coverage_kernels.cuh, cover_sets) may do: whether the step's
// chosen vertex may be covered at all, and whose counts it lowers. The greedy keeps every count,
// or only its candidates' (greedy_candidates.hpp). Device functions only, no kernels.
#pragma once

#include <cstdint>

#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"

namespace wildfire::cuda::kernels {

/// bits[v / 32] bit v % 32: v is a candidate.
__device__ __forceinline__ bool is_candidate(const std::uint32_t* bits, std::uint32_t v) {
  return ((bits[v >> 5] >> (v & 31)) & 1U) != 0;
}

/// A filter of a few thousand vertices: bit hash(v) of 2^16 is set for each, so a vertex whose bit
/// is clear is not among them without a look at n-bit flags in global memory. Built once in
/// global memory (add_to_vertex_filter), copied into each block's shared memory by the kernels
/// that test every member (load_vertex_filter). On LJ-like's IMM sets nine in ten members tested
/// are none of the candidates, and the flags' random sectors in L2 bounded those passes.
inline constexpr unsigned vertex_filter_words = (1U << 16) / 32;
__device__ __forceinline__ std::uint32_t vertex_filter_slot(std::uint32_t v) { return (v * 2654435761U) >> 16; }
__device__ __forceinline__ bool may_hold(const std::uint32_t* filter, std::uint32_t v) {
  const std::uint32_t slot = vertex_filter_slot(v);
  return ((filter[slot >> 5] >> (slot & 31)) & 1U) != 0;
}
__device__ __forceinline__ void add_to_vertex_filter(std::uint32_t* filter, std::uint32_t v) {
  const std::uint32_t slot = vertex_filter_slot(v);
  atomicOr(filter + (slot >> 5), 1U << (slot & 31));
}
/// Copies `words` (global, vertex_filter_words) into `filter` (shared); every thread of the block
/// calls it, and the filter is ready when it returns.
__device__ __forceinline__ void load_vertex_filter(std::uint32_t* filter, const std::uint32_t* words) {
  for (unsigned w = threadIdx.x; w < vertex_filter_words; w += blockDim.x) filter[w] = words[w];
  __syncthreads();
}

/// Every vertex's count is kept exact, and a step with a chosen vertex (key != 0)
/// always covers its sets.
struct lower_every_count {
  __device__ bool admits(unsigned long long key) const { return key != 0; }
  __device__ bool counted(std::uint32_t) const { return true; }
  /// The same through a block's filter (load_filter, then counted(filter, u)).
  __device__ void load_filter(std::uint32_t*) const {}
  __device__ bool counted(const std::uint32_t*, std::uint32_t) const { return true; }
};

/// Only the candidates' counts are kept exact. Every other vertex's marginal is at most its count,
/// at most *threshold, so the best candidate is the best vertex (ties to the lowest id included)
/// exactly when its count exceeds *threshold. Only the vertices in `listed` (the largest counts)
/// have their lists of sets. A step whose best candidate is not above the threshold or not listed,
/// or where no candidate is left (key 0), sets *failed and covers nothing; the later steps then do
/// nothing, and the caller runs the greedy again with more candidates.
struct lower_candidate_counts {
  const std::uint32_t* bits;
  const std::uint32_t* listed;
  const std::uint32_t* threshold;
  unsigned long long* failed;
  const std::uint32_t* filter;   // vertex_filter_words: the candidates' filter

  __device__ bool admits(unsigned long long key) const {
    // Every thread decides alike from the same key, threshold and earlier flag; thread 0 alone
    // records the failure.
    const bool fine = *failed == 0 && (key >> 32) > *threshold && is_candidate(listed, argmax_key_vertex(key));
    if (!fine && grid_thread_id() == 0) *failed = 1;
    return fine;
  }
  __device__ bool counted(std::uint32_t u) const { return is_candidate(bits, u); }
  __device__ void load_filter(std::uint32_t* shared) const { load_vertex_filter(shared, filter); }
  __device__ bool counted(const std::uint32_t* shared, std::uint32_t u) const {
    return may_hold(shared, u) && is_candidate(bits, u);
  }
};

}  // namespace wildfire::cuda::kernels
