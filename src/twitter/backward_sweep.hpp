// The per-graph Kahn sweep shared by the sequential and OpenMP backward phases (thesis
// Algorithm 2, corrected as the digest says).
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter::detail {

/// Reusable scratch so a thread sweeps many graphs without reallocating.
struct sweep_scratch {
  std::vector<std::uint32_t> indegree;
  std::vector<std::uint32_t> queue;
};

/// Sweeps graph t, writing influence[node] for its nodes; returns the number of stalled nodes.
std::uint64_t sweep_graph(const spreading_graphs& g, std::uint64_t t, double* influence, sweep_scratch& scratch);

}  // namespace wildfire::twitter::detail
