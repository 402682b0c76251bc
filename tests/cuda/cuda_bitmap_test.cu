// The bitmap RR representation (dense regime, docs/gpu.md) against the flat one and the CPU: the
// same sets (copy_sets, and the serial reference), member counts, greedy seeds, marginals,
// coverage and OPIM-C bound as the CPU greedy, for the warp path (scattered chunks) and the fused
// path (visited words ORed in, 32- and 64-bit colour words, batches that start inside a 64-set
// word); reached automatically on dense sets, fed by the traversal the pilot's mean set picks, and
// left for the streamed representation when a later request outgrows the budget; a forced bitmap
// that cannot fit is a resource_error.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/selection_checks.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/selection/max_coverage.hpp"

namespace wildfire {
namespace {

using test::cpu_greedy;
using test::expect_same_selection;

/// Requests of awkward sizes (not multiples of 64 or of the colours) with gaps between the ids.
struct request {
  std::uint64_t first_id;
  std::uint64_t count;
};
const std::vector<request> ranges = {{3, 100}, {500, 77}, {1000, 250}, {1250, 1}, {2000, 130}};

rr_sets reference_sets(const csr_graph& g, const sampling_params& params) {
  rr_sets all;
  all.offsets.assign(1, 0);
  for (const request& r : ranges) {
    const rr_sets part = reference::sample_rr_sets(g, params, r.first_id, r.count);
    const std::uint64_t base = all.members.size();
    all.members.insert(all.members.end(), part.members.begin(), part.members.end());
    for (std::uint64_t i = 1; i < part.offsets.size(); ++i) all.offsets.push_back(base + part.offsets[i]);
  }
  return all;
}

void expect_bitmap_equals_cpu(const csr_graph& g, traversal_kind traversal, std::uint32_t colours,
                              const std::string& name) {
  sampling_params params;
  params.seed = 77;
  const backend_config config = test::gpu_config(traversal, colours);
  const std::string where = name + ", " + std::string(to_string(traversal)) + ", " + std::to_string(colours) + " colours";
  auto bitmap = cuda::make_cuda_rr_collection(config, g, params, cuda::rr_representation::bitmap);
  auto flat = cuda::make_cuda_rr_collection(config, g, params, cuda::rr_representation::flat);
  const rr_sets want = reference_sets(g, params);
  // Selects between the requests: the bitmap grows after a greedy has run over it.
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    bitmap->generate(ranges[i].first_id, ranges[i].count);
    flat->generate(ranges[i].first_id, ranges[i].count);
    if (i == 1) expect_same_selection(bitmap->select(5, true), flat->select(5, true), where + ", midway");
  }
  EXPECT_EQ(bitmap->stats().representation, "bitmap") << where;
  ASSERT_EQ(bitmap->size(), want.size()) << where;
  EXPECT_EQ(bitmap->num_members(), want.num_members()) << where;
  const rr_sets got = bitmap->copy_sets(0, bitmap->size());
  EXPECT_EQ(got.offsets, want.offsets) << where;
  EXPECT_TRUE(got.members == want.members) << where;
  // A slice that starts and ends inside 64-set words.
  const rr_sets slice = bitmap->copy_sets(70, 200);
  ASSERT_EQ(slice.size(), 200U) << where;
  for (std::uint64_t s = 0; s < 200; ++s) {
    const auto x = slice[s];
    const auto y = want[70 + s];
    ASSERT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << where << ", set " << 70 + s;
  }
  for (const std::uint32_t k : {1U, 7U, 50U}) {
    const coverage_selection cpu = cpu_greedy(want, g.num_vertices, k);
    const std::string at = where + ", k = " + std::to_string(k);
    const coverage_selection got_selection = bitmap->select(k, true);
    expect_same_selection(got_selection, cpu, at);
    expect_same_selection(flat->select(k, true), cpu, at + " (flat)");
    // Without the bound: the same seeds; the bound is the number of sets, as on the flat path.
    const coverage_selection plain = bitmap->select(k, false);
    EXPECT_EQ(plain.seeds, cpu.seeds) << at;
    EXPECT_EQ(plain.optimum_upper_bound, flat->select(k, false).optimum_upper_bound) << at;
    EXPECT_EQ(bitmap->coverage(got_selection.seeds), cpu.covered) << at;
    EXPECT_EQ(bitmap->coverage(std::vector<std::uint32_t>{}), 0U) << at;
  }
  // More seeds than the universe holds (every vertex is picked, the rest with gain 0): only on
  // small graphs.
  if (g.num_vertices <= 64) {
    expect_same_selection(bitmap->select(g.num_vertices + 3, true), cpu_greedy(want, g.num_vertices, g.num_vertices + 3),
                          where + ", k > n");
  }
  // clear() empties the bitmap; new sets start at held index 0 again.
  bitmap->clear();
  flat->clear();
  bitmap->generate(9, 90);
  flat->generate(9, 90);
  EXPECT_EQ(bitmap->num_members(), flat->num_members()) << where;
  EXPECT_TRUE(bitmap->copy_sets(0, 90).members == flat->copy_sets(0, 90).members) << where;
  expect_same_selection(bitmap->select(6, true), flat->select(6, true), where + ", after clear");
}

// Dense sets (uniform p = 0.3: most of the graph, many blocks per hub) and sparse ones (the hub
// graph), on both traversals; the fused one with 64-bit colour words and 32-bit ones (32 and 96
// colours, and 8 and 16, which use part of a word); flat extraction with the same colours too.
TEST(CudaBitmap, EqualsFlatAndCpuGreedy) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");
  const csr_graph sparse = test::hub_graph(3000, false);
  for (const auto* graph : {&dense, &sparse}) {
    const std::string name = graph == &dense ? "uniform:0.3 hub graph" : "hub graph";
    expect_bitmap_equals_cpu(*graph, traversal_kind::warp, 64, name);
    expect_bitmap_equals_cpu(*graph, traversal_kind::fused, 64, name);
    expect_bitmap_equals_cpu(*graph, traversal_kind::fused, 32, name);
    expect_bitmap_equals_cpu(*graph, traversal_kind::fused, 96, name);
    expect_bitmap_equals_cpu(*graph, traversal_kind::fused, 8, name);  // the low bits of a 32-bit word
  }
  expect_bitmap_equals_cpu(sparse, traversal_kind::fused, 16, "hub graph");
  // Every vertex in every set (the warp path's retry), and a graph smaller than k.
  const csr_graph ring = test::hub_graph(2000, true);
  expect_bitmap_equals_cpu(ring, traversal_kind::warp, 64, "ring");
  expect_bitmap_equals_cpu(ring, traversal_kind::fused, 64, "ring");
  const csr_graph tiny = test::model_hub_graph(40, "uniform:0.3");
  expect_bitmap_equals_cpu(tiny, traversal_kind::fused, 64, "tiny");
  expect_bitmap_equals_cpu(tiny, traversal_kind::warp, 64, "tiny");
}

TEST(CudaBitmap, LtSetsOnTheWarpPath) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  sampling_params params;
  params.model = diffusion_model::lt;
  params.seed = 5;
  auto bitmap = cuda::make_cuda_rr_collection(test::gpu_config(), g, params, cuda::rr_representation::bitmap);
  bitmap->generate(0, 1000);
  const rr_sets want = reference::sample_rr_sets(g, params, 0, 1000);
  const rr_sets got = bitmap->copy_sets(0, 1000);
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_TRUE(got.members == want.members);
  EXPECT_EQ(bitmap->stats().traversal, "warp");
  expect_same_selection(bitmap->select(20, true), cpu_greedy(want, g.num_vertices, 20), "LT");
}

/// Mean member count of the first 64 sets (the automatic choice's pilot) as a share of n.
double pilot_share(const csr_graph& g, const sampling_params& params) {
  return static_cast<double>(reference::sample_rr_sets(g, params, 0, 64).num_members()) / 64.0 / g.num_vertices;
}

// Automatic: the pilot's mean set decides. Dense sets (mean >= n / 64) move to the bitmap, with
// the pilot's sets; from fused_large_set_share of n the fused traversal feeds it, below that the
// warp path. Sparse sets stay flat.
TEST(CudaBitmap, AutomaticChoiceFollowsTheMeanSetSize) {
  sampling_params params;
  params.seed = 12;
  const backend_config config = test::gpu_config();
  for (const auto& [weights, traversal] : {std::pair<std::string, std::string>{"uniform:0.3", "warp+fused"},
                                           std::pair<std::string, std::string>{"uniform:0.08", "warp"}}) {
    const csr_graph dense = test::model_hub_graph(3100, weights);
    const double share = pilot_share(dense, params);
    ASSERT_GE(share * 64.0, 1.0) << weights;
    ASSERT_EQ(share >= cuda::fused_large_set_share, traversal == "warp+fused")
        << weights << ": pilot mean " << share << " n";
    if (!gpu_available()) continue;  // the premises hold without one
    auto gpu = cuda::make_cuda_rr_collection(config, dense, params);
    gpu->generate(0, 700);
    gpu->generate(700, 300);
    EXPECT_EQ(gpu->stats().representation, "bitmap") << weights;
    EXPECT_EQ(gpu->stats().traversal, traversal) << weights;  // the pilot is on the warp path
    const rr_sets want = reference::sample_rr_sets(dense, params, 0, 1000);
    const rr_sets got = gpu->copy_sets(0, 1000);
    EXPECT_EQ(got.offsets, want.offsets) << weights;
    EXPECT_TRUE(got.members == want.members) << weights;
    expect_same_selection(gpu->select(50, true), cpu_greedy(want, dense.num_vertices, 50), "automatic, " + weights);
  }

  if (!gpu_available()) GTEST_SKIP() << "premises hold; no CUDA GPU";
  const csr_graph sparse = test::hub_graph(3000, false);
  auto flat = cuda::make_cuda_rr_collection(config, sparse, params);
  flat->generate(0, 2000);
  ASSERT_LT(static_cast<double>(flat->num_members()) / 2000.0 * 64.0, 3000.0);
  EXPECT_EQ(flat->stats().representation, "flat");
}

// A bitmap asked for before any set, with the automatic traversal: a pilot of warp-sampled sets
// settles the feed by the same rule, and the sets stay the CPU's.
TEST(CudaBitmap, ForcedBitmapSettlesItsFeedAfterAPilot) {
  sampling_params params;
  params.seed = 12;
  for (const auto& [weights, traversal] : {std::pair<std::string, std::string>{"uniform:0.3", "warp+fused"},
                                           std::pair<std::string, std::string>{"uniform:0.08", "warp"}}) {
    const csr_graph g = test::model_hub_graph(3100, weights);
    ASSERT_EQ(pilot_share(g, params) >= cuda::fused_large_set_share, traversal == "warp+fused")
        << weights << ": pilot mean " << pilot_share(g, params) << " n";
    if (!gpu_available()) continue;  // the premises hold without one
    auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(), g, params, cuda::rr_representation::bitmap);
    gpu->generate(0, 100);  // its first 64 sets are the pilot
    gpu->generate(100, 400);
    EXPECT_EQ(gpu->stats().traversal, traversal) << weights;
    const rr_sets want = reference::sample_rr_sets(g, params, 0, 500);
    const rr_sets got = gpu->copy_sets(0, 500);
    EXPECT_EQ(got.offsets, want.offsets) << weights;
    EXPECT_TRUE(got.members == want.members) << weights;
    EXPECT_EQ(gpu->num_members(), want.num_members()) << weights;
  }
  if (!gpu_available()) GTEST_SKIP() << "premises hold; no CUDA GPU";
}

// The automatic bitmap, chosen on the first sets, cannot hold a later request within the budget:
// the held sets go over to the streamed representation, and the sets, counts and greedy stay the
// CPU's.
TEST(CudaBitmap, AutomaticBitmapGoesStreamedWhenItOutgrowsTheBudget) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  sampling_params params;
  params.seed = 13;
  backend_config config = test::gpu_config();
  config.memory_budget_bytes = 8ULL << 20;
  const csr_graph dense = test::model_hub_graph(640, "uniform:0.3");
  auto gpu = cuda::make_cuda_rr_collection(config, dense, params);
  gpu->generate(0, 700);
  ASSERT_EQ(gpu->stats().representation, "bitmap");
  // 64 batches of 64 sets (5 kB each) per bitmap chunk: 120,000 more sets need 9.6 MB of chunks.
  const std::uint64_t more = 120000;
  gpu->generate(700, more);
  const rr_sets want = reference::sample_rr_sets(dense, params, 0, 700 + more);
  EXPECT_EQ(gpu->num_members(), want.num_members());
  EXPECT_EQ(gpu->stats().representation, "streamed");
  const rr_sets got = gpu->copy_sets(0, 700 + more);
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_TRUE(got.members == want.members);
  expect_same_selection(gpu->select(20, true), cpu_greedy(want, dense.num_vertices, 20), "bitmap, then streamed");
}

// IMM through the bitmap equals IMM on the CPU (theta, seeds, marginals), reused and fresh sets.
TEST(CudaBitmap, ImmEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::model_hub_graph(3100, "uniform:0.3");
  for (const bool reuse : {true, false}) {
    sampling_params params;
    params.seed = 41;
    imm_options options;
    options.k = 10;
    options.epsilon = 0.3;
    options.reuse_rrsets = reuse;
    backend_config cpu_config;
    cpu_config.device = device_kind::cpu;
    cpu_config.num_threads = 2;
    auto cpu = make_rr_collection(cpu_config, g, params);
    const imm_result want = run_imm(*cpu, g.num_vertices, options);
    auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(), g, params, cuda::rr_representation::bitmap);
    const imm_result got = run_imm(*gpu, g.num_vertices, options);
    const std::string where = reuse ? "reuse" : "fresh";
    EXPECT_EQ(got.theta, want.theta) << where;
    EXPECT_EQ(got.selection.seeds, want.selection.seeds) << where;
    EXPECT_EQ(got.selection.marginal_coverage, want.selection.marginal_coverage) << where;
    EXPECT_EQ(gpu->stats().members_generated, cpu->stats().members_generated) << where;
    EXPECT_EQ(gpu->stats().representation, "bitmap") << where;
  }
}

// A forced bitmap that the budget cannot hold: resource_error naming the bitmap and the bytes.
TEST(CudaBitmap, TooSmallBudgetIsAResourceError) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(20000, false);
  sampling_params params;
  backend_config config;
  config.device = device_kind::gpu;
  config.traversal = traversal_kind::warp;
  config.memory_budget_bytes = 64ULL << 20;
  auto gpu = cuda::make_cuda_rr_collection(config, g, params, cuda::rr_representation::bitmap);
  gpu->generate(0, 1000000);  // 15,625 words of 160 kB each: 2.5 GB
  try {
    (void)gpu->num_members();
    FAIL() << "expected resource_error";
  } catch (const resource_error& e) {
    EXPECT_GT(e.bytes_wanted(), e.bytes_available());
    EXPECT_NE(std::string(e.what()).find("bitmap"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wildfire
