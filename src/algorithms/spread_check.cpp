// Monte-Carlo verification of an RR spread estimate (see spread_check.hpp).
#include "wildfire/algorithms/spread_check.hpp"

#include <cmath>

#include <fmt/core.h>

#include "wildfire/error.hpp"

namespace wildfire {

spread_check verify_spread(spread_simulator& simulator, std::span<const std::uint32_t> seeds, double estimate,
                           double estimate_stderr, std::uint64_t worlds, double relative_slack) {
  WF_EXPECTS(worlds >= 2, "--verify", "verification needs at least 2 Monte-Carlo worlds");
  spread_check check;
  check.monte_carlo = simulator.estimate(seeds, verification_first_world, worlds);
  check.tolerance = 4.0 * std::hypot(check.monte_carlo.standard_error, estimate_stderr) + relative_slack * estimate;
  const double gap = std::abs(estimate - check.monte_carlo.mean);
  check.ok = gap <= check.tolerance;
  if (!check.ok) {
    check.first_mismatch = fmt::format(
        "RR estimate {:.3f} differs from the Monte-Carlo mean {:.3f} (+- {:.3f}, {} worlds) by {:.3f} > {:.3f}", estimate,
        check.monte_carlo.mean, check.monte_carlo.standard_error, worlds, gap, check.tolerance);
  }
  return check;
}

}  // namespace wildfire
