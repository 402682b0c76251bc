// theta_0, theta_max, H, a1, a2 and the verification test of one round (MERIT digest section 2.3).
#include "wildfire/adaptive/round_bounds.hpp"

#include <cmath>

#include "wildfire/error.hpp"

namespace wildfire::adaptive {

namespace {

double log_binomial(double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); }

}  // namespace

round_bounds compute_round_bounds(std::uint64_t num_remaining, std::uint32_t batch, double epsilon) {
  WF_EXPECTS(epsilon > 0 && epsilon < 1, "--epsilon", "epsilon must be in (0, 1)");
  WF_EXPECTS(batch >= 1, "--batch", "the batch size must be at least 1");
  WF_EXPECTS(batch <= num_remaining, "--batch", "the batch is larger than the residual graph");
  round_bounds r;
  const double n = static_cast<double>(num_remaining);
  const double b = batch;
  r.delta = 1.0 / n;
  // ASTI's eps' = (eps - delta) / (1 - delta); with n_i = 1 both it and the printed
  // (eps - delta)(1 - delta) degenerate, so keep eps there (one vertex left: any batch is exact).
  r.eps_hat = num_remaining > 1 ? (epsilon - r.delta) / (1 - r.delta) : epsilon;
  if (r.eps_hat <= 0) r.eps_hat = epsilon;
  r.rho = 1 - std::pow(1 - 1 / b, b);
  const double log_choose = log_binomial(n, b);
  const double log_six_delta = std::log(6 / r.delta);
  const double alpha = std::sqrt(log_six_delta);
  const double beta = std::sqrt((log_choose + log_six_delta) / r.rho);
  r.theta0 = 2 * (alpha + beta) * (alpha + beta);
  r.theta_max = 2 * n * (alpha + beta) * (alpha + beta) / (r.eps_hat * r.eps_hat * b);
  const double ratio = n / (r.eps_hat * r.eps_hat * b);
  r.trials = static_cast<std::uint32_t>(std::ceil(std::log2(std::max(ratio, 1.0)))) + 1;
  r.a2 = std::log(3.0 * r.trials / r.delta);
  r.a1 = r.a2 + log_choose;
  return r;
}

double coverage_lower_bound(double coverage, double a1) noexcept {
  const double root = std::sqrt(coverage + 2 * a1 / 9) - std::sqrt(a1 / 2);
  return root * root - a1 / 18;
}

double optimum_upper_bound(double coverage, double rho, double a2) noexcept {
  const double root = std::sqrt(coverage / rho + a2 / 2) + std::sqrt(a2 / 2);
  return root * root;
}

bool batch_verified(std::uint64_t coverage, const round_bounds& bounds) noexcept {
  const double lambda = static_cast<double>(coverage);
  // Lambda^l as a lower bound is only meaningful where sqrt(Lambda + 2a1/9) >= sqrt(a1/2).
  if (std::sqrt(lambda + 2 * bounds.a1 / 9) < std::sqrt(bounds.a1 / 2)) return false;
  return coverage_lower_bound(lambda, bounds.a1) >
         bounds.rho * (1 - bounds.eps_hat) * optimum_upper_bound(lambda, bounds.rho, bounds.a2);
}

}  // namespace wildfire::adaptive
