// Combining per-tweet influence into per-user scores (thesis sec. 2.3.5): totals, means per
// participation and the top users by either.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter {

/// Per dense user: total = sum over tweets of I_t(v); tweets = number of tweets v took part in
/// (participation, not non-zero influence: the digest's erratum on T_v); mean = total / tweets.
struct user_scores {
  std::vector<double> total;
  std::vector<std::uint32_t> tweets;
  std::vector<double> mean;
};

/// O(N + U). Sums in node order, so the result is deterministic for a given influence vector.
user_scores combine_by_user(const spreading_graphs& graphs, const std::vector<double>& influence);

enum class rank_key { total, mean };
/// The k users (all when k == 0) with the largest key, ties by smaller dense index; only users that
/// took part in at least one tweet.
std::vector<std::uint32_t> top_users(const user_scores& scores, rank_key key, std::uint64_t k);

}  // namespace wildfire::twitter
