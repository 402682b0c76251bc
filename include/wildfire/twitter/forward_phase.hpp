// Forward phase: each tweet's spreading graph from the follower graph F and the retweet log
// (thesis sec. 2.3.2, Algorithm 1 as corrected in the digest: a visited guard on the enqueue, an
// edge for every qualifying pair). Sequential reference, OpenMP over tweets, GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter {

/// Original user ids interned to dense indices 0 .. U-1, in first-seen order.
class user_table {
 public:
  std::uint32_t intern(std::string_view id);
  /// Dense index of `id`, or -1 (as uint32 max) when unknown.
  std::uint32_t find(std::string_view id) const;
  std::uint32_t size() const noexcept { return static_cast<std::uint32_t>(ids_.size()); }
  const std::vector<std::string>& ids() const noexcept { return ids_; }

  static constexpr std::uint32_t none = 0xffffffffu;

 private:
  std::vector<std::string> ids_;
  std::unordered_map<std::string, std::uint32_t> index_;
};

/// The follower graph F: an edge (u, v) means v follows u, so the tweet flows u -> v (thesis
/// sec. 2.3.1). CSR over dense users: followers of u, sorted ascending, no repeats, no self loops.
struct follower_graph {
  std::vector<std::uint64_t> offsets{0};  // U + 1 (users beyond the graph's own have no followers)
  std::vector<std::uint32_t> followers;
  std::uint64_t num_users() const noexcept { return offsets.size() - 1; }
  std::uint64_t num_followers(std::uint32_t u) const noexcept {
    return u + 1 < offsets.size() ? offsets[u + 1] - offsets[u] : 0;
  }
};

/// The retweet log grouped by tweet: tweet t's participants are users[offsets[t] .. offsets[t+1]),
/// sorted by (time, log order); the first is the publisher. Each user appears once per tweet.
struct retweet_log {
  std::vector<std::string> tweet_ids;
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> users;
  std::vector<double> times;
  std::uint64_t num_tweets() const noexcept { return offsets.size() - 1; }
};

/// What the forward phase dropped or could not connect.
struct forward_stats {
  std::uint64_t unreachable_retweeters = 0;  // no time-increasing follow path from the publisher
  double forward_seconds = 0.0;
};

/// Builds S_t for every tweet. Graph t's local node i is the i-th participant in time order
/// (node 0 is the publisher); base values are `followers_count[user]`; each row is sorted.
/// Retweeters with no path from the publisher are kept as isolated nodes (their own reach counts;
/// they credit nobody). Sequential: O(sum over reachable participants of their follower counts).
spreading_graphs forward_sequential(const follower_graph& f, const retweet_log& log,
                                    const std::vector<double>& followers_count,
                                    const std::vector<std::string>& user_ids, forward_stats* stats = nullptr);

/// The same, tweets distributed over OpenMP threads; identical output.
spreading_graphs forward_openmp(const follower_graph& f, const retweet_log& log,
                                const std::vector<double>& followers_count,
                                const std::vector<std::string>& user_ids, forward_stats* stats = nullptr,
                                int num_threads = 0);

/// GPU forward phase (candidate edges per participant, then reachability per tweet, then
/// compaction); identical output. Blocking; config_error("--device") without CUDA.
spreading_graphs forward_gpu(const follower_graph& f, const retweet_log& log,
                             const std::vector<double>& followers_count,
                             const std::vector<std::string>& user_ids, forward_stats* stats = nullptr);

/// Groups raw log records into a retweet_log: sorts each tweet's records by (time, input order),
/// keeps the first record of a user within a tweet. Returns how many repeated records were dropped.
struct retweet_record {
  std::uint32_t tweet;  // dense tweet index
  std::uint32_t user;
  double time;
};
std::uint64_t group_retweets(std::vector<retweet_record> records, std::vector<std::string> tweet_ids,
                             retweet_log& log);

}  // namespace wildfire::twitter
