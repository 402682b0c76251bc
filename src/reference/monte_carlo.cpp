// Serial forward simulation on the out-CSR (breadth-first, per-world visited vector). Under IC a
// vertex's live in-edges are listed by its rule the first time an edge into it is read.
#include "reference/monte_carlo.hpp"

#include <algorithm>

#include "reference/ic_live_edges.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::reference {

std::vector<std::uint32_t> forward_reach(const csr_graph& g, const sampling_params& params, std::uint64_t world,
                                         std::span<const std::uint32_t> seeds, std::uint32_t round) {
  const std::uint64_t key = round_sample_key(sample_key(params.seed, world), round);
  const graph_view view = g.view();
  std::vector<bool> listed(g.num_vertices, false);  // IC: u's live in-edges are marked in ic_live
  std::vector<bool> ic_live(g.num_edges, false);
  const auto edge_live = [&](std::uint32_t u, std::uint64_t j) {
    if (params.model == diffusion_model::lt) return lt_chosen_in_edge(key, view, u) == j;
    if (!listed[u]) {
      listed[u] = true;
      for (const std::uint64_t live : ic_live_in_edges(g, key, u)) ic_live[live] = true;
    }
    return static_cast<bool>(ic_live[j]);
  };
  std::vector<bool> active(g.num_vertices, false);
  std::vector<std::uint32_t> queue;
  for (const std::uint32_t s : seeds)
    if (!active[s]) {
      active[s] = true;
      queue.push_back(s);
    }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t v = queue[head];
    for (std::uint64_t i = g.out_offsets[v]; i < g.out_offsets[v + 1]; ++i) {
      const std::uint32_t u = g.out_targets[i];
      const std::uint64_t j = g.out_edge_ids[i];
      if (active[u]) continue;
      if (edge_live(u, j)) {
        active[u] = true;
        queue.push_back(u);
      }
    }
  }
  std::sort(queue.begin(), queue.end());
  return queue;
}

std::vector<std::uint32_t> monte_carlo_spreads(const csr_graph& g, const sampling_params& params,
                                               std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                               std::uint64_t count) {
  const std::uint32_t n = g.num_vertices;
  std::vector<std::vector<std::uint32_t>> by_round(params.rounds);
  for (const std::uint32_t s : seeds) by_round[member_round(s, n)].push_back(member_vertex(s, n));
  std::vector<std::uint32_t> spreads;
  for (std::uint64_t w = first_world; w < first_world + count; ++w) {
    std::vector<bool> ever(n, false);
    std::uint32_t spread = 0;
    for (std::uint32_t round = 0; round < params.rounds; ++round) {
      for (const std::uint32_t v : forward_reach(g, params, w, by_round[round], round))
        if (!ever[v]) {
          ever[v] = true;
          ++spread;
        }
    }
    spreads.push_back(spread);
  }
  return spreads;
}

}  // namespace wildfire::reference
