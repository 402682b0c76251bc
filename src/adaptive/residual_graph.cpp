// The residual graph: a removed-bitmap and the ascending pool of remaining vertices.
#include "wildfire/adaptive/residual_graph.hpp"

#include <numeric>

#include "wildfire/error.hpp"

namespace wildfire::adaptive {

residual_graph::residual_graph(const csr_graph& graph)
    : graph_(&graph), removed_(graph.num_vertices, 0), remaining_(graph.num_vertices) {
  std::iota(remaining_.begin(), remaining_.end(), 0U);
}

void residual_graph::remove(std::span<const std::uint32_t> vertices) {
  if (vertices.empty()) return;
  for (const std::uint32_t v : vertices) {
    WF_EXPECTS(v < graph_->num_vertices, "activated", "vertex id out of range");
    WF_EXPECTS(removed_[v] == 0, "activated", "vertex " + std::to_string(v) + " was already removed");
    removed_[v] = 1;
  }
  std::size_t kept = 0;
  for (const std::uint32_t v : remaining_) {
    if (removed_[v] == 0) remaining_[kept++] = v;
  }
  remaining_.resize(kept);
}

}  // namespace wildfire::adaptive
