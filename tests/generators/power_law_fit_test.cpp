// The discrete power-law fit: zeta values, recovery of known exponents and x_min from exact
// samples, and the standard error the sample size gives.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "wildfire/graph/power_law_fit.hpp"

namespace wildfire {
namespace {

/// Exact draw from P(k) = k^-alpha / zeta(alpha, x_min), k >= x_min: the smallest k whose
/// survival P(K > k) = zeta(alpha, k + 1) / zeta(alpha, x_min) falls below a uniform u.
std::uint64_t draw_power_law(double alpha, std::uint64_t x_min, double u) {
  const double z = hurwitz_zeta(alpha, static_cast<double>(x_min));
  const auto survival_after = [&](std::uint64_t k) { return hurwitz_zeta(alpha, static_cast<double>(k + 1)) / z; };
  std::uint64_t hi = x_min;
  while (survival_after(hi) >= u) hi = 2 * hi + 1;
  std::uint64_t lo = x_min;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (survival_after(mid) < u) hi = mid; else lo = mid + 1;
  }
  return lo;
}

TEST(HurwitzZeta, MatchesKnownValues) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  EXPECT_NEAR(hurwitz_zeta(2.0, 1.0), pi2 / 6.0, 1e-13);
  EXPECT_NEAR(hurwitz_zeta(4.0, 1.0), pi2 * pi2 / 90.0, 1e-13);
  EXPECT_NEAR(hurwitz_zeta(3.0, 1.0), 1.2020569031595942, 1e-13);
  double partial = 0;
  for (int k = 1; k < 10; ++k) partial += 1.0 / (k * k);
  EXPECT_NEAR(hurwitz_zeta(2.0, 10.0), pi2 / 6.0 - partial, 1e-13);
  EXPECT_NEAR(hurwitz_zeta(2.0, 0.5), pi2 / 2.0, 1e-12);  // zeta(s, 1/2) = (2^s - 1) zeta(s)
  EXPECT_NEAR(hurwitz_zeta(1.5, 1.0), 2.6123753486854883, 1e-12);
  EXPECT_NEAR(hurwitz_zeta(20.0, 1.0), 1.0000009539620338, 1e-13);
}

TEST(CountValues, GroupsAndSorts) {
  const std::vector<std::uint64_t> values{5, 1, 5, 0, 3, 5};
  const std::vector<value_count> expected{{0, 1}, {1, 1}, {3, 1}, {5, 3}};
  EXPECT_EQ(count_values(values), expected);
}

TEST(PowerLawFit, RecoversExponentWithFixedXmin) {
  // Prepare: 20000 exact draws for each alpha; the MLE is asymptotically normal with the Fisher
  // standard error the fit reports, so 4 sigma bounds a correct estimator's miss.
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (double alpha : {2.1, 2.5, 3.0, 3.5}) {
    std::vector<std::uint64_t> sample(20000);
    for (auto& x : sample) x = draw_power_law(alpha, 1, 1.0 - uniform(rng));
    power_law_fit_options options;
    options.x_min = 1;
    const auto fit = fit_discrete_power_law(count_values(sample), options);
    ASSERT_TRUE(fit.has_value());
    EXPECT_EQ(fit->x_min, 1U);
    EXPECT_EQ(fit->tail_count, 20000U);
    EXPECT_NEAR(fit->alpha, alpha, 4.0 * fit->alpha_stderr) << "alpha=" << alpha;
    EXPECT_GT(fit->alpha_stderr, 0.005);
    EXPECT_LT(fit->alpha_stderr, 0.05);
  }
}

TEST(PowerLawFit, FindsXminAboveANonPowerLawBody) {
  // Prepare: 40% of the mass uniform on 1..9, the rest a power law from 10 (alpha = 2.7).
  std::mt19937_64 rng(777);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uniform_int_distribution<std::uint64_t> body(1, 9);
  std::vector<std::uint64_t> sample(30000);
  std::uint64_t in_tail = 0;
  for (auto& x : sample) {
    if (uniform(rng) < 0.4) {
      x = body(rng);
    } else {
      x = draw_power_law(2.7, 10, 1.0 - uniform(rng));
      ++in_tail;
    }
  }
  const auto fit = fit_discrete_power_law(count_values(sample));
  ASSERT_TRUE(fit.has_value());
  EXPECT_GE(fit->x_min, 8U);
  EXPECT_LE(fit->x_min, 20U);
  EXPECT_NEAR(fit->alpha, 2.7, 4.0 * fit->alpha_stderr);
  EXPECT_LE(fit->tail_count, in_tail + 3000);
  EXPECT_EQ(fit->total_count, 30000U);
  // Large x_min: the discrete stderr approaches the continuous (alpha - 1) / sqrt(n).
  EXPECT_NEAR(fit->alpha_stderr, (fit->alpha - 1.0) / std::sqrt(static_cast<double>(fit->tail_count)),
              0.25 * fit->alpha_stderr);
  EXPECT_LT(fit->ks_distance, 0.02);
}

TEST(PowerLawFit, RejectsAWrongModelThroughTheKsDistance) {
  // Geometric data has no power-law tail: the best KS distance stays far above that of a
  // power-law sample of the same size.
  std::mt19937_64 rng(99);
  std::geometric_distribution<std::uint64_t> geometric(0.2);
  std::vector<std::uint64_t> sample(20000);
  for (auto& x : sample) x = 1 + geometric(rng);
  power_law_fit_options options;
  options.x_min = 1;
  const auto fit = fit_discrete_power_law(count_values(sample), options);
  ASSERT_TRUE(fit.has_value());
  EXPECT_GT(fit->ks_distance, 0.1);
}

TEST(PowerLawFit, NeedsEnoughPositiveValues) {
  const std::vector<value_count> few{{0, 1000}, {1, 10}, {2, 5}};
  EXPECT_FALSE(fit_discrete_power_law(few).has_value());
  power_law_fit_options options;
  options.x_min = 7;  // absent value
  EXPECT_FALSE(fit_discrete_power_law(few, options).has_value());
}

}  // namespace
}  // namespace wildfire
