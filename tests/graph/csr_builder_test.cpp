// build_csr_graph's contract: in-edges keep input order, out-edges come in edge-id order, each
// out-edge names its in-CSR id, and the result is identical for any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include "wildfire/error.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {
namespace {

std::vector<weighted_edge> random_edges(std::uint32_t n, std::size_t m) {
  std::vector<weighted_edge> edges(m);
  for (std::size_t i = 0; i < m; ++i) {
    // Skewed targets so some vertices have long in-lists spanning several blocks.
    const double a = element_uniform(5, 2 * i);
    edges[i] = {static_cast<std::uint32_t>(element_hash(5, 2 * i + 1) % n),
                static_cast<std::uint32_t>(static_cast<double>(n) * a * a * a), static_cast<std::uint32_t>(i)};
  }
  return edges;
}

TEST(CsrBuilder, StableInBothDirectionsAndThreadCountIndependent) {
  const std::uint32_t n = 5000;
  const auto edges = random_edges(n, 400000);  // several 65536-edge blocks
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const csr_graph one = build_csr_graph(n, edges);
  omp_set_num_threads(4);
  const csr_graph four = build_csr_graph(n, edges);
  omp_set_num_threads(saved);
  EXPECT_EQ(one.in_offsets, four.in_offsets);
  EXPECT_EQ(one.in_sources, four.in_sources);
  EXPECT_EQ(one.in_thresholds, four.in_thresholds);
  EXPECT_EQ(one.out_offsets, four.out_offsets);
  EXPECT_EQ(one.out_targets, four.out_targets);
  EXPECT_EQ(one.out_edge_ids, four.out_edge_ids);
  // The threshold carries the input position: ascending within each in-list (input order).
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint64_t j = four.in_offsets[v]; j < four.in_offsets[v + 1]; ++j) {
      const auto& e = edges[four.in_thresholds[j]];
      ASSERT_EQ(e.target, v);
      ASSERT_EQ(e.source, four.in_sources[j]);
      if (j > four.in_offsets[v]) {
        ASSERT_LT(four.in_thresholds[j - 1], four.in_thresholds[j]);
      }
    }
    for (std::uint64_t k = four.out_offsets[v]; k < four.out_offsets[v + 1]; ++k) {
      const std::uint64_t j = four.out_edge_ids[k];
      ASSERT_EQ(four.in_sources[j], v);
      ASSERT_EQ(edges[four.in_thresholds[j]].target, four.out_targets[k]);
      if (k > four.out_offsets[v]) {
        ASSERT_LT(four.out_edge_ids[k - 1], j);
      }
    }
  }
}

TEST(CsrBuilder, EndpointOutOfRangeIsAConfigError) {
  const std::vector<weighted_edge> edges = {{0, 1, 0}, {1, 3, 0}};
  EXPECT_THROW(build_csr_graph(3, edges), config_error);
}

TEST(CsrBuilder, NoEdges) {
  const csr_graph g = build_csr_graph(3, {});
  EXPECT_EQ(g.in_offsets, (std::vector<std::uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(g.original_ids, (std::vector<std::uint64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace wildfire
