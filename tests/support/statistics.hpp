// Tolerances for statistical tests, derived from the sample size (STYLE.md: 5 standard errors).
#pragma once

#include <cmath>
#include <cstdint>

namespace wildfire::test {

/// 5 binomial standard errors of a frequency with true probability p over `trials`, plus a
/// rounding slack (thresholds are p rounded to 2^-32, far below this).
inline double binomial_tolerance(double p, std::uint64_t trials, double sigmas = 5.0) {
  return sigmas * std::sqrt(std::max(p * (1 - p), 0.0) / static_cast<double>(trials)) + 1e-9;
}

}  // namespace wildfire::test
