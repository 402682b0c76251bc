// Hand-checked spreading graphs shared by the CPU and GPU tests: the thesis's worked example
// (sec. 2.3, Table 2.1 and Figures 2.1-2.10) and our own small cases.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wildfire/twitter/forward_phase.hpp"
#include "wildfire/twitter/rsg.hpp"
#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter::testing {

/// Users a..f are dense 0..5 with follower counts 1..6.
inline std::vector<std::string> example_users() { return {"a", "b", "c", "d", "e", "f"}; }
inline std::vector<double> example_followers() { return {1, 2, 3, 4, 5, 6}; }

/// S_0 of the worked example, nodes a..f as local 0..5: edges (a,b) (c,b) (d,b) (e,b) (c,a)
/// (e,c) (f,e). Expected I_0 = (5.25, 21, 8.5, 4, 11, 6).
inline spreading_graphs worked_example() {
  spreading_graphs g;
  g.user_ids = example_users();
  append_graph(g, "tweet0", example_followers(), {0, 1, 2, 3, 4, 5},
               {{0, 1}, {2, 1}, {3, 1}, {4, 1}, {2, 0}, {4, 2}, {5, 4}});
  return g;
}

/// Our second example: publisher p (10 followers), x (4), y (2), z (8), isolated retweeter w (5);
/// edges x->p, y->p, y->x, z->x, z->y. By hand: z sends 4 to x and y (x 8, y 6); y sends 3 to p and
/// x (x 11, p 13); x sends 11 to p: I = (p 24, x 11, y 6, z 8, w 5).
inline spreading_graphs diamond_example() {
  spreading_graphs g;
  g.user_ids = {"p", "x", "y", "z", "w"};
  append_graph(g, "diamond", {10, 4, 2, 8, 5}, {0, 1, 2, 3, 4}, {{1, 0}, {2, 0}, {2, 1}, {3, 1}, {3, 2}});
  return g;
}

/// A graph with a cycle a -> b -> c -> a fed by e -> a, beside d -> s. Nodes s a b c d e (base
/// 1 2 3 4 5 7). a, b, c never reach in-degree 0: stalled, a keeps 2 + 7, s gets 1 + 5.
inline spreading_graphs cycle_example() {
  spreading_graphs g;
  g.user_ids = {"s", "a", "b", "c", "d", "e"};
  append_graph(g, "cycle", {1, 2, 3, 4, 5, 7}, {0, 1, 2, 3, 4, 5}, {{4, 0}, {1, 2}, {2, 3}, {3, 1}, {5, 1}});
  return g;
}

/// The follower graph of the worked example (only the follow relations the text states):
/// a's followers b, c; b's followers a, c, d, e; c's follower e; e's follower f.
inline follower_graph example_follower_graph() {
  follower_graph f;
  const std::vector<std::vector<std::uint32_t>> followers = {{1, 2}, {0, 2, 3, 4}, {4}, {}, {5}, {}};
  for (const auto& row : followers) {
    f.followers.insert(f.followers.end(), row.begin(), row.end());
    f.offsets.push_back(f.followers.size());
  }
  return f;
}

/// Table 2.1: tweet 0 (b 0, d 1, a 2, c 3, e 4, f 5) and tweet 1 (b 0, e 1, f 2, c 3, a 4),
/// given out of order to exercise the grouping.
inline retweet_log example_log() {
  std::vector<retweet_record> records = {{0, 5, 5}, {0, 1, 0}, {1, 0, 4}, {0, 3, 1}, {0, 0, 2}, {1, 1, 0},
                                         {0, 2, 3}, {1, 4, 1}, {0, 4, 4}, {1, 5, 2}, {1, 2, 3}};
  retweet_log log;
  group_retweets(records, {"tweet0", "tweet1"}, log);
  return log;
}

/// One RSG graph of n nodes (a single batch with `percent`, `seed`) as the graph "cyclic" of a
/// new set, with `extra` edges added to its own (e.g. back edges that close cycles).
inline spreading_graphs rsg_graph_with_edges(std::uint64_t seed, std::uint32_t n, double percent,
                                            const std::vector<std::pair<std::uint32_t, std::uint32_t>>& extra) {
  rsg_params p;
  p.seed = seed;
  p.batches = {{1, n, n, percent}};
  const spreading_graphs base_set = generate_rsg(p, 2);
  spreading_graphs g;
  g.user_ids = base_set.user_ids;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint64_t j = base_set.row_offsets[i]; j < base_set.row_offsets[i + 1]; ++j) edges.emplace_back(i, base_set.edge_targets[j]);
  }
  edges.insert(edges.end(), extra.begin(), extra.end());
  append_graph(g, "cyclic", std::vector<double>(base_set.base.begin(), base_set.base.end()), std::vector<std::uint32_t>(n, 0),
               edges);
  return g;
}

/// A small RSG set with every category but Large, plus two cyclic graphs appended.
inline spreading_graphs mixed_set(std::uint64_t seed) {
  rsg_params p;
  p.seed = seed;
  p.batches = {{3, 1, 1, 0.0}, {40, 2, 32, 10.0}, {12, 33, 300, 5.0}, {2, 1025, 1400, 2.0}};
  spreading_graphs g = generate_rsg(p, 2);
  const std::uint32_t user = 0;
  append_graph(g, "cyc1", {1, 2, 3, 4, 5, 7}, std::vector<std::uint32_t>(6, user),
               {{4, 0}, {1, 2}, {2, 3}, {3, 1}, {5, 1}});
  append_graph(g, "cyc2", {3, 1, 4, 1}, std::vector<std::uint32_t>(4, user), {{1, 2}, {2, 1}, {3, 0}});
  return g;
}

}  // namespace wildfire::twitter::testing
