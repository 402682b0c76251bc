// The statistics `wildfire info` reports: counts, degrees, top vertices by out-degree (original
// ids), weakly connected components, and a summary of the edge probabilities.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

struct degree_summary {
  std::uint64_t min = 0;
  double mean = 0.0;
  std::uint64_t max = 0;
};

struct probability_summary {
  double min = 0.0;
  double mean = 0.0;
  double max = 0.0;
  std::uint64_t always_live = 0;  // edges with probability exactly 1
};

struct ranked_vertex {
  std::uint64_t original_id;
  std::uint64_t degree;
};

struct graph_statistics {
  std::uint32_t num_vertices = 0;
  std::uint64_t num_edges = 0;
  std::uint64_t isolated_vertices = 0;  // no in- or out-edge
  degree_summary in_degree;
  degree_summary out_degree;
  std::vector<ranked_vertex> top_out_degree;  // by out-degree descending, then original id ascending
  std::uint64_t num_weak_components = 0;
  std::uint64_t largest_weak_component = 0;  // vertices
  probability_summary probabilities;
};

/// Computes every statistic above; `top_k` bounds top_out_degree. O(n log k + m), parallel.
graph_statistics compute_graph_statistics(const csr_graph& graph, std::size_t top_k = 10);

}  // namespace wildfire
