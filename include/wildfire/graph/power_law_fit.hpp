// Maximum-likelihood fit of a discrete power law P(k) = k^-alpha / zeta(alpha, x_min), k >= x_min,
// with x_min chosen by the Kolmogorov-Smirnov criterion (Clauset, Shalizi & Newman, SIAM Review
// 51(4), 2009, sections 3.1-3.3), for degree distributions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace wildfire {

/// One distinct value and how often it occurs.
struct value_count {
  std::uint64_t value;
  std::uint64_t count;
  friend bool operator==(const value_count&, const value_count&) = default;
};

/// The distinct values of `values` in ascending order with their counts. O(n log n).
std::vector<value_count> count_values(std::span<const std::uint64_t> values);

/// Hurwitz zeta function zeta(s, q) = sum_{k >= 0} (k + q)^-s for s > 1, q > 0 (Euler-Maclaurin,
/// relative error below 1e-12).
double hurwitz_zeta(double s, double q);

struct power_law_fit_options {
  /// Fixed x_min (>= 1), or 0 to choose it by minimising the KS distance (CSN section 3.3).
  std::uint64_t x_min = 0;
  /// Candidates x_min leave at least this many observations in the tail.
  std::uint64_t min_tail = 50;
  double alpha_lower = 1.01;  // search interval of the exponent
  double alpha_upper = 30.0;
};

struct power_law_fit_result {
  double alpha = 0;           // maximum-likelihood exponent of the tail k >= x_min
  double alpha_stderr = 0;    // 1 / sqrt(n_tail * Var(ln k)), the discrete Fisher information
  std::uint64_t x_min = 0;
  std::uint64_t tail_count = 0;   // observations >= x_min
  std::uint64_t total_count = 0;  // positive observations (zeros are not fitted)
  double ks_distance = 0;         // max |S_data(k) - S_fit(k)| over the tail's distinct values
};

/// Fits the positive values of `counts` (distinct values ascending, as count_values returns).
/// Returns nullopt when no candidate x_min leaves min_tail observations (or x_min has none).
/// O(U^2) zeta evaluations for U distinct values above the smallest candidate.
std::optional<power_law_fit_result> fit_discrete_power_law(std::span<const value_count> counts,
                                                           const power_law_fit_options& options = {});

}  // namespace wildfire
