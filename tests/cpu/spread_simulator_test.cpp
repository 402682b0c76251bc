// The CPU spread simulator: fused == unfused == serial reference per world, any thread count;
// spreads agree with exact enumeration on tiny graphs (both IC rules, LT); errors on bad seeds.
#include <gtest/gtest.h>

#include "reference/exact_spread.hpp"
#include "reference/monte_carlo.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire {
namespace {

std::unique_ptr<spread_simulator> cpu_simulator(const csr_graph& g, const sampling_params& params,
                                                traversal_kind traversal, std::uint32_t colours, int threads) {
  backend_config config;
  config.device = device_kind::cpu;
  config.traversal = traversal;
  config.colours = colours;
  config.num_threads = threads;
  return make_spread_simulator(config, g, params);
}

class SimulatorEquality : public ::testing::TestWithParam<std::tuple<diffusion_model, std::uint32_t, double>> {};

TEST_P(SimulatorEquality, FusedAndUnfusedEqualReferencePerWorld) {
  const auto [model, rounds, uniform_p] = GetParam();
  const auto g = test::random_graph(600, 4000, 11, uniform_p);
  sampling_params params;
  params.model = model;
  params.seed = 4242;
  params.rounds = rounds;
  // Seeds: a few vertices, in several rounds when there are several (encoded round * n + v).
  std::vector<std::uint32_t> seeds{3, 77, 500};
  if (rounds > 1) seeds.push_back(1 * 600 + 9);
  constexpr std::uint64_t first = 17, count = 300;
  const auto expected = reference::monte_carlo_spreads(g, params, seeds, first, count);
  EXPECT_EQ(expected, cpu_simulator(g, params, traversal_kind::unfused, 64, 1)->simulate(seeds, first, count));
  EXPECT_EQ(expected, cpu_simulator(g, params, traversal_kind::unfused, 64, 2)->simulate(seeds, first, count));
  for (const std::uint32_t colours : {32u, 64u, 128u, 1024u})
    for (const int threads : {1, 2})
      EXPECT_EQ(expected, cpu_simulator(g, params, traversal_kind::fused, colours, threads)->simulate(seeds, first, count))
          << "colours " << colours << " threads " << threads;
}

// Weighted cascade (uniform_p 0) under both models; uniform p only under IC (LT needs sums <= 1).
INSTANTIATE_TEST_SUITE_P(WeightedCascade, SimulatorEquality,
                         ::testing::Combine(::testing::Values(diffusion_model::ic, diffusion_model::lt),
                                            ::testing::Values(1u, 3u), ::testing::Values(0.0)));
INSTANTIATE_TEST_SUITE_P(UniformIc, SimulatorEquality,
                         ::testing::Combine(::testing::Values(diffusion_model::ic), ::testing::Values(1u, 3u),
                                            ::testing::Values(0.08)));

TEST(SpreadSimulator, MatchesExactSpreadOnTinyGraphs) {
  for (const test::tiny_case& tiny : test::tiny_cases()) {
    const diffusion_model model = tiny.model;
    const auto g = tiny.graph();
    sampling_params params;
    params.model = model;
    params.seed = 8;
    auto simulator = cpu_simulator(g, params, traversal_kind::fused, 64, 2);
    // Every seed set of size 1 (b == a) and 2.
    for (std::uint32_t a = 0; a < g.num_vertices; ++a)
      for (std::uint32_t b = a; b < g.num_vertices; ++b) {
        std::vector<std::uint32_t> seeds{a};
        if (b != a) seeds.push_back(b);
        const auto estimate = simulator->estimate(seeds, 0, 20000);
        EXPECT_EQ(estimate.worlds, 20000u);
        if (b != a) {
          EXPECT_LT(estimate.ci95_low, estimate.mean);  // no pair of these graphs has a fixed spread
        }
        EXPECT_NEAR(estimate.mean, reference::exact_spread(g, model, seeds), 5 * estimate.standard_error + 1e-9)
            << tiny.name << " seeds " << a << "," << b;
      }
  }
}

TEST(SpreadSimulator, SummaryOfKnownValues) {
  const std::vector<std::uint32_t> spreads{1, 2, 3, 4};
  const auto s = summarize_spreads(spreads);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.standard_error, std::sqrt((1.25 * 4 / 3.0) / 4), 1e-12);
  EXPECT_NEAR(s.ci95_high - s.mean, 1.96 * s.standard_error, 1e-12);
}

TEST(SpreadSimulator, RejectsSeedsOutsideTheGraph) {
  const auto g = test::tiny_ic_graph();
  auto simulator = cpu_simulator(g, sampling_params{}, traversal_kind::fused, 64, 1);
  const std::vector<std::uint32_t> seeds{6};
  EXPECT_THROW(simulator->simulate(seeds, 0, 10), config_error);
}

}  // namespace
}  // namespace wildfire
