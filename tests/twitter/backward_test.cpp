// Backward phase on the CPU: the thesis's worked example, our hand-checked cases, cycles,
// conservation, order independence and OpenMP == sequential.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "twitter/twitter_fixtures.hpp"
#include "wildfire/twitter/influence.hpp"

namespace wildfire::twitter {
namespace {

TEST(TwitterBackward, WorkedExampleGivesThesisValues) {
  const spreading_graphs g = testing::worked_example();
  validate_spreading_graphs(g, "example");
  const influence_result r = backward_sequential(g);
  // Digest sec. 1.7: I_0 = (5.25, 21, 8.5, 4, 11, 6); every share is dyadic, so exact.
  EXPECT_EQ(r.influence, (std::vector<double>{5.25, 21, 8.5, 4, 11, 6}));
  EXPECT_EQ(r.num_stalled_nodes, 0u);
  EXPECT_EQ(r.num_graphs_with_cycles, 0u);
}

TEST(TwitterBackward, DiamondExampleByHand) {
  const influence_result r = backward_sequential(testing::diamond_example());
  EXPECT_EQ(r.influence, (std::vector<double>{24, 11, 6, 8, 5}));
}

TEST(TwitterBackward, CyclesStallAndAreReported) {
  const influence_result r = backward_sequential(testing::cycle_example());
  EXPECT_EQ(r.influence, (std::vector<double>{6, 9, 3, 4, 5, 7}));
  EXPECT_EQ(r.num_stalled_nodes, 3u);
  EXPECT_EQ(r.cyclic_graphs, (std::vector<std::uint64_t>{0}));
}

TEST(TwitterBackward, EmptyInputAndSingleNodes) {
  spreading_graphs g;
  EXPECT_TRUE(backward_sequential(g).influence.empty());
  g.user_ids = {"u"};
  append_graph(g, "lonely", {7}, {0}, {});
  EXPECT_EQ(backward_sequential(g).influence, (std::vector<double>{7}));
}

TEST(TwitterBackward, PublisherHoldsEveryBaseOnRsgGraphs) {
  // Conservation: every RSG node reaches the sink n - 1, so I(sink) = sum of all base values.
  rsg_params p;
  p.seed = 11;
  p.batches = {{30, 2, 120, 6.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  const influence_result r = backward_sequential(g);
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    const std::uint64_t lo = g.graph_offsets[t], hi = g.graph_offsets[t + 1];
    const double sum = std::accumulate(g.base.begin() + static_cast<std::ptrdiff_t>(lo),
                                       g.base.begin() + static_cast<std::ptrdiff_t>(hi), 0.0);
    EXPECT_NEAR(r.influence[hi - 1], sum, 1e-9 * sum) << "graph " << t;
  }
  EXPECT_TRUE(verify_influence(g, r).ok);
}

TEST(TwitterBackward, PathFormulaOnRandomDags) {
  // I(v) = sum over u of n_u * (sum over paths u -> v of prod 1/deg+), by memoised path sums.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const std::uint32_t n = 2 + static_cast<std::uint32_t>(rng() % 9);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::vector<double> base(n);
    for (std::uint32_t u = 0; u < n; ++u) {
      base[u] = static_cast<double>(rng() % 20);
      for (std::uint32_t v = u + 1; v < n; ++v) {
        if (rng() % 3 == 0) edges.emplace_back(u, v);
      }
    }
    spreading_graphs g;
    g.user_ids = {"x"};
    append_graph(g, "dag", base, std::vector<std::uint32_t>(n, 0), edges);
    const influence_result r = backward_sequential(g);
    for (std::uint32_t v = 0; v < n; ++v) {
      // weight[u] = total path weight u -> v, computed downwards from v (edges go up in id).
      std::vector<double> weight(n, 0.0);
      weight[v] = 1.0;
      for (std::uint32_t u = v; u-- > 0;) {
        const double degree = static_cast<double>(g.out_degree(u));
        for (std::uint64_t j = g.row_offsets[u]; j < g.row_offsets[u + 1]; ++j) weight[u] += weight[g.edge_targets[j]] / degree;
      }
      double expected = 0.0;
      for (std::uint32_t u = 0; u < n; ++u) expected += base[u] * weight[u];
      EXPECT_NEAR(r.influence[v], expected, 1e-12 * std::max(1.0, expected)) << "trial " << trial << " node " << v;
    }
  }
}

TEST(TwitterBackward, IndependentOfNodeAndEdgeOrder) {
  const spreading_graphs g = testing::mixed_set(3);
  const influence_result r = backward_sequential(g);
  // Relabel the nodes of every graph by a random permutation (rows re-sorted by append_graph).
  std::mt19937_64 rng(9);
  spreading_graphs h;
  h.user_ids = g.user_ids;
  std::vector<std::uint64_t> where(g.num_nodes());
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    const std::uint64_t lo = g.graph_offsets[t];
    const auto n = static_cast<std::uint32_t>(g.graph_size(t));
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<double> base(n);
    std::vector<std::uint32_t> users(n);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i < n; ++i) {
      base[perm[i]] = g.base[lo + i];
      users[perm[i]] = g.node_user[lo + i];
      where[lo + i] = h.num_nodes() + perm[i];
      for (std::uint64_t j = g.row_offsets[lo + i]; j < g.row_offsets[lo + i + 1]; ++j) {
        edges.emplace_back(perm[i], perm[g.edge_targets[j]]);
      }
    }
    std::shuffle(edges.begin(), edges.end(), rng);
    append_graph(h, g.tweet_ids[t], base, users, edges);
  }
  const influence_result s = backward_sequential(h);
  EXPECT_EQ(s.num_stalled_nodes, r.num_stalled_nodes);
  for (std::uint64_t i = 0; i < g.num_nodes(); ++i) {
    EXPECT_NEAR(s.influence[where[i]], r.influence[i], 1e-12 * std::max(1.0, r.influence[i])) << "node " << i;
  }
}

TEST(TwitterBackward, OpenMpEqualsSequentialBitForBit) {
  const spreading_graphs g = testing::mixed_set(4);
  const influence_result a = backward_sequential(g);
  for (int threads : {1, 2, 3}) {
    const influence_result b = backward_openmp(g, threads);
    EXPECT_EQ(a.influence, b.influence) << threads << " threads";
    EXPECT_EQ(a.cyclic_graphs, b.cyclic_graphs);
    EXPECT_EQ(a.num_stalled_nodes, b.num_stalled_nodes);
  }
  EXPECT_EQ(a.num_graphs_with_cycles, 2u);
}

TEST(TwitterBackward, VerifierCatchesWrongValues) {
  const spreading_graphs g = testing::worked_example();
  influence_result r = backward_sequential(g);
  EXPECT_TRUE(verify_influence(g, r).ok);
  r.influence[1] += 1e-6;
  const verify_result v = verify_influence(g, r);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.first_mismatch.find("node 1"), std::string::npos);
}

TEST(TwitterBackward, CategoriesFollowTable61) {
  EXPECT_EQ(categorize(1), graph_category::empty);
  EXPECT_EQ(categorize(2), graph_category::small);
  EXPECT_EQ(categorize(32), graph_category::small);
  EXPECT_EQ(categorize(33), graph_category::medium);
  EXPECT_EQ(categorize(1024), graph_category::medium);
  EXPECT_EQ(categorize(1025), graph_category::large);
}

}  // namespace
}  // namespace wildfire::twitter
