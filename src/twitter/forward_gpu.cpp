// forward_gpu: host preparation (the follower graph's in-CSR, per-tweet sorted participant
// lists), the CUDA candidate/reachability kernels, then compaction into sorted rows. Without CUDA
// it explains that this build has none.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "wildfire/error.hpp"
#include "wildfire/twitter/forward_phase.hpp"

#ifdef WF_HAVE_CUDA
#include "cuda/twitter_forward.hpp"
#endif

namespace wildfire::twitter {

spreading_graphs forward_gpu(const follower_graph& f, const retweet_log& log, const std::vector<double>& followers_count,
                             const std::vector<std::string>& user_ids, forward_stats* stats) {
#ifdef WF_HAVE_CUDA
  const std::uint64_t num_users = f.num_users(), num_tweets = log.num_tweets(), num_nodes = log.users.size();
  WF_EXPECTS(followers_count.size() == user_ids.size(), "--followers", "one follower count per user is needed");
  for (std::uint32_t u : log.users) {
    if (u >= user_ids.size()) throw input_error("retweet log", 0, "user index out of range");
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::uint64_t> in_offsets(num_users + 1, 0);
  for (std::uint32_t v : f.followers) ++in_offsets[v + 1];
  for (std::uint64_t u = 0; u < num_users; ++u) in_offsets[u + 1] += in_offsets[u];
  std::vector<std::uint32_t> followees(f.followers.size());
  {
    std::vector<std::uint64_t> cursor(in_offsets.begin(), in_offsets.end() - 1);
    for (std::uint32_t u = 0; u < num_users; ++u) {
      for (std::uint64_t j = f.offsets[u]; j < f.offsets[u + 1]; ++j) followees[cursor[f.followers[j]]++] = u;
    }
  }
  std::vector<std::uint32_t> sorted_users(num_nodes), sorted_local(num_nodes), node_tweet(num_nodes);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t ti = 0; ti < static_cast<std::int64_t>(num_tweets); ++ti) {
    const auto t = static_cast<std::uint64_t>(ti);
    const std::uint64_t lo = log.offsets[t], hi = log.offsets[t + 1];
    std::vector<std::uint32_t> order(hi - lo);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return log.users[lo + a] < log.users[lo + b]; });
    for (std::uint64_t k = 0; k < hi - lo; ++k) {
      sorted_users[lo + k] = log.users[lo + order[k]];
      sorted_local[lo + k] = order[k];
      node_tweet[lo + k] = static_cast<std::uint32_t>(t);
    }
  }
  const cuda::twitter_forward_output out = cuda::twitter_forward_candidates(
      {&in_offsets, &followees, &log.offsets, &log.users, &sorted_users, &sorted_local, &node_tweet});

  // Keep (v, u) when u is reachable from the publisher; rows sorted, as the CPU builds them.
  spreading_graphs g;
  g.user_ids = user_ids;
  g.graph_offsets = log.offsets;
  g.node_user = log.users;
  g.tweet_ids = log.tweet_ids;
  g.base.resize(num_nodes);
  std::vector<std::uint64_t> kept(num_nodes + 1, 0);
  std::uint64_t unreachable = 0;
#pragma omp parallel for reduction(+ : unreachable)
  for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(num_nodes); ++ii) {
    const auto i = static_cast<std::uint64_t>(ii);
    const std::uint64_t lo = log.offsets[node_tweet[i]];
    std::uint64_t c = 0;
    for (std::uint64_t j = out.offsets[i]; j < out.offsets[i + 1]; ++j) c += out.reach[lo + out.candidates[j]] != 0;
    kept[i + 1] = c;
    unreachable += out.reach[i] == 0;
    g.base[i] = followers_count[log.users[i]];
  }
  for (std::uint64_t i = 0; i < num_nodes; ++i) kept[i + 1] += kept[i];
  g.row_offsets = kept;
  g.edge_targets.resize(kept.back());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(num_nodes); ++ii) {
    const auto i = static_cast<std::uint64_t>(ii);
    const std::uint64_t lo = log.offsets[node_tweet[i]];
    std::uint32_t* first = g.edge_targets.data() + kept[i];
    std::uint32_t* out_edge = first;
    for (std::uint64_t j = out.offsets[i]; j < out.offsets[i + 1]; ++j) {
      if (out.reach[lo + out.candidates[j]]) *out_edge++ = out.candidates[j];
    }
    std::sort(first, out_edge);
  }
  if (stats) {
    stats->unreachable_retweeters = unreachable;
    stats->forward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return g;
#else
  (void)f, (void)log, (void)followers_count, (void)user_ids, (void)stats;
  throw config_error("--device", "this build has no CUDA backend (nvcc was not found at build time)");
#endif
}

}  // namespace wildfire::twitter
