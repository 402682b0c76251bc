// Plain serial forward simulation: the vertices a seed set activates in live-edge world w
// (sample_key(seed, w); round t: round_sample_key), one world at a time with std containers.
// The specification the optimised simulators are checked against.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::reference {

/// Vertices activated in round `round` of world `world` by `seeds` (dense ids), sorted ascending.
/// IC: edge j into u is live iff ic_live_in_edges(key, u) names it (the world of
/// reference::rr_set); LT: u is activated through edge j iff lt_chosen_in_edge(u) == j.
std::vector<std::uint32_t> forward_reach(const csr_graph& g, const sampling_params& params, std::uint64_t world,
                                         std::span<const std::uint32_t> seeds, std::uint32_t round = 0);

/// Spread (vertices activated in at least one round) in each world [first_world, first_world +
/// count); with params.rounds > 1 the seeds are encoded round * n + vertex.
std::vector<std::uint32_t> monte_carlo_spreads(const csr_graph& g, const sampling_params& params,
                                               std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                               std::uint64_t count);

}  // namespace wildfire::reference
