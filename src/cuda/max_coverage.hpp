// Greedy maximum coverage on the GPU over the device store (max_coverage_kernels.cuh): the same
// seeds, marginals, coverage and OPIM-C bound as the CPU greedy (selection/max_coverage.hpp).
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "cuda/device_memory.hpp"
#include "cuda/rr_batch.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire::cuda {

class device_max_coverage {
 public:
  /// `universe`: n, or n * T for multi-round families (members encoded round * n + vertex).
  device_max_coverage(std::uint32_t universe, memory_budget& budget, cudaStream_t stream);

  /// Greedy with `k` seeds per round over `rounds` rounds of universe / rounds elements each:
  /// min(k * rounds, universe) seeds, ties to the lowest id; once nothing adds coverage the
  /// lowest unselected ids with budget left follow with gain 0. With one round the OPIM-C bound
  /// is computed when `want_bound`; otherwise (and always with several rounds, as on the CPU) it
  /// is the number of sets. The element-to-sets index is rebuilt only when the store changed
  /// (`store_version`). Blocks once, at the end.
  /// `preselected` (one round only): seeds already chosen by the caller, whose sets the store no
  /// longer holds (the streamed representation's residual); they are never picked again, the
  /// greedy runs the remaining min(k, universe) - preselected.size() steps, and the result lists
  /// only those steps (the bound's top-k still sums k counts).
  coverage_selection select(const rr_store& store, std::uint64_t store_version, std::uint32_t k,
                            std::uint32_t rounds = 1, bool want_bound = true,
                            std::span<const std::uint32_t> preselected = {});

  /// Sets of the store holding at least one of `seeds` (encoded ids < universe). Blocks.
  std::uint64_t coverage(const rr_store& store, std::span<const std::uint32_t> seeds);

  /// Frees the index (the store is about to change or be cleared).
  void drop_index() noexcept;

 private:
  void build_index(const rr_store& store);

  std::uint32_t n_;
  unsigned cover_grid_ = 1;  // blocks of a cover step
  memory_budget* budget_;
  cudaStream_t stream_;
  std::uint64_t index_version_ = ~0ULL;
  device_buffer<std::uint32_t> base_counts_;   // n: sets holding each vertex
  device_buffer<std::uint64_t> index_offsets_; // n + 1
  device_buffer<std::uint32_t> index_sets_;    // members of the store
  device_buffer<std::uint32_t> counts_;        // n, working copy
  device_buffer<std::uint32_t> sorted_counts_; // n
  device_buffer<std::uint8_t> covered_;        // per set
  device_buffer<std::uint8_t> flags_;          // n: selected (greedy) or is_seed (coverage)
  device_buffer<unsigned long long> step_results_;  // best, gained, top-k sum per step
  device_buffer<std::uint32_t> round_used_;    // seeds taken per round
  device_buffer<unsigned char> scratch_;
};

}  // namespace wildfire::cuda
