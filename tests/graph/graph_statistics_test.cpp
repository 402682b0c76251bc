// info's statistics on hand-checked graphs, and the parallel weak components against a serial BFS.
#include <gtest/gtest.h>

#include <queue>

#include "graph_test_util.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/graph/graph_statistics.hpp"
#include "wildfire/graph/weak_components.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {
namespace {

csr_graph load_text(const test::temp_dir& dir, const std::string& text, const std::string& weights = "auto") {
  graph_load_options options;
  options.path = dir.write("g.txt", text);
  options.weights = weights;
  return load_graph(options);
}

TEST(GraphStatistics, HandCheckedGraph) {
  // Components {1,2,3}, {7,8}, and 9 alone (a declared isolated vertex needs `n m`; here 9 has a
  // self-loop only, which is dropped).
  test::temp_dir dir;
  const csr_graph g = load_text(dir, "1 2 0.5\n1 3 0.25\n2 3 1\n7 8 0.125\n9 9 0.5\n");
  const graph_statistics s = compute_graph_statistics(g, 2);
  EXPECT_EQ(s.num_vertices, 6U);
  EXPECT_EQ(s.num_edges, 4U);
  EXPECT_EQ(s.isolated_vertices, 1U);
  EXPECT_EQ(s.in_degree.min, 0U);
  EXPECT_EQ(s.in_degree.max, 2U);
  EXPECT_EQ(s.out_degree.max, 2U);
  EXPECT_DOUBLE_EQ(s.out_degree.mean, 4.0 / 6.0);
  ASSERT_EQ(s.top_out_degree.size(), 2U);
  EXPECT_EQ(s.top_out_degree[0].original_id, 1U);
  EXPECT_EQ(s.top_out_degree[0].degree, 2U);
  EXPECT_EQ(s.top_out_degree[1].original_id, 2U);  // ties (2, 7) broken by original id
  EXPECT_EQ(s.num_weak_components, 3U);
  EXPECT_EQ(s.largest_weak_component, 3U);
  EXPECT_DOUBLE_EQ(s.probabilities.min, 0.125);
  EXPECT_DOUBLE_EQ(s.probabilities.max, 1.0);
  EXPECT_EQ(s.probabilities.always_live, 1U);
  EXPECT_NEAR(s.probabilities.mean, (0.5 + 0.25 + 1 + 0.125) / 4, 1e-9);
}

/// Serial reference: BFS over both directions, labelled with the smallest vertex of each component.
std::vector<std::uint32_t> bfs_labels(const csr_graph& g) {
  std::vector<std::uint32_t> label(g.num_vertices, g.num_vertices);
  for (std::uint32_t s = 0; s < g.num_vertices; ++s) {
    if (label[s] != g.num_vertices) continue;
    std::queue<std::uint32_t> queue;
    queue.push(s);
    label[s] = s;
    while (!queue.empty()) {
      const std::uint32_t u = queue.front();
      queue.pop();
      auto visit = [&](std::uint32_t w) {
        if (label[w] == g.num_vertices) {
          label[w] = s;
          queue.push(w);
        }
      };
      for (std::uint64_t k = g.out_offsets[u]; k < g.out_offsets[u + 1]; ++k) visit(g.out_targets[k]);
      for (std::uint64_t j = g.in_offsets[u]; j < g.in_offsets[u + 1]; ++j) visit(g.in_sources[j]);
    }
  }
  return label;
}

TEST(WeakComponents, EqualSerialBfsOnRandomSparseGraph) {
  // 20000 vertices, 12000 random edges: many components of varied sizes.
  test::temp_dir dir;
  std::string text = "20000 12000\n";
  for (std::uint64_t i = 0; i < 12000; ++i) {
    const std::uint64_t u = element_hash(1, 2 * i) % 20000, v = element_hash(1, 2 * i + 1) % 20000;
    text += std::to_string(u) + " " + std::to_string(v) + " 0.5\n";
  }
  const csr_graph g = load_text(dir, text);
  EXPECT_EQ(weak_component_labels(g), bfs_labels(g));
}

TEST(WeakComponents, EmptyGraph) {
  test::temp_dir dir;
  const csr_graph g = load_text(dir, "3 0\n");
  EXPECT_EQ(weak_component_labels(g), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(compute_graph_statistics(g).num_weak_components, 3U);
}

}  // namespace
}  // namespace wildfire
