// The number of mRR-sets a round needs and the verification of a batch (MERIT digest section 2.3,
// the squared ASTI form of theta_max and the corrected Lambda^l / Lambda^u of Lemma 8.1).
#pragma once

#include <cstdint>

namespace wildfire::adaptive {

struct round_bounds {
  double delta = 0;       // 1 / n_i
  double eps_hat = 0;     // (eps - delta) / (1 - delta), ASTI's choice (digest 4.2 item 2)
  double rho = 0;         // rho_b = 1 - (1 - 1/b)^b
  double theta0 = 0;      // 2 (alpha + beta)^2
  double theta_max = 0;   // 2 n_i (alpha + beta)^2 / (eps_hat^2 b)
  std::uint32_t trials = 0;  // H = ceil(log2(n_i / (eps_hat^2 b))) + 1
  double a1 = 0;          // ln(3H / delta) + ln C(n_i, b)
  double a2 = 0;          // ln(3H / delta)
};

/// Bounds for a round on `num_remaining` vertices with batch size `batch` and error `epsilon`.
/// Throws config_error when epsilon is not in (0, 1) or batch is 0 or above num_remaining.
round_bounds compute_round_bounds(std::uint64_t num_remaining, std::uint32_t batch, double epsilon);

/// Lambda^l(S) = (sqrt(Lambda + 2 a1 / 9) - sqrt(a1 / 2))^2 - a1 / 18.
double coverage_lower_bound(double coverage, double a1) noexcept;
/// Lambda^u(S^o) = (sqrt(Lambda / rho + a2 / 2) + sqrt(a2 / 2))^2.
double optimum_upper_bound(double coverage, double rho, double a2) noexcept;

/// The verification test of Alg. 4 lines 6-8: Lambda^l(S) > rho (1 - eps_hat) Lambda^u(S^o).
bool batch_verified(std::uint64_t coverage, const round_bounds& bounds) noexcept;

}  // namespace wildfire::adaptive
