// The CPU spread simulator: fused == unfused == serial reference per world, any thread count;
// spreads agree with exact enumeration on tiny graphs; errors on bad seeds.
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

class SimulatorEquality : public ::testing::TestWithParam<std::tuple<diffusion_model, std::uint32_t>> {};

TEST_P(SimulatorEquality, FusedAndUnfusedEqualReferencePerWorld) {
  const auto [model, rounds] = GetParam();
  const auto g = test::random_graph(600, 4000, 11, model == diffusion_model::ic ? 0.08 : 0.0);
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

INSTANTIATE_TEST_SUITE_P(Cases, SimulatorEquality,
                         ::testing::Combine(::testing::Values(diffusion_model::ic, diffusion_model::lt),
                                            ::testing::Values(1u, 3u)));

TEST(SpreadSimulator, MatchesExactSpreadOnTinyGraphs) {
  for (const auto model : {diffusion_model::ic, diffusion_model::lt}) {
    const auto g = model == diffusion_model::ic ? test::tiny_ic_graph() : test::tiny_lt_graph();
    sampling_params params;
    params.model = model;
    params.seed = 8;
    auto simulator = cpu_simulator(g, params, traversal_kind::fused, 64, 2);
    for (std::uint32_t a = 0; a < g.num_vertices; ++a)
      for (std::uint32_t b = a + 1; b < g.num_vertices; ++b) {
        const std::vector<std::uint32_t> seeds{a, b};
        const auto estimate = simulator->estimate(seeds, 0, 20000);
        EXPECT_EQ(estimate.worlds, 20000u);
        EXPECT_LT(estimate.ci95_low, estimate.mean);
        EXPECT_NEAR(estimate.mean, reference::exact_spread(g, model, seeds), 5 * estimate.standard_error + 1e-9)
            << to_string(model) << " seeds " << a << "," << b;
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
