// The versioned binary graph format (.wfg): the csr_graph arrays as they sit in memory, behind a
// header (magic, version, flags, counts, provenance) and followed by a CRC-32 of everything
// before it, so text is parsed once and later runs load with a few large reads (docs/formats.md).
#pragma once

#include <cstdint>
#include <string>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

/// The format version this build writes and reads.
inline constexpr std::uint32_t binary_graph_version = 1;

/// Writes `graph` to `path` (replaced). Throws input_error naming the file when it cannot be
/// written. Blocking; O(n + m).
void write_binary_graph(const csr_graph& graph, const std::string& path);

/// Reads a graph written by write_binary_graph. Throws input_error naming the file when it is
/// missing, not a .wfg file, of another version, truncated or longer than its header says, fails
/// its checksum, or holds arrays that are not a valid CSR. Blocking; O(n + m), parallel checks.
csr_graph read_binary_graph(const std::string& path);

/// True if the file starts with the .wfg magic bytes.
bool is_binary_graph_file(const std::string& path);

}  // namespace wildfire
