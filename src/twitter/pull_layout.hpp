// Level-ordered pull layout of a spreading-graph set, for the shared-memory GPU sweep
// (`--gpu-variant shared-pull`, docs/twitter.md). Built once per graph set on the host: each graph's
// nodes are renumbered by Kahn level (stalled nodes last), and every node gets the list of its
// finished predecessors as 16-bit positions, padded to 8 entries so a thread reads 16 B at a time.
// Sweeping positions in order is corrected Algorithm 2 written as a pull: I(w) = n_w + sum over
// finished u -> w of I(u) / deg+(u). Plain C++ (the CUDA launcher and the tests include it).
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter::detail {

/// Positions fit 16 bits and 0xffff is the padding entry, so a graph has at most 65,535 nodes.
inline constexpr std::uint32_t pull_max_nodes = 65535;
inline constexpr std::uint16_t pull_pad = 0xffff;
/// In-lists start on and are padded to 8 entries (16 bytes).
inline constexpr std::uint32_t pull_align = 8;

/// One position of a graph: where its in-list starts (entries from the graph's edge base),
/// the node's local id in the input and its ORIGINAL out-degree (the divisor of its share).
struct pull_node {
  std::uint32_t in_begin;
  std::uint16_t local_id;
  std::uint16_t out_degree;
};
static_assert(sizeof(pull_node) == 8);

/// First position of a level and the first in-list entry of that position.
struct pull_level {
  std::uint32_t first_position;
  std::uint32_t first_entry;
};
static_assert(sizeof(pull_level) == 8);

/// Per graph: where its entries and levels start; levels counts the stalled group (one extra
/// level holding the stalled nodes, whose in-lists name only finished predecessors).
struct pull_graph {
  std::uint64_t entry_base = 0;  // index into sources, a multiple of pull_align
  std::uint64_t level_base = 0;  // index into levels; num_levels + 1 entries (the last a sentinel)
  std::uint32_t num_levels = 0;
  std::uint32_t num_stalled = 0;
};

/// The layout of a whole set. Graphs with n = 0, n > pull_max_nodes or more than 2^32 - 1 padded
/// entries are not included (included[t] == 0): a caller sweeps them another way.
struct pull_layout {
  std::vector<pull_graph> graphs;        // T
  std::vector<std::uint8_t> included;    // T
  std::vector<pull_node> nodes;          // N + T: graph t's n + 1 entries start at graph_offsets[t] + t
  std::vector<pull_level> levels;        // sum over included graphs of num_levels + 1
  std::vector<std::uint16_t> sources;    // padded in-lists of positions
  std::uint32_t max_levels = 0;          // the longest chain of dependent levels of any graph
  std::uint64_t num_included_nodes = 0;

  std::uint64_t node_index(const spreading_graphs& g, std::uint64_t t) const noexcept { return g.graph_offsets[t] + t; }
};

/// Builds the layout (OpenMP over graphs, `num_threads` 0 = all). O(N + M) plus padding.
pull_layout build_pull_layout(const spreading_graphs& g, int num_threads = 0);

/// Bytes a sweep of the included graphs must read and write at least with this layout: every
/// padded in-list entry (2 B), every position's node record and the sentinels (8 B), every level
/// record (8 B), the base read and the influence written (8 + 8 B per node), the per-graph record.
std::uint64_t pull_bytes_moved(const spreading_graphs& g, const pull_layout& layout);

/// Sequential sweep of the layout in position order (the order of the GPU kernel's dependencies,
/// one node after another); graphs not in the layout are swept by the Kahn reference. Times the
/// sweep alone, like backward_sequential. Agrees with backward_sequential to rounding (each sum
/// is taken over the in-list, then added to the base), exactly with integer shares.
influence_result sweep_pull_layout(const spreading_graphs& g, const pull_layout& layout);

/// The sweep of one included graph t (its influence into `influence`, input order; `share` is
/// scratch); returns its stalled nodes.
std::uint32_t sweep_pull_graph(const spreading_graphs& g, const pull_layout& layout, std::uint64_t t, double* influence,
                               std::vector<double>& share);

}  // namespace wildfire::twitter::detail
