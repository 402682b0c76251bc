// The plain per-vertex IC rule of the references (reference/ic_live_edges.hpp) against the
// optimised plan and enumeration every sampler uses (make_ic_block_plan + for_each_live_in_edge):
// the same vertices use the block rule and the same edges are live, world after world.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "reference/ic_live_edges.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire {
namespace {

/// Compares classification and live edges on `worlds` worlds; names the first difference.
void expect_same_rule(const csr_graph& g, std::uint64_t worlds, const std::string& what) {
  const ic_block_plan plan = make_ic_block_plan(g.view());
  for (std::uint32_t v = 0; v < g.num_vertices; ++v)
    ASSERT_EQ(reference::uses_block_rule(g, v), plan.vertex_class[v] != per_edge_class) << what << " vertex " << v;
  for (std::uint64_t s = 0; s < worlds; ++s) {
    const std::uint64_t key = sample_key(77, s);
    for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
      std::vector<std::uint64_t> fast;
      for_each_live_in_edge(key, g.view(), plan.view(), v, [&](std::uint64_t j) { fast.push_back(j); });
      std::sort(fast.begin(), fast.end());
      ASSERT_EQ(reference::ic_live_in_edges(g, key, v), fast) << what << " world " << s << " vertex " << v;
    }
  }
}

TEST(ReferenceIcLiveEdges, EqualsThePlanEnumerationOnRandomGraphs) {
  // Weighted cascade; uniform p with several blocks per hub, blocks of 2 (p = 1/2 exactly) and
  // p above 1/2 (per edge); the mixed tiny graph.
  expect_same_rule(test::random_graph(400, 4000, 3, 0.0), 200, "weighted cascade");
  for (const double p : {0.01, 0.05, 0.3, 0.5, 0.7})
    expect_same_rule(test::random_graph(400, 4000, 4, p), 200, "uniform " + std::to_string(p));
  expect_same_rule(test::tiny_ic_graph(), 2000, "mixed tiny graph");
  expect_same_rule(test::tiny_uniform_in_graph(0.45), 2000, "uniform tiny graph");
}

TEST(ReferenceIcLiveEdges, HubWithManyBlocks) {
  // Vertex 0 with 1000 in-edges of p = 0.01: ten blocks of 100.
  std::vector<test::probability_edge> edges;
  for (std::uint32_t u = 1; u <= 1000; ++u) edges.push_back({u, 0, 0.01});
  const csr_graph g = test::graph_from_probabilities(1001, edges);
  ASSERT_TRUE(reference::uses_block_rule(g, 0));
  ASSERT_EQ(ic_block_size(1000, g.in_thresholds[0]), 100U);
  expect_same_rule(g, 2000, "hub");
}

}  // namespace
}  // namespace wildfire
