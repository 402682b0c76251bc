// Discrete power-law MLE with the Clauset-Shalizi-Newman choice of x_min (SIAM Review 2009,
// eq. 3.5 for the likelihood, section 3.3 for x_min): for each candidate x_min the exponent
// maximises the concave log-likelihood (golden section), and the KS distance picks x_min.
#include "wildfire/graph/power_law_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "wildfire/error.hpp"

namespace wildfire {

std::vector<value_count> count_values(std::span<const std::uint64_t> values) {
  std::vector<std::uint64_t> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<value_count> counts;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    counts.push_back({sorted[i], j - i});
    i = j;
  }
  return counts;
}

double hurwitz_zeta(double s, double q) {
  WF_EXPECTS(s > 1.0 && q > 0.0, "hurwitz_zeta", "needs s > 1 and q > 0");
  // Direct terms until the Euler-Maclaurin remainder converges fast (a >> s keeps the
  // Bernoulli series' terms shrinking by about (s + 2j)^2 / (2 pi a)^2 each).
  double sum = 0.0;
  double a = q;
  while (a < 10.0 + s) {
    sum += std::pow(a, -s);
    a += 1.0;
  }
  const double a_s = std::pow(a, -s);
  sum += a * a_s / (s - 1.0) + 0.5 * a_s;
  // B_2j / (2j)! for j = 1..8.
  static constexpr double bernoulli_over_factorial[] = {
      1.0 / 12.0,           -1.0 / 720.0,          1.0 / 30240.0,          -1.0 / 1209600.0,
      1.0 / 47900160.0,     -691.0 / 1307674368000.0, 1.0 / 74724249600.0, -3617.0 / 10670622842880000.0};
  double rising = s;          // s (s+1) ... (s + 2j - 2)
  double power = a_s / a;     // a^(-s - 2j + 1)
  for (int j = 1; j <= 8; ++j) {
    sum += bernoulli_over_factorial[j - 1] * rising * power;
    rising *= (s + 2.0 * j - 1.0) * (s + 2.0 * j);
    power /= a * a;
  }
  return sum;
}

namespace {

/// Negative log-likelihood per tail observation: ln zeta(alpha, x_min) + alpha * mean(ln k).
double neg_log_likelihood(double alpha, double x_min, double mean_log) {
  return std::log(hurwitz_zeta(alpha, x_min)) + alpha * mean_log;
}

/// The minimiser of the (convex) negative log-likelihood on [lower, upper] by golden section.
double fit_alpha(double x_min, double mean_log, double lower, double upper) {
  const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
  double a = lower;
  double b = upper;
  double c = b - ratio * (b - a);
  double d = a + ratio * (b - a);
  double fc = neg_log_likelihood(c, x_min, mean_log);
  double fd = neg_log_likelihood(d, x_min, mean_log);
  while (b - a > 1e-9) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = neg_log_likelihood(c, x_min, mean_log);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = neg_log_likelihood(d, x_min, mean_log);
    }
  }
  return 0.5 * (a + b);
}

}  // namespace

std::optional<power_law_fit_result> fit_discrete_power_law(std::span<const value_count> counts,
                                                           const power_law_fit_options& options) {
  WF_EXPECTS(options.alpha_lower > 1.0 && options.alpha_upper > options.alpha_lower, "alpha range",
             "the exponent search interval must lie above 1");
  // Positive values only; suffix sums give each candidate's tail size and sum of logs in O(1).
  std::vector<value_count> positive;
  for (const auto& vc : counts) {
    if (vc.value > 0 && vc.count > 0) positive.push_back(vc);
  }
  const std::size_t u = positive.size();
  std::vector<std::uint64_t> tail_count(u + 1, 0);
  std::vector<double> tail_log_sum(u + 1, 0.0);
  for (std::size_t i = u; i-- > 0;) {
    tail_count[i] = tail_count[i + 1] + positive[i].count;
    tail_log_sum[i] = tail_log_sum[i + 1] + static_cast<double>(positive[i].count) *
                                                std::log(static_cast<double>(positive[i].value));
  }

  std::optional<power_law_fit_result> best;
  for (std::size_t i = 0; i < u; ++i) {
    if (options.x_min != 0 && positive[i].value != options.x_min) continue;
    if (options.x_min == 0 && tail_count[i] < std::max<std::uint64_t>(options.min_tail, 2)) break;
    const auto n_tail = static_cast<double>(tail_count[i]);
    const auto x_min = static_cast<double>(positive[i].value);
    const double alpha = fit_alpha(x_min, tail_log_sum[i] / n_tail, options.alpha_lower, options.alpha_upper);
    // KS distance between the tail's empirical and fitted survival functions, P(K >= k).
    const double z_min = hurwitz_zeta(alpha, x_min);
    double ks = 0.0;
    for (std::size_t j = i; j < u; ++j) {
      const double data = static_cast<double>(tail_count[j]) / n_tail;
      const double model = hurwitz_zeta(alpha, static_cast<double>(positive[j].value)) / z_min;
      ks = std::max(ks, std::abs(data - model));
      if (best && ks >= best->ks_distance && options.x_min == 0) break;  // cannot win any more
    }
    if (!best || ks < best->ks_distance || options.x_min != 0) {
      const double h = 1e-3;
      const double curvature = (std::log(hurwitz_zeta(alpha + h, x_min)) - 2.0 * std::log(z_min) +
                                std::log(hurwitz_zeta(alpha - h, x_min))) /
                               (h * h);
      power_law_fit_result result;
      result.alpha = alpha;
      result.alpha_stderr = curvature > 0 ? 1.0 / std::sqrt(n_tail * curvature)
                                          : std::numeric_limits<double>::infinity();
      result.x_min = positive[i].value;
      result.tail_count = tail_count[i];
      result.total_count = tail_count[0];
      result.ks_distance = ks;
      best = result;
    }
  }
  return best;
}

}  // namespace wildfire
