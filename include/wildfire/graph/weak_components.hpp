// Weakly connected components by a lock-free parallel union-find (link the larger root under the
// smaller with compare-and-swap, path halving), as in the ConnectIt/Afforest family of algorithms.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

/// For every vertex, the smallest dense id in its weakly connected component (edge directions
/// ignored). Deterministic for any thread count. O(m alpha(n)) work, parallel over edges.
std::vector<std::uint32_t> weak_component_labels(const csr_graph& graph);

}  // namespace wildfire
