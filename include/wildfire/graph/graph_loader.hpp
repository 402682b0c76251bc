// Loading a graph as people have it: SNAP/CSV/weighted/`n m` text (plain or gzip), a
// generator spec, or the binary .wfg format, into the owning csr_graph with IC/LT thresholds
// (ARCHITECTURE.md section 2, docs/formats.md).
#pragma once

#include <cstdint>
#include <string>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

/// Everything that says how to read one graph; the CLI fills it from the shared graph flags
/// (apps/wildfire/graph_options.hpp).
struct graph_load_options {
  /// Text (plain or .gz) or the binary .wfg format (detected by its magic bytes).
  std::string path;
  /// auto | snap | weighted | nm-header | csv | binary.
  std::string format = "auto";
  bool undirected = false;          // add both directions of every edge
  bool merge_parallel = false;      // combine repeated (u, v): IC probability 1 - prod(1 - p)
  bool skip_invalid_lines = false;  // skip (and count) malformed lines instead of failing
  /// auto (file if a third column exists, else wc) | wc | uniform:P | trivalency |
  /// random:A:B | file.
  std::string weights = "auto";
  std::uint64_t weight_seed = 0;    // keys the counter hash for trivalency and random:A:B
  bool lt_normalize = false;        // scale in-weights of a vertex to sum to 1 where they exceed 1
};

/// Loads the graph named by `options.path`. Throws input_error (file:line) for bad data and
/// config_error (the flag) for bad options. Blocking; parses in parallel with OpenMP.
/// Binary files keep the weights they were written with unless `options.weights` names a model
/// explicitly (then the weights are recomputed).
csr_graph load_graph(const graph_load_options& options);

/// Throws input_error naming the ORIGINAL id of the first vertex (in dense-id order) whose
/// in-weights sum above 1 beyond rounding (one unit of 2^-32 per in-edge), which the LT model
/// cannot use. `file` names the input in the message. O(m).
void validate_lt_weights(const csr_graph& graph, const std::string& file = "graph");

}  // namespace wildfire
