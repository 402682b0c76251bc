// The CUDA spread simulator against the CPU one: for fixed seeds, world w has exactly the same
// number of active vertices on both (IC and LT, one round and several, batches that start
// mid-group and span several groups), and bad input is refused. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_spread_simulator.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/sampling/multi_round.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire {
namespace {

bool lt_valid(const csr_graph& g) {
  try {
    validate_lt_weights(g, "graph");
    return true;
  } catch (const input_error&) {
    return false;
  }
}

void expect_same_spreads(const csr_graph& g, diffusion_model model, std::uint32_t rounds,
                         const std::vector<std::uint32_t>& seeds, std::uint64_t first, std::uint64_t count) {
  sampling_params params;
  params.model = model;
  params.seed = 987654321;
  params.rounds = rounds;
  backend_config cpu_config;
  cpu_config.device = device_kind::cpu;
  cpu_config.traversal = traversal_kind::unfused;
  auto gpu = cuda::make_cuda_spread_simulator(test::gpu_config(), g, params);
  auto cpu = make_spread_simulator(cpu_config, g, params);
  EXPECT_EQ(gpu->traversal(), "fused");
  const std::vector<std::uint32_t> want = cpu->simulate(seeds, first, count);
  const std::vector<std::uint32_t> got = gpu->simulate(seeds, first, count);
  ASSERT_EQ(got.size(), want.size());
  std::uint64_t differing = 0;
  std::int64_t first_bad = -1;
  for (std::size_t w = 0; w < got.size(); ++w) {
    if (got[w] != want[w]) {
      ++differing;
      if (first_bad < 0) first_bad = static_cast<std::int64_t>(w);
    }
  }
  EXPECT_EQ(differing, 0U) << "first differing world " << first + static_cast<std::uint64_t>(first_bad < 0 ? 0 : first_bad)
                           << " (" << to_string(model) << ", rounds " << rounds << ")";
  // The spreads are not all trivial: some world activates more than the seeds.
  std::uint32_t most = 0;
  for (const std::uint32_t s : got) most = std::max(most, s);
  EXPECT_GT(most, static_cast<std::uint32_t>(seeds.size() / rounds)) << "no world spreads beyond its seeds";
  // The summary is the CPU's summary of the same numbers.
  const spread_estimate e = gpu->estimate(seeds, first, count);
  EXPECT_DOUBLE_EQ(e.mean, summarize_spreads(want).mean);
  EXPECT_EQ(e.worlds, count);
  EXPECT_GT(e.edges_examined, 0U);
}

TEST(CudaSpreadSimulator, EqualsCpuOnHubGraph) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  const std::vector<std::uint32_t> seeds{0, 5, 17, 100, 2999};
  for (auto model : {diffusion_model::ic, diffusion_model::lt}) {
    expect_same_spreads(g, model, 1, seeds, 3, 200);    // a partial group at each end
    expect_same_spreads(g, model, 1, seeds, 0, 5000);   // several batches of groups
  }
}

// Forward IC on block-rule vertices asks ic_in_edge_live per (out-edge, world): the target's
// block draw decides, exactly as the CPU simulator's world.
TEST(CudaSpreadSimulator, EqualsCpuUnderTheBlockRule) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const std::vector<std::uint32_t> seeds{0, 7, 99, 1234, 3000};
  for (const char* weights : {"wc", "uniform:0.3", "uniform:0.03"}) {
    SCOPED_TRACE(weights);
    const csr_graph g = test::model_hub_graph(3100, weights);
    ASSERT_GT(test::block_rule_coverage_of(g).block_vertices, g.num_vertices / 2);
    expect_same_spreads(g, diffusion_model::ic, 1, seeds, 5, 300);
  }
  const csr_graph wc = test::model_hub_graph(3100, "wc");
  const std::uint32_t n = wc.num_vertices;
  expect_same_spreads(wc, diffusion_model::ic, 2, {encode_round_member(4, 0, n), encode_round_member(9, 1, n)}, 0, 200);
  expect_same_spreads(wc, diffusion_model::lt, 1, seeds, 0, 200);
}

TEST(CudaSpreadSimulator, AlwaysLiveRingReachesEveryVertex) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  // The always-live ring runs 0 -> n-1 -> ... -> 4, so the four hubs reach every vertex.
  const csr_graph g = test::hub_graph(5000, true);
  sampling_params params;
  backend_config config;
  config.device = device_kind::gpu;
  auto gpu = cuda::make_cuda_spread_simulator(config, g, params);
  const std::vector<std::uint32_t> seeds{0, 1, 2, 3};
  for (const std::uint32_t s : gpu->simulate(seeds, 0, 130)) EXPECT_EQ(s, 5000U);
  expect_same_spreads(g, diffusion_model::ic, 1, std::vector<std::uint32_t>{42, 4000}, 7, 130);
}

TEST(CudaSpreadSimulator, MultiRoundEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  const std::uint32_t n = g.num_vertices;
  // Seeds in rounds 0 and 2, one vertex seeded in two rounds (it counts once), round 1 empty.
  const std::vector<std::uint32_t> seeds{encode_round_member(3, 0, n), encode_round_member(700, 0, n),
                                         encode_round_member(3, 2, n), encode_round_member(1500, 2, n)};
  for (auto model : {diffusion_model::ic, diffusion_model::lt}) expect_same_spreads(g, model, 3, seeds, 11, 300);
}

TEST(CudaSpreadSimulator, EqualsCpuOnSharedGraphs) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  for (const char* name : {"wiki-Vote.txt.gz", "NetHEPT.txt.gz"}) {
    csr_graph g;
    if (!test::load_shared_graph(name, g)) continue;
    SCOPED_TRACE(name);
    std::vector<std::uint32_t> seeds;
    for (std::uint32_t v = 0; v < g.num_vertices && seeds.size() < 20; v += g.num_vertices / 20 + 1) seeds.push_back(v);
    expect_same_spreads(g, diffusion_model::ic, 1, seeds, 0, 700);
    expect_same_spreads(g, diffusion_model::ic, 2, seeds, 64, 200);
    if (lt_valid(g)) expect_same_spreads(g, diffusion_model::lt, 1, seeds, 0, 700);
  }
}

TEST(CudaSpreadSimulator, RejectsBadInput) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(100, false);
  sampling_params params;
  params.rounds = 2;
  backend_config config;
  config.device = device_kind::gpu;
  auto gpu = cuda::make_cuda_spread_simulator(config, g, params);
  const std::vector<std::uint32_t> outside{200};  // n * rounds = 200
  EXPECT_THROW(gpu->simulate(outside, 0, 10), config_error);
  EXPECT_TRUE(gpu->simulate(std::vector<std::uint32_t>{1}, 0, 0).empty());
  config.traversal = traversal_kind::warp;
  EXPECT_THROW(cuda::make_cuda_spread_simulator(config, g, params), config_error);
  config.traversal = traversal_kind::automatic;
  config.memory_budget_bytes = 1024;
  EXPECT_THROW(cuda::make_cuda_spread_simulator(config, g, params), resource_error);
}

}  // namespace
}  // namespace wildfire
