// The IC live in-edges of one vertex in one world, transcribed plainly from the rule's definition
// (random/ic_block_rule.hpp): uniform in-probability p <= 1/2 and two or more in-edges: blocks of
// max(round(1/p), 12) edges, a Binomial count and a uniform subset per block; otherwise one hash per edge.
// No plan and no shared tables, so the optimised samplers' plans are checked against it.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire::reference {

/// True iff v draws its in-edges per block: at least two in-edges, all with one threshold t,
/// 1 <= t <= 2^31 (0 < p <= 1/2).
bool uses_block_rule(const csr_graph& g, std::uint32_t v);

/// The in-edges (in-CSR positions) of v that are live under IC in the world with key `key`,
/// ascending. O(in-degree) for per-edge vertices, O(blocks * 16 + live edges) for block-rule ones.
std::vector<std::uint64_t> ic_live_in_edges(const csr_graph& g, std::uint64_t key, std::uint32_t v);

}  // namespace wildfire::reference
