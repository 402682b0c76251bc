// A set of spreading graphs S_t = (C_t, BE_t), one per tweet, in flat arrays (thesis sec. 6.2):
// node ranges per graph, out-CSR with graph-local targets, follower counts as the base influence.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wildfire::twitter {

/// T spreading graphs with N nodes and M back edges in total. Graph t owns the nodes
/// [graph_offsets[t], graph_offsets[t+1]); node i's back edges are edge_targets[row_offsets[i] ..
/// row_offsets[i+1]), each a graph-LOCAL node index (0 .. n_t - 1) of the earlier participant it
/// could have seen the tweet from. An edge (v, u) carries influence from v to u (v retweeted after
/// u). Invariants (checked by validate_spreading_graphs): offsets start at 0 and never decrease,
/// the last equal N and M; targets are in range; no self loops; no repeated edge within a row.
struct spreading_graphs {
  std::vector<std::uint64_t> graph_offsets{0};  // T + 1
  std::vector<std::uint64_t> row_offsets{0};    // N + 1
  std::vector<std::uint32_t> edge_targets;      // M, graph-local
  std::vector<double> base;                     // N: follower count, the initial influence
  std::vector<std::uint32_t> node_user;         // N: dense user index into user_ids
  std::vector<std::string> user_ids;            // U: original user ids, for output
  std::vector<std::string> tweet_ids;           // T: original tweet ids (or graph labels)

  std::uint64_t num_graphs() const noexcept { return graph_offsets.size() - 1; }
  std::uint64_t num_nodes() const noexcept { return row_offsets.size() - 1; }
  std::uint64_t num_edges() const noexcept { return edge_targets.size(); }
  std::uint64_t graph_size(std::uint64_t t) const noexcept { return graph_offsets[t + 1] - graph_offsets[t]; }
  std::uint64_t out_degree(std::uint64_t node) const noexcept { return row_offsets[node + 1] - row_offsets[node]; }
};

/// Throws input_error(source, 0, ...) naming the first violated invariant (see spreading_graphs).
/// O(N + M log d) with d the largest out-degree.
void validate_spreading_graphs(const spreading_graphs& graphs, const std::string& source);

/// Appends one graph given as node count, per-node base values and users, and a list of local
/// (from, to) back edges; sorts each row, drops self loops and repeated edges and returns how many
/// edges were dropped. Used by readers and tests; O(m log m).
std::uint64_t append_graph(spreading_graphs& graphs, std::string tweet_id, const std::vector<double>& base,
                           const std::vector<std::uint32_t>& users,
                           std::vector<std::pair<std::uint32_t, std::uint32_t>> edges);

/// Size categories of the thesis (Table 6.1): Empty n <= 1, Small n <= 32, Medium n <= 1024,
/// Large otherwise. The bounds follow the warp (32) and the largest block (1024).
enum class graph_category : std::uint8_t { empty, small, medium, large };
graph_category categorize(std::uint64_t num_nodes) noexcept;
const char* to_string(graph_category c) noexcept;

}  // namespace wildfire::twitter
