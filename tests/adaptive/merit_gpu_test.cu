// The CUDA MERIT store against the CPU store (ARCHITECTURE.md section 1): for the same seed and
// residual graphs, Generate, Select, Discover and Update give identical sets, roots, flags,
// coverage counts and batches; a whole adaptive run picks the same seeds. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda/merit_store.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/adaptive/amcss.hpp"
#include "wildfire/adaptive/mrr_store.hpp"
#include "wildfire/adaptive/node_costs.hpp"
#include "wildfire/adaptive/residual_graph.hpp"
#include "wildfire/backend.hpp"

namespace wildfire::adaptive {
namespace {

void expect_same(const mrr_store& cpu, const mrr_store& gpu, const char* step) {
  const mrr_snapshot a = cpu.snapshot();
  const mrr_snapshot b = gpu.snapshot();
  ASSERT_EQ(a.members.size(), b.members.size()) << step;
  for (std::uint64_t s = 0; s < a.members.size(); ++s) {
    const auto x = a.members[s], y = b.members[s];
    ASSERT_EQ(std::vector<std::uint32_t>(x.begin(), x.end()), std::vector<std::uint32_t>(y.begin(), y.end()))
        << step << ": members of set " << s;
    const auto rx = a.roots[s], ry = b.roots[s];
    ASSERT_EQ(std::vector<std::uint32_t>(rx.begin(), rx.end()), std::vector<std::uint32_t>(ry.begin(), ry.end()))
        << step << ": roots of set " << s;
  }
  EXPECT_EQ(a.flags, b.flags) << step;
  EXPECT_EQ(cpu.coverage_counts(), gpu.coverage_counts()) << step;
  EXPECT_EQ(cpu.num_members(), gpu.num_members()) << step;
}

class MeritGpu : public ::testing::TestWithParam<diffusion_model> {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  }
};

/// Three rounds of Update + Generate, a rejected and a committed Select and a post-round Discover
/// on the CPU store and on a GPU store of `segments` segments (0: the default, one per resident
/// warp), checking equality after every step; then a truncation. Returns the GPU store's stats.
mrr_store_stats rounds_equal_cpu(const csr_graph& g, diffusion_model model, std::uint32_t segments,
                                 const double (&roots)[3]) {
  const std::vector<double> costs = degree_costs(g);
  residual_graph residual(g);
  auto cpu = make_cpu_mrr_store(g, model, costs, 77, 2);
  auto gpu = cuda::make_gpu_mrr_store(g, model, costs, 77, 0, 0, segments);
  for (std::uint32_t round = 1; round <= 3; ++round) {
    for (auto* store : {cpu.get(), gpu.get()}) {
      store->begin_round(residual, roots[round - 1], round);
      if (store->size() > 0) store->update();
      store->generate(round == 1 ? 2000 : 3000);
    }
    expect_same(*cpu, *gpu, "after update and generate");
    // Run: a batch, rejected once (roll-back), then committed
    const batch_selection a = cpu->select(8);
    const batch_selection b = gpu->select(8);
    EXPECT_EQ(a.seeds, b.seeds) << "round " << round;
    EXPECT_EQ(a.coverage, b.coverage) << "round " << round;
    expect_same(*cpu, *gpu, "after a rejected select");
    cpu->select(8);
    gpu->select(8);
    cpu->commit_selection();
    gpu->commit_selection();
    expect_same(*cpu, *gpu, "after commit");
    // Verify: the same activated vertices flag the same sets
    std::vector<std::uint32_t> activated = a.seeds;
    for (std::uint32_t v : residual.remaining()) {
      if (activated.size() >= 60) break;
      if (v % 11 == round && std::find(activated.begin(), activated.end(), v) == activated.end()) activated.push_back(v);
    }
    residual.remove(activated);
    cpu->discover(activated);
    gpu->discover(activated);
    expect_same(*cpu, *gpu, "after discover");
  }
  EXPECT_EQ(cpu->stats().sets_reused, gpu->stats().sets_reused);
  EXPECT_EQ(cpu->stats().sets_repaired, gpu->stats().sets_repaired);
  // Truncate drops the same sets.
  cpu->truncate(2500);
  gpu->truncate(2500);
  expect_same(*cpu, *gpu, "after truncate");
  return gpu->stats();
}

TEST_P(MeritGpu, RoundsOfGenerateSelectDiscoverUpdateEqualCpu) {
  // Prepare: 3000 vertices, degree costs, three rounds with growing root counts (hundreds of
  // roots in round 3); 64 segments hold so many sets each that round 3 overflows the initial
  // segments, exercising the regrowth.
  const csr_graph g = test::random_graph(3000, 24000, 13);
  EXPECT_GT(rounds_equal_cpu(g, GetParam(), 64, {3.0, 20.0, 250.0}).storage_regrowths, 0U);
}

TEST_P(MeritGpu, DefaultSegmentCountEqualsCpu) {
  // The default layout (one segment per resident warp, most holding one or two sets) gives the
  // same sets: sample id s lives in segment s mod count whatever the count.
  const csr_graph g = test::random_graph(3000, 24000, 13);
  rounds_equal_cpu(g, GetParam(), 0, {3.0, 20.0, 250.0});
}

/// Random graph whose in-probabilities mix 0.6, 0.2 and 0.05 per edge, so every vertex keeps
/// the per-edge IC rule; the skewed targets have in-degree ~40.
csr_graph mixed_probability_graph(std::uint32_t n, std::uint64_t m, std::uint64_t seed) {
  const csr_graph base = test::random_graph(n, m, seed);
  std::vector<test::probability_edge> edges;
  const double probabilities[] = {0.6, 0.2, 0.05};
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint64_t j = base.in_offsets[v]; j < base.in_offsets[v + 1]; ++j) {
      edges.push_back({base.in_sources[j], v, probabilities[(j * 7 + v) % 3]});
    }
  }
  return test::graph_from_probabilities(n, edges);
}

TEST(MeritGpuIc, HeavyVerticesEqualCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  // Members with more than 16 items are probed by the whole warp, the rest one per lane: under
  // uniform p = 0.5 (block rule, blocks of 2 edges) the ~40-in-edge targets have ~20 blocks;
  // with mixed probabilities (per-edge rule) they have ~40 single-edge items.
  const double roots[3] = {2.0, 6.0, 40.0};
  rounds_equal_cpu(test::random_graph(3000, 24000, 21, 0.5), diffusion_model::ic, 0, roots);
  rounds_equal_cpu(test::random_graph(3000, 24000, 21, 0.5), diffusion_model::ic, 64, roots);
  rounds_equal_cpu(mixed_probability_graph(3000, 24000, 22), diffusion_model::ic, 0, roots);
}

TEST_P(MeritGpu, AdaptiveRunEqualsCpuRun) {
  const csr_graph g = test::random_graph(2000, 14000, 4);
  const std::vector<double> costs = degree_costs(g);
  amcss_options o;
  o.model = GetParam();
  o.eta = 400;
  o.batch = 4;
  o.seed = 3;
  o.realization_seed = 9;
  o.realizations = 2;
  o.backend.device = device_kind::cpu;
  o.backend.num_threads = 2;
  const amcss_result cpu = run_amcss(g, costs, o);
  o.backend.device = device_kind::gpu;
  const amcss_result gpu = run_amcss(g, costs, o);
  EXPECT_EQ(gpu.device, "gpu");
  ASSERT_EQ(cpu.runs.size(), gpu.runs.size());
  for (std::size_t i = 0; i < cpu.runs.size(); ++i) {
    ASSERT_EQ(cpu.runs[i].seeds.size(), gpu.runs[i].seeds.size());
    for (std::size_t s = 0; s < cpu.runs[i].seeds.size(); ++s) {
      EXPECT_EQ(cpu.runs[i].seeds[s].vertex, gpu.runs[i].seeds[s].vertex) << "realization " << i << " seed " << s;
      EXPECT_EQ(cpu.runs[i].seeds[s].activations, gpu.runs[i].seeds[s].activations);
    }
    EXPECT_EQ(cpu.runs[i].total_cost, gpu.runs[i].total_cost);
    EXPECT_EQ(cpu.runs[i].sets_generated, gpu.runs[i].sets_generated);
    EXPECT_EQ(cpu.runs[i].sets_reused, gpu.runs[i].sets_reused);
    EXPECT_TRUE(verify_amcss_realization(g, costs, o, gpu.runs[i]).ok);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MeritGpu, ::testing::Values(diffusion_model::ic, diffusion_model::lt),
                         [](const auto& param_info) { return param_info.param == diffusion_model::ic ? "IC" : "LT"; });

}  // namespace
}  // namespace wildfire::adaptive
