// Serial reference RR sampler (one sample at a time, std containers, no tricks).
#include "reference/rr_reference.hpp"

#include <algorithm>

#include "reference/ic_live_edges.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::reference {

std::vector<std::uint32_t> rr_roots(const csr_graph& g, const sampling_params& params,
                                    std::uint64_t sample_id) {
  const std::uint64_t key = sample_key(params.seed, sample_id);
  std::vector<std::uint32_t> roots;
  if (g.num_vertices == 0) return roots;
  const std::uint32_t count = root_count(key, params.mean_roots, g.num_vertices);
  draw_distinct_roots(
      key, g.num_vertices, count,
      [&](std::uint32_t v) { return std::find(roots.begin(), roots.end(), v) != roots.end(); },
      [&](std::uint32_t v) { roots.push_back(v); });
  std::sort(roots.begin(), roots.end());
  return roots;
}

namespace {

/// Every vertex that reaches one of `roots` in the world with key `key`, sorted ascending.
std::vector<std::uint32_t> reverse_reachable(const csr_graph& g, diffusion_model model, std::uint64_t key,
                                             std::vector<std::uint32_t> roots) {
  const graph_view view = g.view();
  std::vector<bool> visited(g.num_vertices, false);
  std::vector<std::uint32_t> members = std::move(roots);
  for (auto r : members) visited[r] = true;

  if (model == diffusion_model::ic) {
    for (std::size_t head = 0; head < members.size(); ++head) {
      const std::uint32_t v = members[head];
      for (const std::uint64_t j : ic_live_in_edges(g, key, v)) {
        const std::uint32_t u = view.in_sources[j];
        if (!visited[u]) {
          visited[u] = true;
          members.push_back(u);
        }
      }
    }
  } else {
    const std::size_t num_roots = members.size();
    for (std::size_t i = 0; i < num_roots; ++i) {
      std::uint32_t v = members[i];
      for (;;) {
        const std::uint64_t j = lt_chosen_in_edge(key, view, v);
        if (j == no_edge || visited[view.in_sources[j]]) break;
        v = view.in_sources[j];
        visited[v] = true;
        members.push_back(v);
      }
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

}  // namespace

std::vector<std::uint32_t> rr_set(const csr_graph& g, const sampling_params& params,
                                  std::uint64_t sample_id) {
  const std::uint64_t key = sample_key(params.seed, sample_id);
  const std::vector<std::uint32_t> roots = rr_roots(g, params, sample_id);
  if (params.rounds <= 1) return reverse_reachable(g, params.model, key, roots);
  std::vector<std::uint32_t> members;
  for (std::uint32_t round = 0; round < params.rounds; ++round) {
    for (const std::uint32_t v : reverse_reachable(g, params.model, round_sample_key(key, round), roots))
      members.push_back(encode_round_member(v, round, g.num_vertices));
  }
  return members;
}

rr_sets sample_rr_sets(const csr_graph& g, const sampling_params& params, std::uint64_t first_id,
                       std::uint64_t count) {
  rr_sets out;
  for (std::uint64_t s = first_id; s < first_id + count; ++s) {
    const auto set = rr_set(g, params, s);
    out.members.insert(out.members.end(), set.begin(), set.end());
    out.offsets.push_back(out.members.size());
  }
  return out;
}

}  // namespace wildfire::reference
