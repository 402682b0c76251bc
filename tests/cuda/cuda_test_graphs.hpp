// Graphs shared by the CUDA tests: the shared data directory and a synthetic graph with hubs.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/edge_weights.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

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

/// The topology of hub_graph(n, false) (four hubs with n / 2 in-edges each, three in-edges from
/// hubs and one random in-edge elsewhere) with every vertex v >= 4 with v % 5 == 0 cut to a single
/// in-edge, weighted by `weights` ("wc" or "uniform:P"). Under either, every vertex with at least
/// two in-edges and p <= 1/2 draws its in-edges per block (random/ic_block_rule.hpp); under wc the
/// single in-edge vertices (p = 1) keep the per-edge rule. Valid under LT for wc.
inline csr_graph model_hub_graph(std::uint32_t n, const std::string& weights) {
  std::vector<weighted_edge> edges;
  std::uint64_t state = 4242;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::uint32_t hub = 0; hub < 4; ++hub) {
    for (std::uint32_t i = 0; i < n / 2; ++i) edges.push_back({next() % n, hub, always_live_threshold});
  }
  for (std::uint32_t v = 4; v < n; ++v) {
    if (v % 5 == 0) {
      edges.push_back({next() % n, v, always_live_threshold});
      continue;
    }
    for (int e = 0; e < 3; ++e) edges.push_back({next() % 4, v, always_live_threshold});
    edges.push_back({next() % n, v, always_live_threshold});
  }
  csr_graph g = build_csr_graph(n, edges);
  assign_model_weights(g, parse_weight_spec(weights), 0);
  return g;
}

/// Number of vertices of `g` that draw their in-edges per block, and whether some block-rule
/// vertex has a shorter tail block (its in-degree not a multiple of its block size): the tests
/// assert both, so a graph meant to exercise the block rule cannot silently miss it.
struct block_rule_coverage {
  std::uint64_t block_vertices = 0;
  std::uint64_t block_edges = 0;  // in-edges of those vertices (device_graph::block_edge_share)
  bool tail_block = false;
  bool many_blocks = false;  // some vertex with at least 16 blocks (the fused heavy bin)
};

inline block_rule_coverage block_rule_coverage_of(const csr_graph& g) {
  const ic_block_plan plan = make_ic_block_plan(g.view());
  block_rule_coverage c;
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    if (plan.vertex_class[v] == per_edge_class) continue;
    ++c.block_vertices;
    const std::uint64_t degree = g.in_offsets[v + 1] - g.in_offsets[v];
    c.block_edges += degree;
    const std::uint64_t b = ic_block_size(degree, g.in_thresholds[g.in_offsets[v]]);
    c.tail_block = c.tail_block || degree % b != 0;
    c.many_blocks = c.many_blocks || (degree + b - 1) / b >= 16;
  }
  return c;
}

}  // namespace wildfire::test
