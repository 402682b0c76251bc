// Statistics for `wildfire info`: parallel reductions over the CSR arrays plus the weak components.
#include "wildfire/graph/graph_statistics.hpp"

#include <algorithm>
#include <limits>

#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/weak_components.hpp"
#include "parallel_grain.hpp"

namespace wildfire {

graph_statistics compute_graph_statistics(const csr_graph& graph, std::size_t top_k) {
  graph_statistics s;
  const std::int64_t n = graph.num_vertices;
  const std::uint64_t m = graph.num_edges;
  s.num_vertices = graph.num_vertices;
  s.num_edges = m;
  if (n == 0) return s;

  std::uint64_t in_min = std::numeric_limits<std::uint64_t>::max(), in_max = 0;
  std::uint64_t out_min = std::numeric_limits<std::uint64_t>::max(), out_max = 0, isolated = 0;
#pragma omp parallel for schedule(static) reduction(min : in_min, out_min) reduction(max : in_max, out_max) \
    reduction(+ : isolated) if (n > detail::min_parallel_elements)
  for (std::int64_t v = 0; v < n; ++v) {
    const std::uint64_t din = graph.in_degree(static_cast<std::uint32_t>(v));
    const std::uint64_t dout = graph.out_degree(static_cast<std::uint32_t>(v));
    in_min = std::min(in_min, din);
    in_max = std::max(in_max, din);
    out_min = std::min(out_min, dout);
    out_max = std::max(out_max, dout);
    isolated += din == 0 && dout == 0 ? 1 : 0;
  }
  const double mean_degree = static_cast<double>(m) / static_cast<double>(n);
  s.in_degree = {in_min, mean_degree, in_max};
  s.out_degree = {out_min, mean_degree, out_max};
  s.isolated_vertices = isolated;

  // Top-k by out-degree: a partial sort of (degree desc, original id asc).
  std::vector<ranked_vertex> ranked(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > detail::min_parallel_elements)
  for (std::int64_t v = 0; v < n; ++v) {
    ranked[v] = {graph.original_ids[v], graph.out_degree(static_cast<std::uint32_t>(v))};
  }
  const std::size_t k = std::min(top_k, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(k), ranked.end(),
                    [](const ranked_vertex& a, const ranked_vertex& b) {
                      return a.degree > b.degree || (a.degree == b.degree && a.original_id < b.original_id);
                    });
  ranked.resize(k);
  s.top_out_degree = std::move(ranked);

  const auto labels = weak_component_labels(graph);
  std::vector<std::uint64_t> sizes(static_cast<std::size_t>(n), 0);
  for (std::int64_t v = 0; v < n; ++v) ++sizes[labels[v]];
  for (std::int64_t v = 0; v < n; ++v) {
    if (sizes[v] == 0) continue;
    ++s.num_weak_components;
    s.largest_weak_component = std::max(s.largest_weak_component, sizes[v]);
  }

  if (m > 0) {
    std::uint32_t t_min = std::numeric_limits<std::uint32_t>::max(), t_max = 0;
    // The sum is kept exact in integers (weights split into 16-bit halves so it cannot overflow
    // below 2^48 edges), so the mean does not depend on the thread count.
    std::uint64_t always = 0, sum_high = 0, sum_low = 0;
#pragma omp parallel for schedule(static) reduction(min : t_min) reduction(max : t_max) \
    reduction(+ : always, sum_high, sum_low) if (static_cast<std::int64_t>(m) > detail::min_parallel_elements)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(m); ++j) {
      const std::uint32_t t = graph.in_thresholds[j];
      // always_live_threshold is the largest value, so min/max order thresholds like probabilities.
      t_min = std::min(t_min, t);
      t_max = std::max(t_max, t);
      always += t == always_live_threshold ? 1 : 0;
      sum_high += threshold_weight(t) >> 16;
      sum_low += threshold_weight(t) & 0xffffU;
    }
    const long double sum = (static_cast<long double>(sum_high) * 65536.0L + static_cast<long double>(sum_low)) /
                            4294967296.0L;
    s.probabilities = {probability_from_threshold(t_min), static_cast<double>(sum / static_cast<long double>(m)),
                       probability_from_threshold(t_max), always};
  }
  return s;
}

}  // namespace wildfire
