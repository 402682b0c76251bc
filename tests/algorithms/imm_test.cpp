// IMM and OPIM-C: theta formulas against hand-computed values, parameter errors, determinism
// across runs and thread counts, quality on a tiny graph against the exact optimum, and the RR
// estimate against Monte Carlo on wiki-Vote (IC and LT).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "reference/exact_spread.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/algorithms/opim.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire {
namespace {

backend_config cpu_config(int threads, traversal_kind traversal = traversal_kind::automatic) {
  backend_config config;
  config.device = device_kind::cpu;
  config.num_threads = threads;
  config.traversal = traversal;
  return config;
}

TEST(ImmTheta, EqualsHandComputedValues) {
  // Values computed independently (Python, math.lgamma) from Tang et al. 2015 Eqs. 6, 8, 9.
  struct row { double n, k, eps, ell, adjusted_ell, log_binomial, lambda_prime, lambda_star; };
  const row rows[] = {
      {1000, 10, 0.1, 1.0, 1.1003433318879938, 53.92799703788751, 6683694.062139999, 13096023.335691322},
      {75879, 50, 0.05, 1.0, 1.0616849374699298, 413.3508476752322, 13298742699.010555, 21125770363.805275},
      {100, 1, 0.5, 2.0, 2.3010299956639813, 4.605170185988072, 8449.97794426867, 22418.823425052942},
  };
  for (const auto& r : rows) {
    EXPECT_NEAR(imm_adjusted_ell(r.n, r.ell), r.adjusted_ell, 1e-12 * r.adjusted_ell);
    EXPECT_NEAR(log_binomial(r.n, r.k), r.log_binomial, 1e-9 * r.log_binomial);
    const imm_bounds b{r.n, r.eps, r.adjusted_ell, r.log_binomial, 1 - std::exp(-1.0)};
    EXPECT_NEAR(imm_lambda_prime(b), r.lambda_prime, 1e-9 * r.lambda_prime) << r.n;
    EXPECT_NEAR(imm_lambda_star(b), r.lambda_star, 1e-9 * r.lambda_star) << r.n;
  }
  // The gIM digest's sizing table (no ell adjustment): lambda*/n = 2.76e5 on soc-Epinions1.
  const imm_bounds plain{75879, 0.05, 1.0, log_binomial(75879, 50), 1 - std::exp(-1.0)};
  EXPECT_NEAR(imm_lambda_star(plain) / 75879, 2.76e5, 0.005e5);
}

TEST(OpimPlan, MatchesTheAuthorsSampleCounts) {
  // soc-Epinions1, k = 50, eps = 0.1, delta = 1/n: theta_0 = 699.29 (the authors' code ran 2 x
  // 16 x 699 = 22,368 sets), i_max = ceil(log2(theta_max / theta_0)) = 18.
  const auto plan = opim_plan(75879, 50, 0.1, 1.0 / 75879);
  EXPECT_EQ(plan.theta_0, 700u);
  EXPECT_NEAR(plan.theta_max, 106123079.51486075, 1e-3);
  EXPECT_EQ(plan.i_max, 18u);
  EXPECT_NEAR(plan.a, std::log(3.0 * 18 * 75879), 1e-12);
}

TEST(OpimBounds, HandValues) {
  // a = 0: the bounds reduce to the plain estimate n * Lambda / theta.
  EXPECT_DOUBLE_EQ(opim_lower_bound(400, 1000, 50, 0), 20);
  EXPECT_DOUBLE_EQ(opim_upper_bound(400, 1000, 50, 0), 20);
  // a > 0: lower < estimate < upper.
  EXPECT_LT(opim_lower_bound(400, 1000, 50, 10), 20);
  EXPECT_GT(opim_upper_bound(400, 1000, 50, 10), 20);
}

TEST(Imm, RejectsInvalidParameters) {
  const auto g = test::tiny_ic_graph();
  auto collection = make_rr_collection(cpu_config(1), g, sampling_params{});
  auto run = [&](std::uint32_t k, double eps) {
    imm_options options;
    options.k = k;
    options.epsilon = eps;
    return run_imm(*collection, g.num_vertices, options);
  };
  EXPECT_THROW(run(0, 0.1), config_error);
  EXPECT_THROW(run(7, 0.1), config_error);
  EXPECT_THROW(run(2, 0.0), config_error);
  EXPECT_THROW(run(2, 1.0), config_error);
  EXPECT_THROW(run(2, -0.5), config_error);
  auto r2 = make_rr_collection(cpu_config(1), g, sampling_params{});
  opim_options bad;
  bad.k = 0;
  EXPECT_THROW(run_opim(*collection, *r2, g.num_vertices, bad), config_error);
}

TEST(Imm, SameSeedSameSeedsAnyThreadCountAnyTraversal) {
  const auto g = test::random_graph(2000, 16000, 5);
  sampling_params params;
  params.seed = 17;
  imm_options options;
  options.k = 10;
  options.epsilon = 0.3;
  std::vector<std::uint32_t> first;
  for (const auto traversal : {traversal_kind::unfused, traversal_kind::fused})
    for (const int threads : {1, 2}) {
      auto collection = make_rr_collection(cpu_config(threads, traversal), g, params);
      const auto result = run_imm(*collection, g.num_vertices, options);
      ASSERT_EQ(result.selection.seeds.size(), 10u);
      if (first.empty()) first = result.selection.seeds;
      EXPECT_EQ(result.selection.seeds, first);
      EXPECT_GT(result.final_first_id, 0u);  // fresh final sets by default
    }
  params.seed = 18;
  auto other = make_rr_collection(cpu_config(2), g, params);
  EXPECT_NE(run_imm(*other, g.num_vertices, options).selection.seeds.size(), 0u);
}

TEST(Imm, ReuseKeepsEstimationSets) {
  const auto g = test::random_graph(500, 3000, 8);
  auto collection = make_rr_collection(cpu_config(2), g, sampling_params{});
  imm_options options;
  options.k = 5;
  options.epsilon = 0.3;
  options.reuse_rrsets = true;
  const auto result = run_imm(*collection, g.num_vertices, options);
  EXPECT_EQ(result.final_first_id, 0u);
  EXPECT_EQ(result.theta, result.total_sets_generated);
}

TEST(Imm, TinyGraphSeedsMeetTheGuaranteeAgainstExactOptimum) {
  // Every tiny case: mixed in-probabilities (IC per-edge rule, LT) and uniform ones (IC block rule).
  for (const test::tiny_case& tiny : test::tiny_cases()) {
    const diffusion_model model = tiny.model;
    const auto g = tiny.graph();
    double optimum = 0;
    for (std::uint32_t a = 0; a < g.num_vertices; ++a)
      for (std::uint32_t b = a + 1; b < g.num_vertices; ++b) {
        const std::uint32_t pair[] = {a, b};
        optimum = std::max(optimum, reference::exact_spread(g, model, pair));
      }
    sampling_params params;
    params.model = model;
    auto collection = make_rr_collection(cpu_config(2), g, params);
    imm_options options;
    options.k = 2;
    options.epsilon = 0.1;
    const auto result = run_imm(*collection, g.num_vertices, options);
    const double spread = reference::exact_spread(g, model, result.selection.seeds);
    EXPECT_GE(spread, (1 - std::exp(-1.0) - 0.1) * optimum) << tiny.name;
    EXPECT_NEAR(result.estimated_spread, spread, 5 * result.estimated_spread_stderr + 0.02 * spread);

    auto r1 = make_rr_collection(cpu_config(2), g, params);
    auto r2 = make_rr_collection(cpu_config(2), g, params);
    opim_options opim;
    opim.k = 2;
    opim.epsilon = 0.1;
    const auto certified = run_opim(*r1, *r2, g.num_vertices, opim);
    const double opim_spread = reference::exact_spread(g, model, certified.selection.seeds);
    EXPECT_GT(certified.approximation, 0.0);
    EXPECT_LE(certified.approximation, 1.0);
    // The certificate holds: sigma^l <= sigma(S) and OPT <= sigma^u (w.p. 1 - delta).
    EXPECT_LE(certified.spread_lower, opim_spread);
    EXPECT_GE(certified.optimum_upper, optimum);
  }
}

TEST(Imm, MultiRoundGivesKSeedsPerRound) {
  const auto g = test::random_graph(400, 3000, 12);
  sampling_params params;
  params.rounds = 3;
  auto collection = make_rr_collection(cpu_config(2), g, params);
  imm_options options;
  options.k = 4;
  options.epsilon = 0.3;
  options.rounds = 3;
  const auto result = run_imm(*collection, g.num_vertices, options);
  ASSERT_EQ(result.selection.seeds.size(), 12u);
  std::vector<int> per_round(3, 0);
  for (const auto s : result.selection.seeds) ++per_round[s / 400];
  EXPECT_EQ(per_round, (std::vector<int>{4, 4, 4}));
  // The multi-round estimate agrees with multi-round Monte Carlo.
  backend_config config = cpu_config(2);
  auto simulator = make_spread_simulator(config, g, params);
  const auto mc = simulator->estimate(result.selection.seeds, std::uint64_t{1} << 41, 4000);
  EXPECT_NEAR(result.estimated_spread, mc.mean,
              4 * std::hypot(mc.standard_error, result.estimated_spread_stderr) + 0.01 * mc.mean);
}

class WikiVote : public ::testing::TestWithParam<diffusion_model> {};

TEST_P(WikiVote, RrEstimateAgreesWithMonteCarlo) {
  const std::string path = std::string(WF_SHARED_DATA_DIR) + "/wiki-Vote.txt.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  graph_load_options load;
  load.path = path;
  load.weights = "wc";
  const csr_graph g = load_graph(load);
  // Seeds: the 20 vertices of highest out-degree (fixed, so the RR estimate is unbiased).
  std::vector<std::uint32_t> order(g.num_vertices);
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) order[v] = v;
  std::partial_sort(order.begin(), order.begin() + 20, order.end(), [&](auto a, auto b) {
    return g.out_degree(a) > g.out_degree(b) || (g.out_degree(a) == g.out_degree(b) && a < b);
  });
  const std::vector<std::uint32_t> seeds(order.begin(), order.begin() + 20);
  sampling_params params;
  params.model = GetParam();
  params.seed = 2718;
  auto collection = make_rr_collection(cpu_config(2), g, params);
  constexpr std::uint64_t theta = 100000;
  collection->generate(0, theta);
  const double f = static_cast<double>(collection->coverage(seeds)) / theta;
  const double rr = g.num_vertices * f;
  const double rr_se = g.num_vertices * std::sqrt(f * (1 - f) / theta);
  auto simulator = make_spread_simulator(cpu_config(2), g, params);
  const auto mc = simulator->estimate(seeds, std::uint64_t{1} << 41, 8000);
  // Joint interval: 4 standard errors of the difference of two independent estimates.
  EXPECT_NEAR(rr, mc.mean, 4 * std::hypot(rr_se, mc.standard_error)) << "rr " << rr << " mc " << mc.mean;
  EXPECT_GT(mc.mean, 20.0);
}

INSTANTIATE_TEST_SUITE_P(Models, WikiVote, ::testing::Values(diffusion_model::ic, diffusion_model::lt),
                         [](const auto& param_info) { return std::string(to_string(param_info.param)); });

}  // namespace
}  // namespace wildfire
