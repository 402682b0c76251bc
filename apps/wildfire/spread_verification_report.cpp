// Shared --verify reporting of the influence-maximization commands.
#include "spread_verification_report.hpp"

#include <cstdio>

#include <fmt/core.h>

#include "wildfire/error.hpp"

namespace wildfire::cli {

nlohmann::json spread_verification_json(const spread_check& check, std::uint64_t worlds) {
  return {{"Worlds", worlds},
          {"MonteCarloSpread", check.monte_carlo.mean},
          {"MonteCarloStdErr", check.monte_carlo.standard_error},
          {"MonteCarloCI95", {check.monte_carlo.ci95_low, check.monte_carlo.ci95_high}},
          {"Tolerance", check.tolerance},
          {"Result", check.ok ? "PASS" : "FAIL"}};
}

void report_spread_verification(const spread_check& check) {
  fmt::print(stderr, "verification: {}\n", check.ok ? "PASS" : "FAIL");
  if (!check.ok) throw error("verification failed: " + check.first_mismatch);
}

}  // namespace wildfire::cli
