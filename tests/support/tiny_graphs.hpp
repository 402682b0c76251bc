// Shared test graphs: tiny ones (<= 16 edges, with parallel edges and cycles) small enough to
// enumerate every live-edge world, and seeded random ones for backend-equality tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"

namespace wildfire::test {

struct probability_edge {
  std::uint32_t source;
  std::uint32_t target;
  double probability;
};

inline csr_graph graph_from_probabilities(std::uint32_t n, const std::vector<probability_edge>& edges) {
  std::vector<weighted_edge> weighted;
  for (const auto& e : edges) weighted.push_back({e.source, e.target, threshold_from_probability(e.probability)});
  return build_csr_graph(n, weighted);
}

/// 6 vertices, 12 edges: cycles 0->1->2->0 and 1->3->4->1, a parallel pair 0->1, an always-live
/// edge 3->5 and a back edge 5->3. IC probabilities.
inline csr_graph tiny_ic_graph() {
  return graph_from_probabilities(6, {{0, 1, 0.5}, {1, 2, 0.4}, {2, 0, 0.3}, {1, 3, 0.6}, {3, 4, 0.5},
                                      {4, 1, 0.2}, {2, 4, 0.7}, {0, 1, 0.25}, {4, 5, 0.9}, {5, 3, 0.1},
                                      {3, 5, 1.0}, {5, 2, 0.35}});
}

/// The same shape with LT weights: in-weights sum to at most 1 (exactly 1 at vertices 4 and 5,
/// so "no edge" has probability 0 there).
inline csr_graph tiny_lt_graph() {
  return graph_from_probabilities(6, {{0, 1, 0.3}, {1, 2, 0.4}, {2, 0, 0.5}, {1, 3, 0.3}, {3, 4, 0.5},
                                      {4, 1, 0.2}, {2, 4, 0.5}, {0, 1, 0.25}, {4, 5, 0.6}, {5, 3, 0.6},
                                      {3, 5, 0.4}, {5, 2, 0.35}});
}

/// Seeded random directed graph with `m` edges (self-loops skipped, parallel edges kept).
/// Weighted cascade (1 / in-degree, valid for LT too) when `uniform_p` is 0, else uniform p.
inline csr_graph random_graph(std::uint32_t n, std::uint64_t m, std::uint64_t seed, double uniform_p = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> pick(0, n - 1);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  std::vector<std::uint32_t> in_degree(n, 0);
  while (pairs.size() < m) {
    // Skew the targets so some vertices have large in-degrees (long RR sets, wide frontiers).
    const std::uint32_t u = pick(rng);
    std::uint32_t v = pick(rng);
    if (rng() % 4 == 0) v = v % (n / 16 + 1);
    if (u == v) continue;
    pairs.emplace_back(u, v);
    ++in_degree[v];
  }
  std::vector<weighted_edge> edges;
  for (const auto& [u, v] : pairs) {
    const double p = uniform_p > 0 ? uniform_p : 1.0 / in_degree[v];
    edges.push_back({u, v, threshold_from_probability(p)});
  }
  return build_csr_graph(n, edges);
}

}  // namespace wildfire::test
