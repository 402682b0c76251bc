// What commands print: JSON results to stdout or to `-o FILE`, the metadata every result carries,
// original ids for dense ids, and a progress line shown only when stderr is a terminal.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/graph_loader.hpp"

namespace wildfire::cli {

/// Writes `result` as indented JSON plus a newline to stdout when `path` is empty or "-", else
/// to the file `path` (replaced). Throws config_error("-o") when the file cannot be written.
void write_json(const nlohmann::json& result, const std::string& path);

/// Writes `text` to stdout when `path` is empty or "-", else to the file (config_error("-o")).
void write_text(const std::string& text, const std::string& path);

/// {"Version", "Commit"}: the keys every JSON result carries.
nlohmann::json run_metadata();

/// {"Input", "Format", "Weights", "Undirected", "Vertices", "Edges"}: how the graph was read.
nlohmann::json graph_input_json(const graph_load_options& options, const csr_graph& graph);

/// The original (input-file) ids of dense vertex ids, as a JSON array of unsigned integers.
nlohmann::json original_ids_json(const csr_graph& graph, std::span<const std::uint32_t> vertices);

/// True when stderr is a terminal (progress is shown only then).
bool stderr_is_terminal() noexcept;

/// A one-line progress indicator on stderr, redrawn at most every 0.2 s, silent unless stderr is
/// a terminal, so piped and logged runs stay clean. Not thread-safe: call from one thread.
class progress_line {
 public:
  /// `total` units of work (0: unknown, only the count is shown).
  progress_line(std::string label, std::uint64_t total);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  /// Reports `done` units completed so far.
  void update(std::uint64_t done);
  /// Erases the line (also done by the destructor).
  void finish();

 private:
  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_seconds_ = -1.0;
  double start_seconds_;
};

}  // namespace wildfire::cli
