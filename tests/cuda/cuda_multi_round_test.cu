// Multi-round families on the GPU (gIM digest section 3.1): every set equals the reference's
// (members round * n + vertex), the per-round greedy equals the CPU's, and IMM over the GPU
// collection returns exactly the CPU's result, single- and multi-round. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/rr_set_checks.hpp"
#include "support/selection_checks.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {
namespace {

void expect_sets_equal_reference(const csr_graph& g, diffusion_model model, std::uint32_t rounds, double mean_roots,
                                 std::uint64_t first_id, std::uint64_t count) {
  sampling_params params;
  params.model = model;
  params.seed = 31337;
  params.rounds = rounds;
  params.mean_roots = mean_roots;
  auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(), g, params);
  gpu->generate(first_id, count / 2);
  gpu->generate(first_id + count / 2, count - count / 2);
  const rr_sets got = gpu->copy_sets(0, count);
  const rr_sets want = reference::sample_rr_sets(g, params, first_id, count);
  ASSERT_NO_FATAL_FAILURE(test::expect_same_sets(want, got,
                                                 "sets from id " + std::to_string(first_id) + " (" +
                                                     std::string(to_string(model)) + ", rounds " +
                                                     std::to_string(rounds) + ")"));
  EXPECT_EQ(gpu->stats().traversal, "warp");
  // Some set reaches beyond round 0, so the encoding is exercised.
  bool later_round = false;
  for (const std::uint32_t m : got.members) later_round = later_round || m >= g.num_vertices;
  EXPECT_TRUE(later_round);
}

TEST(CudaMultiRound, SetsEqualReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  for (auto model : {diffusion_model::ic, diffusion_model::lt}) {
    expect_sets_equal_reference(g, model, 3, 1.0, 0, 900);
    expect_sets_equal_reference(g, model, 2, 2.5, 123, 400);
  }
  // Block-rule IC: each round's world draws per block, keyed by that round's key.
  for (const char* weights : {"wc", "uniform:0.03"}) {
    SCOPED_TRACE(weights);
    const csr_graph m = test::model_hub_graph(3100, weights);
    expect_sets_equal_reference(m, diffusion_model::ic, 3, 1.0, 0, 600);
    expect_sets_equal_reference(m, diffusion_model::ic, 2, 3.0, 77, 300);
  }
  csr_graph shared;
  if (test::load_shared_graph("wiki-Vote.txt.gz", shared)) expect_sets_equal_reference(shared, diffusion_model::ic, 4, 1.0, 0, 800);
}

TEST(CudaMultiRound, WholeGraphRoundsTakeTheRetryPath) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(12000, true);  // every round's set is all 12,000 vertices
  expect_sets_equal_reference(g, diffusion_model::ic, 2, 1.0, 0, 24);
}

TEST(CudaMultiRound, PerRoundGreedyEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  const std::uint32_t rounds = 3;
  sampling_params params;
  params.seed = 5;
  params.rounds = rounds;
  auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(), g, params);
  gpu->generate(0, 15000);
  for (std::uint32_t k : {1U, 4U, 20U}) {
    const std::string at = "k = " + std::to_string(k);
    const coverage_selection got = test::expect_per_round_greedy_equals_cpu(*gpu, g.num_vertices, rounds, k, at);
    EXPECT_EQ(gpu->coverage(got.seeds), got.covered) << at;
    EXPECT_EQ(got.seeds.size(), std::size_t{k} * rounds);
  }
  EXPECT_THROW(gpu->select_per_round(3, g.num_vertices, 2), config_error);
  EXPECT_THROW(gpu->coverage(std::vector<std::uint32_t>{g.num_vertices * rounds}), config_error);
}

void expect_imm_equal(const csr_graph& g, diffusion_model model, std::uint32_t rounds, std::uint32_t k, double eps,
                      bool reuse) {
  SCOPED_TRACE(std::string(to_string(model)) + ", " + std::to_string(g.num_vertices) + " vertices, rounds " +
               std::to_string(rounds) + ", k " + std::to_string(k) + ", reuse " + (reuse ? "yes" : "no"));
  sampling_params params;
  params.model = model;
  params.seed = 2024;
  params.rounds = rounds;
  imm_options options;
  options.k = k;
  options.epsilon = eps;
  options.rounds = rounds;
  options.reuse_rrsets = reuse;
  backend_config cpu_config;
  cpu_config.device = device_kind::cpu;
  auto cpu = make_rr_collection(cpu_config, g, params);
  auto gpu = make_rr_collection(test::gpu_config(), g, params);
  const imm_result want = run_imm(*cpu, g.num_vertices, options);
  const imm_result got = run_imm(*gpu, g.num_vertices, options);
  EXPECT_EQ(got.selection.seeds, want.selection.seeds);
  EXPECT_EQ(got.selection.covered, want.selection.covered);
  EXPECT_EQ(got.theta, want.theta);
  EXPECT_EQ(got.estimation_iterations, want.estimation_iterations);
  EXPECT_DOUBLE_EQ(got.estimated_spread, want.estimated_spread);
}

TEST(CudaMultiRound, ImmEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  expect_imm_equal(g, diffusion_model::ic, 1, 10, 0.3, false);
  expect_imm_equal(g, diffusion_model::ic, 1, 10, 0.3, true);
  expect_imm_equal(g, diffusion_model::ic, 3, 5, 0.4, false);
  expect_imm_equal(g, diffusion_model::lt, 2, 5, 0.4, true);
  const csr_graph uniform = test::model_hub_graph(3100, "uniform:0.03");
  expect_imm_equal(uniform, diffusion_model::ic, 1, 10, 0.3, false);
  expect_imm_equal(uniform, diffusion_model::ic, 1, 10, 0.3, true);
  csr_graph shared;
  if (test::load_shared_graph("wiki-Vote.txt.gz", shared)) {
    expect_imm_equal(shared, diffusion_model::ic, 1, 20, 0.2, false);
    expect_imm_equal(shared, diffusion_model::ic, 2, 10, 0.3, false);
  }
}

}  // namespace
}  // namespace wildfire
