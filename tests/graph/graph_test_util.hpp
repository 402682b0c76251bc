// Helpers for the graph tests: temporary files with given contents, and small graph lookups.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"

namespace wildfire::test {

/// A directory under the system temp dir, removed with its contents on destruction.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "wf_graph_test_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  /// Writes `contents` to a file named `name` inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& contents) const {
    const std::string file = path(name);
    std::ofstream out(file, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    return file;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Edges as (original source, original target, probability) in edge-id (in-CSR) order.
struct original_edge {
  std::uint64_t source;
  std::uint64_t target;
  double probability;
  bool operator==(const original_edge&) const = default;
};

inline std::vector<original_edge> original_edges(const csr_graph& g) {
  std::vector<original_edge> edges;
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
      edges.push_back({g.original_ids[g.in_sources[j]], g.original_ids[v], probability_from_threshold(g.in_thresholds[j])});
    }
  }
  return edges;
}

/// Dense id of an original id (linear scan: tests only), or num_vertices when absent.
inline std::uint32_t dense_id(const csr_graph& g, std::uint64_t original) {
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    if (g.original_ids[v] == original) return v;
  }
  return g.num_vertices;
}

}  // namespace wildfire::test
