// The IC block rule (random/ic_block_rule.hpp) on every GPU path at a size compute-sanitizer can
// run in seconds (scripts/device/cuda.sh runs memcheck and racecheck on it): warp and fused RR
// sets (32- and 64-bit colour words, fused heavy slots of many blocks, tail blocks), multi-round
// sets and forward simulation, each equal to the CPU's exactly. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_spread_simulator.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/rr_set_checks.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/sampling/multi_round.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire {
namespace {

void expect_sets_equal(const csr_graph& g, traversal_kind traversal, std::uint32_t colours, std::uint32_t rounds,
                       double mean_roots, std::uint64_t first_id, std::uint64_t count) {
  sampling_params params;
  params.seed = 555;
  params.rounds = rounds;
  params.mean_roots = mean_roots;
  auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(traversal, colours), g, params);
  gpu->generate(first_id, count);
  const rr_sets got = gpu->copy_sets(0, count);
  const rr_sets want = reference::sample_rr_sets(g, params, first_id, count);
  ASSERT_NO_FATAL_FAILURE(test::expect_same_sets(
      want, got,
      "sets from id " + std::to_string(first_id) + " (" + to_string(traversal) + ", " + std::to_string(colours) +
          " colours, rounds " + std::to_string(rounds) + ", roots " + std::to_string(mean_roots) + ")"));
  if (rounds == 1 && mean_roots == 1.0) {
    // The traversal really ran: some single-root set holds more than a few vertices.
    std::uint64_t largest = 0;
    for (std::uint64_t s = 0; s < count; ++s) largest = std::max<std::uint64_t>(largest, want[s].size());
    EXPECT_GT(largest, 8U);
  }
}

TEST(CudaBlockRule, SmallGraphsEveryPath) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  // n = 1100: hubs of 550 in-edges, past the fused heavy bin under uniform:0.3 (184 blocks of 3
  // and a tail of 1); degree-4 vertices as a block of 3 plus a tail of 1; wc hubs as one block.
  for (const char* weights : {"uniform:0.3", "wc"}) {
    SCOPED_TRACE(weights);
    const csr_graph g = test::model_hub_graph(1100, weights);
    const test::block_rule_coverage cover = test::block_rule_coverage_of(g);
    ASSERT_GT(cover.block_vertices, g.num_vertices / 2);
    if (std::string(weights) != "wc") ASSERT_TRUE(cover.tail_block && cover.many_blocks);
    expect_sets_equal(g, traversal_kind::warp, 64, 1, 1.0, 0, 200);
    expect_sets_equal(g, traversal_kind::warp, 64, 2, 2.0, 50, 60);
    expect_sets_equal(g, traversal_kind::fused, 32, 1, 1.0, 7, 100);
    expect_sets_equal(g, traversal_kind::fused, 64, 1, 3.0, 300, 130);

    sampling_params params;
    params.seed = 4711;
    backend_config cpu_config;
    cpu_config.device = device_kind::cpu;
    cpu_config.traversal = traversal_kind::unfused;
    const std::vector<std::uint32_t> seeds{0, 9, 500};
    auto gpu = cuda::make_cuda_spread_simulator(test::gpu_config(), g, params);
    auto cpu = make_spread_simulator(cpu_config, g, params);
    EXPECT_EQ(gpu->simulate(seeds, 3, 130), cpu->simulate(seeds, 3, 130));
  }
}

}  // namespace
}  // namespace wildfire
