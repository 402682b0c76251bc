// Parallel union-find over the out-edges. A root only ever gains a parent with a smaller id, so
// each final root is its component's minimum vertex and the labels do not depend on scheduling.
#include "wildfire/graph/weak_components.hpp"
#include "parallel_grain.hpp"

#include <atomic>
#include <utility>

namespace wildfire {
namespace {

/// Root of `x`, halving the path on the way (each halving step only points a vertex at one of
/// its ancestors, so concurrent finds and links stay correct).
std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  for (;;) {
    std::atomic_ref<std::uint32_t> px(parent[x]);
    const std::uint32_t p = px.load(std::memory_order_relaxed);
    if (p == x) return x;
    const std::uint32_t gp = std::atomic_ref<std::uint32_t>(parent[p]).load(std::memory_order_relaxed);
    if (gp != p) {
      std::uint32_t expected = p;
      px.compare_exchange_weak(expected, gp, std::memory_order_relaxed);
    }
    x = gp;
  }
}

void unite(std::vector<std::uint32_t>& parent, std::uint32_t a, std::uint32_t b) {
  for (;;) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) return;
    if (a < b) std::swap(a, b);  // link the larger root a under the smaller root b
    std::uint32_t expected = a;
    if (std::atomic_ref<std::uint32_t>(parent[a]).compare_exchange_strong(expected, b, std::memory_order_relaxed)) {
      return;
    }
  }
}

}  // namespace

std::vector<std::uint32_t> weak_component_labels(const csr_graph& graph) {
  const std::int64_t n = graph.num_vertices;
  std::vector<std::uint32_t> parent(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > detail::min_parallel_elements)
  for (std::int64_t v = 0; v < n; ++v) parent[v] = static_cast<std::uint32_t>(v);
#pragma omp parallel for schedule(dynamic, 1024) if (graph.num_edges > static_cast<std::uint64_t>(detail::min_parallel_elements))
  for (std::int64_t u = 0; u < n; ++u) {
    for (std::uint64_t j = graph.out_offsets[u]; j < graph.out_offsets[u + 1]; ++j) {
      unite(parent, static_cast<std::uint32_t>(u), graph.out_targets[j]);
    }
  }
  std::vector<std::uint32_t> labels(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > detail::min_parallel_elements)
  for (std::int64_t v = 0; v < n; ++v) labels[v] = find_root(parent, static_cast<std::uint32_t>(v));
  return labels;
}

}  // namespace wildfire
