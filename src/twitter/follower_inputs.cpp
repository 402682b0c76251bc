// Inputs of the forward phase: the follower graph F (edge list) and the retweet log
// (tweet, user, time), both as original ids interned into one user table.
#include <algorithm>
#include <unordered_map>

#include "twitter/text_lines.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/util/file_reader.hpp"

namespace wildfire::twitter {

follower_graph read_follower_graph(const std::string& path, user_table& users, bool follower_first) {
  const std::string bytes = read_file_bytes(path);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (followee, follower)
  detail::for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
    const auto fields = detail::split_fields(text);
    if (fields.size() < 2) throw input_error(path, line, "expected two user ids, got " + detail::quoted(text));
    const std::uint32_t a = users.intern(fields[0]), b = users.intern(fields[1]);
    if (a == b) return;  // nobody follows themselves; a self loop would credit a user's own reach
    edges.emplace_back(follower_first ? b : a, follower_first ? a : b);
  });
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  follower_graph f;
  f.offsets.assign(users.size() + 1, 0);
  for (const auto& e : edges) ++f.offsets[e.first + 1];
  for (std::size_t u = 0; u < users.size(); ++u) f.offsets[u + 1] += f.offsets[u];
  f.followers.reserve(edges.size());
  for (const auto& e : edges) f.followers.push_back(e.second);
  return f;
}

retweet_log read_retweet_log(const std::string& path, user_table& users, read_stats* stats) {
  const std::string bytes = read_file_bytes(path);
  std::unordered_map<std::string, std::uint32_t> tweet_index;
  std::vector<std::string> tweet_ids;
  std::vector<retweet_record> records;
  detail::for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
    const auto fields = detail::split_fields(text);
    if (fields.size() != 3) throw input_error(path, line, "expected \"tweet_id user_id time\", got " + detail::quoted(text));
    const double time = detail::parse_number(fields[2], path, line, "a time");
    auto [it, inserted] = tweet_index.try_emplace(std::string(fields[0]), static_cast<std::uint32_t>(tweet_ids.size()));
    if (inserted) tweet_ids.emplace_back(fields[0]);
    records.push_back({it->second, users.intern(fields[1]), time});
  });
  retweet_log log;
  const std::uint64_t dropped = group_retweets(std::move(records), std::move(tweet_ids), log);
  if (stats) stats->repeated_records_dropped += dropped;
  return log;
}

}  // namespace wildfire::twitter
