// Per-user totals, participation counts and means over tweets (thesis sec. 2.3.5, with the
// digest's reading of A_v and T_v), and the top users by either score.
#include "wildfire/twitter/combine.hpp"

#include <algorithm>
#include <numeric>

#include "wildfire/error.hpp"

namespace wildfire::twitter {

user_scores combine_by_user(const spreading_graphs& g, const std::vector<double>& influence) {
  WF_EXPECTS(influence.size() == g.num_nodes(), "influence", "one value per node is needed");
  user_scores s;
  const std::size_t num_users = g.user_ids.size();
  s.total.assign(num_users, 0.0);
  s.tweets.assign(num_users, 0);
  s.mean.assign(num_users, 0.0);
  for (std::uint64_t i = 0; i < g.num_nodes(); ++i) {
    s.total[g.node_user[i]] += influence[i];
    ++s.tweets[g.node_user[i]];
  }
  for (std::size_t u = 0; u < num_users; ++u) {
    if (s.tweets[u] > 0) s.mean[u] = s.total[u] / s.tweets[u];
  }
  return s;
}

std::vector<std::uint32_t> top_users(const user_scores& s, rank_key key, std::uint64_t k) {
  std::vector<std::uint32_t> users;
  for (std::uint32_t u = 0; u < s.tweets.size(); ++u) {
    if (s.tweets[u] > 0) users.push_back(u);
  }
  const std::vector<double>& score = key == rank_key::total ? s.total : s.mean;
  auto better = [&](std::uint32_t a, std::uint32_t b) { return score[a] != score[b] ? score[a] > score[b] : a < b; };
  if (k == 0 || k >= users.size()) {
    std::sort(users.begin(), users.end(), better);
  } else {
    std::partial_sort(users.begin(), users.begin() + static_cast<std::ptrdiff_t>(k), users.end(), better);
    users.resize(k);
  }
  return users;
}

}  // namespace wildfire::twitter
