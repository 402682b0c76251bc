// Exact spread and RR-set inclusion probabilities by live-edge world enumeration (serial, plain).
#include "reference/exact_spread.hpp"

#include <cmath>

#include "wildfire/error.hpp"
#include "wildfire/graph/edge_threshold.hpp"

namespace wildfire::reference {

void for_each_live_edge_world(const csr_graph& g, diffusion_model model,
                              const std::function<void(double, const std::vector<bool>&)>& visit) {
  const std::uint64_t m = g.num_edges;
  std::vector<bool> live(m, false);
  if (model == diffusion_model::ic) {
    WF_EXPECTS(m <= 24, "graph", "exact enumeration needs at most 24 edges under IC");
    for (std::uint64_t world = 0; world < (std::uint64_t{1} << m); ++world) {
      double probability = 1.0;
      for (std::uint64_t j = 0; j < m; ++j) {
        live[j] = (world >> j) & 1;
        const double p = probability_from_threshold(g.in_thresholds[j]);
        probability *= live[j] ? p : 1.0 - p;
      }
      if (probability > 0) visit(probability, live);
    }
    return;
  }
  // LT: vertex v picks one of its in-edges or none; choice[v] in [0, in_degree(v)], the last
  // meaning none. Enumerate the mixed-radix product.
  const std::uint32_t n = g.num_vertices;
  double worlds = 1;
  for (std::uint32_t v = 0; v < n; ++v) worlds *= static_cast<double>(g.in_degree(v) + 1);
  WF_EXPECTS(worlds <= 16777216.0, "graph", "exact enumeration needs at most 2^24 worlds under LT");
  std::vector<std::uint64_t> choice(n, 0);
  for (;;) {
    double probability = 1.0;
    std::fill(live.begin(), live.end(), false);
    for (std::uint32_t v = 0; v < n; ++v) {
      const std::uint64_t degree = g.in_degree(v);
      if (choice[v] < degree) {
        const std::uint64_t j = g.in_offsets[v] + choice[v];
        live[j] = true;
        probability *= probability_from_threshold(g.in_thresholds[j]);
      } else {
        double sum = 0;
        for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j)
          sum += probability_from_threshold(g.in_thresholds[j]);
        probability *= std::max(0.0, 1.0 - sum);
      }
    }
    if (probability > 0) visit(probability, live);
    std::uint32_t v = 0;
    while (v < n && ++choice[v] > g.in_degree(v)) choice[v++] = 0;
    if (v == n) break;
  }
}

std::vector<bool> live_reachable(const csr_graph& g, const std::vector<bool>& live,
                                 std::span<const std::uint32_t> sources) {
  std::vector<bool> reached(g.num_vertices, false);
  std::vector<std::uint32_t> stack(sources.begin(), sources.end());
  for (const std::uint32_t s : sources) reached[s] = true;
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    for (std::uint64_t i = g.out_offsets[v]; i < g.out_offsets[v + 1]; ++i) {
      const std::uint32_t u = g.out_targets[i];
      if (!reached[u] && live[g.out_edge_ids[i]]) {
        reached[u] = true;
        stack.push_back(u);
      }
    }
  }
  return reached;
}

double exact_spread(const csr_graph& g, diffusion_model model, std::span<const std::uint32_t> seeds) {
  double spread = 0;
  for_each_live_edge_world(g, model, [&](double probability, const std::vector<bool>& live) {
    const auto reached = live_reachable(g, live, seeds);
    double count = 0;
    for (const bool r : reached) count += r ? 1 : 0;
    spread += probability * count;
  });
  return spread;
}

std::vector<double> exact_rr_inclusion(const csr_graph& g, diffusion_model model, std::uint32_t root) {
  std::vector<double> p(g.num_vertices, 0.0);
  for_each_live_edge_world(g, model, [&](double probability, const std::vector<bool>& live) {
    for (std::uint32_t u = 0; u < g.num_vertices; ++u) {
      const std::uint32_t source[] = {u};
      if (live_reachable(g, live, source)[root]) p[u] += probability;
    }
  });
  return p;
}

std::vector<double> exact_multi_root_inclusion(const csr_graph& g, diffusion_model model, double mean_roots) {
  const std::uint32_t n = g.num_vertices;
  WF_EXPECTS(n <= 20, "graph", "exact multi-root inclusion needs at most 20 vertices");
  // Per world, reach[u] = bitmask of the vertices u reaches; u is in the set iff it reaches a root.
  // Average over root subsets of each size (uniform), mixed by the floor/ceil probabilities.
  const double whole = std::floor(mean_roots);
  const double fraction = mean_roots - whole;
  std::vector<std::pair<std::uint32_t, double>> sizes;
  const auto clamp = [&](double r) { return static_cast<std::uint32_t>(std::min<double>(r, n)); };
  sizes.emplace_back(clamp(whole), 1.0 - fraction);
  if (fraction > 0) sizes.emplace_back(clamp(whole + 1), fraction);

  std::vector<double> p(n, 0.0);
  for_each_live_edge_world(g, model, [&](double probability, const std::vector<bool>& live) {
    std::vector<std::uint32_t> reach(n, 0);
    for (std::uint32_t u = 0; u < n; ++u) {
      const std::uint32_t source[] = {u};
      const auto reached = live_reachable(g, live, source);
      for (std::uint32_t v = 0; v < n; ++v)
        if (reached[v]) reach[u] |= 1U << v;
    }
    for (const auto& [size, weight] : sizes) {
      if (weight == 0) continue;
      std::uint64_t subsets = 0;
      std::vector<std::uint64_t> hits(n, 0);
      for (std::uint32_t roots = 0; roots < (1U << n); ++roots) {
        if (static_cast<std::uint32_t>(__builtin_popcount(roots)) != size) continue;
        ++subsets;
        for (std::uint32_t u = 0; u < n; ++u)
          if (reach[u] & roots) ++hits[u];
      }
      for (std::uint32_t u = 0; u < n; ++u)
        p[u] += probability * weight * static_cast<double>(hits[u]) / static_cast<double>(subsets);
    }
  });
  return p;
}

}  // namespace wildfire::reference
