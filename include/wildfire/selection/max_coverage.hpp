// Greedy maximum coverage over flat RR sets (IMM's NodeSelection, Tang et al. 2015 Alg. 1;
// OPIM-C's upper bound, Tang et al. 2018 Eq. 9). Coverage counts and the element-to-sets index
// are built by a parallel counting sort; each step takes the largest count from a lazy heap
// (CELF; counts only decrease), ties to the lowest id, so the result does not depend on the
// thread count.
#pragma once

#include <cstdint>
#include <span>

#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {

/// A read-only view of flat RR sets: set i is members[offsets[i] .. offsets[i + 1]).
struct rr_sets_view {
  std::span<const std::uint64_t> offsets;  // num_sets + 1 entries
  std::span<const std::uint32_t> members;  // every member < universe

  std::uint64_t size() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
};

struct max_coverage_options {
  std::uint32_t k = 1;
  /// Universe size: n, or n * T for multi-round families.
  std::uint32_t universe = 0;
  /// Multi-round budgets: with rounds = T > 1, element e belongs to round e / (universe / T) and
  /// each round takes at most k elements (so up to k * T seeds in all).
  std::uint32_t rounds = 1;
  /// Compute OPIM-C's upper bound on the optimum coverage (one O(universe) pass per step).
  bool upper_bound = true;
  int num_threads = 0;  // 0 = OpenMP default
};

/// Greedy maximum coverage. Always returns min(k * rounds, universe) seeds: once no element adds
/// coverage, the lowest unselected ids (with budget left) follow with gain 0. Throws config_error
/// ("-k") if k is 0. O(members + universe + k * (active elements) + heap refreshes * log) work
/// (the OPIM-C bound costs one pass over the elements of positive count per step); blocks.
coverage_selection greedy_max_coverage(rr_sets_view sets, const max_coverage_options& options);

/// Number of sets in `sets` holding at least one of `seeds` (a marker array of `universe` bytes).
std::uint64_t count_covered(rr_sets_view sets, std::span<const std::uint32_t> seeds, std::uint32_t universe,
                            int num_threads = 0);

}  // namespace wildfire
