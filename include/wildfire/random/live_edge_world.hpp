// The live-edge world of a sample (ARCHITECTURE.md section 1): which edges are live under IC and
// which in-edge each vertex picks under LT. Reverse sampling, forward simulation and adaptive
// realizations all read the world through these functions, on every backend.
#pragma once

#include <cstdint>

#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {

/// Returned by lt_chosen_in_edge when the vertex picks no in-edge (probability 1 - sum of weights).
inline constexpr std::uint64_t no_edge = ~std::uint64_t{0};

/// True iff edge `edge_id` (its in-CSR position) is live under IC in the sample with key `key`.
WF_HOST_DEVICE inline bool ic_edge_live(std::uint64_t key, std::uint64_t edge_id,
                                        std::uint32_t threshold) noexcept {
  return threshold == always_live_threshold ||
         element_hash32(key, element_domain::edge | edge_id) < threshold;
}

/// The 32-bit draw vertex v compares with its cumulative in-weights under LT.
WF_HOST_DEVICE inline std::uint32_t lt_vertex_draw(std::uint64_t key, std::uint32_t v) noexcept {
  return element_hash32(key, element_domain::vertex | v);
}

/// The in-edge (in-CSR position) that v picks under LT, or no_edge. Edge j is picked iff the draw
/// falls in [sum of weights before j, sum including j); weights are thresholds in units of 2^-32.
WF_HOST_DEVICE inline std::uint64_t lt_chosen_in_edge(std::uint64_t key, const graph_view& g,
                                                      std::uint32_t v) noexcept {
  const std::uint64_t draw = lt_vertex_draw(key, v);
  std::uint64_t cumulative = 0;
  for (std::uint64_t j = g.in_begin(v), end = g.in_end(v); j < end; ++j) {
    cumulative += threshold_weight(g.in_thresholds[j]);
    if (draw < cumulative) return j;
  }
  return no_edge;
}

}  // namespace wildfire
