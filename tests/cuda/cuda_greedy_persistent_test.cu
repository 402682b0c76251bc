// The one-launch greedy (max_coverage_persistent_kernels.cuh), taken by every select without the
// OPIM-C bound (IMM's), against the CPU greedy: seeds, marginals and coverage on sets with hubs
// (hot shared-memory counters), on a large universe, over several index segments, on long sets
// (covered sets split into chunks of 256 members), with more seeds than vertices that add
// coverage, and through the streamed representation (seed 1 preselected); the bound's path too.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/selection/max_coverage.hpp"

namespace wildfire {
namespace {

backend_config gpu_config() {
  backend_config config;
  config.device = device_kind::gpu;
  return config;
}

coverage_selection cpu_greedy(const rr_sets& sets, std::uint32_t universe, std::uint32_t k, bool bound) {
  max_coverage_options options;
  options.k = k;
  options.universe = universe;
  options.upper_bound = bound;
  return greedy_max_coverage(rr_sets_view{sets.offsets, sets.members}, options);
}

void expect_same(const coverage_selection& got, const coverage_selection& want, const std::string& where) {
  EXPECT_EQ(got.seeds, want.seeds) << where;
  EXPECT_EQ(got.marginal_coverage, want.marginal_coverage) << where;
  EXPECT_EQ(got.covered, want.covered) << where;
}

/// select(k, false) for several k, then with the bound, against the CPU greedy.
void expect_greedy_equals_cpu(rr_collection& gpu, std::uint32_t universe, const std::string& where) {
  const rr_sets sets = gpu.copy_sets(0, gpu.size());
  for (const std::uint32_t k : {1U, 2U, 7U, 50U}) {
    const std::string at = where + ", k = " + std::to_string(k);
    const coverage_selection got = gpu.select(k, false);
    expect_same(got, cpu_greedy(sets, universe, k, false), at);
    EXPECT_EQ(got.optimum_upper_bound, gpu.size()) << at;
    EXPECT_EQ(gpu.coverage(got.seeds), got.covered) << at;
  }
  const coverage_selection want = cpu_greedy(sets, universe, 50, true);
  const coverage_selection got = gpu.select(50, true);
  expect_same(got, want, where + ", with the bound");
  EXPECT_EQ(got.optimum_upper_bound, want.optimum_upper_bound) << where;
}

TEST(CudaGreedyPersistent, EqualsCpuOnHubGraphs) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  for (const std::uint32_t n : {3000U, 140000U}) {
    const csr_graph g = test::hub_graph(n, false);
    sampling_params params;
    params.seed = 41;
    auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
    gpu->generate(0, n == 3000 ? 30000 : 8000);
    expect_greedy_equals_cpu(*gpu, g.num_vertices, "hub graph n = " + std::to_string(n));
    // Grown in slices with a select in between: several index segments.
    for (int phase = 1; phase <= 3; ++phase) {
      gpu->generate(gpu->size(), 5000U * phase);
      expect_greedy_equals_cpu(*gpu, g.num_vertices, "phase " + std::to_string(phase));
    }
  }
}

// An always-live ring: root r's set holds r .. n - 1 and more, so most sets have hundreds of
// members, and covered sets beyond their first 256 members go out in chunks.
TEST(CudaGreedyPersistent, EqualsCpuOnLongSets) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(2000, true);
  sampling_params params;
  params.seed = 42;
  // Flat on purpose: sets this long would go to the bitmap representation automatically.
  auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params, cuda::rr_representation::flat);
  gpu->generate(0, 600);
  const rr_sets sets = gpu->copy_sets(0, gpu->size());
  std::uint64_t longest = 0;
  for (std::uint64_t s = 0; s < sets.size(); ++s) longest = std::max<std::uint64_t>(longest, sets[s].size());
  ASSERT_GT(longest, 3U * 256U);
  expect_greedy_equals_cpu(*gpu, g.num_vertices, "long sets");
}

// Sets of 1 to 40 members from a path graph with always-live edges, so sizes (and chunk lists)
// vary and most vertices are hot (few distinct counts); more seeds than vertices adding coverage.
TEST(CudaGreedyPersistent, EqualsCpuWithZeroGainTail) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  std::vector<weighted_edge> edges;
  const std::uint32_t n = 600;
  for (std::uint32_t v = 1; v < n; ++v) {
    if (v % 40 != 0) edges.push_back({v - 1, v, threshold_from_probability(v % 3 == 0 ? 0.5 : 1.0)});
  }
  const csr_graph g = build_csr_graph(n, edges);
  sampling_params params;
  params.seed = 43;
  auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params, cuda::rr_representation::flat);
  gpu->generate(0, 40);
  const rr_sets sets = gpu->copy_sets(0, gpu->size());
  const std::uint32_t k = 200;  // far more than the sets need
  expect_same(gpu->select(k, false), cpu_greedy(sets, n, k, false), "k = 200");
  expect_same(gpu->select(n, false), cpu_greedy(sets, n, n, false), "k = n");
}

// The streamed representation runs the greedy on its residual with seed 1 preselected.
TEST(CudaGreedyPersistent, StreamedEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  sampling_params params;
  params.seed = 44;
  auto flat = cuda::make_cuda_rr_collection(gpu_config(), g, params, cuda::rr_representation::flat);
  auto streamed = cuda::make_cuda_rr_collection(gpu_config(), g, params, cuda::rr_representation::streamed);
  flat->generate(0, 20000);
  streamed->generate(0, 20000);
  const rr_sets sets = flat->copy_sets(0, flat->size());
  for (const std::uint32_t k : {1U, 2U, 50U}) {
    const coverage_selection want = cpu_greedy(sets, g.num_vertices, k, false);
    expect_same(streamed->select(k, false), want, "streamed, k = " + std::to_string(k));
    expect_same(flat->select(k, false), want, "flat, k = " + std::to_string(k));
  }
}

}  // namespace
}  // namespace wildfire
