// The level-ordered pull layout of the shared-pull GPU sweep (src/twitter/pull_layout.*): its
// invariants on generated sets (cycles, reversed numbering, graphs too large for 16-bit
// positions) and its sequential sweep against the Kahn reference, exactly where shares are exact.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "twitter/pull_layout.hpp"
#include "twitter/twitter_fixtures.hpp"
#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {
namespace {

/// Checks every invariant the GPU kernel relies on, graph by graph.
void expect_layout_invariants(const spreading_graphs& g, const pull_layout& layout) {
  ASSERT_EQ(layout.graphs.size(), g.num_graphs());
  ASSERT_EQ(layout.nodes.size(), g.num_nodes() + g.num_graphs());
  const influence_result reference = backward_sequential(g);
  const std::set<std::uint64_t> cyclic(reference.cyclic_graphs.begin(), reference.cyclic_graphs.end());
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    const std::uint64_t n = g.graph_size(t), lo = g.graph_offsets[t];
    if (!layout.included[t]) {
      EXPECT_TRUE(n == 0 || n > pull_max_nodes) << "graph " << t << " left out";
      continue;
    }
    const pull_graph& r = layout.graphs[t];
    ASSERT_EQ(r.entry_base % pull_align, 0u);
    ASSERT_GE(r.num_levels, 1u);
    const pull_level* levels = layout.levels.data() + r.level_base;
    const pull_node* nodes = layout.nodes.data() + layout.node_index(g, t);
    const std::uint16_t* sources = layout.sources.data() + r.entry_base;
    ASSERT_EQ(levels[0].first_position, 0u);
    ASSERT_EQ(levels[r.num_levels].first_position, n);
    ASSERT_EQ(levels[r.num_levels].first_entry, nodes[n].in_begin);
    ASSERT_LE(r.entry_base + nodes[n].in_begin, layout.sources.size());
    EXPECT_EQ(r.num_stalled > 0, cyclic.count(t) == 1) << "graph " << t;
    // Positions are a permutation of the local ids; out-degrees are the original ones.
    std::vector<int> seen(n, 0);
    std::uint64_t real_entries = 0;
    for (std::uint32_t l = 0; l < r.num_levels; ++l) {
      const std::uint32_t first = levels[l].first_position, last = levels[l + 1].first_position;
      ASSERT_LT(first, last) << "empty level " << l << " of graph " << t;
      ASSERT_EQ(levels[l].first_entry, nodes[first].in_begin);
      for (std::uint32_t p = first; p < last; ++p) {
        const pull_node& node = nodes[p];
        ASSERT_LT(node.local_id, n);
        ++seen[node.local_id];
        EXPECT_EQ(node.out_degree, g.out_degree(lo + node.local_id));
        ASSERT_EQ(node.in_begin % pull_align, 0u);
        ASSERT_EQ((nodes[p + 1].in_begin - node.in_begin) % pull_align, 0u);
        std::uint32_t previous = 0;
        bool padding = false, any = false;
        std::uint32_t node_entries = 0;
        for (std::uint32_t e = node.in_begin; e < nodes[p + 1].in_begin; ++e) {
          const std::uint16_t u = sources[e];
          if (u == pull_pad) {
            padding = true;
            continue;
          }
          ASSERT_FALSE(padding) << "an entry after padding";
          ASSERT_LT(u, first) << "an in-list names a position of the same or a later level";
          if (any) {
            ASSERT_GT(u, previous) << "in-list not sorted";
          }
          previous = u;
          any = true;
          ++node_entries;
          ++real_entries;
        }
        // Padding only up to the next multiple of 8 entries.
        ASSERT_LT(nodes[p + 1].in_begin - node.in_begin - node_entries, pull_align);
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "local id " << i << " of graph " << t;
    // Without cycles every back edge appears once; with them, only edges out of finished nodes.
    const std::uint64_t m = g.row_offsets[lo + n] - g.row_offsets[lo];
    if (r.num_stalled == 0) EXPECT_EQ(real_entries, m) << "graph " << t;
    else EXPECT_LT(real_entries, m) << "graph " << t;
  }
}

void expect_sweep_matches(const spreading_graphs& g, double tolerance) {
  const influence_result reference = backward_sequential(g);
  const pull_layout layout = build_pull_layout(g, 2);
  const influence_result pulled = sweep_pull_layout(g, layout);
  EXPECT_EQ(pulled.cyclic_graphs, reference.cyclic_graphs);
  EXPECT_EQ(pulled.num_stalled_nodes, reference.num_stalled_nodes);
  ASSERT_EQ(pulled.influence.size(), reference.influence.size());
  for (std::size_t i = 0; i < reference.influence.size(); ++i) {
    ASSERT_LE(std::abs(pulled.influence[i] - reference.influence[i]), tolerance * std::max(1.0, std::abs(reference.influence[i])))
        << "node " << i;
  }
}

TEST(PullLayout, HandCheckedExamplesExactly) {
  for (const spreading_graphs& g : {testing::worked_example(), testing::diamond_example(), testing::cycle_example()}) {
    const pull_layout layout = build_pull_layout(g, 1);
    expect_layout_invariants(g, layout);
    EXPECT_EQ(sweep_pull_layout(g, layout).influence, backward_sequential(g).influence);
  }
  const influence_result c = sweep_pull_layout(testing::cycle_example(), build_pull_layout(testing::cycle_example()));
  EXPECT_EQ(c.influence, (std::vector<double>{6, 9, 3, 4, 5, 7}));
  EXPECT_EQ(c.num_stalled_nodes, 3u);
}

TEST(PullLayout, WorkedExampleLevels) {
  // Sources d and f (level 0), e (1), c (2), a (3), b (4): five levels, positions d f e c a b.
  const spreading_graphs g = testing::worked_example();
  const pull_layout layout = build_pull_layout(g, 1);
  ASSERT_TRUE(layout.included[0]);
  EXPECT_EQ(layout.graphs[0].num_levels, 5u);
  EXPECT_EQ(layout.graphs[0].num_stalled, 0u);
  std::vector<std::uint32_t> order;
  for (std::uint32_t p = 0; p < 6; ++p) order.push_back(layout.nodes[p].local_id);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{3, 5, 4, 2, 0, 1}));
  EXPECT_EQ(layout.max_levels, 5u);
}

TEST(PullLayout, GeneratedSetsWithCyclesAndReversedNumbering) {
  const spreading_graphs mixed = testing::mixed_set(5);
  expect_layout_invariants(mixed, build_pull_layout(mixed, 2));
  expect_sweep_matches(mixed, 1e-12);
  // Reversed numbering: edges to lower ids, the levels must come from the edges, not the ids.
  spreading_graphs reversed;
  reversed.user_ids = mixed.user_ids;
  for (std::uint64_t t = 0; t < mixed.num_graphs(); ++t) {
    const std::uint64_t lo = mixed.graph_offsets[t];
    const auto n = static_cast<std::uint32_t>(mixed.graph_size(t));
    std::vector<double> base(n);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i < n; ++i) {
      base[n - 1 - i] = mixed.base[lo + i];
      for (std::uint64_t j = mixed.row_offsets[lo + i]; j < mixed.row_offsets[lo + i + 1]; ++j) {
        edges.emplace_back(n - 1 - i, n - 1 - mixed.edge_targets[j]);
      }
    }
    append_graph(reversed, "r", base, std::vector<std::uint32_t>(n, 0), edges);
  }
  expect_layout_invariants(reversed, build_pull_layout(reversed, 2));
  expect_sweep_matches(reversed, 1e-12);
}

TEST(PullLayout, CycleInsideALargeGraph) {
  // A 2000-node RSG graph with three back edges closing cycles: the stalled group is the last
  // level and its in-lists name finished predecessors only.
  const spreading_graphs g = testing::rsg_graph_with_edges(9, 2000, 1.0, {{1500, 700}, {1999, 1200}, {900, 100}});
  const pull_layout layout = build_pull_layout(g, 2);
  expect_layout_invariants(g, layout);
  EXPECT_GT(layout.graphs[0].num_stalled, 0u);
  expect_sweep_matches(g, 1e-12);
}

TEST(PullLayout, IntegerSharesAreExactAndHugeGraphsFallBack) {
  // Out-degree 1 everywhere: every share and partial sum is an integer, so the pull order gives
  // the Kahn sweep's bits. The 70,000-node chain exceeds 16-bit positions: left to the fallback.
  std::mt19937_64 rng(8);
  spreading_graphs g;
  g.user_ids = {"u"};
  for (std::uint32_t n : {1u, 2u, 33u, 1500u, 70000u, 3000u}) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::vector<double> base(n);
    for (std::uint32_t v = 0; v < n; ++v) {
      base[v] = static_cast<double>(rng() % 1000);
      if (v > 0) edges.emplace_back(v, n == 70000u ? v - 1 : static_cast<std::uint32_t>(rng() % v));
    }
    append_graph(g, "forest", base, std::vector<std::uint32_t>(n, 0), edges);
  }
  const pull_layout layout = build_pull_layout(g, 2);
  EXPECT_EQ(layout.included, (std::vector<std::uint8_t>{1, 1, 1, 1, 0, 1}));
  expect_layout_invariants(g, layout);
  const influence_result reference = backward_sequential(g);
  EXPECT_EQ(sweep_pull_layout(g, layout).influence, reference.influence);
  EXPECT_GT(pull_bytes_moved(g, layout), 2 * (g.num_edges() - 69999));
}

TEST(PullLayout, EdgeTargetOutsideItsGraphIsAnInputError) {
  spreading_graphs g = testing::diamond_example();
  g.edge_targets[0] = 17;
  EXPECT_THROW(build_pull_layout(g, 1), input_error);
}

TEST(PullLayout, ThreadCountDoesNotChangeTheLayout) {
  const spreading_graphs g = testing::mixed_set(3);
  const pull_layout a = build_pull_layout(g, 1), b = build_pull_layout(g, 2);
  EXPECT_EQ(a.sources, b.sources);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    ASSERT_EQ(a.nodes[i].in_begin, b.nodes[i].in_begin);
    ASSERT_EQ(a.nodes[i].local_id, b.nodes[i].local_id);
  }
}

}  // namespace
}  // namespace wildfire::twitter::detail
