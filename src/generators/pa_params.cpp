// Parameter checks and degree counting for the preferential-attachment generators.
#include "wildfire/generators/pa_params.hpp"

#include <atomic>
#include <cmath>
#include <string>

#include "wildfire/error.hpp"

namespace wildfire {

void validate_pa_params(const pa_params& params) {
  WF_EXPECTS(params.out_degree >= 1 && params.out_degree <= 0xffffU, "-d",
             "the out-degree d must be between 1 and 65535, got " + std::to_string(params.out_degree));
  WF_EXPECTS(params.num_vertices > params.out_degree, "-n",
             "the vertex count n must exceed the out-degree d (" + std::to_string(params.out_degree) +
                 "), got " + std::to_string(params.num_vertices));
  WF_EXPECTS(params.num_vertices < 0xffffffffU, "-n", "the vertex count n must be below 2^32 - 1");
  WF_EXPECTS(std::isfinite(params.copy_probability) && params.copy_probability >= 0.0 &&
                 params.copy_probability <= 1.0,
             "--copy-p", "the direct-edge probability p must lie in [0, 1]");
}

std::vector<std::uint64_t> pa_total_degrees(const pa_graph& graph) {
  const std::uint32_t n = graph.num_vertices;
  const std::uint32_t d = graph.out_degree;
  std::vector<std::uint64_t> degree(n, 0);
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t v = d; v < static_cast<std::int64_t>(n); ++v) degree[v] = d;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(graph.targets.size()); ++i) {
      std::atomic_ref<std::uint64_t>(degree[graph.targets[i]]).fetch_add(1, std::memory_order_relaxed);
    }
  }
  return degree;
}

}  // namespace wildfire
