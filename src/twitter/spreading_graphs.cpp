// Invariants and construction helpers of the flat spreading-graph set (thesis sec. 6.2).
#include "wildfire/twitter/spreading_graphs.hpp"

#include <algorithm>

#include "wildfire/error.hpp"

namespace wildfire::twitter {

void validate_spreading_graphs(const spreading_graphs& g, const std::string& source) {
  auto fail = [&](const std::string& what) { throw input_error(source, 0, "invalid spreading graphs: " + what); };
  if (g.graph_offsets.empty() || g.graph_offsets.front() != 0) fail("graph offsets must start at 0");
  if (g.row_offsets.empty() || g.row_offsets.front() != 0) fail("row offsets must start at 0");
  if (g.graph_offsets.back() != g.num_nodes()) fail("last graph offset differs from the node count");
  if (g.row_offsets.back() != g.num_edges()) fail("last row offset differs from the edge count");
  if (g.base.size() != g.num_nodes() || g.node_user.size() != g.num_nodes()) fail("per-node arrays differ in size");
  if (!g.tweet_ids.empty() && g.tweet_ids.size() != g.num_graphs()) fail("tweet ids differ from the graph count");
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    const std::uint64_t lo = g.graph_offsets[t], hi = g.graph_offsets[t + 1];
    if (hi < lo) fail("graph offsets decrease at graph " + std::to_string(t));
    if (hi - lo > 0xffffffffULL) fail("graph " + std::to_string(t) + " has more than 2^32 - 1 nodes");
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t b = g.row_offsets[i], e = g.row_offsets[i + 1];
      if (e < b) fail("row offsets decrease at node " + std::to_string(i));
      std::uint32_t previous = 0;
      for (std::uint64_t j = b; j < e; ++j) {
        const std::uint32_t target = g.edge_targets[j];
        if (target >= hi - lo) fail("edge target out of range in graph " + std::to_string(t));
        if (target == i - lo) fail("self loop in graph " + std::to_string(t));
        if (j > b && target <= previous) fail("row of node " + std::to_string(i) + " is not sorted and unique");
        previous = target;
      }
      if (!(g.base[i] >= 0.0)) fail("negative or NaN base value at node " + std::to_string(i));
      if (g.node_user[i] >= g.user_ids.size()) fail("user index out of range at node " + std::to_string(i));
    }
  }
}

std::uint64_t append_graph(spreading_graphs& g, std::string tweet_id, const std::vector<double>& base,
                           const std::vector<std::uint32_t>& users,
                           std::vector<std::pair<std::uint32_t, std::uint32_t>> edges) {
  const std::uint64_t n = base.size();
  if (users.size() != n) throw input_error(tweet_id, 0, "base values and users differ in count");
  std::sort(edges.begin(), edges.end());
  std::uint64_t dropped = 0;
  std::vector<std::uint64_t> degree(n, 0);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const auto [from, to] = edges[k];
    if (from >= n || to >= n) {
      throw input_error(tweet_id, 0, "edge (" + std::to_string(from) + ", " + std::to_string(to) +
                                         ") outside a graph of " + std::to_string(n) + " nodes");
    }
    if (from == to || (kept > 0 && edges[kept - 1] == edges[k])) {
      ++dropped;
      continue;
    }
    edges[kept++] = edges[k];
    ++degree[from];
  }
  edges.resize(kept);
  for (std::uint64_t i = 0; i < n; ++i) {
    g.row_offsets.push_back(g.row_offsets.back() + degree[i]);
    g.base.push_back(base[i]);
    g.node_user.push_back(users[i]);
  }
  for (const auto& edge : edges) g.edge_targets.push_back(edge.second);
  g.graph_offsets.push_back(g.graph_offsets.back() + n);
  g.tweet_ids.push_back(std::move(tweet_id));
  return dropped;
}

graph_category categorize(std::uint64_t n) noexcept {
  if (n <= 1) return graph_category::empty;
  if (n <= 32) return graph_category::small;
  if (n <= 1024) return graph_category::medium;
  return graph_category::large;
}

const char* to_string(graph_category c) noexcept {
  switch (c) {
    case graph_category::empty: return "empty";
    case graph_category::small: return "small";
    case graph_category::medium: return "medium";
    default: return "large";
  }
}

}  // namespace wildfire::twitter
