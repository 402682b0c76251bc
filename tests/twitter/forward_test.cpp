// Forward phase on the CPU: the worked example's spreading graphs (Table 2.1), unreachable
// retweeters, OpenMP == sequential, and the combination over tweets (sec. 2.3.5).
#include <gtest/gtest.h>

#include <random>

#include <fmt/core.h>

#include "twitter/twitter_fixtures.hpp"
#include "wildfire/twitter/combine.hpp"
#include "wildfire/twitter/influence.hpp"

namespace wildfire::twitter {
namespace {

/// Back edges of graph t as (user, user) names, e.g. "c->a".
std::vector<std::string> named_edges(const spreading_graphs& g, std::uint64_t t) {
  std::vector<std::string> out;
  const std::uint64_t lo = g.graph_offsets[t];
  for (std::uint64_t i = lo; i < g.graph_offsets[t + 1]; ++i) {
    for (std::uint64_t j = g.row_offsets[i]; j < g.row_offsets[i + 1]; ++j) {
      out.push_back(fmt::format("{}->{}", g.user_ids[g.node_user[i]], g.user_ids[g.node_user[lo + g.edge_targets[j]]]));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TwitterForward, WorkedExampleBuildsThesisSpreadingGraphs) {
  forward_stats stats;
  const spreading_graphs g = forward_sequential(testing::example_follower_graph(), testing::example_log(),
                                                testing::example_followers(), testing::example_users(), &stats);
  validate_spreading_graphs(g, "forward");
  ASSERT_EQ(g.num_graphs(), 2u);
  // Sec. 2.3.2: S_0 = {(a,b), (c,b), (d,b), (e,b), (c,a), (e,c), (f,e)}.
  EXPECT_EQ(named_edges(g, 0), (std::vector<std::string>{"a->b", "c->a", "c->b", "d->b", "e->b", "e->c", "f->e"}));
  EXPECT_EQ(named_edges(g, 1), (std::vector<std::string>{"a->b", "c->b", "e->b", "f->e"}));
  EXPECT_EQ(g.node_user[0], 1u);  // the publisher b is local node 0 of each tweet
  EXPECT_EQ(stats.unreachable_retweeters, 0u);
  const influence_result r = backward_sequential(g);
  // Tweet 0 in time order b d a c e f; tweet 1 in time order b e f c a.
  EXPECT_EQ(r.influence, (std::vector<double>{21, 4, 5.25, 8.5, 11, 6, 17, 11, 6, 3, 1}));

  const user_scores s = combine_by_user(g, r.influence);
  EXPECT_EQ(s.total, (std::vector<double>{6.25, 38, 11.5, 4, 22, 12}));
  EXPECT_EQ(s.tweets, (std::vector<std::uint32_t>{2, 2, 2, 1, 2, 2}));
  EXPECT_EQ(s.mean, (std::vector<double>{3.125, 19, 5.75, 4, 11, 6}));
  EXPECT_EQ(top_users(s, rank_key::total, 2), (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(top_users(s, rank_key::mean, 0), (std::vector<std::uint32_t>{1, 4, 5, 2, 3, 0}));
}

TEST(TwitterForward, RetweeterWithoutPathIsIsolated) {
  // g follows nobody who took part: it keeps its own reach and credits nobody.
  follower_graph f = testing::example_follower_graph();
  f.offsets.push_back(f.offsets.back());  // user 6 = g, no followers
  std::vector<retweet_record> records = {{0, 1, 0}, {0, 6, 1}, {0, 3, 2}};
  retweet_log log;
  group_retweets(records, {"t"}, log);
  std::vector<std::string> users = testing::example_users();
  users.push_back("g");
  std::vector<double> followers = testing::example_followers();
  followers.push_back(9);
  forward_stats stats;
  const spreading_graphs g = forward_sequential(f, log, followers, users, &stats);
  EXPECT_EQ(stats.unreachable_retweeters, 1u);
  EXPECT_EQ(named_edges(g, 0), (std::vector<std::string>{"d->b"}));
  EXPECT_EQ(backward_sequential(g).influence, (std::vector<double>{6, 9, 4}));
}

TEST(TwitterForward, RepeatedRecordsKeepTheFirst) {
  retweet_log log;
  EXPECT_EQ(group_retweets({{0, 1, 0}, {0, 2, 5}, {0, 2, 3}}, {"t"}, log), 1u);
  EXPECT_EQ(log.users, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(log.times, (std::vector<double>{0, 3}));
}

/// A random follower graph and log: U users, T tweets of up to 40 participants.
void random_instance(std::uint64_t seed, follower_graph& f, retweet_log& log, std::vector<double>& followers,
                     std::vector<std::string>& users) {
  std::mt19937_64 rng(seed);
  const std::uint32_t num_users = 300;
  std::vector<std::vector<std::uint32_t>> rows(num_users);
  for (std::uint32_t u = 0; u < num_users; ++u) {
    for (std::uint32_t k = 0; k < 12; ++k) {
      const auto v = static_cast<std::uint32_t>(rng() % num_users);
      if (v != u) rows[u].push_back(v);
    }
    std::sort(rows[u].begin(), rows[u].end());
    rows[u].erase(std::unique(rows[u].begin(), rows[u].end()), rows[u].end());
    f.followers.insert(f.followers.end(), rows[u].begin(), rows[u].end());
    f.offsets.push_back(f.followers.size());
    users.push_back(fmt::format("u{}", u));
    followers.push_back(static_cast<double>(rows[u].size()));
  }
  std::vector<retweet_record> records;
  std::vector<std::string> tweets;
  for (std::uint32_t t = 0; t < 60; ++t) {
    tweets.push_back(fmt::format("t{}", t));
    const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng() % 40);
    for (std::uint32_t k = 0; k < n; ++k) {
      records.push_back({t, static_cast<std::uint32_t>(rng() % num_users), static_cast<double>(rng() % 1000)});
    }
  }
  group_retweets(records, tweets, log);
}

TEST(TwitterForward, OpenMpEqualsSequential) {
  follower_graph f;
  retweet_log log;
  std::vector<double> followers;
  std::vector<std::string> users;
  random_instance(21, f, log, followers, users);
  forward_stats a_stats, b_stats;
  const spreading_graphs a = forward_sequential(f, log, followers, users, &a_stats);
  const spreading_graphs b = forward_openmp(f, log, followers, users, &b_stats, 3);
  validate_spreading_graphs(a, "forward");
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.edge_targets, b.edge_targets);
  EXPECT_EQ(a.base, b.base);
  EXPECT_EQ(a_stats.unreachable_retweeters, b_stats.unreachable_retweeters);
  EXPECT_GT(a.num_edges(), 0u);
  // Every edge goes to an earlier participant, so the backward sweep never stalls.
  EXPECT_EQ(backward_sequential(a).num_stalled_nodes, 0u);
}

}  // namespace
}  // namespace wildfire::twitter
