// The streamed RR representation (dense regime, docs/gpu.md) against the flat one: the same sets
// (copy_sets regenerates them), member counts, greedy seeds, marginals, coverage and OPIM-C bound,
// and the CPU greedy on the reference sets; forced by the explicit switch and reached
// automatically through a small memory budget. Skips without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/selection_checks.hpp"
#include "wildfire/backend.hpp"

namespace wildfire {
namespace {

void expect_streamed_equals_flat(const csr_graph& g, traversal_kind traversal, std::uint64_t first_id,
                                 std::uint64_t count) {
  sampling_params params;
  params.seed = 99;
  const backend_config config = test::gpu_config(traversal);
  auto flat = cuda::make_cuda_rr_collection(config, g, params, cuda::rr_representation::flat);
  auto streamed = cuda::make_cuda_rr_collection(config, g, params, cuda::rr_representation::streamed);
  // Two ranges with a gap, as IMM's fresh final phase makes after clear().
  for (auto* c : {flat.get(), streamed.get()}) {
    c->generate(first_id, count / 2);
    c->generate(first_id + count, count - count / 2);
  }
  EXPECT_EQ(streamed->stats().representation, "streamed");
  EXPECT_EQ(flat->stats().representation, "flat");
  ASSERT_EQ(streamed->size(), flat->size());
  EXPECT_EQ(streamed->num_members(), flat->num_members());
  const rr_sets want_sets = flat->copy_sets(0, flat->size());
  const rr_sets got_sets = streamed->copy_sets(0, streamed->size());
  EXPECT_EQ(got_sets.offsets, want_sets.offsets);
  EXPECT_TRUE(got_sets.members == want_sets.members);
  // A slice that starts inside the first range and ends inside the second.
  const rr_sets slice = streamed->copy_sets(count / 4, count / 2);
  const rr_sets want_slice = reference::sample_rr_sets(g, params, first_id + count / 4, count / 2 - count / 4);
  ASSERT_GE(slice.size(), count / 2 - count / 4);
  for (std::uint64_t s = 0; s < count / 2 - count / 4; ++s) {
    const auto x = slice[s];
    const auto y = want_slice[s];
    ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "set " << s;
  }
  for (std::uint32_t k : {1U, 7U, 50U}) {
    const std::string at = "k = " + std::to_string(k);
    const coverage_selection cpu = test::cpu_greedy(want_sets, g.num_vertices, k);
    const coverage_selection got = streamed->select(k, true);
    test::expect_same_selection(got, cpu, at);
    test::expect_same_selection(flat->select(k, true), cpu, at);
    EXPECT_EQ(streamed->coverage(got.seeds), cpu.covered) << at;
  }
  // clear() empties the streamed counts too.
  streamed->clear();
  flat->clear();
  streamed->generate(7, 40);
  flat->generate(7, 40);
  test::expect_same_selection(streamed->select(5, true), flat->select(5, true), "k = 5");
}

TEST(CudaStreamed, EqualsFlatOnHubGraphs) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  expect_streamed_equals_flat(g, traversal_kind::warp, 0, 3000);
  expect_streamed_equals_flat(g, traversal_kind::fused, 11, 2000);
  // Block-rule IC (random/ic_block_rule.hpp): large sets, many blocks per hub.
  const csr_graph uniform = test::model_hub_graph(3100, "uniform:0.3");
  expect_streamed_equals_flat(uniform, traversal_kind::warp, 3, 1200);
  expect_streamed_equals_flat(uniform, traversal_kind::fused, 17, 800);
}

TEST(CudaStreamed, EqualsFlatOnSharedGraph) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  csr_graph g;
  if (!test::load_shared_graph("NetHEPT.txt.gz", g)) GTEST_SKIP() << "NetHEPT.txt.gz not in the shared data";
  expect_streamed_equals_flat(g, traversal_kind::automatic, 5, 20000);
}

TEST(CudaStreamed, SmallBudgetLeavesFlatAutomatically) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(20000, true);  // RR sets of nearly all 20,000 vertices
  sampling_params params;
  params.seed = 3;
  backend_config config;
  config.device = device_kind::gpu;
  config.memory_budget_bytes = 96ULL << 20;  // 600 flat sets need 48 MB plus their index: too much
  auto gpu = cuda::make_cuda_rr_collection(config, g, params);
  gpu->generate(0, 20);  // the traversal pilot only: flat
  EXPECT_EQ(gpu->stats().representation, "flat");
  gpu->generate(20, 580);
  // Sets of the whole graph: 600 of them fit a bitmap of 10 words of 160 kB, which the automatic
  // choice prefers to streaming (bitmap_coverage.hpp; forced streaming is tested above).
  EXPECT_EQ(gpu->stats().representation, "bitmap");
  ASSERT_EQ(gpu->size(), 600U);
  const rr_sets want = reference::sample_rr_sets(g, params, 0, 600);
  EXPECT_EQ(gpu->num_members(), want.num_members());
  const rr_sets got = gpu->copy_sets(590, 10);
  const rr_sets want_tail = reference::sample_rr_sets(g, params, 590, 10);
  EXPECT_EQ(got.offsets, want_tail.offsets);
  EXPECT_TRUE(got.members == want_tail.members);
  test::expect_same_selection(gpu->select(3, true), test::cpu_greedy(want, g.num_vertices, 3), "k = 3");
  EXPECT_LT(gpu->stats().peak_bytes, config.memory_budget_bytes);
}

}  // namespace
}  // namespace wildfire
