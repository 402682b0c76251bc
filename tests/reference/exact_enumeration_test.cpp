// Exact enumeration over live-edge worlds, checked against hand values and the RIS identity, and
// the serial references (RR sets, Monte Carlo) checked against it statistically: on mixed
// in-probabilities (the per-edge IC rule, LT) and on uniform ones (the IC block rule).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference/exact_spread.hpp"
#include "reference/monte_carlo.hpp"
#include "reference/rr_reference.hpp"
#include "support/statistics.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire {
namespace {

TEST(ExactSpread, MatchesHandValuesOnAPath) {
  // Prepare: 0 -> 1 (p = 0.5) -> 2 (p = 0.25); IC spread of {0} = 1 + 0.5 + 0.125.
  const auto g = test::graph_from_probabilities(3, {{0, 1, 0.5}, {1, 2, 0.25}});
  const std::uint32_t seed0[] = {0};
  const std::uint32_t seed1[] = {1};
  const std::uint32_t both[] = {0, 2};
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::ic, seed0), 1.625, 1e-12);
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::ic, seed1), 1.25, 1e-12);
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::ic, both), 2.5, 1e-12);
  // LT with one in-edge per vertex is the same process.
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::lt, seed0), 1.625, 1e-12);
}

TEST(ExactSpread, ParallelEdgesCombineUnderIcAndAddUnderLt) {
  // Two parallel edges 0 -> 1 with 0.5 and 0.25: IC gives 1 - 0.5 * 0.75, LT gives 0.75.
  const auto g = test::graph_from_probabilities(2, {{0, 1, 0.5}, {0, 1, 0.25}});
  const std::uint32_t seed0[] = {0};
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::ic, seed0), 1.625, 1e-12);
  EXPECT_NEAR(reference::exact_spread(g, diffusion_model::lt, seed0), 1.75, 1e-12);
}

TEST(TinyUniformInGraph, DrawsThroughTheBlockRule) {
  // The graphs below test the block rule only if their vertices use it: all but the single-edge
  // vertex 4 and the source 6. Each is one block (blocks hold at least small_block_max edges), its
  // live edges from the subset table; vertices of several blocks are too large to enumerate and are
  // tested statistically (ic_block_rule_test.cpp, IcBlockRuleStar).
  for (const double p : {0.0, 0.45}) {
    const csr_graph g = test::tiny_uniform_in_graph(p);
    ASSERT_EQ(g.num_edges, 15U);
    const ic_block_plan plan = make_ic_block_plan(g.view());
    for (const std::uint32_t v : {0U, 1U, 2U, 3U, 5U}) EXPECT_NE(plan.vertex_class[v], per_edge_class) << p << " " << v;
    for (const std::uint32_t v : {4U, 6U}) EXPECT_EQ(plan.vertex_class[v], per_edge_class) << p << " " << v;
    if (p > 0) {
      EXPECT_EQ(ic_block_size(g.in_degree(3), g.in_thresholds[g.in_offsets[3]]), g.in_degree(3));
    }
  }
}

class TinyGraphs : public ::testing::TestWithParam<test::tiny_case> {
 protected:
  csr_graph graph() const { return GetParam().graph(); }
  diffusion_model model() const { return GetParam().model; }
};

TEST_P(TinyGraphs, SpreadOfEverySeedSetEqualsRrIdentity) {
  // Verify: sigma(S) = n * Pr[S meets RR(random root)] exactly, for |S| = 1 and 2 (Borgs et al.).
  const auto g = graph();
  const std::uint32_t n = g.num_vertices;
  std::vector<std::vector<double>> inclusion;
  for (std::uint32_t r = 0; r < n; ++r) inclusion.push_back(reference::exact_rr_inclusion(g, model(), r));
  for (std::uint32_t s = 0; s < n; ++s) {
    double expected = 0;
    for (std::uint32_t r = 0; r < n; ++r) expected += inclusion[r][s];
    const std::uint32_t seeds[] = {s};
    EXPECT_NEAR(reference::exact_spread(g, model(), seeds), expected, 1e-9) << "seed " << s;
  }
  // Pairs: sigma({a, b}) <= sigma({a}) + sigma({b}) and >= max (submodular, monotone).
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = a + 1; b < n; ++b) {
      const std::uint32_t sa[] = {a}, sb[] = {b}, ab[] = {a, b};
      const double fa = reference::exact_spread(g, model(), sa);
      const double fb = reference::exact_spread(g, model(), sb);
      const double fab = reference::exact_spread(g, model(), ab);
      EXPECT_LE(fab, fa + fb + 1e-9);
      EXPECT_GE(fab, std::max(fa, fb) - 1e-9);
    }
}

TEST_P(TinyGraphs, ReferenceRrFrequenciesMatchExactInclusion) {
  const auto g = graph();
  const std::uint32_t n = g.num_vertices;
  sampling_params params;
  params.model = model();
  params.seed = 12345;
  constexpr std::uint64_t samples = 60000;
  std::vector<std::vector<std::uint64_t>> hits(n, std::vector<std::uint64_t>(n, 0));
  std::vector<std::uint64_t> per_root(n, 0);
  for (std::uint64_t s = 0; s < samples; ++s) {
    const auto roots = reference::rr_roots(g, params, s);
    ASSERT_EQ(roots.size(), 1u);
    ++per_root[roots[0]];
    for (const std::uint32_t u : reference::rr_set(g, params, s)) ++hits[roots[0]][u];
  }
  for (std::uint32_t r = 0; r < n; ++r) {
    // Roots are uniform: each root's count is binomial(samples, 1/n).
    EXPECT_NEAR(static_cast<double>(per_root[r]) / samples, 1.0 / n, test::binomial_tolerance(1.0 / n, samples));
    const auto exact = reference::exact_rr_inclusion(g, model(), r);
    for (std::uint32_t u = 0; u < n; ++u) {
      const double frequency = static_cast<double>(hits[r][u]) / static_cast<double>(per_root[r]);
      EXPECT_NEAR(frequency, exact[u], test::binomial_tolerance(exact[u], per_root[r])) << "root " << r << " vertex " << u;
    }
  }
}

TEST_P(TinyGraphs, ReferenceMultiRootFrequenciesMatchExactInclusion) {
  const auto g = graph();
  for (const double mean_roots : {2.0, 2.4}) {
    sampling_params params;
    params.model = model();
    params.seed = 777;
    params.mean_roots = mean_roots;
    constexpr std::uint64_t samples = 40000;
    std::vector<std::uint64_t> hits(g.num_vertices, 0);
    double root_total = 0;
    for (std::uint64_t s = 0; s < samples; ++s) {
      root_total += static_cast<double>(reference::rr_roots(g, params, s).size());
      for (const std::uint32_t u : reference::rr_set(g, params, s)) ++hits[u];
    }
    EXPECT_NEAR(root_total / samples, mean_roots, 5 * 0.5 / std::sqrt(double{samples}));
    const auto exact = reference::exact_multi_root_inclusion(g, model(), mean_roots);
    for (std::uint32_t u = 0; u < g.num_vertices; ++u)
      EXPECT_NEAR(static_cast<double>(hits[u]) / samples, exact[u], test::binomial_tolerance(exact[u], samples))
          << "mean roots " << mean_roots << " vertex " << u;
  }
}

TEST_P(TinyGraphs, MonteCarloReferenceMatchesExactSpread) {
  const auto g = graph();
  sampling_params params;
  params.model = model();
  params.seed = 99;
  constexpr std::uint64_t worlds = 20000;
  for (std::uint32_t a = 0; a < g.num_vertices; ++a) {
    for (std::uint32_t b = a; b < g.num_vertices; ++b) {
      std::vector<std::uint32_t> seeds{a};
      if (b != a) seeds.push_back(b);
      const auto spreads = reference::monte_carlo_spreads(g, params, seeds, 0, worlds);
      double sum = 0, squares = 0;
      for (const auto s : spreads) sum += s;
      const double mean = sum / worlds;
      for (const auto s : spreads) squares += (s - mean) * (s - mean);
      const double se = std::sqrt(squares / (worlds - 1) / worlds);
      EXPECT_NEAR(mean, reference::exact_spread(g, model(), seeds), 5 * se + 1e-9) << "seeds " << a << "," << b;
    }
  }
}

TEST_P(TinyGraphs, ForwardWorldEqualsReverseSample) {
  // Verify: u is in RR set s (root r) iff u reaches r in forward world s, for every u and s.
  const auto g = graph();
  sampling_params params;
  params.model = model();
  params.seed = 5;
  for (std::uint64_t s = 0; s < 500; ++s) {
    const auto root = reference::rr_roots(g, params, s)[0];
    const auto set = reference::rr_set(g, params, s);
    for (std::uint32_t u = 0; u < g.num_vertices; ++u) {
      const std::uint32_t seed[] = {u};
      const auto reach = reference::forward_reach(g, params, s, seed);
      const bool reaches = std::binary_search(reach.begin(), reach.end(), root);
      EXPECT_EQ(reaches, std::binary_search(set.begin(), set.end(), u)) << "sample " << s << " vertex " << u;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, TinyGraphs,
                         ::testing::ValuesIn(test::tiny_cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace wildfire
