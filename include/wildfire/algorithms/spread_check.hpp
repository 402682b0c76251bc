// The independent Monte-Carlo check behind `--verify R`: simulate R forward worlds, disjoint from
// every RR sample id a run uses, and compare their mean with the run's RR estimate of the spread.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire {

/// First world id of verification runs: far above the RR ids of IMM (from 0) and OPIM-C's R2
/// (from 2^40), so the check is independent of the sets that chose the seeds.
inline constexpr std::uint64_t verification_first_world = std::uint64_t{1} << 50;

struct spread_check {
  bool ok = false;
  std::string first_mismatch;  // why it failed; empty when ok
  spread_estimate monte_carlo;
  double tolerance = 0;        // the largest |estimate - mean| accepted
};

/// Invariants checked: the Monte-Carlo mean lies within 4 standard errors of the difference of
/// the two independent estimates plus `relative_slack * estimate` (the accuracy the algorithm
/// promises; 0 for a plain consistency check) of the RR estimate; the seeds are in the graph
/// (the simulator throws otherwise). Blocks.
spread_check verify_spread(spread_simulator& simulator, std::span<const std::uint32_t> seeds, double estimate,
                           double estimate_stderr, std::uint64_t worlds, double relative_slack);

}  // namespace wildfire
