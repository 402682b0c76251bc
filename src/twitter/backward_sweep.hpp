// The per-graph Kahn sweep shared by the sequential and OpenMP backward phases (thesis
// Algorithm 2, corrected as the digest says).
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter::detail {

/// Reusable scratch so a thread sweeps many graphs without reallocating.
struct sweep_scratch {
  std::vector<std::uint32_t> indegree;
  std::vector<std::uint32_t> queue;
};

/// Sweeps graph t, writing influence[node] for its nodes; returns the number of stalled nodes.
std::uint64_t sweep_graph(const spreading_graphs& g, std::uint64_t t, double* influence, sweep_scratch& scratch);

/// Records in `r` the graphs with stalled nodes (on or behind a cycle), in ascending id order,
/// and how many nodes stalled; every backend reports cycles through this.
template <class Count>
void collect_cycles(const std::vector<Count>& stalled_per_graph, influence_result& r) {
  for (std::uint64_t t = 0; t < stalled_per_graph.size(); ++t) {
    if (stalled_per_graph[t] == 0) continue;
    r.num_stalled_nodes += stalled_per_graph[t];
    r.cyclic_graphs.push_back(t);
  }
  r.num_graphs_with_cycles = r.cyclic_graphs.size();
}

}  // namespace wildfire::twitter::detail
