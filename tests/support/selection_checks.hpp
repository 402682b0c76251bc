// Greedy maximum coverage of a backend held to the CPU greedy over the same sets: equality of
// every field of the selections (backend-equality tests, ARCHITECTURE section 1).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/rr_sets.hpp"
#include "wildfire/selection/max_coverage.hpp"

namespace wildfire::test {

/// Seeds, marginal coverage, coverage and, `with_bound`, the OPIM-C bound agree.
inline void expect_same_selection(const coverage_selection& got, const coverage_selection& want,
                                  const std::string& where, bool with_bound = true) {
  EXPECT_EQ(got.seeds, want.seeds) << where;
  EXPECT_EQ(got.marginal_coverage, want.marginal_coverage) << where;
  EXPECT_EQ(got.covered, want.covered) << where;
  if (with_bound) {
    EXPECT_EQ(got.optimum_upper_bound, want.optimum_upper_bound) << where;
  }
}

/// The CPU greedy (selection/max_coverage.hpp) over `sets`: k seeds per round of `rounds`, on
/// `threads` threads (0: the OpenMP default).
inline coverage_selection cpu_greedy(const rr_sets& sets, std::uint32_t universe, std::uint32_t k, bool bound = true,
                                     std::uint32_t rounds = 1, int threads = 0) {
  max_coverage_options options;
  options.k = k;
  options.universe = universe;
  options.rounds = rounds;
  options.upper_bound = bound;
  options.num_threads = threads;
  return greedy_max_coverage(rr_sets_view{sets.offsets, sets.members}, options);
}

/// The collection's greedy over everything it holds equals the CPU greedy over its sets; returns
/// the collection's selection.
inline coverage_selection expect_greedy_equals_cpu(rr_collection& c, std::uint32_t universe, std::uint32_t k,
                                                   bool bound, const std::string& where) {
  const coverage_selection want = cpu_greedy(c.copy_sets(0, c.size()), universe, k, bound);
  const coverage_selection got = c.select(k, bound);
  expect_same_selection(got, want, where, bound);
  return got;
}

/// The same for the per-round greedy over (vertex, round) pairs of n vertices and `rounds` rounds.
inline coverage_selection expect_per_round_greedy_equals_cpu(rr_collection& c, std::uint32_t n, std::uint32_t rounds,
                                                             std::uint32_t k, const std::string& where) {
  const coverage_selection want = cpu_greedy(c.copy_sets(0, c.size()), n * rounds, k, true, rounds);
  const coverage_selection got = c.select_per_round(k, n, rounds);
  expect_same_selection(got, want, where);
  return got;
}

}  // namespace wildfire::test
