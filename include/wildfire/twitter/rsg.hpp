// RSG, the thesis's random spreading-graph generator (sec. 7.1.2, Algorithm 10): G(n, p)-like DAGs
// with edges from lower to higher ids, 5% outlier vertices linked to every higher id, and a sink
// n - 1 that every vertex reaches. Generated in parallel, keyed by the counter hash (seed, graph).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter {

/// `count` graphs with n uniform in [min_nodes, max_nodes] and edge probability `percent`/100.
struct rsg_batch {
  std::uint64_t count = 0;
  std::uint32_t min_nodes = 1;
  std::uint32_t max_nodes = 1;
  double percent = 4.0;
};

struct rsg_params {
  std::vector<rsg_batch> batches;
  double outlier_probability = 0.05;  // Algorithm 10 line 7
  std::uint64_t seed = 1;
  /// Follower counts (the base influence) are log-uniform integers in [1, max_followers].
  std::uint32_t max_followers = 10000;
};

/// Parses "COUNTxMIN-MAX@PERCENT[,...]" (e.g. "170x1-1@0,5250x2-32@5"); config_error("--batches").
std::vector<rsg_batch> parse_rsg_batches(const std::string& text);

/// Batches calibrated to the thesis's RSG set (Table 7.1 and 7.3: 15,435 graphs, about 2.9M nodes
/// and 450M edges, median n 74, largest n 29.7K with about 40M edges), scaled by `scale` in
/// (0, 1]: graph counts and node ranges shrink together so edges shrink about as scale^3.
std::vector<rsg_batch> thesis_rsg_batches(double scale = 1.0);

/// Generates the graphs: user id of node i is "i" (the graph-local index, as the digest infers
/// from U = max n). Deterministic in (params) whatever the thread count. O(N + M) expected.
spreading_graphs generate_rsg(const rsg_params& params, int num_threads = 0);

}  // namespace wildfire::twitter
