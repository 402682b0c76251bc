// Helpers shared by the preferential-attachment tests: the structural verifier and the
// canonical sequential evaluation of the keyed copy model.
#pragma once

#include "wildfire/generators/pa_params.hpp"
#include "wildfire/generators/pa_slot_rule.hpp"
#include "wildfire/generators/pa_verify.hpp"

namespace wildfire::test {

/// The library verifier, shaped for the tests' messages.
inline pa_verification verify_pa_graph(const pa_graph& g, std::uint32_t n, std::uint32_t d) {
  return wildfire::verify_pa_graph(g, pa_params{n, d, 0.5, 0});
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
