// Exact distribution of an mRR-set's content on a tiny residual graph, by enumerating every
// live-edge world (IC: 2^m edge subsets; LT: one in-edge or none per vertex) and every root set.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/edge_threshold.hpp"

namespace wildfire::test {

/// Probability of each root count for mean `k` on a pool of `pool` vertices (floor/ceil rounding).
inline std::map<std::uint32_t, double> root_count_distribution(double k, std::uint32_t pool) {
  const double whole = std::floor(k);
  std::map<std::uint32_t, double> out;
  const auto cap = [&](double c) { return static_cast<std::uint32_t>(std::min<double>(c, pool)); };
  out[cap(whole)] += 1 - (k - whole);
  if (k > whole) out[cap(whole + 1)] += k - whole;
  return out;
}

/// Map from set content (bit v = vertex v) to its probability. `removed` is a bit mask.
inline std::map<std::uint32_t, double> exact_mrr_distribution(const csr_graph& g, diffusion_model model,
                                                              std::uint32_t removed, double mean_roots) {
  const std::uint32_t n = g.num_vertices;
  std::vector<std::uint32_t> pool;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (((removed >> v) & 1U) == 0) pool.push_back(v);
  }
  // Worlds: a list of (probability, chosen[v] or live[e]).
  struct world {
    double p;
    std::vector<std::uint8_t> live;  // IC: per edge; LT: per edge (the chosen one)
  };
  std::vector<world> worlds;
  const std::uint64_t m = g.num_edges;
  if (model == diffusion_model::ic) {
    for (std::uint64_t mask = 0; mask < (1ULL << m); ++mask) {
      world w{1.0, std::vector<std::uint8_t>(m, 0)};
      for (std::uint64_t j = 0; j < m; ++j) {
        const double p = probability_from_threshold(g.in_thresholds[j]);
        w.live[j] = static_cast<std::uint8_t>((mask >> j) & 1U);
        w.p *= w.live[j] != 0 ? p : 1 - p;
      }
      if (w.p > 0) worlds.push_back(std::move(w));
    }
  } else {
    worlds.push_back({1.0, std::vector<std::uint8_t>(m, 0)});
    for (std::uint32_t v = 0; v < n; ++v) {
      std::vector<world> next;
      double total = 0;
      for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) total += probability_from_threshold(g.in_thresholds[j]);
      for (const auto& w : worlds) {
        if (1 - total > 1e-12) next.push_back({w.p * (1 - total), w.live});
        for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
          world x = w;
          x.p *= probability_from_threshold(g.in_thresholds[j]);
          x.live[j] = 1;
          next.push_back(std::move(x));
        }
      }
      worlds = std::move(next);
    }
  }
  std::map<std::uint32_t, double> out;
  const auto k = static_cast<std::uint32_t>(pool.size());
  for (const auto& [count, pc] : root_count_distribution(mean_roots, k)) {
    std::vector<std::uint32_t> subsets;
    for (std::uint32_t mask = 0; mask < (1U << k); ++mask) {
      if (static_cast<std::uint32_t>(__builtin_popcount(mask)) == count) subsets.push_back(mask);
    }
    for (const std::uint32_t sub : subsets) {
      std::uint32_t roots = 0;
      for (std::uint32_t i = 0; i < k; ++i) {
        if ((sub >> i) & 1U) roots |= 1U << pool[i];
      }
      for (const auto& w : worlds) {
        // Backward closure through live in-edges whose source is not removed.
        std::uint32_t set = roots;
        for (bool grew = true; grew;) {
          grew = false;
          for (std::uint32_t v = 0; v < n; ++v) {
            if (((set >> v) & 1U) == 0) continue;
            for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
              const std::uint32_t u = g.in_sources[j];
              if (w.live[j] != 0 && ((removed >> u) & 1U) == 0 && ((set >> u) & 1U) == 0) {
                set |= 1U << u;
                grew = true;
              }
            }
          }
        }
        out[set] += pc / static_cast<double>(subsets.size()) * w.p;
      }
    }
  }
  return out;
}

}  // namespace wildfire::test
