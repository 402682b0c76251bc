// verify_influence: the invariants every backward-phase result must satisfy (see influence.hpp).
#include <cmath>

#include "wildfire/error.hpp"
#include "wildfire/twitter/influence.hpp"

namespace wildfire::twitter {

gpu_variant parse_gpu_variant(const std::string& text) {
  if (text == "auto") return gpu_variant::automatic;
  if (text == "queue" || text == "aq") return gpu_variant::queue;
  if (text == "vertex-array" || text == "va") return gpu_variant::vertex_array;
  if (text == "edge-array" || text == "ea") return gpu_variant::edge_array;
  if (text == "topological") return gpu_variant::topological;
  if (text == "shared-pull") return gpu_variant::shared_pull;
  if (text == "thesis") return gpu_variant::thesis;
  if (text == "staged") return gpu_variant::staged;
  throw config_error("--gpu-variant", "unknown variant \"" + text +
                                          "\", expected auto, shared-pull, staged, thesis, topological, queue, vertex-array or "
                                          "edge-array");
}

const char* to_string(gpu_variant v) noexcept {
  switch (v) {
    case gpu_variant::queue: return "queue";
    case gpu_variant::vertex_array: return "vertex-array";
    case gpu_variant::edge_array: return "edge-array";
    case gpu_variant::topological: return "topological";
    case gpu_variant::shared_pull: return "shared-pull";
    case gpu_variant::thesis: return "thesis";
    case gpu_variant::staged: return "staged";
    default: return "auto";
  }
}

verify_result verify_influence(const spreading_graphs& g, const influence_result& result, double rel_tol) {
  verify_result v;
  auto fail = [&](std::string text) {
    if (v.ok) v.first_mismatch = std::move(text);
    v.ok = false;
  };
  if (result.influence.size() != g.num_nodes()) {
    fail("influence has " + std::to_string(result.influence.size()) + " values for " +
         std::to_string(g.num_nodes()) + " nodes");
    return v;
  }
  const influence_result expected = backward_sequential(g);
  if (expected.cyclic_graphs != result.cyclic_graphs || expected.num_stalled_nodes != result.num_stalled_nodes) {
    fail("stalled nodes differ: expected " + std::to_string(expected.num_stalled_nodes) + ", got " +
         std::to_string(result.num_stalled_nodes));
  }
  for (std::uint64_t i = 0; i < g.num_nodes() && v.ok; ++i) {
    const double want = expected.influence[i], got = result.influence[i];
    if (!(std::abs(want - got) <= rel_tol * std::max(1.0, std::abs(want)))) {
      fail("node " + std::to_string(i) + ": expected " + std::to_string(want) + ", got " + std::to_string(got));
    }
  }
  // Conservation on acyclic graphs: every path ends in a sink and every edge passes on exactly
  // what its source holds, so the sinks together hold the sum of all base values.
  std::uint64_t next_cyclic = 0;
  for (std::uint64_t t = 0; t < g.num_graphs() && v.ok; ++t) {
    if (next_cyclic < expected.cyclic_graphs.size() && expected.cyclic_graphs[next_cyclic] == t) {
      ++next_cyclic;
      continue;
    }
    double base_sum = 0.0, sink_sum = 0.0;
    for (std::uint64_t i = g.graph_offsets[t]; i < g.graph_offsets[t + 1]; ++i) {
      base_sum += g.base[i];
      if (g.out_degree(i) == 0) sink_sum += result.influence[i];
    }
    if (!(std::abs(base_sum - sink_sum) <= 1e-9 * std::max(1.0, base_sum))) {
      fail("graph " + std::to_string(t) + ": sinks hold " + std::to_string(sink_sum) + ", base values sum to " +
           std::to_string(base_sum));
    }
  }
  return v;
}

}  // namespace wildfire::twitter
