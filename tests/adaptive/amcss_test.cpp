// The adaptive process end to end (MERIT digest section 5, items 10-13): every run reaches eta in
// every realization and passes verify_amcss_realization; MERIT's expected cost is within noise of
// ASTI's and never above the out-degree-per-cost baseline; bounds, costs and realizations behave.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "reference/exact_spread.hpp"
#include "support/statistics.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/adaptive/amcss.hpp"
#include "wildfire/adaptive/node_costs.hpp"
#include "wildfire/adaptive/realization.hpp"
#include "wildfire/adaptive/round_bounds.hpp"
#include "wildfire/error.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::adaptive {
namespace {

amcss_options small_options(amcss_algorithm algorithm, diffusion_model model, std::uint64_t eta) {
  amcss_options o;
  o.algorithm = algorithm;
  o.model = model;
  o.eta = eta;
  o.batch = 4;
  o.epsilon = 0.5;
  o.seed = 17;
  o.realization_seed = 23;
  o.realizations = 6;
  o.backend.device = device_kind::cpu;
  o.backend.num_threads = 2;
  return o;
}

class AmcssRuns : public ::testing::TestWithParam<std::tuple<amcss_algorithm, diffusion_model>> {};

TEST_P(AmcssRuns, ReachesEtaInEveryRealizationAndVerifies) {
  const auto [algorithm, model] = GetParam();
  const csr_graph g = test::random_graph(400, 2400, 3);
  const std::vector<double> costs = degree_costs(g);
  const amcss_options o = small_options(algorithm, model, 120);
  const amcss_result result = run_amcss(g, costs, o);
  ASSERT_EQ(result.runs.size(), 6U);
  for (const auto& run : result.runs) {
    EXPECT_GE(run.activated, o.eta) << "realization " << run.realization;
    const auto check = verify_amcss_realization(g, costs, o, run);
    EXPECT_TRUE(check.ok) << check.first_mismatch;
    if (algorithm != amcss_algorithm::degree) {
      EXPECT_GT(run.sets_generated, 0U);
    }
    if (algorithm == amcss_algorithm::merit && run.rounds > 2) {
      EXPECT_GT(run.sets_reused + run.sets_repaired, 0U) << "MERIT kept no set across rounds";
    }
    if (algorithm == amcss_algorithm::asti) {
      EXPECT_EQ(run.sets_reused + run.sets_repaired, 0U);
    }
    // The round log: one record per round, consistent with the seeds and the realization.
    ASSERT_EQ(run.round_log.size(), run.rounds);
    std::uint64_t activated = 0;
    double cost = 0;
    for (const round_record& r : run.round_log) {
      EXPECT_EQ(r.eta_left, o.eta - activated);
      EXPECT_LE(r.coverage, r.sets);
      EXPECT_EQ(r.sets > 0, algorithm != amcss_algorithm::degree && r.eta_left > o.batch);
      activated += r.activated;
      cost += r.cost;
    }
    EXPECT_EQ(activated, run.activated);
    EXPECT_NEAR(cost, run.total_cost, 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(
    All, AmcssRuns,
    ::testing::Combine(::testing::Values(amcss_algorithm::merit, amcss_algorithm::asti, amcss_algorithm::degree),
                       ::testing::Values(diffusion_model::ic, diffusion_model::lt)),
    [](const auto& param_info) {
      return to_string(std::get<0>(param_info.param)) + (std::get<1>(param_info.param) == diffusion_model::ic ? "_IC" : "_LT");
    });

TEST(Amcss, TimeLimitStopsARealizationUnfinished) {
  // A limit already passed stops MERIT and ASTI before their first round: no seed, below eta,
  // marked unfinished, and run_amcss returns instead of treating it as an internal error.
  const csr_graph g = test::random_graph(400, 2400, 3);
  const std::vector<double> costs = degree_costs(g);
  for (const auto algorithm : {amcss_algorithm::merit, amcss_algorithm::asti}) {
    amcss_options o = small_options(algorithm, diffusion_model::ic, 120);
    o.realizations = 2;
    o.time_limit_seconds = 1e-12;
    const amcss_result result = run_amcss(g, costs, o);
    ASSERT_EQ(result.runs.size(), 2U);
    for (const auto& run : result.runs) {
      EXPECT_FALSE(run.finished);
      EXPECT_EQ(run.rounds, 0U);
      EXPECT_TRUE(run.seeds.empty());
      EXPECT_LT(run.activated, o.eta);
    }
    // Without a limit the same options finish.
    o.time_limit_seconds = 0;
    for (const auto& run : run_amcss(g, costs, o).runs) EXPECT_TRUE(run.finished);
  }
}

TEST(Amcss, VerificationCatchesATamperedRun) {
  const csr_graph g = test::random_graph(200, 1200, 9);
  const std::vector<double> costs = degree_costs(g);
  amcss_options o = small_options(amcss_algorithm::merit, diffusion_model::ic, 50);
  o.realizations = 1;
  amcss_result result = run_amcss(g, costs, o);
  realization_result run = result.runs[0];
  ASSERT_TRUE(verify_amcss_realization(g, costs, o, run).ok);
  run.seeds.pop_back();
  run.activated = 0;
  EXPECT_FALSE(verify_amcss_realization(g, costs, o, run).ok);
  realization_result wrong_count = result.runs[0];
  wrong_count.seeds[0].activations += 1;
  EXPECT_FALSE(verify_amcss_realization(g, costs, o, wrong_count).ok);
}

TEST(Amcss, MeritCostIsWithinNoiseOfAstiAndNotAboveDegreeBaseline) {
  // Prepare: a 400-vertex WC graph, degree costs, 12 realizations shared by all three policies.
  const csr_graph g = test::random_graph(400, 2800, 12);
  const std::vector<double> costs = degree_costs(g);
  for (const auto model : {diffusion_model::ic, diffusion_model::lt}) {
    amcss_options o = small_options(amcss_algorithm::merit, model, 100);
    o.realizations = 12;
    const amcss_result merit = run_amcss(g, costs, o);
    o.algorithm = amcss_algorithm::asti;
    const amcss_result asti = run_amcss(g, costs, o);
    o.algorithm = amcss_algorithm::degree;
    const amcss_result degree = run_amcss(g, costs, o);
    // Verify: the difference of means against 5 standard errors of the paired differences.
    double mean_diff = 0, sq = 0;
    const double r = static_cast<double>(merit.runs.size());
    for (std::size_t i = 0; i < merit.runs.size(); ++i) mean_diff += (merit.runs[i].total_cost - asti.runs[i].total_cost) / r;
    for (std::size_t i = 0; i < merit.runs.size(); ++i) {
      const double d = merit.runs[i].total_cost - asti.runs[i].total_cost - mean_diff;
      sq += d * d;
    }
    const double stderr_diff = std::sqrt(sq / (r - 1) / r);
    EXPECT_LE(std::abs(mean_diff), 5 * stderr_diff + 0.02 * asti.mean_total_cost)
        << to_string(model) << ": MERIT " << merit.mean_total_cost << " vs ASTI " << asti.mean_total_cost;
    EXPECT_LE(merit.mean_total_cost, degree.mean_total_cost)
        << to_string(model) << ": MERIT " << merit.mean_total_cost << " vs degree/cost " << degree.mean_total_cost;
  }
}

TEST(Amcss, BadParametersAreConfigErrors) {
  const csr_graph g = test::random_graph(50, 200, 1);
  const std::vector<double> costs = uniform_costs(g);
  amcss_options o = small_options(amcss_algorithm::merit, diffusion_model::ic, 0);
  EXPECT_THROW(run_amcss(g, costs, o), config_error);
  o.eta = 51;
  EXPECT_THROW(run_amcss(g, costs, o), config_error);
  o.eta = 10;
  o.epsilon = 1.0;
  EXPECT_THROW(run_amcss(g, costs, o), config_error);
  o.epsilon = 0.5;
  o.batch = 0;
  EXPECT_THROW(run_amcss(g, costs, o), config_error);
  o.batch = 2;
  const std::vector<double> short_costs(10, 1.0);
  EXPECT_THROW(run_amcss(g, short_costs, o), config_error);
  EXPECT_THROW(parse_amcss_algorithm("imm"), config_error);
}

TEST(Amcss, EtaEqualToNActivatesEveryVertex) {
  const csr_graph g = test::random_graph(40, 120, 4);
  const std::vector<double> costs = degree_costs(g);
  amcss_options o = small_options(amcss_algorithm::merit, diffusion_model::lt, 40);
  o.realizations = 2;
  for (const auto& run : run_amcss(g, costs, o).runs) EXPECT_EQ(run.activated, 40U);
}

TEST(RoundBounds, MatchDigestTableForDblp) {
  // Digest section 2.3 (DBLP, b = 4, eps = 0.5): rho 0.684, theta_0 355, theta_max 1.1e8, H 20,
  // a1 64, a2 17.
  const round_bounds r = compute_round_bounds(317080, 4, 0.5);
  EXPECT_NEAR(r.rho, 0.684, 0.001);
  EXPECT_NEAR(r.theta0, 355, 1.0);
  EXPECT_NEAR(r.theta_max, 1.1e8, 0.05e8);
  EXPECT_EQ(r.trials, 20U);
  EXPECT_NEAR(r.a1, 64, 1.0);
  EXPECT_NEAR(r.a2, 17, 1.0);
  // Verification: far more coverage than a1 passes, a handful fails.
  EXPECT_TRUE(batch_verified(100000, r));
  EXPECT_FALSE(batch_verified(50, r));
}

TEST(NodeCosts, DegreeCostsAreNormalisedPaperCosts) {
  const csr_graph g = test::tiny_ic_graph();
  const std::vector<double> c = degree_costs(g);
  double largest = 0;
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) largest = std::max(largest, 0.01 + 0.01 * g.out_degree(v));
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) EXPECT_DOUBLE_EQ(c[v], (0.01 + 0.01 * g.out_degree(v)) / largest);
  EXPECT_DOUBLE_EQ(*std::max_element(c.begin(), c.end()), 1.0);
}

TEST(NodeCosts, FileCostsAreReadByOriginalIdAndErrorsNameTheLine) {
  const csr_graph g = test::tiny_ic_graph();
  const auto dir = std::filesystem::temp_directory_path();
  const std::string good = (dir / "wf_adaptive_costs_good.txt").string();
  std::ofstream(good) << "# id cost\n0 2\n1 4\n2 1\n3 1\n4 1\n5 0.5\n";
  const std::vector<double> c = read_costs(g, good);
  EXPECT_DOUBLE_EQ(c[1], 1.0);
  EXPECT_DOUBLE_EQ(c[0], 0.5);
  EXPECT_DOUBLE_EQ(c[5], 0.125);
  const std::string bad = (dir / "wf_adaptive_costs_bad.txt").string();
  std::ofstream(bad) << "0 2\n1 -4\n";
  try {
    read_costs(g, bad);
    FAIL() << "negative cost accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.line(), 2U);
  }
  const std::string missing = (dir / "wf_adaptive_costs_missing.txt").string();
  std::ofstream(missing) << "0 2\n";
  EXPECT_THROW(read_costs(g, missing), input_error);
  EXPECT_THROW(make_costs(g, "random", ""), config_error);
}

TEST(Realization, LtThresholdActivationProbabilityIsTheInWeight) {
  // Vertex 1 has in-weight 0.3 from 0 and 0.5 from 2: with 0 active alone, P = 0.3; with both, 0.8.
  const csr_graph g = test::graph_from_probabilities(3, {{0, 1, 0.3}, {2, 1, 0.5}});
  constexpr std::uint64_t trials = 20000;
  std::uint64_t first = 0, both = 0;
  for (std::uint64_t r = 0; r < trials; ++r) {
    realization_diffusion world(g, diffusion_model::lt, 42, r);
    world.activate(0);
    first += world.is_active(1) ? 1 : 0;
    world.activate(2);  // a later round: the weight from 0 still counts
    both += world.is_active(1) ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(first) / trials, 0.3, test::binomial_tolerance(0.3, trials));
  EXPECT_NEAR(static_cast<double>(both) / trials, 0.8, test::binomial_tolerance(0.8, trials));
}

TEST(Realization, IcUsesTheSharedEdgeRule) {
  // Mixed in-probabilities (per-edge rule) and weighted cascade (block rule, random/ic_block_rule.hpp).
  for (const csr_graph& g : {test::tiny_ic_graph(), test::tiny_uniform_in_graph()}) {
    const ic_block_plan plan = make_ic_block_plan(g.view());
    for (std::uint64_t r = 0; r < 200; ++r) {
      // Odd realizations build their own plan, even ones share the test's.
      realization_diffusion world(g, diffusion_model::ic, 7, r, r % 2 == 0 ? &plan : nullptr);
      const auto reached = world.activate(0);
      // Replay: forward closure over the edges that for_each_live_in_edge names in world
      // sample_key(7, r), the live edges of RR sample r of a run seeded with 7.
      std::vector<std::uint8_t> live(g.num_edges, 0);
      for (std::uint32_t v = 0; v < g.num_vertices; ++v)
        for_each_live_in_edge(sample_key(7, r), g.view(), plan.view(), v, [&](std::uint64_t j) { live[j] = 1; });
      std::vector<std::uint8_t> active(g.num_vertices, 0);
      active[0] = 1;
      for (bool grew = true; grew;) {
        grew = false;
        for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
          for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
            if (active[g.in_sources[j]] && !active[v] && live[j] != 0) {
              active[v] = 1;
              grew = true;
            }
          }
        }
      }
      std::uint64_t count = 0;
      for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
        EXPECT_EQ(world.is_active(v), active[v] != 0) << "realization " << r << " vertex " << v;
        count += active[v];
      }
      EXPECT_EQ(reached.size(), count);
    }
  }
}

TEST(Realization, IcActivationsMatchExactSpreadUnderTheBlockRule) {
  // Verify: the mean number of vertices seed 6 activates over realizations is the exact spread of
  // {6} (enumeration over live-edge worlds), within 5 standard errors, on uniform in-probabilities.
  for (const double p : {0.0, 0.45}) {
    const csr_graph g = test::tiny_uniform_in_graph(p);
    const ic_block_plan plan = make_ic_block_plan(g.view());
    constexpr std::uint64_t trials = 20000;
    double sum = 0, squares = 0;
    for (std::uint64_t r = 0; r < trials; ++r) {
      realization_diffusion world(g, diffusion_model::ic, 3, r, &plan);
      const auto reached = static_cast<double>(world.activate(6).size());
      sum += reached;
      squares += reached * reached;
    }
    const double mean = sum / trials;
    const double se = std::sqrt((squares / trials - mean * mean) / (trials - 1));
    const std::uint32_t seed[] = {6};
    EXPECT_NEAR(mean, reference::exact_spread(g, diffusion_model::ic, seed), 5 * se + 1e-9) << "p " << p;
  }
}

}  // namespace
}  // namespace wildfire::adaptive
