// Pieces of the "streamed" RR representation of the CUDA collection (docs/gpu.md, dense regime):
// sets are not kept; only per-vertex coverage counts survive generation, and greedy maximum
// coverage regenerates the sets from their sample ids (a set is a pure function of (seed, id)).
// Greedy step 1 is the argmax of those counts; one regeneration pass then splits every set by
// membership of that seed (binary search: stored sets are sorted) and keeps only the sets it does
// not cover, flat, as the residual store. Steps 2..k are the flat greedy on the residual with the
// first seed preselected, which gives exactly the flat path's seeds, marginals, coverage and
// OPIM-C bound. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_memory.hpp"
#include "cuda/rr_batch.hpp"

namespace wildfire::cuda {

class streamed_coverage {
 public:
  streamed_coverage(std::uint32_t num_vertices, memory_budget& budget, cudaStream_t stream);

  /// counts[v] += number of sets of `store` holding v (stream-ordered, no synchronisation).
  void add_counts(const rr_store& store, std::uint32_t* counts);
  /// The vertex of largest count, lowest id on ties. Blocks.
  std::uint32_t argmax(const std::uint32_t* counts);
  /// Sum of the `k` largest counts (counts never exceed `num_sets`). Blocks.
  std::uint64_t top_sum(const std::uint32_t* counts, std::uint32_t k, std::uint64_t num_sets);
  /// Appends every set of `chunk` to `residual`, in order, emptied when it holds `seed`; returns
  /// how many sets held it. Blocks once.
  std::uint64_t split(const rr_store& chunk, std::uint32_t seed, rr_store& residual);

 private:
  std::uint32_t n_;
  memory_budget* budget_;
  cudaStream_t stream_;
  device_buffer<unsigned long long> result_;  // argmax key, split count
  device_buffer<std::uint32_t> sorted_;       // n
  device_buffer<std::uint64_t> kept_;         // chunk sets + 1
  device_buffer<std::uint64_t> kept_offsets_; // chunk sets + 1
  device_buffer<unsigned char> scratch_;
};

}  // namespace wildfire::cuda
