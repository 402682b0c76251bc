// Builds the two CSR directions from a list of weighted edges with parallel counting sorts.
// Placement uses atomic cursors, then each vertex's segment is sorted so the result is the same
// for any thread count: in-edges in input order, out-edges in edge-id order.
#include <algorithm>
#include <atomic>
#include <numeric>

#include "wildfire/error.hpp"
#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {
namespace {

/// Exclusive prefix sum of `counts` into offsets[0..n]; offsets[n] = total.
std::vector<std::uint64_t> offsets_from_counts(const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> offsets(counts.size() + 1, 0);
  std::inclusive_scan(counts.begin(), counts.end(), offsets.begin() + 1);
  return offsets;
}

/// For each key k (vertex), the positions i (0..m-1) with key_of(i) == k, grouped by key and
/// ascending within a key. Returns the grouping and fills `offsets`.
template <class KeyOf>
std::vector<std::uint64_t> group_by_key(std::uint32_t num_keys, std::uint64_t m, KeyOf key_of,
                                        std::vector<std::uint64_t>& offsets) {
  std::vector<std::uint64_t> counts(num_keys, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i) {
    std::atomic_ref<std::uint64_t>(counts[key_of(i)]).fetch_add(1, std::memory_order_relaxed);
  }
  offsets = offsets_from_counts(counts);
  std::vector<std::uint64_t> cursor(offsets.begin(), offsets.end() - 1);
  std::vector<std::uint64_t> grouped(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i) {
    const auto slot = std::atomic_ref<std::uint64_t>(cursor[key_of(i)]).fetch_add(1, std::memory_order_relaxed);
    grouped[slot] = static_cast<std::uint64_t>(i);
  }
#pragma omp parallel for schedule(dynamic, 1024)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(num_keys); ++k) {
    std::sort(grouped.begin() + static_cast<std::ptrdiff_t>(offsets[k]),
              grouped.begin() + static_cast<std::ptrdiff_t>(offsets[k + 1]));
  }
  return grouped;
}

}  // namespace

csr_graph build_csr_graph(std::uint32_t num_vertices, std::span<const weighted_edge> edges,
                          std::vector<std::uint64_t> original_ids) {
  for (const auto& e : edges) {
    if (e.source >= num_vertices || e.target >= num_vertices) {
      throw config_error("edges", "edge endpoint " + std::to_string(std::max(e.source, e.target)) +
                                      " is not below the vertex count " + std::to_string(num_vertices));
    }
  }
  if (!original_ids.empty() && original_ids.size() != num_vertices) {
    throw config_error("original_ids", "expected one original id per vertex");
  }
  csr_graph g;
  g.num_vertices = num_vertices;
  g.num_edges = edges.size();
  const std::uint64_t m = edges.size();

  // In-edges: edge id = position in the in-CSR.
  const auto by_target =
      group_by_key(num_vertices, m, [&](std::uint64_t i) { return edges[i].target; }, g.in_offsets);
  g.in_sources.resize(m);
  g.in_thresholds.resize(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < static_cast<std::int64_t>(m); ++j) {
    const auto& e = edges[by_target[j]];
    g.in_sources[j] = e.source;
    g.in_thresholds[j] = e.threshold;
  }

  // Out-edges, keyed by the source of each in-CSR edge, so they come out in edge-id order.
  const auto by_source =
      group_by_key(num_vertices, m, [&](std::uint64_t j) { return g.in_sources[j]; }, g.out_offsets);
  g.out_targets.resize(m);
  g.out_edge_ids.resize(m);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < static_cast<std::int64_t>(m); ++j) {
    const std::uint64_t edge_id = by_source[j];
    g.out_edge_ids[j] = edge_id;
    g.out_targets[j] = edges[by_target[edge_id]].target;
  }

  if (original_ids.empty()) {
    original_ids.resize(num_vertices);
    std::iota(original_ids.begin(), original_ids.end(), std::uint64_t{0});
  }
  g.original_ids = std::move(original_ids);
  return g;
}

std::uint64_t csr_graph::memory_bytes() const noexcept {
  auto bytes = [](const auto& v) { return static_cast<std::uint64_t>(v.size() * sizeof(v[0])); };
  return bytes(in_offsets) + bytes(in_sources) + bytes(in_thresholds) + bytes(out_offsets) +
         bytes(out_targets) + bytes(out_edge_ids) + bytes(original_ids);
}

}  // namespace wildfire
