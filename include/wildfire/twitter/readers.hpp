// Readers for the Twitter influence inputs (docs/twitter.md "Input formats"): the thesis's
// TUDataset-style collection, Twitter15/16 propagation trees (a .tar.gz archive or its folder),
// follower graphs, retweet logs and follower-count files. Every malformed line is an input_error
// naming the file and the 1-based line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wildfire/twitter/forward_phase.hpp"
#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter {

/// Counts of what a reader dropped or repaired, reported next to the results.
struct read_stats {
  std::uint64_t self_loops_dropped = 0;
  std::uint64_t repeated_edges_dropped = 0;
  std::uint64_t late_parent_edges_dropped = 0;  // trees: parent posted after the child
  std::uint64_t repeated_records_dropped = 0;   // retweet logs: a user twice in one tweet
};

/// TUDataset-style collection (thesis sec. 6.2). `prefix` names the files PREFIX_A.txt (edges
/// "i, j", directed retweeter -> earlier spreader), PREFIX_graph_indicator.txt (node -> graph),
/// PREFIX_node_labels.txt ("r_id, followers") and optionally PREFIX_graph_labels.txt (the
/// publisher). `index_base`: 0, 1, or -1 to detect (1-based as TUDataset ships, 0-based as the
/// thesis prints). Nodes of one graph must be contiguous. Files may be gzip.
spreading_graphs read_tu_dataset(const std::string& prefix, int index_base = -1, read_stats* stats = nullptr);

/// Writes `graphs` as a 0-based TU collection under `prefix` (used by `generate rsg`).
void write_tu_dataset(const spreading_graphs& graphs, const std::string& prefix);

/// Twitter15/16 propagation trees: `path` is the .tar.gz (or .tar) archive, read in memory, or a
/// folder holding `tree/` (or the tree folder itself). One graph per tree file, one node per user;
/// a line `[parent] -> [child]` gives the back edge child -> parent when the parent posted no
/// later than the child (ties: the parent's first appearance wins); other lines are counted in
/// `late_parent_edges_dropped`. Base values default to 1.
spreading_graphs read_propagation_trees(const std::string& path, read_stats* stats = nullptr);

/// Follower counts, one "user_id count" line each ('#' comments, comma or blank separated). Sets
/// base = count for every node whose user is listed; returns how many nodes were set.
std::uint64_t apply_follower_counts(spreading_graphs& graphs, const std::string& path);
/// The same file as a per-user vector over `users` (users not listed keep `fallback[u]`).
std::vector<double> read_follower_counts(const std::string& path, const user_table& users,
                                         std::vector<double> fallback);

/// Follower graph edge list: "u v" per line ('#' comments, blank or comma separated). With
/// `follower_first` false (default) the line means v follows u; with true, u follows v.
follower_graph read_follower_graph(const std::string& path, user_table& users, bool follower_first = false);

/// Retweet log: "tweet_id user_id time" per line. The publisher of a tweet is its earliest record.
retweet_log read_retweet_log(const std::string& path, user_table& users, read_stats* stats = nullptr);

}  // namespace wildfire::twitter
