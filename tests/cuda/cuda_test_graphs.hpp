// Graphs shared by the CUDA tests: the shared data directory and a synthetic graph with hubs.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/graph_loader.hpp"

namespace wildfire::test {

inline std::string shared_data_dir() {
  if (const char* env = std::getenv("WF_SHARED_DATA_DIR")) return env;
  if (std::filesystem::exists(".carry/data")) return ".carry/data";
  return WF_SHARED_DATA_DIR;
}

/// Loads a shared graph (default weights) or returns false when the file is absent.
inline bool load_shared_graph(const std::string& name, csr_graph& out) {
  const std::string path = shared_data_dir() + "/" + name;
  if (!std::filesystem::exists(path)) return false;
  graph_load_options options;
  options.path = path;
  options.skip_invalid_lines = true;  // ca-GrQc's first line is a bare URL
  out = load_graph(options);
  return true;
}

/// Hubs with thousands of in-edges (heavy fused bin, long warp strides), a ring of always-live
/// edges that makes every RR set the whole graph (past the warp's shared + global room, so the
/// retry path runs), and random-probability edges. Without the ring, in-weights sum to at most
/// 0.6 (hubs) and 0.25 (others), so the graph is valid under LT too.
inline csr_graph hub_graph(std::uint32_t n, bool ring) {
  std::vector<weighted_edge> edges;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::uint32_t hub = 0; hub < 4; ++hub) {
    for (std::uint32_t i = 0; i < n / 2; ++i) {
      edges.push_back({next() % n, hub, threshold_from_probability(0.6 / (n / 2.0))});
    }
  }
  for (std::uint32_t v = 4; v < n; ++v) {
    for (int e = 0; e < 3; ++e) edges.push_back({next() % 4, v, threshold_from_probability(0.05)});
    edges.push_back({next() % n, v, threshold_from_probability(0.1)});
    if (ring) edges.push_back({(v + 1) % n, v, always_live_threshold});
  }
  return build_csr_graph(n, edges);
}

}  // namespace wildfire::test
