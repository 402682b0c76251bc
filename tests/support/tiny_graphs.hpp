// Shared test graphs: tiny ones (<= 16 edges, with parallel edges and cycles) small enough to
// enumerate every live-edge world, and seeded random ones for backend-equality tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "wildfire/diffusion_model.hpp"
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

/// The block-rule shape (random/ic_block_rule.hpp): 7 vertices, 15 edges, every vertex's in-edges
/// of one probability. In-degrees 2, 3, 3, 4, 1, 2, 0 (vertices 0..6); cycles 0->1->0, 1->2->1 and
/// 2->3->4->2, a parallel pair 4->2, and the source 6. `p` = 0: weighted cascade (1 / in-degree,
/// so vertex 4's single edge is always live and the others form one block each); else uniform p
/// (p = 0.45 gives blocks of 2: vertex 3 has two full blocks, vertices 1 and 2 a block and a tail).
inline csr_graph tiny_uniform_in_graph(double p = 0.0) {
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs = {
      {1, 0}, {2, 0}, {0, 1}, {2, 1}, {3, 1}, {1, 2}, {4, 2}, {4, 2},
      {2, 3}, {5, 3}, {6, 3}, {0, 3}, {3, 4}, {4, 5}, {6, 5}};
  std::vector<std::uint32_t> in_degree(7, 0);
  for (const auto& [u, v] : pairs) ++in_degree[v];
  std::vector<probability_edge> edges;
  for (const auto& [u, v] : pairs) edges.push_back({u, v, p > 0 ? p : 1.0 / in_degree[v]});
  return graph_from_probabilities(7, edges);
}

/// A tiny graph and the model its worlds are enumerated under.
struct tiny_case {
  const char* name;
  diffusion_model model;
  double uniform_p;  // < 0: tiny_ic_graph / tiny_lt_graph (mixed); else tiny_uniform_in_graph(uniform_p)

  csr_graph graph() const {
    if (uniform_p >= 0) return tiny_uniform_in_graph(uniform_p);
    return model == diffusion_model::ic ? tiny_ic_graph() : tiny_lt_graph();
  }
};

/// Every tiny case: IC per-edge rule, LT, IC block rule under weighted cascade and uniform p.
inline std::vector<tiny_case> tiny_cases() {
  return {{"ic_mixed", diffusion_model::ic, -1.0},
          {"lt_mixed", diffusion_model::lt, -1.0},
          {"ic_weighted_cascade", diffusion_model::ic, 0.0},
          {"ic_uniform", diffusion_model::ic, 0.45}};
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
