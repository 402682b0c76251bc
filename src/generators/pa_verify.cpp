// Verifier of the preferential-attachment invariants (targets earlier, distinct, all final).
#include "wildfire/generators/pa_verify.hpp"

#include <algorithm>
#include <vector>

namespace wildfire {

pa_verification verify_pa_graph(const pa_graph& graph, const pa_params& params) {
  const std::uint32_t n = params.num_vertices;
  const std::uint32_t d = params.out_degree;
  if (graph.num_vertices != n || graph.out_degree != d ||
      graph.targets.size() != static_cast<std::size_t>(n - d) * d) {
    return {false, "the graph does not have n = " + std::to_string(n) + ", d = " + std::to_string(d) + " and " +
                       std::to_string(static_cast<std::uint64_t>(n - d) * d) + " edges"};
  }
  // The smallest offending vertex, so the report does not depend on the thread count.
  std::uint32_t first_bad = n;
#pragma omp parallel
  {
    std::vector<std::uint32_t> row(d);
#pragma omp for schedule(static) reduction(min : first_bad)
    for (std::int64_t v = d; v < static_cast<std::int64_t>(n); ++v) {
      bool bad = false;
      for (std::uint32_t l = 0; l < d; ++l) {
        row[l] = graph.target(static_cast<std::uint32_t>(v), l);
        bad |= row[l] >= v;
      }
      std::sort(row.begin(), row.end());
      bad |= std::adjacent_find(row.begin(), row.end()) != row.end();
      if (bad) first_bad = std::min(first_bad, static_cast<std::uint32_t>(v));
    }
  }
  if (first_bad == n) return {};
  std::string targets;
  for (std::uint32_t l = 0; l < d; ++l) {
    if (l != 0) targets.push_back(' ');
    targets.append(std::to_string(graph.target(first_bad, l)));
  }
  return {false, "vertex " + std::to_string(first_bad) + " has targets {" + targets +
                     "}: each must be an earlier vertex and they must be distinct"};
}

}  // namespace wildfire
