// What a generated preferential-attachment graph becomes: a csr_graph for the analyses, a text
// or gzip edge list, and the `gen:pa:...` input specs that build one in place of a file.
#pragma once

#include <string>
#include <string_view>

#include "wildfire/backend.hpp"
#include "wildfire/generators/pa_params.hpp"
#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

/// The edges v -> target (new vertex -> earlier vertex), or both directions when `undirected`,
/// as a csr_graph with zero thresholds (callers assign a weight model) and original id = dense id.
/// O(n + m), parallel.
csr_graph pa_to_csr_graph(const pa_graph& graph, bool undirected);

/// Writes one "source target" line per edge (both directions when `undirected`) after a comment
/// line naming `description`; gzip-compressed (zlib) when `path` ends in ".gz". Throws
/// input_error naming the file when it cannot be written. Blocking.
void write_pa_edge_list(const pa_graph& graph, const std::string& path, bool undirected,
                        const std::string& description);

/// True for inputs of the form "gen:pa:..." (or "gen:pa").
bool is_pa_spec(std::string_view input);

/// Parses "gen:pa:n=N,d=D[,p=P][,seed=S]" (n accepts 1e6-style integers; p defaults to 0.5, seed
/// to 0). Throws config_error naming -i and the offending key for unknown keys, missing n or d,
/// malformed numbers and out-of-range values.
pa_params parse_pa_spec(std::string_view input);

/// Generates the graph a spec names (on `device`; the graph is the same on every device) as a
/// csr_graph with zero thresholds, for the graph loader.
csr_graph generate_pa_input(std::string_view input, bool undirected, device_kind device = device_kind::cpu);

}  // namespace wildfire
