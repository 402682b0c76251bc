// Builds the two CSR directions from a list of weighted edges with parallel counting sorts.
// The sorts are stable (per-block histograms), so the result is the same for any thread count:
// in-edges in input order, out-edges in edge-id order.
#include <omp.h>

#include <algorithm>
#include <numeric>

#include "wildfire/error.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "parallel_grain.hpp"

namespace wildfire {
namespace {


/// For each key k (vertex), the positions i (0..m-1) with key_of(i) == k, grouped by key and
/// ascending within a key. Returns the grouping and fills `offsets`. A stable parallel counting
/// sort: each block of consecutive positions keeps its own histogram, so blocks scatter into
/// disjoint, ordered slots and no per-key sort is needed.
template <class KeyOf>
std::vector<std::uint64_t> group_by_key(std::uint32_t num_keys, std::uint64_t m, KeyOf key_of,
                                        std::vector<std::uint64_t>& offsets) {
  const std::uint64_t n = num_keys;
  // Histograms cost blocks * n words: enough blocks for the threads, not more than the edges pay for.
  const std::uint64_t blocks = std::max<std::uint64_t>(
      1, std::min({static_cast<std::uint64_t>(omp_get_max_threads()), m / 65536, 2 * m / std::max<std::uint64_t>(n, 1)}));
  const std::uint64_t block_size = (m + blocks - 1) / blocks;
  std::vector<std::uint64_t> cursor(blocks * n, 0);
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(blocks)) if (blocks > 1)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
    std::uint64_t* hist = cursor.data() + static_cast<std::uint64_t>(b) * n;
    const std::uint64_t end = std::min(m, (static_cast<std::uint64_t>(b) + 1) * block_size);
    for (std::uint64_t i = static_cast<std::uint64_t>(b) * block_size; i < end; ++i) ++hist[key_of(i)];
  }
  // Per key: block b starts after the same key's slots of blocks 0..b-1.
  offsets.assign(n + 1, 0);
#pragma omp parallel for schedule(static) if (n > static_cast<std::uint64_t>(detail::min_parallel_elements))
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
    std::uint64_t total = 0;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const std::uint64_t count = cursor[b * n + k];
      cursor[b * n + k] = total;
      total += count;
    }
    offsets[k + 1] = total;
  }
  std::inclusive_scan(offsets.begin() + 1, offsets.end(), offsets.begin() + 1);
  std::vector<std::uint64_t> grouped(m);
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(blocks)) if (blocks > 1)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks); ++b) {
    std::uint64_t* next = cursor.data() + static_cast<std::uint64_t>(b) * n;
    const std::uint64_t end = std::min(m, (static_cast<std::uint64_t>(b) + 1) * block_size);
    for (std::uint64_t i = static_cast<std::uint64_t>(b) * block_size; i < end; ++i) {
      const auto k = key_of(i);
      grouped[offsets[k] + next[k]++] = i;
    }
  }
  return grouped;
}

}  // namespace

csr_graph build_csr_graph(std::uint32_t num_vertices, std::span<const weighted_edge> edges,
                          std::vector<std::uint64_t> original_ids) {
  std::uint32_t max_endpoint = 0;
#pragma omp parallel for schedule(static) reduction(max : max_endpoint) if (edges.size() > static_cast<std::size_t>(detail::min_parallel_elements))
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(edges.size()); ++i) {
    max_endpoint = std::max({max_endpoint, edges[i].source, edges[i].target});
  }
  if (!edges.empty() && max_endpoint >= num_vertices) {
    throw config_error("edges", "edge endpoint " + std::to_string(max_endpoint) + " is not below the vertex count " +
                                    std::to_string(num_vertices));
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
#pragma omp parallel for schedule(static) if (m > static_cast<std::uint64_t>(detail::min_parallel_elements))
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
#pragma omp parallel for schedule(static) if (m > static_cast<std::uint64_t>(detail::min_parallel_elements))
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
