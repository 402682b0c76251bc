// Greedy maximum coverage: equal to the serial reference greedy (seeds, gains) on random
// instances, within (1 - 1/e) of the brute-force optimum on small ones, deterministic ties,
// per-round budgets, the OPIM-C upper bound is a true upper bound, thread-count independence.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "reference/greedy_coverage.hpp"
#include "support/selection_checks.hpp"
#include "wildfire/error.hpp"
#include "wildfire/selection/max_coverage.hpp"

namespace wildfire {
namespace {

rr_sets random_sets(std::uint32_t universe, std::uint64_t count, std::uint32_t max_size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  rr_sets sets;
  for (std::uint64_t s = 0; s < count; ++s) {
    std::vector<std::uint32_t> set;
    const auto size = 1 + rng() % max_size;
    for (std::uint64_t i = 0; i < size; ++i) {
      // Skewed: low ids are popular, so there are clear winners and many ties among the rest.
      const auto u = static_cast<std::uint32_t>(rng() % 3 == 0 ? rng() % (universe / 8 + 1) : rng() % universe);
      set.push_back(u);
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    sets.members.insert(sets.members.end(), set.begin(), set.end());
    sets.offsets.push_back(sets.members.size());
  }
  return sets;
}

coverage_selection run(const rr_sets& sets, std::uint32_t universe, std::uint32_t k, int threads,
                       std::uint32_t rounds = 1) {
  return test::cpu_greedy(sets, universe, k, true, rounds, threads);
}

TEST(MaxCoverage, EqualsSerialReferenceAndIsThreadIndependent) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::uint32_t universe = seed == 5 ? (1U << 20) + 7 : 500;  // 2^20 + 7: mostly empty elements
    const auto sets = random_sets(universe, 3000, 12, seed);
    const auto expected = reference::greedy_coverage(sets, universe, 20);
    for (const int threads : {1, 2}) {
      const auto got = run(sets, universe, 20, threads);
      EXPECT_EQ(got.seeds, expected.seeds) << "seed " << seed << " threads " << threads;
      EXPECT_EQ(got.marginal_coverage, expected.marginal_coverage);
      EXPECT_EQ(got.covered, expected.covered);
      EXPECT_EQ(got.covered, reference::covered_sets(sets, got.seeds));
      // Greedy marginal gains never increase.
      EXPECT_TRUE(std::is_sorted(got.marginal_coverage.rbegin(), got.marginal_coverage.rend()));
    }
  }
}

TEST(MaxCoverage, LargeListsUseTheParallelCoverPathAndStayExact) {
  // One element in every other set: its list exceeds the parallel threshold (32768 sets).
  auto sets = random_sets(2000, 80000, 6, 9);
  rr_sets with_hub;
  for (std::uint64_t s = 0; s < sets.size(); ++s) {
    std::vector<std::uint32_t> set(sets[s].begin(), sets[s].end());
    if (s % 2 == 0 && !std::binary_search(set.begin(), set.end(), 1999u)) set.push_back(1999);
    with_hub.members.insert(with_hub.members.end(), set.begin(), set.end());
    with_hub.offsets.push_back(with_hub.members.size());
  }
  const auto expected = reference::greedy_coverage(with_hub, 2000, 5);
  const auto got = run(with_hub, 2000, 5, 2);
  EXPECT_EQ(got.seeds.front(), 1999u);
  EXPECT_EQ(got.seeds, expected.seeds);
  EXPECT_EQ(got.marginal_coverage, expected.marginal_coverage);
}

TEST(MaxCoverage, WithinGreedyBoundOfBruteForceOptimumAndUpperBoundHolds) {
  for (std::uint64_t seed = 10; seed < 30; ++seed) {
    const std::uint32_t universe = 12, k = 3;
    const auto sets = random_sets(universe, 40, 3, seed);
    std::uint64_t optimum = 0;
    for (std::uint32_t mask = 0; mask < (1U << universe); ++mask) {
      if (__builtin_popcount(mask) != static_cast<int>(k)) continue;
      std::vector<std::uint32_t> chosen;
      for (std::uint32_t u = 0; u < universe; ++u)
        if (mask >> u & 1) chosen.push_back(u);
      optimum = std::max(optimum, reference::covered_sets(sets, chosen));
    }
    const auto got = run(sets, universe, k, 1);
    const double greedy_bound = 1.0 - std::pow(1.0 - 1.0 / k, k);
    EXPECT_GE(static_cast<double>(got.covered), greedy_bound * static_cast<double>(optimum) - 1e-9) << seed;
    EXPECT_LE(got.covered, optimum);
    EXPECT_GE(got.optimum_upper_bound, optimum) << seed;  // OPIM-C Eq. 9 bounds the optimum
  }
}

TEST(MaxCoverage, TiesGoToLowestIdAndZeroGainSeedsFill) {
  rr_sets sets;
  for (const std::vector<std::uint32_t>& set : {std::vector<std::uint32_t>{3, 5}, {5}, {3}, {7}}) {
    sets.members.insert(sets.members.end(), set.begin(), set.end());
    sets.offsets.push_back(sets.members.size());
  }
  const auto got = run(sets, 10, 5, 1);
  // 3 and 5 tie with 2 sets: 3 first; then 5 and 7 tie with 1: 5; then 7; then zero-gain 0, 1.
  EXPECT_EQ(got.seeds, (std::vector<std::uint32_t>{3, 5, 7, 0, 1}));
  EXPECT_EQ(got.marginal_coverage, (std::vector<std::uint64_t>{2, 1, 1, 0, 0}));
  EXPECT_EQ(got.covered, 4u);
}

TEST(MaxCoverage, PerRoundBudgetsMatchReference) {
  const std::uint32_t n = 300, rounds = 3;
  const auto sets = random_sets(n * rounds, 2000, 10, 77);
  const auto expected = reference::greedy_coverage(sets, n * rounds, 4, rounds);
  const auto got = run(sets, n * rounds, 4, 2, rounds);
  EXPECT_EQ(got.seeds, expected.seeds);
  ASSERT_EQ(got.seeds.size(), 12u);
  std::vector<int> per_round(rounds, 0);
  for (const auto s : got.seeds) ++per_round[s / n];
  EXPECT_EQ(per_round, (std::vector<int>{4, 4, 4}));
}

TEST(MaxCoverage, ListsBeyondTheFirstTierAreBuiltWhenAStepNeedsThem) {
  // Lists are first built for the 32 k T largest counts only. Here 200 clones (ids 0..199) share
  // the same 12,000 sets and so hold the largest counts; x = 350 has 6,000 sets of its own and
  // y = 280 has 20, both outside the first tier (128 elements). Step 1 takes clone 0 and zeroes the other
  // clones, step 2 must build a tier to reach x, step 3 another to reach y, then zero-gain fill.
  // Over 2^20 members, so the counts and lists are built by both threads.
  rr_sets sets;
  auto add = [&](std::vector<std::uint32_t> set) {
    sets.members.insert(sets.members.end(), set.begin(), set.end());
    sets.offsets.push_back(sets.members.size());
  };
  std::vector<std::uint32_t> clones(200);
  for (std::uint32_t c = 0; c < 200; ++c) clones[c] = c;
  for (int s = 0; s < 12000; ++s) {
    add(clones);
    if (s < 6000) add({350});
    if (s < 20) add({280});
  }
  ASSERT_GT(sets.num_members(), 1U << 20);
  for (const int threads : {1, 2}) {
    // k = 1 per round over 4 rounds of 100 elements, and k = 4 in one round.
    for (const auto& [k, rounds] : {std::pair<std::uint32_t, std::uint32_t>{1, 4}, {4, 1}}) {
      const auto expected = reference::greedy_coverage(sets, 400, k, rounds);
      const auto got = run(sets, 400, k, threads, rounds);
      EXPECT_EQ(got.seeds, expected.seeds) << "threads " << threads << " rounds " << rounds;
      EXPECT_EQ(got.marginal_coverage, expected.marginal_coverage);
      EXPECT_EQ(got.covered, reference::covered_sets(sets, got.seeds));
    }
  }
  const auto got = run(sets, 400, 4, 2);
  EXPECT_EQ(got.seeds, (std::vector<std::uint32_t>{0, 350, 280, 1}));
  EXPECT_EQ(got.marginal_coverage, (std::vector<std::uint64_t>{12000, 6000, 20, 0}));
}

TEST(MaxCoverage, RejectsZeroK) {
  const auto sets = random_sets(10, 5, 2, 1);
  EXPECT_THROW(run(sets, 10, 0, 1), config_error);
}

TEST(MaxCoverage, CountCoveredMatchesReference) {
  const auto sets = random_sets(400, 1500, 8, 5);
  const std::vector<std::uint32_t> seeds{0, 17, 250};
  EXPECT_EQ(count_covered(rr_sets_view{sets.offsets, sets.members}, seeds, 400, 2), reference::covered_sets(sets, seeds));
}

}  // namespace
}  // namespace wildfire
