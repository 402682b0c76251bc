// Statistical tests of the counter-based hash (ARCHITECTURE section 1): uniform outputs across
// sample ids and across elements, no correlation between neighbouring sample ids, independent
// IC coin flips in neighbouring samples, unbiased bounded draws. Tolerances come from the sample
// size: a chi-square statistic with d degrees of freedom has mean d and standard deviation
// sqrt(2 d); we accept up to mean + 5 standard deviations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/statistics.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"

namespace wildfire {
namespace {

double chi_square(const std::vector<std::uint64_t>& counts, double expected) {
  double chi = 0;
  for (const auto c : counts) chi += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return chi;
}

double chi_square_limit(double degrees) { return degrees + 5 * std::sqrt(2 * degrees); }

constexpr std::uint64_t draws = 1 << 20;

TEST(CounterHash, UniformAcrossSampleIds) {
  std::vector<std::uint64_t> buckets(256, 0);
  for (std::uint64_t s = 0; s < draws; ++s) ++buckets[element_hash32(sample_key(7, s), 12345) >> 24];
  EXPECT_LT(chi_square(buckets, draws / 256.0), chi_square_limit(255));
  // Low bits too (the low byte of the 32-bit draw).
  std::fill(buckets.begin(), buckets.end(), 0);
  for (std::uint64_t s = 0; s < draws; ++s) ++buckets[element_hash32(sample_key(7, s), 12345) & 0xff];
  EXPECT_LT(chi_square(buckets, draws / 256.0), chi_square_limit(255));
}

TEST(CounterHash, UniformAcrossElements) {
  std::vector<std::uint64_t> buckets(256, 0);
  const std::uint64_t key = sample_key(3, 99);
  for (std::uint64_t e = 0; e < draws; ++e) ++buckets[element_hash32(key, element_domain::edge | e) >> 24];
  EXPECT_LT(chi_square(buckets, draws / 256.0), chi_square_limit(255));
}

TEST(CounterHash, NeighbouringSampleIdsAreUncorrelated) {
  // Pearson correlation of u(s) and u(s + 1): standard error 1 / sqrt(N) when independent.
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  std::vector<std::uint64_t> joint(256, 0);  // 16 x 16 buckets of the pair
  for (std::uint64_t s = 0; s < draws; ++s) {
    const double x = element_uniform(sample_key(11, s), 5);
    const double y = element_uniform(sample_key(11, s + 1), 5);
    sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
    ++joint[static_cast<std::size_t>(x * 16) * 16 + static_cast<std::size_t>(y * 16)];
  }
  const double n = draws;
  const double r = (sxy / n - sx / n * sy / n) /
                   std::sqrt((sxx / n - sx / n * sx / n) * (syy / n - sy / n * sy / n));
  EXPECT_LT(std::abs(r), 5 / std::sqrt(n));
  EXPECT_LT(chi_square(joint, n / 256.0), chi_square_limit(255));
}

TEST(CounterHash, NeighbouringSeedsAndElementsAreUncorrelated) {
  double sxy = 0, sx = 0, sy = 0;
  for (std::uint64_t s = 0; s < draws; ++s) {
    const double x = element_uniform(sample_key(s, 1), 0);      // neighbouring run seeds
    const double y = element_uniform(sample_key(s + 1, 1), 0);
    sxy += x * y, sx += x, sy += y;
  }
  // Var(u) = 1/12, so the covariance estimate has standard error 1 / (12 sqrt(N)).
  EXPECT_LT(std::abs(sxy / draws - sx / draws * sy / draws), 5.0 / (12 * std::sqrt(double{draws})));
}

TEST(CounterHash, IcCoinFlipsHaveTheirProbabilityAndAreIndependentAcrossSamples) {
  const std::uint32_t threshold = threshold_from_probability(0.3);
  std::uint64_t live = 0, both = 0;
  for (std::uint64_t s = 0; s < draws; ++s) {
    const bool a = ic_edge_live(sample_key(1, s), 42, threshold);
    const bool b = ic_edge_live(sample_key(1, s + 1), 42, threshold);
    live += a;
    both += a && b;
  }
  EXPECT_NEAR(static_cast<double>(live) / draws, 0.3, test::binomial_tolerance(0.3, draws));
  EXPECT_NEAR(static_cast<double>(both) / draws, 0.09, test::binomial_tolerance(0.09, draws));
}

TEST(CounterHash, BoundedDrawIsUnbiased) {
  for (const std::uint32_t bound : {1u, 7u, 1000u, 3000000001u}) {
    const std::uint32_t buckets_count = bound < 64 ? bound : 64;
    std::vector<std::uint64_t> buckets(buckets_count, 0);
    for (std::uint64_t s = 0; s < draws; ++s) {
      const std::uint32_t r = bounded_draw(sample_key(5, s), element_domain::root, bound);
      ASSERT_LT(r, bound);
      // Equal-width buckets over [0, bound) (bound itself for small bounds).
      ++buckets[static_cast<std::size_t>(static_cast<std::uint64_t>(r) * buckets_count / bound)];
    }
    if (bound == 1) continue;
    // Expected count per bucket: widths differ by at most one value out of bound / 64.
    double chi = 0;
    for (std::uint32_t b = 0; b < buckets_count; ++b) {
      const std::uint64_t lo = (static_cast<std::uint64_t>(b) * bound + buckets_count - 1) / buckets_count;
      const std::uint64_t hi = (static_cast<std::uint64_t>(b + 1) * bound + buckets_count - 1) / buckets_count;
      const double expected = static_cast<double>(draws) * static_cast<double>(hi - lo) / bound;
      chi += (buckets[b] - expected) * (buckets[b] - expected) / expected;
    }
    EXPECT_LT(chi, chi_square_limit(buckets_count - 1)) << bound;
  }
}

TEST(CounterHash, DetectsABiasedGenerator) {
  // The chi-square check above can fail: a generator that never returns the top bucket does.
  std::vector<std::uint64_t> buckets(256, 0);
  for (std::uint64_t s = 0; s < draws; ++s) ++buckets[(element_hash32(sample_key(7, s), 1) >> 24) % 255];
  EXPECT_GT(chi_square(buckets, draws / 256.0), chi_square_limit(255));
}

}  // namespace
}  // namespace wildfire
