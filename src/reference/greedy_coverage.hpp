// Plain serial greedy maximum coverage (Nemhauser et al.; IMM NodeSelection): recount every
// element's coverage of the uncovered sets at each step. O(k * members); the specification the
// optimised selection (src/selection) is checked against.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire::reference {

struct greedy_result {
  std::vector<std::uint32_t> seeds;
  std::vector<std::uint64_t> marginal_coverage;
  std::uint64_t covered = 0;
};

/// k steps (k * rounds with per-round budgets; element e is in round e / (universe / rounds)),
/// each taking the element covering the most uncovered sets, ties to the lowest id; elements with
/// gain 0 are taken lowest id first once nothing adds coverage.
greedy_result greedy_coverage(const rr_sets& sets, std::uint32_t universe, std::uint32_t k,
                              std::uint32_t rounds = 1);

/// Number of sets holding at least one of `seeds`.
std::uint64_t covered_sets(const rr_sets& sets, const std::vector<std::uint32_t>& seeds);

}  // namespace wildfire::reference
