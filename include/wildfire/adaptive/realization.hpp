// A realization phi of the diffusion (MERIT digest sections 1.2 and 4.2 item 11), revealed round by
// round. IC: edge j into v is live iff the graph's rule names it in the world of
// sample_key(realization_seed, r) (ic_in_edge_live, random/ic_block_rule.hpp).
// LT: vertex v has threshold lambda_v = (lt_vertex_draw(key, v) + 1) / 2^32 in (0, 1] and turns
// active once the weights of its active in-neighbours, from all rounds, sum to at least lambda_v.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::adaptive {

class realization_diffusion {
 public:
  /// Realization number `index` of the family keyed by `realization_seed`. The graph must outlive
  /// this object. `ic_plan`: make_ic_block_plan(graph), outliving this object (IC only); when null,
  /// the realization builds its own, O(n + m).
  realization_diffusion(const csr_graph& graph, diffusion_model model, std::uint64_t realization_seed,
                        std::uint64_t index, const ic_block_plan* ic_plan = nullptr);

  /// Activates `seed` and every vertex it then reaches through inactive vertices in this
  /// realization; returns the newly active vertices (the seed first, empty if it was active).
  /// Seeds of one batch diffused one after the other give the batch's activations (the closure
  /// does not depend on the order), so the count per seed attributes them. O(edges probed).
  std::vector<std::uint32_t> activate(std::uint32_t seed);

  bool is_active(std::uint32_t v) const noexcept { return active_[v] != 0; }
  std::uint64_t num_active() const noexcept { return num_active_; }
  std::uint64_t key() const noexcept { return key_; }

 private:
  const csr_graph* graph_;
  diffusion_model model_;
  std::uint64_t key_;
  std::vector<std::uint8_t> active_;
  std::vector<std::uint64_t> lt_weight_;  // LT: active in-weight so far, in units of 2^-32
  ic_block_plan own_plan_;                // IC: built when no plan is shared
  const ic_block_plan* shared_plan_ = nullptr;
  std::uint64_t num_active_ = 0;
};

}  // namespace wildfire::adaptive
