// The interleaved single-root IC sampler (cpu/ic_lane_sampler.hpp) and the automatic choice of
// traversal in the CPU collection, against the serial reference, bit for bit: batches smaller
// than the lane count, hubs with more live in-edges than a lane holds between steps, vertices on
// the per-edge rule (mixed probabilities, p > 1/2), and collections that switch from single to
// fused traversals as the mean set size grows.
#include <gtest/gtest.h>

#include <string>

#include "cpu/ic_lane_sampler.hpp"
#include "cpu/world_tables.hpp"
#include "reference/rr_reference.hpp"
#include "support/rr_set_checks.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {
namespace {

/// Samples [first, first + total) through the lane sampler in calls of `per_call` ids.
rr_sets sample_lanes(const csr_graph& g, std::uint64_t seed, std::uint64_t first, std::uint64_t total,
                     std::uint32_t per_call) {
  const cpu::world_tables tables = cpu::build_world_tables(g, diffusion_model::ic);
  EXPECT_FALSE(tables.ic_records.empty());
  cpu::ic_lane_sampler sampler(g.view(), tables.ic_plan.view(), tables.ic_records.data(), seed);
  rr_sets out;
  for (std::uint64_t id = first; id < first + total; id += per_call)
    sampler.sample(id, static_cast<std::uint32_t>(std::min<std::uint64_t>(per_call, first + total - id)), out);
  return out;
}

TEST(IcLaneSampler, EqualsReferenceOnBothRulesAndEveryBatchSize) {
  // Prepare: weighted cascade (block rule on in-degree >= 2, per-edge rule below); a star of
  // p = 1/2 (blocks of two edges) whose hub has one in-edge from each of 300 leaves, each leaf
  // one in-edge from the hub, so a hub expansion yields far more live edges than
  // pending_capacity, each to a vertex no other path reaches; and mixed probabilities (the
  // per-edge rule throughout, some p above 1/2).
  auto wc = test::random_graph(700, 5000, 11);
  std::vector<weighted_edge> star;
  for (std::uint32_t leaf = 1; leaf <= 300; ++leaf) {
    star.push_back({leaf, 0, threshold_from_probability(0.5)});
    star.push_back({0, leaf, threshold_from_probability(0.5)});
  }
  const auto half = build_csr_graph(301, star);
  auto mixed = test::random_graph(800, 5000, 13);
  for (std::uint64_t j = 0; j < mixed.num_edges; ++j)
    mixed.in_thresholds[j] = threshold_from_probability(0.02 + 0.12 * static_cast<double>(j % 9));
  const std::uint32_t hub_degree = half.in_degree(0);
  ASSERT_GT(hub_degree / 2, 2 * cpu::ic_lane_sampler::pending_capacity) << "the test needs a hub";

  sampling_params params;
  params.seed = 77;
  constexpr std::uint64_t first = 4096 + 17, count = 700;
  for (const auto& [name, g] : {std::pair<std::string, const csr_graph*>{"wc", &wc}, {"half", &half},
                                {"mixed", &mixed}}) {
    const rr_sets expected = reference::sample_rr_sets(*g, params, first, count);
    // Run and verify: one sample per call (a single lane), fewer samples than lanes, many.
    for (const std::uint32_t per_call : {1u, 3u, 64u, 700u})
      test::expect_same_sets(expected, sample_lanes(*g, params.seed, first, count, per_call),
                       name + " per_call=" + std::to_string(per_call));
  }
}

rr_sets sample_auto(const csr_graph& g, const sampling_params& params, int threads,
                    std::initializer_list<std::uint64_t> calls, std::string& traversal) {
  backend_config config;
  config.device = device_kind::cpu;
  config.traversal = traversal_kind::automatic;
  config.num_threads = threads;
  auto collection = make_rr_collection(config, g, params);
  std::uint64_t next = 0;
  for (const std::uint64_t c : calls) {
    collection->generate(next, c);
    next += c;
  }
  traversal = collection->stats().traversal;
  return collection->copy_sets(0, next);
}

TEST(IcLaneSampler, AutomaticCollectionsEqualReferenceOnEitherSideOfTheSwitch) {
  // Small weighted-cascade sets stay on single traversals; p = 0.3 on a dense graph gives sets of
  // hundreds of members, so after the pilot the collection turns to fused traversals.
  const auto small_sets = test::random_graph(2000, 8000, 21);
  const auto large_sets = test::random_graph(500, 8000, 22, 0.3);
  sampling_params params;
  params.seed = 5;
  for (const int threads : {1, 2}) {
    std::string traversal;
    const rr_sets small = sample_auto(small_sets, params, threads, {6000, 700}, traversal);
    test::expect_same_sets(reference::sample_rr_sets(small_sets, params, 0, 6700), small, "small sets");
    EXPECT_EQ(traversal, "unfused");
    ASSERT_LT(static_cast<double>(small.num_members()) / static_cast<double>(small.size()), 256.0);

    const rr_sets large = sample_auto(large_sets, params, threads, {4500, 1500}, traversal);
    test::expect_same_sets(reference::sample_rr_sets(large_sets, params, 0, 6000), large, "large sets");
    ASSERT_GT(static_cast<double>(large.num_members()) / static_cast<double>(large.size()), 256.0);
    EXPECT_EQ(traversal, "fused");  // 1024 pilot sets unfused, 4976 fused
  }
}

}  // namespace
}  // namespace wildfire
