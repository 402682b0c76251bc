// Distributional agreement of the preferential-attachment generators: pooled degree histograms
// of the sequential references and the parallel generator pass a two-sample chi-square test,
// and the fitted tail exponent matches the copy model's (2 - p) / (1 - p) (cuPPA Theorem 1;
// digest section 2.2).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_reference.hpp"
#include "wildfire/graph/power_law_fit.hpp"

namespace wildfire {
namespace {

using histogram = std::map<std::uint64_t, std::uint64_t>;

histogram pooled_degrees(const std::function<pa_graph(std::uint64_t)>& generate, int runs) {
  histogram counts;
  for (int r = 0; r < runs; ++r) {
    for (std::uint64_t k : pa_total_degrees(generate(1000 + r))) ++counts[k];
  }
  return counts;
}

struct chi_square {
  double statistic;
  double critical;  // upper 1e-6 quantile for the test's degrees of freedom
};

/// Two-sample chi-square over degree bins holding >= 40 pooled observations each (the last
/// partial bin joins its neighbour). Critical value: Wilson-Hilferty at z = 4.753 (1e-6).
chi_square two_sample_chi_square(const histogram& a, const histogram& b) {
  histogram both = a;
  for (auto [k, c] : b) both[k] += c;
  std::vector<std::pair<double, double>> bins;
  double bin_a = 0, bin_b = 0;
  for (auto [k, c] : both) {
    bin_a += a.contains(k) ? static_cast<double>(a.at(k)) : 0.0;
    bin_b += b.contains(k) ? static_cast<double>(b.at(k)) : 0.0;
    if (bin_a + bin_b >= 40) {
      bins.emplace_back(bin_a, bin_b);
      bin_a = bin_b = 0;
    }
  }
  if (bin_a + bin_b > 0) {
    bins.back().first += bin_a;
    bins.back().second += bin_b;
  }
  double total_a = 0, total_b = 0;
  for (auto [x, y] : bins) {
    total_a += x;
    total_b += y;
  }
  const double ka = std::sqrt(total_b / total_a);
  const double kb = std::sqrt(total_a / total_b);
  double statistic = 0;
  for (auto [x, y] : bins) statistic += (ka * x - kb * y) * (ka * x - kb * y) / (x + y);
  const double df = static_cast<double>(bins.size() - 1);
  const double z = 4.753;
  const double critical = df * std::pow(1.0 - 2.0 / (9.0 * df) + z * std::sqrt(2.0 / (9.0 * df)), 3.0);
  return {statistic, critical};
}

pa_graph parallel(std::uint32_t n, std::uint32_t d, double p, std::uint64_t seed) {
  pa_cpu_options options;
  options.num_threads = 2;
  return generate_pa_cpu({n, d, p, seed}, options);
}

constexpr std::uint32_t n = 20000;
constexpr int runs = 10;

TEST(PaDistribution, BatageljBrandesAgreesWithParallelCopyModelAtHalf) {
  for (std::uint32_t d : {1U, 4U}) {
    const auto ba = pooled_degrees([&](std::uint64_t s) { return reference::barabasi_albert(n, d, s); }, runs);
    const auto cm = pooled_degrees([&](std::uint64_t s) { return parallel(n, d, 0.5, s); }, runs);
    const auto test = two_sample_chi_square(ba, cm);
    EXPECT_LT(test.statistic, test.critical) << "d=" << d;
  }
}

TEST(PaDistribution, SequentialCopyModelAgreesWithParallel) {
  for (double p : {0.1, 0.25, 0.75}) {
    const auto scm = pooled_degrees([&](std::uint64_t s) { return reference::copy_model({n, 4, p, s}); }, runs);
    const auto par = pooled_degrees([&](std::uint64_t s) { return parallel(n, 4, p, s + 500); }, runs);
    const auto test = two_sample_chi_square(scm, par);
    EXPECT_LT(test.statistic, test.critical) << "p=" << p;
  }
}

TEST(PaDistribution, TheoremOneSequentialCopyModelAtHalfIsBarabasiAlbert) {
  const auto ba = pooled_degrees([&](std::uint64_t s) { return reference::barabasi_albert(n, 2, s); }, runs);
  const auto scm = pooled_degrees([&](std::uint64_t s) { return reference::copy_model({n, 2, 0.5, s + 77}); }, runs);
  const auto test = two_sample_chi_square(ba, scm);
  EXPECT_LT(test.statistic, test.critical);
}

TEST(PaDistribution, TheTestSeesASmallChangeOfP) {
  // Power check: the same sample sizes tell p = 0.5 from p = 0.42.
  const auto ba = pooled_degrees([&](std::uint64_t s) { return reference::barabasi_albert(n, 4, s); }, runs);
  const auto other = pooled_degrees([&](std::uint64_t s) { return parallel(n, 4, 0.42, s); }, runs);
  const auto test = two_sample_chi_square(ba, other);
  EXPECT_GT(test.statistic, test.critical);
}

/// Local log-log slope -d ln P / d ln k at k of the copy model's total-degree law
/// P(k) ~ Gamma(k + c) / Gamma(k + c + gamma), c = d p / (1 - p) - d (digest section 2.2: the
/// in-degree grows like in + d p / (1 - p)); it tends to gamma as k grows.
double local_slope(double k, double c, double gamma) {
  const auto log_p = [&](double x) { return std::lgamma(x + c) - std::lgamma(x + c + gamma); };
  return -(log_p(k + 0.5) - log_p(k - 0.5)) / (std::log(k + 0.5) - std::log(k - 0.5));
}

TEST(PaDistribution, FittedExponentMatchesTheCopyModel) {
  // The MLE averages the local slope over the tail k >= x_min, so it lies between the slope at
  // x_min and gamma = (2 - p) / (1 - p), up to 4 of its standard errors.
  const std::uint32_t d = 4;
  for (double p : {0.4, 0.5, 0.6}) {
    const auto g = parallel(400000, d, p, 31);
    const auto fit = fit_discrete_power_law(count_values(pa_total_degrees(g)));
    ASSERT_TRUE(fit.has_value());
    const double gamma = (2.0 - p) / (1.0 - p);
    const double c = d * p / (1.0 - p) - d;
    const double at_xmin = local_slope(static_cast<double>(fit->x_min), c, gamma);
    const double lower = std::min(at_xmin, gamma) - 4.0 * fit->alpha_stderr;
    const double upper = std::max(at_xmin, gamma) + 4.0 * fit->alpha_stderr;
    EXPECT_GE(fit->alpha, lower) << "p=" << p << " x_min=" << fit->x_min << " stderr=" << fit->alpha_stderr;
    EXPECT_LE(fit->alpha, upper) << "p=" << p << " x_min=" << fit->x_min << " stderr=" << fit->alpha_stderr;
    EXPECT_LT(fit->alpha_stderr, 0.15) << "p=" << p;
  }
}

}  // namespace
}  // namespace wildfire
