// The thread-per-sample first pass of the IC warp sampler (warp_sampler_small_kernels.cuh)
// against the serial reference, exactly, on graphs where it finishes some sets and hands others
// to the warp kernel: weighted cascade, sets past a lane's 32 members, per-edge vertices with more than 32 in-edges,
// block-rule vertices with more than 32 blocks, more than 32 roots, fractional root counts, and
// sets beyond a warp's room and the arena's.
// The profile's counters show that both passes ran. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/rr_set_checks.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"

namespace wildfire {
namespace {

/// Samples ids [first_id, first_id + count) on the GPU (warp traversal, two requests) and
/// expects every set to equal the reference; returns the collection's profile.
cuda::cuda_collection_profile expect_equal_to_reference(const csr_graph& g, double mean_roots, std::uint64_t first_id,
                                                        std::uint64_t count, const std::string& what) {
  sampling_params params;
  params.seed = 977;
  params.mean_roots = mean_roots;
  auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(traversal_kind::warp), g, params);
  gpu->generate(first_id, count / 2);
  gpu->generate(first_id + count / 2, count - count / 2);
  const rr_sets got = gpu->copy_sets(0, count);
  const rr_sets want = reference::sample_rr_sets(g, params, first_id, count);
  test::expect_same_sets(want, got, what + ", sets from id " + std::to_string(first_id));
  return cuda::profile_of(*gpu);
}

void expect_both_passes(const cuda::cuda_collection_profile& p, const std::string& what) {
  EXPECT_GT(p.small_sets, 0U) << what;
  EXPECT_GT(p.small_deferred, 0U) << what;
}

// Weighted cascade: one block per vertex (hubs included), one or several roots.
TEST(CudaSmallSets, WeightedCascadeEqualsReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::model_hub_graph(3100, "wc");
  EXPECT_GT(expect_equal_to_reference(g, 1.0, 0, 30000, "wc").small_sets, 0U);
  EXPECT_GT(expect_equal_to_reference(g, 2.5, 123456, 20000, "wc, 2.5 roots").small_sets, 0U);
}

// A path of always-live edges: the set of root v is {0, ..., v}, so roots below 32 fit a lane's
// queue and the others overflow it.
TEST(CudaSmallSets, LongSetsOverflowTheQueue) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const std::uint32_t n = 200;
  std::vector<weighted_edge> edges;
  for (std::uint32_t v = 1; v < n; ++v) edges.push_back({v - 1, v, always_live_threshold});
  const csr_graph g = build_csr_graph(n, edges);
  expect_both_passes(expect_equal_to_reference(g, 1.0, 0, 5000, "path"), "path");
  expect_both_passes(expect_equal_to_reference(g, 1.5, 99, 5000, "path, 1.5 roots"), "path, 1.5 roots");
}

// uniform:0.1: the hubs' 1,550 in-edges are 155 blocks, more than a lane draws.
TEST(CudaSmallSets, ManyBlocksGoToTheWarpKernel) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::model_hub_graph(3100, "uniform:0.1");
  ASSERT_TRUE(test::block_rule_coverage_of(g).many_blocks);
  expect_both_passes(expect_equal_to_reference(g, 1.0, 7, 20000, "uniform:0.1"), "uniform:0.1");
}

// Mixed probabilities (per-edge rule): most vertices have 2 in-edges, vertices 0..9 have 100.
TEST(CudaSmallSets, LongPerEdgeListsGoToTheWarpKernel) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const std::uint32_t n = 2000;
  std::vector<weighted_edge> edges;
  std::uint64_t state = 99;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::uint32_t v = 0; v < n; ++v) {
    const std::uint32_t degree = v < 10 ? 100 : 2;
    for (std::uint32_t e = 0; e < degree; ++e) {
      const double p = v < 10 ? (e % 2 == 0 ? 0.01 : 0.02) : (e == 0 ? 0.3 : 0.2);
      edges.push_back({next() % n, v, threshold_from_probability(p)});
    }
  }
  const csr_graph g = build_csr_graph(n, edges);
  expect_both_passes(expect_equal_to_reference(g, 1.0, 0, 20000, "per-edge"), "per-edge");
  // 40 roots: more than a lane's queue from the start; every set goes to the warp kernel. Batches
  // of 10,000: more sets than warps, so the lane pass runs (a batch with a warp per set skips it).
  const cuda::cuda_collection_profile many = expect_equal_to_reference(g, 40.0, 50, 20000, "40 roots");
  EXPECT_GT(many.small_deferred, 0U);
}

// Ten hubs, each reached from every other vertex by always-live edges: a set rooted at a hub
// holds 39,991 members (more than a warp's room, and more than the arena the pilot's small sets
// size), every other set one. The lane pass hands the hub sets on, the warp kernel defers them
// again, and the batch, already laid out in the store behind the traversal, is laid out anew
// after the retries (a warp with room for the whole graph, a grown arena).
TEST(CudaSmallSets, HugeSetsAreRedoneAfterTheBatchIsLaidOut) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const std::uint32_t n = 40000;
  const std::uint32_t hubs = 10;
  std::vector<weighted_edge> edges;
  for (std::uint32_t v = hubs; v < n; ++v)
    for (std::uint32_t hub = 0; hub < hubs; ++hub) edges.push_back({v, hub, always_live_threshold});
  const csr_graph g = build_csr_graph(n, edges);
  const cuda::cuda_collection_profile p = expect_equal_to_reference(g, 1.0, 0, 120000, "hubs");
  EXPECT_GT(p.warp_retries, 0U);
  expect_both_passes(p, "hubs");
}

}  // namespace
}  // namespace wildfire
