// Revealing a realization round by round: breadth-first over live out-edges (IC) or threshold
// crossings (LT) through vertices that are still inactive (MERIT digest section 2.6 step 2).
#include "wildfire/adaptive/realization.hpp"

#include "wildfire/error.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"

namespace wildfire::adaptive {

realization_diffusion::realization_diffusion(const csr_graph& graph, diffusion_model model,
                                             std::uint64_t realization_seed, std::uint64_t index,
                                             const ic_block_plan* ic_plan)
    : graph_(&graph), model_(model), key_(sample_key(realization_seed, index)),
      active_(graph.num_vertices, 0), shared_plan_(ic_plan) {
  if (model_ == diffusion_model::lt) lt_weight_.assign(graph.num_vertices, 0);
  if (model_ == diffusion_model::ic && ic_plan == nullptr) own_plan_ = make_ic_block_plan(graph.view());
}

std::vector<std::uint32_t> realization_diffusion::activate(std::uint32_t seed) {
  WF_EXPECTS(seed < graph_->num_vertices, "seed", "vertex id out of range");
  std::vector<std::uint32_t> reached;
  if (active_[seed] != 0) return reached;
  active_[seed] = 1;
  reached.push_back(seed);
  const graph_view g = graph_->view();
  const ic_block_view blocks = (shared_plan_ != nullptr ? *shared_plan_ : own_plan_).view();
  for (std::size_t head = 0; head < reached.size(); ++head) {
    const std::uint32_t u = reached[head];
    for (std::uint64_t k = g.out_begin(u); k < g.out_end(u); ++k) {
      const std::uint32_t v = g.out_targets[k];
      if (active_[v] != 0) continue;
      const std::uint64_t edge = g.out_edge_ids[k];
      bool fires = false;
      if (model_ == diffusion_model::ic) {
        fires = ic_in_edge_live(key_, g, blocks, v, edge);
      } else {
        // lambda_v = (draw + 1) / 2^32: active iff the active in-weight reaches it.
        lt_weight_[v] += threshold_weight(g.in_thresholds[edge]);
        fires = lt_weight_[v] > lt_vertex_draw(key_, v);
      }
      if (fires) {
        active_[v] = 1;
        reached.push_back(v);
      }
    }
  }
  num_active_ += reached.size();
  return reached;
}

}  // namespace wildfire::adaptive
