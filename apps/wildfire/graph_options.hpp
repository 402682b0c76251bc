// The graph-input flags every command shares (-i, --format, --undirected, -w, ...), so `info`,
// `imm`, `simulate` and the rest read graphs the same way.
#pragma once

#include <CLI/CLI.hpp>

#include "wildfire/graph/graph_loader.hpp"

namespace wildfire::cli {

/// Registers -i/--input (required), --format, --undirected, --merge-parallel,
/// --skip-invalid-lines, -w/--weights, --weight-seed and --lt-normalize on `cmd`, writing into
/// `options` (which must outlive the parse).
void add_graph_input_options(CLI::App& cmd, graph_load_options& options);

}  // namespace wildfire::cli
