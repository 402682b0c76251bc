// Forward phase on the CPU (thesis Algorithm 1, corrected in the digest): BFS over the follower
// graph from the publisher, restricted to the tweet's participants, keeping time-increasing edges.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "wildfire/error.hpp"
#include "wildfire/twitter/forward_phase.hpp"

namespace wildfire::twitter {

std::uint32_t user_table::intern(std::string_view id) {
  auto [it, inserted] = index_.try_emplace(std::string(id), static_cast<std::uint32_t>(ids_.size()));
  if (inserted) ids_.emplace_back(id);
  return it->second;
}

std::uint32_t user_table::find(std::string_view id) const {
  const auto it = index_.find(std::string(id));
  return it == index_.end() ? none : it->second;
}

std::uint64_t group_retweets(std::vector<retweet_record> records, std::vector<std::string> tweet_ids,
                             retweet_log& log) {
  // Stable: records with equal times keep their input order, which breaks the tie (the thesis
  // assumes distinct times, sec. 2.3.1 assumption 5).
  std::stable_sort(records.begin(), records.end(), [](const retweet_record& a, const retweet_record& b) {
    return a.tweet != b.tweet ? a.tweet < b.tweet : a.time < b.time;
  });
  log = retweet_log{};
  log.tweet_ids = std::move(tweet_ids);
  std::uint64_t dropped = 0;
  std::vector<std::uint32_t> seen_in;  // per user: tweet + 1 of its last record
  std::size_t k = 0;
  for (std::uint32_t t = 0; t < log.tweet_ids.size(); ++t) {
    for (; k < records.size() && records[k].tweet == t; ++k) {
      const auto& r = records[k];
      if (seen_in.size() <= r.user) seen_in.resize(r.user + 1, 0);
      if (seen_in[r.user] == t + 1) {
        ++dropped;  // a user's later record of the same tweet: the first exposure counts
        continue;
      }
      seen_in[r.user] = t + 1;
      log.users.push_back(r.user);
      log.times.push_back(r.time);
    }
    log.offsets.push_back(log.users.size());
  }
  return dropped;
}

namespace {

struct forward_scratch {
  std::vector<std::uint32_t> local_of;  // per user: local index in the current tweet, or none
  std::vector<std::uint32_t> queue;
  std::vector<char> visited;
};

/// Builds S_t; returns its edges as (local retweeter, local earlier participant) pairs.
std::vector<std::pair<std::uint32_t, std::uint32_t>> spread_graph(const follower_graph& f, const retweet_log& log,
                                                                  std::uint64_t t, forward_scratch& s,
                                                                  std::uint64_t& unreachable) {
  const std::uint64_t lo = log.offsets[t];
  const std::uint32_t n = static_cast<std::uint32_t>(log.offsets[t + 1] - lo);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  if (n == 0) return edges;
  for (std::uint32_t i = 0; i < n; ++i) s.local_of[log.users[lo + i]] = i;
  s.visited.assign(n, 0);
  s.queue.resize(n);
  std::uint32_t head = 0, tail = 0;
  s.queue[tail++] = 0;
  s.visited[0] = 1;
  while (head < tail) {
    const std::uint32_t u = s.queue[head++];
    const std::uint32_t user = log.users[lo + u];
    if (user >= f.num_users()) continue;
    for (std::uint64_t j = f.offsets[user]; j < f.offsets[user + 1]; ++j) {
      const std::uint32_t v = s.local_of[f.followers[j]];
      // Local indices follow time order, so "TIME(u) < TIME(v)" is u < v. Algorithm 1 as printed
      // enqueues v once per qualifying u (the text's "at most once" does not hold); we guard the
      // enqueue with `visited` and still add the edge for every qualifying pair.
      if (v == user_table::none || v <= u) continue;
      edges.emplace_back(v, u);
      if (!s.visited[v]) {
        s.visited[v] = 1;
        s.queue[tail++] = v;
      }
    }
  }
  unreachable += n - tail;
  for (std::uint32_t i = 0; i < n; ++i) s.local_of[log.users[lo + i]] = user_table::none;
  return edges;
}

spreading_graphs forward_impl(const follower_graph& f, const retweet_log& log, const std::vector<double>& followers_count,
                              const std::vector<std::string>& user_ids, forward_stats* stats, int threads) {
  const std::uint64_t num_users = user_ids.size();
  WF_EXPECTS(followers_count.size() == num_users, "--followers", "one follower count per user is needed");
  for (std::uint32_t u : log.users) {
    if (u >= num_users) throw input_error("retweet log", 0, "user index out of range");
  }
  const std::uint64_t num_tweets = log.num_tweets();
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> edges(num_tweets);
  std::uint64_t unreachable = 0;
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : unreachable)
  {
    forward_scratch s;
    s.local_of.assign(num_users, user_table::none);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t t = 0; t < static_cast<std::int64_t>(num_tweets); ++t) {
      edges[static_cast<std::uint64_t>(t)] = spread_graph(f, log, static_cast<std::uint64_t>(t), s, unreachable);
    }
  }
  spreading_graphs g;
  g.user_ids = user_ids;
  for (std::uint64_t t = 0; t < num_tweets; ++t) {
    const std::uint64_t lo = log.offsets[t], hi = log.offsets[t + 1];
    std::vector<std::uint32_t> users(log.users.begin() + static_cast<std::ptrdiff_t>(lo),
                                     log.users.begin() + static_cast<std::ptrdiff_t>(hi));
    std::vector<double> base(users.size());
    for (std::size_t i = 0; i < users.size(); ++i) base[i] = followers_count[users[i]];
    append_graph(g, log.tweet_ids[t], base, users, std::move(edges[t]));
  }
  if (stats) {
    stats->unreachable_retweeters = unreachable;
    stats->forward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return g;
}

}  // namespace

spreading_graphs forward_sequential(const follower_graph& f, const retweet_log& log,
                                    const std::vector<double>& followers_count,
                                    const std::vector<std::string>& user_ids, forward_stats* stats) {
  return forward_impl(f, log, followers_count, user_ids, stats, 1);
}

spreading_graphs forward_openmp(const follower_graph& f, const retweet_log& log,
                                const std::vector<double>& followers_count,
                                const std::vector<std::string>& user_ids, forward_stats* stats, int num_threads) {
  WF_EXPECTS(num_threads >= 0, "-p", "thread count must be >= 0");
  return forward_impl(f, log, followers_count, user_ids, stats,
                      num_threads > 0 ? num_threads : omp_get_max_threads());
}

}  // namespace wildfire::twitter
