// The owning graph: CSR in both directions with IC/LT thresholds and the original vertex ids
// (ARCHITECTURE.md section 2). An edge's id is its position in the in-edge CSR; the out-edge CSR
// records that id so forward and reverse traversals see the same live-edge world.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/util/mapped_vector.hpp"

namespace wildfire {

/// Facts about how the graph was read, reported by `info` and kept in the binary format.
struct graph_provenance {
  bool undirected_input = false;          // --undirected: both directions were added
  std::uint64_t self_loops_dropped = 0;
  std::uint64_t parallel_edges = 0;       // edges whose (u, v) pair repeats an earlier edge
  std::uint64_t parallel_edges_merged = 0;
  std::uint64_t invalid_lines_skipped = 0;
  std::string weight_model;               // "wc", "uniform:0.1", "file", ...
};

/// The arrays have the std::vector interface (mapped_vector): owned vectors when the graph is
/// built, views of a private file mapping when it is read from a .wfg file (no copy; element
/// writes are copy-on-write, resizing copies the array out first).
struct csr_graph {
  std::uint32_t num_vertices = 0;
  std::uint64_t num_edges = 0;

  mapped_vector<std::uint64_t> in_offsets;     // n + 1
  mapped_vector<std::uint32_t> in_sources;     // m; edge j enters v for in_offsets[v] <= j < in_offsets[v+1]
  mapped_vector<std::uint32_t> in_thresholds;  // m; aligned with in_sources

  mapped_vector<std::uint64_t> out_offsets;    // n + 1
  mapped_vector<std::uint32_t> out_targets;    // m
  mapped_vector<std::uint64_t> out_edge_ids;   // m; the in-CSR position (edge id) of each out-edge

  mapped_vector<std::uint64_t> original_ids;   // n; dense id -> id in the input file

  graph_provenance provenance;

  /// A non-owning view for kernels and traversals; valid while this graph lives and is unchanged.
  graph_view view() const noexcept {
    return graph_view{num_vertices,        num_edges,           in_offsets.data(),
                      in_sources.data(),   in_thresholds.data(), out_offsets.data(),
                      out_targets.data(),  out_edge_ids.data()};
  }

  std::uint64_t in_degree(std::uint32_t v) const noexcept { return in_offsets[v + 1] - in_offsets[v]; }
  std::uint64_t out_degree(std::uint32_t v) const noexcept { return out_offsets[v + 1] - out_offsets[v]; }

  /// Bytes held by the arrays above.
  std::uint64_t memory_bytes() const noexcept;
};

/// One directed edge between dense ids with its threshold; the builder's input.
struct weighted_edge {
  std::uint32_t source;
  std::uint32_t target;
  std::uint32_t threshold;
};

/// Builds both CSR directions in parallel (counting sorts). In-edges of each vertex keep the
/// order of `edges`. `original_ids` has one entry per dense id (empty: ids are their own originals).
/// Throws config_error if an endpoint is >= num_vertices. O(n + m) work.
csr_graph build_csr_graph(std::uint32_t num_vertices, std::span<const weighted_edge> edges,
                          std::vector<std::uint64_t> original_ids = {});

}  // namespace wildfire
