// The block rule for IC liveness (random/ic_block_rule.hpp): which vertices use it, its count
// tables, and that it draws each in-edge independently with probability p: per-edge and pairwise
// frequencies within 5 binomial standard errors, the number of live in-edges against the
// Binomial(d, p) pmf by chi-square, and the single-edge question answered consistently with the
// enumeration, for sample after sample; the picks drawn from the count's hash follow the rule
// computed apart, and their subsets are uniform.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "support/statistics.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire {
namespace {

/// Vertex 0 with `d` in-edges of probability p (from vertices 1..d).
csr_graph star(std::uint32_t d, double p) {
  std::vector<test::probability_edge> edges;
  for (std::uint32_t u = 1; u <= d; ++u) edges.push_back({u, 0, p});
  return test::graph_from_probabilities(d + 1, edges);
}

std::vector<std::uint64_t> live_in_edges(std::uint64_t key, const graph_view& g, const ic_block_view& b,
                                         std::uint32_t v) {
  std::vector<std::uint64_t> live;
  for_each_live_in_edge(key, g, b, v, [&](std::uint64_t j) { live.push_back(j); });
  return live;
}

double log_binomial_pmf(std::uint32_t n, std::uint32_t k, double p) {
  return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) +
         (n - k) * std::log1p(-p);
}

TEST(IcBlockPlan, ClassifiesVertices) {
  // 0: three in-edges of 0.2 (block rule); 1: mixed 0.2 / 0.3; 2: one in-edge; 3: uniform 0.7;
  // 4: uniform 1.0; 5: two in-edges of 0.2, the same class as vertex 0 only if the sizes match.
  const csr_graph g = test::graph_from_probabilities(
      8, {{5, 0, 0.2}, {6, 0, 0.2}, {7, 0, 0.2}, {0, 1, 0.2}, {2, 1, 0.3}, {0, 2, 0.5}, {0, 3, 0.7},
          {1, 3, 0.7}, {0, 4, 1.0}, {1, 4, 1.0}, {0, 5, 0.2}, {1, 5, 0.2}});
  const ic_block_plan plan = make_ic_block_plan(g.view());
  EXPECT_NE(plan.vertex_class[0], per_edge_class);
  EXPECT_EQ(plan.vertex_class[1], per_edge_class);
  EXPECT_EQ(plan.vertex_class[2], per_edge_class);
  EXPECT_EQ(plan.vertex_class[3], per_edge_class);
  EXPECT_EQ(plan.vertex_class[4], per_edge_class);
  EXPECT_NE(plan.vertex_class[5], per_edge_class);
  EXPECT_NE(plan.vertex_class[5], plan.vertex_class[0]);  // blocks of 3 and of 2 edges
  EXPECT_EQ(plan.num_classes(), 2U);
}

TEST(IcBlockPlan, BlockSizeIsOneOverPAndAtLeastTwelve) {
  EXPECT_EQ(ic_block_size(1000, threshold_from_probability(0.01)), 100U);
  EXPECT_EQ(ic_block_size(50, threshold_from_probability(0.01)), 50U);
  EXPECT_EQ(ic_block_size(1000, threshold_from_probability(1.0 / 13)), 13U);
  EXPECT_EQ(ic_block_size(1000, threshold_from_probability(0.1)), small_block_max);
  EXPECT_EQ(ic_block_size(16, threshold_from_probability(0.2)), small_block_max);
  EXPECT_EQ(ic_block_size(10, threshold_from_probability(0.2)), 10U);
  EXPECT_EQ(ic_block_size(12, threshold_from_probability(0.5)), 12U);
  EXPECT_EQ(ic_block_size(13, threshold_from_probability(0.5)), small_block_max);
  for (std::uint64_t d = 2; d < 5000; d += 7) EXPECT_EQ(ic_block_size(d, threshold_from_probability(1.0 / d)), d);
}

TEST(IcBlockPlan, BinomialTableIsTheCdf) {
  for (const auto& [size, p] : std::vector<std::pair<std::uint64_t, double>>{{1, 0.3}, {5, 0.2}, {100, 0.01}, {3000, 1.0 / 3000}}) {
    std::uint32_t table[block_cdf_length];
    const std::uint32_t t = threshold_from_probability(p);
    binomial_cdf_table(size, t, table);
    const double q = t / 4294967296.0;
    double cumulative = 0;
    for (std::uint32_t k = 0; k < block_cdf_length; ++k) {
      if (k > 0) {
        EXPECT_GE(table[k], table[k - 1]);
      }
      if (k >= size) {
        EXPECT_EQ(table[k], 0xffffffffU) << "size " << size << " k " << k;
        continue;
      }
      cumulative += std::exp(log_binomial_pmf(static_cast<std::uint32_t>(size), k, q));
      EXPECT_NEAR(table[k] / 4294967296.0, std::min(cumulative, 1.0), 1e-9) << "size " << size << " k " << k;
    }
  }
}

TEST(IcBlockRule, MixedVerticesKeepThePerEdgeRule) {
  const csr_graph g = test::tiny_ic_graph();
  const ic_block_plan plan = make_ic_block_plan(g.view());
  for (std::uint64_t s = 0; s < 2000; ++s) {
    const std::uint64_t key = sample_key(1, s);
    for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
      if (plan.vertex_class[v] != per_edge_class) continue;
      std::vector<std::uint64_t> expected;
      for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j)
        if (ic_edge_live(key, j, g.in_thresholds[j])) expected.push_back(j);
      EXPECT_EQ(live_in_edges(key, g.view(), plan.view(), v), expected);
    }
  }
}

struct star_case {
  std::uint32_t degree;
  double probability;
};

class IcBlockRuleStar : public ::testing::TestWithParam<star_case> {};

TEST_P(IcBlockRuleStar, EdgesAreIndependentBernoulli) {
  const auto [d, p] = GetParam();
  const csr_graph g = star(d, p);
  const ic_block_plan plan = make_ic_block_plan(g.view());
  ASSERT_NE(plan.vertex_class[0], per_edge_class);
  const double q = g.in_thresholds[0] / 4294967296.0;
  const std::uint64_t b = ic_block_size(d, g.in_thresholds[0]);
  // Pairs: first two edges (one block), first and last (different blocks when d > b).
  const std::uint64_t last = d - 1;
  constexpr std::uint64_t samples = 200000;
  std::vector<std::uint64_t> edge_live(d, 0), live_count(d + 1, 0);
  std::uint64_t pair_same = 0, pair_apart = 0, draws = 0;
  for (std::uint64_t s = 0; s < samples; ++s) {
    const std::uint64_t key = sample_key(42, s);
    std::vector<std::uint8_t> live(d, 0);
    draws += for_each_live_in_edge(key, g.view(), plan.view(), 0, [&](std::uint64_t j) {
      ASSERT_LT(j, d);
      ASSERT_EQ(live[j], 0) << "edge reported twice";
      live[j] = 1;
    });
    std::uint32_t count = 0;
    for (std::uint32_t j = 0; j < d; ++j) {
      if (s < 5000) {  // the single-edge question agrees with the enumeration (costly on hubs)
        ASSERT_EQ(live[j] != 0, ic_in_edge_live(key, g.view(), plan.view(), 0, j)) << "sample " << s << " edge " << j;
      }
      edge_live[j] += live[j];
      count += live[j];
    }
    ++live_count[count];
    pair_same += live[0] & live[1];
    pair_apart += live[0] & live[last];
  }
  for (std::uint32_t j = 0; j < d; ++j)
    EXPECT_NEAR(static_cast<double>(edge_live[j]) / samples, q, test::binomial_tolerance(q, samples)) << "edge " << j;
  EXPECT_NEAR(static_cast<double>(pair_same) / samples, q * q, test::binomial_tolerance(q * q, samples));
  EXPECT_NEAR(static_cast<double>(pair_apart) / samples, q * q, test::binomial_tolerance(q * q, samples));
  // Chi-square of the live count against Binomial(d, q), bins with expectation >= 5 (the rest pooled).
  double chi = 0, pooled_expected = 0, pooled_observed = 0;
  int bins = 0;
  for (std::uint32_t k = 0; k <= d; ++k) {
    const double expected = samples * std::exp(log_binomial_pmf(d, k, q));
    if (expected >= 5) {
      chi += (live_count[k] - expected) * (live_count[k] - expected) / expected;
      ++bins;
    } else {
      pooled_expected += expected;
      pooled_observed += static_cast<double>(live_count[k]);
    }
  }
  if (pooled_expected >= 5) {
    chi += (pooled_observed - pooled_expected) * (pooled_observed - pooled_expected) / pooled_expected;
    ++bins;
  }
  const double dof = bins - 1;
  EXPECT_LT(chi, dof + 5 * std::sqrt(2 * dof) + 1e-9) << bins << " bins";
  // The work: one count draw per block plus at most one per live edge (Floyd's picks where the draw
  // from the count's low half is not exact); blocks of at most small_block_max edges take their
  // live edges from the subset table, rejected below 2^-22: one hash a block.
  const double blocks = std::ceil(static_cast<double>(d) / static_cast<double>(b));
  EXPECT_LT(static_cast<double>(draws) / samples, blocks + d * q + 0.05);
  if (b <= small_block_max) {
    EXPECT_GE(static_cast<double>(draws) / samples, blocks);
    EXPECT_LT(static_cast<double>(draws) / samples, blocks + 0.001);
  }
}

INSTANTIATE_TEST_SUITE_P(Degrees, IcBlockRuleStar,
                         ::testing::Values(star_case{2, 0.5}, star_case{3, 1.0 / 3}, star_case{7, 0.2},
                                           star_case{40, 0.05}, star_case{250, 0.01}, star_case{1000, 0.001},
                                           star_case{37, 0.1}, star_case{30, 0.2}));

TEST(IcBlockRule, WeightedCascadeHubCostsItsExpectedHashes) {
  const std::uint32_t d = 5000;
  const csr_graph g = star(d, 1.0 / d);
  const ic_block_plan plan = make_ic_block_plan(g.view());
  ASSERT_EQ(ic_block_size(d, g.in_thresholds[0]), d);  // one block
  std::uint64_t draws = 0;
  constexpr std::uint64_t samples = 20000;
  for (std::uint64_t s = 0; s < samples; ++s)
    draws += for_each_live_in_edge(sample_key(3, s), g.view(), plan.view(), 0, [](std::uint64_t) {});
  // The count's hash, and a hash per pick where K >= 2 (d (d - 1) > ic_batched_picks_limit: the
  // picks do not fit the count's low half); a single pick fits it (rejected with probability
  // d / 2^32, negligible here). Mean and 5 standard errors of 1 + K [K >= 2], K ~ Binomial(d, q).
  ASSERT_GT(std::uint64_t{d} * (d - 1), ic_batched_picks_limit);
  const double q = g.in_thresholds[0] / 4294967296.0;
  double mean = 0, second = 0;
  for (std::uint32_t k = 0; k <= block_cdf_length; ++k) {
    const double cost = 1.0 + (k >= 2 ? k : 0);
    const double pmf = std::exp(log_binomial_pmf(d, k, q));
    mean += pmf * cost;
    second += pmf * cost * cost;
  }
  EXPECT_NEAR(mean, 1.63, 0.01);  // about 1 + P(K >= 2) E[K | K >= 2], not 1 + E[K] = 2
  const double error = std::sqrt((second - mean * mean) / samples);
  EXPECT_NEAR(static_cast<double>(draws) / samples, mean, 5 * error);
}

/// The first k with u < table[k] (block_cdf_length if none): a block's count before its size caps it.
std::uint32_t first_entry_above(std::uint32_t u, const std::uint32_t* table) {
  std::uint32_t k = 0;
  while (k < block_cdf_length && u >= table[k]) ++k;
  return k;
}

TEST(IcBlockRule, CountIsTheFirstEntryAboveTheHash) {
  // ic_block_live_count compares the table's head at once (4 entries; the edge masks 8); the count
  // must still be the first k with u < table[k] (capped at the block's size), including counts
  // past either head.
  std::uint64_t large = 0;
  const std::vector<std::pair<std::uint64_t, double>> blocks{{5, 0.2}, {12, 0.5}, {32, 0.6}, {3, 0.9}};
  for (const auto& [size, p] : blocks) {
    std::uint32_t table[block_cdf_length];
    binomial_cdf_table(size, threshold_from_probability(p), table);
    for (std::uint64_t s = 0; s < 4000; ++s) {
      const std::uint64_t key = sample_key(9, s);
      const std::uint64_t first = 37 * s;
      const std::uint32_t u = element_hash32(key, ic_block_element(first, 0));
      const std::uint32_t want = std::min<std::uint32_t>(first_entry_above(u, table), static_cast<std::uint32_t>(size));
      const ic_block_counted drawn = ic_block_live_count(key, first, table, size);
      ASSERT_EQ(drawn.count, want) << size << " " << p << " " << s;
      ASSERT_EQ(drawn.picks, static_cast<std::uint32_t>(element_hash(key, ic_block_element(first, 0))));
      ASSERT_EQ(ic_block_count(u, ic_block_table_head<8>(table), table, size), want);
      if (want >= 8) ++large;
    }
  }
  EXPECT_GT(large, 1000U);  // the one-by-one tail ran
  // The 8-entry head is searched by halves: every count, at and beside every entry, on tables
  // with repeated entries and entries at the ends of the range.
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 2000; ++trial) {
    std::uint32_t table[block_cdf_length];
    for (std::uint32_t& entry : table) entry = trial % 3 == 0 ? static_cast<std::uint32_t>(random() % 8) * 0x20000000U
                                                             : static_cast<std::uint32_t>(random());
    std::sort(table, table + block_cdf_length);
    std::vector<std::uint32_t> probes{0, 0xffffffffU};
    for (const std::uint32_t entry : table) probes.insert(probes.end(), {entry - 1, entry, entry + 1});
    for (const std::uint32_t u : probes) {
      const std::uint32_t want = first_entry_above(u, table);
      ASSERT_EQ(ic_block_count(u, ic_block_table_head<8>(table), table, 64), want) << trial << " " << u;
      ASSERT_EQ(ic_block_count(u, ic_block_table_head<8>(table), table, 5), std::min<std::uint32_t>(want, 5));
    }
  }
}

/// Floyd's draws of a block, a hash each: bounded_draw of each pick's element.
std::vector<std::uint32_t> per_pick_draws(std::uint64_t key, std::uint64_t first, std::uint32_t size,
                                          std::uint32_t count) {
  std::vector<std::uint32_t> draws(count);
  for (std::uint32_t i = 0; i < count; ++i)
    draws[i] = bounded_draw(key, ic_block_element(first, i + 1), size - count + i + 1);
  return draws;
}

/// Floyd's draws of a block as the rule defines them, computed apart from ic_batched_picks: the
/// mixed-radix digits of Lemire's draw floor(picks * P / 2^32) below the ranges' product P when
/// P <= ic_batched_picks_limit and 2^32 mod P <= (picks * P) mod 2^32, else bounded_draw of each
/// pick's element. Sets `batched` to which.
std::vector<std::uint32_t> floyd_draws(std::uint64_t key, std::uint64_t first, std::uint32_t size,
                                       std::uint32_t count, std::uint32_t picks, bool& batched) {
  std::uint64_t product = 1;
  for (std::uint32_t i = 0; i < count && product <= ic_batched_picks_limit; ++i) product *= size - count + i + 1;
  std::vector<std::uint32_t> draws(count);
  const std::uint64_t wide = std::uint64_t{picks} * product;
  batched = product <= ic_batched_picks_limit && (wide & 0xffffffffULL) >= (1ULL << 32) % product;
  if (batched) {
    std::uint64_t digits = wide >> 32;  // draw 0 is the most significant digit
    for (std::uint32_t i = count; i-- > 0;) {
      draws[i] = static_cast<std::uint32_t>(digits % (size - count + i + 1));
      digits /= size - count + i + 1;
    }
  } else {
    draws = per_pick_draws(key, first, size, count);
  }
  return draws;
}

std::uint64_t choose(std::uint32_t n, std::uint32_t k) {
  std::uint64_t c = 1;
  for (std::uint32_t i = 0; i < k; ++i) c = c * (n - i) / (i + 1);
  return c;
}

/// The r-th (from 0) mask below 2^size with `count` bits set, in increasing order, by counting.
std::uint32_t nth_subset(std::uint32_t size, std::uint32_t count, std::uint64_t r) {
  for (std::uint32_t mask = 0; mask < (1U << size); ++mask)
    if (static_cast<std::uint32_t>(__builtin_popcount(mask)) == count && r-- == 0) return mask;
  ADD_FAILURE() << "no subset " << r << " of " << size << " choose " << count;
  return 0;
}

/// A block's live slots as the rule defines them, computed apart from the library, in the order
/// the rule writes them: a block of at most small_block_max edges takes the mask
/// nth_subset(size, count, floor(picks * C / 2^32)), C = C(size, count), in increasing order when
/// 2^32 mod C <= (picks * C) mod 2^32; the others, and a small block where that test rejects, take
/// Floyd's draws (floyd_draws; "already taken" takes the range's top). Sets `from_picks` to whether
/// the picks came from `picks` (no hash of their own). Counts Floyd's collisions.
std::vector<std::uint32_t> rule_slots(std::uint64_t key, std::uint64_t first, std::uint32_t size, std::uint32_t count,
                                      std::uint32_t picks, bool& from_picks, std::uint64_t& collisions) {
  std::vector<std::uint32_t> slots;
  if (size <= small_block_max) {
    const std::uint64_t choices = choose(size, count);
    const std::uint64_t wide = std::uint64_t{picks} * choices;
    from_picks = (wide & 0xffffffffULL) >= (1ULL << 32) % choices;
    if (from_picks) {
      const std::uint32_t mask = nth_subset(size, count, wide >> 32);
      for (std::uint32_t i = 0; i < size; ++i)
        if (((mask >> i) & 1U) != 0) slots.push_back(i);
      return slots;
    }
  }
  std::vector<std::uint32_t> draws;
  if (size <= small_block_max) {
    draws = per_pick_draws(key, first, size, count);
  } else {
    draws = floyd_draws(key, first, size, count, picks, from_picks);
  }
  std::uint32_t taken_bits = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t top = size - count + i;
    EXPECT_LE(draws[i], top);
    const bool taken = ((taken_bits >> draws[i]) & 1U) != 0;
    collisions += taken ? 1 : 0;
    slots.push_back(taken ? top : draws[i]);
    taken_bits |= 1U << slots.back();
  }
  return slots;
}

TEST(IcBlockRule, SmallBlockSubsetTableListsEveryMaskInOrder) {
  const small_block_subsets& t = small_block_subset_table;
  for (std::uint32_t size = 0; size <= small_block_max; ++size) {
    std::vector<std::uint64_t> rank(size + 1, 0);
    for (std::uint32_t mask = 0; mask < (1U << size); ++mask) {
      const auto count = static_cast<std::uint32_t>(__builtin_popcount(mask));
      ASSERT_EQ(t.masks[subset_first(t.ranks[size][count]) + rank[count]++], mask) << size << " " << count;
    }
    for (std::uint32_t count = 0; count <= size; ++count) {
      ASSERT_EQ(subset_count(t.ranks[size][count]), choose(size, count));
      ASSERT_EQ(rank[count], choose(size, count));
    }
  }
}

// Both forms of a block's picks (the slot form; the bit-set form of the GPU edge masks, stepping
// codes) follow the rule as rule_slots computes it apart, for every block size up to 32 and every
// count up to the table's length: the subset table up to small_block_max edges, Floyd from the
// count draw's low half above, a draw per pick where either is not exact (both ran: sample 0 takes
// picks = 0, which Lemire's test rejects for every C that is not a power of two; and Floyd's
// collisions).
TEST(IcBlockRule, LiveBitsAreTheLiveSlots) {
  std::uint64_t collisions = 0, table_blocks = 0, batched_blocks = 0, small_per_pick = 0, per_pick_blocks = 0;
  for (std::uint32_t size = 1; size <= 32; ++size) {
    for (std::uint32_t count = 0; count <= std::min(size, block_cdf_length); ++count) {
      for (std::uint64_t s = 0; s < 200; ++s) {
        const std::uint64_t key = sample_key(5, s);
        const std::uint64_t first = 1000 * s + size;
        const auto picks = s == 0 ? 0U : static_cast<std::uint32_t>(element_hash(key, ic_block_element(first, 0)));
        bool from_picks = false;
        const std::vector<std::uint32_t> want_slots =
            rule_slots(key, first, size, count, picks, from_picks, collisions);
        if (size <= small_block_max) {
          ++(from_picks ? table_blocks : small_per_pick);
        } else {
          ++(from_picks ? batched_blocks : per_pick_blocks);
        }
        std::uint32_t slots[block_cdf_length];
        ASSERT_EQ(ic_block_live_slots(small_block_subset_table, key, first, size, count, picks, slots),
                  from_picks ? 0 : count);
        std::uint32_t want = 0;
        for (std::uint32_t i = 0; i < count; ++i) {
          if (!from_picks) {  // codes step as elements
            ASSERT_EQ(ic_block_floyd_draw(key, first, size, count, i), per_pick_draws(key, first, size, count)[i]);
          }
          ASSERT_EQ(slots[i], want_slots[i]) << size << " " << count << " " << s << " pick " << i;
          want |= 1U << slots[i];
        }
        // The edge masks step block codes along a round of blocks.
        ASSERT_EQ(ic_block_code(first + 5 * size), ic_block_code(first) + element_code_step((5ULL * size) << 21));
        ASSERT_EQ(ic_block_live_bits(small_block_subset_table, key, ic_block_code(first), size, count, picks), want)
            << size << " " << count << " " << s;
        ASSERT_EQ(static_cast<std::uint32_t>(__builtin_popcount(want)), count);
      }
    }
  }
  EXPECT_GT(collisions, 0U);  // the collision branch ran
  EXPECT_GT(table_blocks, 0U);
  EXPECT_GT(small_per_pick, 0U);
  EXPECT_GT(batched_blocks, 0U);
  EXPECT_GT(per_pick_blocks, 0U);
}

// The live edges drawn from the count draw's low half are a uniform K-subset: chi-square over all
// C(size, count) subsets, from the subset table (up to small_block_max edges) and from Floyd's
// batched picks (every block here is drawn from its low half but for rare rejections).
TEST(IcBlockRule, PicksAreUniformSubsets) {
  for (const auto& [size, count] :
       std::vector<std::pair<std::uint32_t, std::uint32_t>>{{6, 3}, {9, 2}, {12, 4}, {16, 4}, {20, 2}}) {
    std::vector<std::uint64_t> seen(1U << size, 0);
    constexpr std::uint64_t samples = 200000;
    for (std::uint64_t s = 0; s < samples; ++s) {
      const auto picks = static_cast<std::uint32_t>(element_hash(sample_key(17, s), ic_block_element(0, 0)));
      ++seen[ic_block_live_bits(small_block_subset_table, sample_key(17, s), ic_block_code(0), size, count, picks)];
    }
    std::uint32_t subsets = 0;
    double chi = 0;
    std::uint64_t total = 0;
    const double expected = static_cast<double>(samples) / static_cast<double>(choose(size, count));
    for (std::uint32_t bits = 0; bits < seen.size(); ++bits) {
      if (static_cast<std::uint32_t>(__builtin_popcount(bits)) != count) {
        ASSERT_EQ(seen[bits], 0U);
        continue;
      }
      ++subsets;
      total += seen[bits];
      chi += (seen[bits] - expected) * (seen[bits] - expected) / expected;
    }
    ASSERT_EQ(total, samples);
    ASSERT_EQ(subsets, choose(size, count));
    const double dof = subsets - 1.0;
    EXPECT_LT(chi, dof + 5 * std::sqrt(2 * std::max(dof, 1.0)) + 1e-9) << size << " choose " << count;
  }
}

TEST(IcBlockPlan, RandomGraphEnumerationMatchesSingleEdgeQuestions) {
  for (const double p : {0.0, 0.05}) {
    const csr_graph g = test::random_graph(300, 6000, 9, p);
    const ic_block_plan plan = make_ic_block_plan(g.view());
    for (std::uint64_t s = 0; s < 50; ++s) {
      const std::uint64_t key = sample_key(8, s);
      for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
        const auto live = live_in_edges(key, g.view(), plan.view(), v);
        const std::set<std::uint64_t> live_set(live.begin(), live.end());
        ASSERT_EQ(live_set.size(), live.size());
        for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j)
          ASSERT_EQ(live_set.count(j) == 1, ic_in_edge_live(key, g.view(), plan.view(), v, j));
      }
    }
  }
}

}  // namespace
}  // namespace wildfire
