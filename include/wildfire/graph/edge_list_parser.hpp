// Parser for edge lists as people have them (SNAP, `u v p`, `n m` first line, CSV with a header):
// comments (# and %), tab/space/comma separators, CRLF, blank lines, 64-bit sparse ids.
// The text is split into newline-aligned chunks parsed in parallel (OpenMP) with hand-written
// digit loops; the output is the same for any thread count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wildfire {

enum class text_format { automatic, snap, weighted, nm_header, csv };

/// "auto", "snap", "weighted", "nm-header", "csv"; throws config_error("--format") otherwise.
text_format parse_text_format(const std::string& name);
std::string to_string(text_format format);

struct edge_list_parse_options {
  text_format format = text_format::automatic;
  bool skip_invalid_lines = false;  // skip malformed lines (counted) instead of throwing
  std::string file_name = "input";  // named in error messages
  int num_threads = 0;              // 0: OpenMP's default
};

/// Edges in file order with their original ids; self-loops and repeated edges are kept (the
/// loader drops and counts them).
struct parsed_edge_list {
  std::vector<std::uint64_t> sources;
  std::vector<std::uint64_t> targets;
  std::vector<double> probabilities;  // one per edge when the lines have a third column, else empty
  text_format format = text_format::snap;  // the format used (resolved when auto)
  bool has_counts_header = false;          // a `n m` first line was read
  std::uint64_t declared_vertices = 0;     // n of the `n m` line
  std::uint64_t declared_edges = 0;        // m of the `n m` line
  std::uint64_t invalid_lines_skipped = 0;
  std::uint64_t max_id = 0;                // largest id seen (0 when there are no edges)

  std::uint64_t size() const noexcept { return sources.size(); }
  bool has_probabilities() const noexcept { return !probabilities.empty(); }
};

/// Parses a whole text. Throws input_error(file_name, line) for a malformed line (non-numeric id,
/// missing or extra column) unless skip_invalid_lines, and always for a probability outside
/// [0, 1] or an `n m` header that disagrees with the body; input_error(file_name, 0) for a text
/// without any edge line. Blocking; O(bytes) work split over the threads.
parsed_edge_list parse_edge_list(std::string_view text, const edge_list_parse_options& options);

}  // namespace wildfire
