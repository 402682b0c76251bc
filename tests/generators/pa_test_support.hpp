// Helpers shared by the preferential-attachment tests: the structural verifier and the
// canonical sequential evaluation of the keyed copy model.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "wildfire/generators/pa_params.hpp"
#include "wildfire/generators/pa_slot_rule.hpp"

namespace wildfire::test {

struct pa_check {
  bool ok = true;
  std::string first_problem;
};

/// Invariants of every generated graph: (n - d) d slots; every vertex v >= d has d targets, each
/// in [0, v) (so no self-loop), pairwise distinct (so no parallel edge).
inline pa_check verify_pa_graph(const pa_graph& g, std::uint32_t n, std::uint32_t d) {
  pa_check check;
  if (g.num_vertices != n || g.out_degree != d || g.targets.size() != static_cast<std::size_t>(n - d) * d) {
    return {false, "wrong shape"};
  }
  std::vector<std::uint32_t> row(d);
  for (std::uint32_t v = d; v < n; ++v) {
    for (std::uint32_t l = 0; l < d; ++l) {
      row[l] = g.target(v, l);
      if (row[l] >= v) return {false, "vertex " + std::to_string(v) + " slot " + std::to_string(l) + " -> " +
                                          std::to_string(row[l]) + " is not an earlier vertex"};
    }
    std::sort(row.begin(), row.end());
    if (std::adjacent_find(row.begin(), row.end()) != row.end()) {
      return {false, "vertex " + std::to_string(v) + " has a repeated target"};
    }
  }
  return check;
}

/// The keyed copy model evaluated vertex by vertex, slot by slot: the definition the parallel
/// CPU and GPU generators must reproduce exactly.
inline pa_graph canonical_pa(const pa_params& params) {
  pa_graph g;
  g.num_vertices = params.num_vertices;
  g.out_degree = params.out_degree;
  const std::uint32_t d = params.out_degree;
  g.targets.assign(static_cast<std::size_t>(params.num_vertices - d) * d, pa_unresolved);
  const pa_rule rule{params.seed, d, pa_direct_threshold(params.copy_probability)};
  for (std::uint32_t v = d; v < params.num_vertices; ++v) {
    std::uint32_t* row = g.targets.data() + static_cast<std::size_t>(v - d) * d;
    pa_progress progress{0, 0};
    pa_resume_vertex(
        rule, v, row, progress, [&](std::uint32_t u, std::uint32_t k) { return g.target(u, k); },
        [row](std::uint32_t j, std::uint32_t x) { row[j] = x; });
  }
  return g;
}

}  // namespace wildfire::test
