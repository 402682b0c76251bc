// JSON and progress output for the commands; the only place besides main.cpp that writes to the
// terminal.
#include "cli_output.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include <fmt/core.h>

#include "wildfire/error.hpp"
#include "wildfire/version.hpp"

namespace wildfire::cli {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void write_text(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw config_error("-o", "cannot open \"" + path + "\" for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw config_error("-o", "cannot write \"" + path + "\"");
}

void write_json(const nlohmann::json& result, const std::string& path) {
  write_text(result.dump(2) + "\n", path);
}

nlohmann::json run_metadata() {
  return nlohmann::json{{"Version", version_string}, {"Commit", git_commit}};
}

nlohmann::json graph_input_json(const graph_load_options& options, const csr_graph& graph) {
  return nlohmann::json{{"Input", options.path},
                        {"Format", options.format},
                        {"Weights", graph.provenance.weight_model},
                        {"Undirected", graph.provenance.undirected_input},
                        {"Vertices", graph.num_vertices},
                        {"Edges", graph.num_edges}};
}

nlohmann::json original_ids_json(const csr_graph& graph, std::span<const std::uint32_t> vertices) {
  auto ids = nlohmann::json::array();
  for (const std::uint32_t v : vertices) ids.push_back(graph.original_ids.at(v));
  return ids;
}

bool stderr_is_terminal() noexcept { return isatty(STDERR_FILENO) == 1; }

progress_line::progress_line(std::string label, std::uint64_t total)
    : label_(std::move(label)), total_(total), enabled_(stderr_is_terminal()), start_seconds_(now_seconds()) {}

progress_line::~progress_line() { finish(); }

void progress_line::update(std::uint64_t done) {
  if (!enabled_) return;
  const double now = now_seconds();
  if (last_draw_seconds_ >= 0.0 && now - last_draw_seconds_ < 0.2) return;
  last_draw_seconds_ = now;
  const double elapsed = now - start_seconds_;
  if (total_ > 0) {
    fmt::print(stderr, "\r{}: {}/{} ({:.1f}%, {:.1f} s)\033[K", label_, done, total_,
               100.0 * static_cast<double>(done) / static_cast<double>(total_), elapsed);
  } else {
    fmt::print(stderr, "\r{}: {} ({:.1f} s)\033[K", label_, done, elapsed);
  }
  std::fflush(stderr);
  drawn_ = true;
}

void progress_line::finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace wildfire::cli
