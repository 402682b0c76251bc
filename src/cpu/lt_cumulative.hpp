// LT in-edge choice by binary search: the inclusive cumulative in-weight of every in-edge (in-CSR
// order, units of 2^-32), so "v picks edge j" (lt_chosen_in_edge: the first j whose cumulative
// weight exceeds v's draw) costs O(log in-degree) instead of a scan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/random/live_edge_world.hpp"

namespace wildfire::cpu {

/// cumulative[j] = sum of the weights of v's in-edges up to and including j. O(m).
inline std::vector<std::uint64_t> build_lt_cumulative(const csr_graph& g) {
  std::vector<std::uint64_t> cumulative(g.num_edges);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(g.num_vertices); ++v) {
    std::uint64_t sum = 0;
    for (std::uint64_t j = g.in_offsets[static_cast<std::size_t>(v)]; j < g.in_offsets[static_cast<std::size_t>(v) + 1]; ++j) {
      sum += threshold_weight(g.in_thresholds[j]);
      cumulative[j] = sum;
    }
  }
  return cumulative;
}

/// The in-edge v picks in the world with key `key`, or no_edge: equal to lt_chosen_in_edge.
/// Adds the number of cumulative weights read to `edges`.
inline std::uint64_t lt_chosen_by_search(std::uint64_t key, const graph_view& g, const std::uint64_t* cumulative,
                                         std::uint32_t v, std::uint64_t& edges) noexcept {
  const std::uint64_t begin = g.in_begin(v), end = g.in_end(v);
  if (begin == end) return no_edge;
  const std::uint64_t draw = lt_vertex_draw(key, v);
  std::uint64_t lo = begin, hi = end;  // first j in [lo, hi) with cumulative[j] > draw
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    ++edges;
    if (cumulative[mid] > draw) hi = mid;
    else lo = mid + 1;
  }
  return lo == end ? no_edge : lo;
}

}  // namespace wildfire::cpu
