// RSG generator (thesis Algorithm 10): structure, determinism across thread counts, the density
// Algorithm 10 implies, the thesis calibration and the batch syntax.
#include <gtest/gtest.h>

#include <cmath>

#include "wildfire/error.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/rsg.hpp"

namespace wildfire::twitter {
namespace {

TEST(TwitterRsg, GraphsAreDagsWithOneSinkThatEveryNodeReaches) {
  rsg_params p;
  p.seed = 7;
  p.batches = {{5, 1, 1, 0.0}, {60, 2, 200, 5.0}, {3, 400, 600, 1.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  validate_spreading_graphs(g, "rsg");
  ASSERT_EQ(g.num_graphs(), 68u);
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    const std::uint64_t lo = g.graph_offsets[t], n = g.graph_size(t);
    if (t < 5) {
      EXPECT_EQ(n, 1u);
    } else if (t < 65) {
      EXPECT_TRUE(n >= 2 && n <= 200) << n;
    }
    for (std::uint64_t u = 0; u < n; ++u) {
      // Edges go up in id (acyclic); only the last node is a sink.
      EXPECT_EQ(g.out_degree(lo + u) == 0, u == n - 1) << "graph " << t << " node " << u;
      for (std::uint64_t j = g.row_offsets[lo + u]; j < g.row_offsets[lo + u + 1]; ++j) EXPECT_GT(g.edge_targets[j], u);
    }
    for (std::uint64_t i = lo; i < lo + n; ++i) EXPECT_TRUE(g.base[i] >= 1 && g.base[i] <= p.max_followers);
  }
  EXPECT_EQ(backward_sequential(g).num_stalled_nodes, 0u);
}

TEST(TwitterRsg, SameOutputForAnyThreadCount) {
  rsg_params p;
  p.seed = 99;
  p.batches = {{40, 2, 300, 4.0}};
  const spreading_graphs a = generate_rsg(p, 1), b = generate_rsg(p, 3);
  EXPECT_EQ(a.graph_offsets, b.graph_offsets);
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.edge_targets, b.edge_targets);
  EXPECT_EQ(a.base, b.base);
  p.seed = 100;
  EXPECT_NE(generate_rsg(p, 2).edge_targets, a.edge_targets);
}

TEST(TwitterRsg, EdgeCountMatchesAlgorithm10Density) {
  // E[m] = sum over rows u < n-1 of q * (n-1-u) + (1-q) * (p*(n-1-u) + P(row empty)), with q the
  // outlier probability; for one graph of n = 2000, p = 3% the sink fix-ups are negligible.
  rsg_params p;
  p.seed = 5;
  p.batches = {{1, 2000, 2000, 3.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  double expected = 0.0, variance = 0.0;
  for (int k = 1; k < 2000; ++k) {
    const double fixup = std::pow(0.97, k);
    expected += 0.05 * k + 0.95 * (0.03 * k + fixup);
    variance += 0.05 * 0.95 * k * k + 0.95 * 0.03 * 0.97 * k;  // outlier mixture dominates
  }
  EXPECT_NEAR(static_cast<double>(g.num_edges()), expected, 5.0 * std::sqrt(variance));
}

TEST(TwitterRsg, ThesisBatchesMatchTable73Counts) {
  const auto batches = thesis_rsg_batches(1.0);
  std::uint64_t graphs = 0, large = 0, empty = 0;
  for (const auto& b : batches) {
    graphs += b.count;
    if (b.min_nodes > 1024) large += b.count;
    if (b.max_nodes <= 1) empty += b.count;
  }
  EXPECT_EQ(graphs, 15435u);
  EXPECT_EQ(large, 170u);
  EXPECT_EQ(empty, 170u);
  EXPECT_THROW(thesis_rsg_batches(0.0), config_error);
}

TEST(TwitterRsg, BatchSyntax) {
  const auto b = parse_rsg_batches("170x1-1@0,5250x2-32@5.5");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].count, 5250u);
  EXPECT_EQ(b[1].max_nodes, 32u);
  EXPECT_DOUBLE_EQ(b[1].percent, 5.5);
  EXPECT_THROW(parse_rsg_batches("10x5-2@1"), config_error);
  EXPECT_THROW(parse_rsg_batches("10x2-5"), config_error);
  EXPECT_THROW(parse_rsg_batches("10x2-5@101"), config_error);
}

}  // namespace
}  // namespace wildfire::twitter
