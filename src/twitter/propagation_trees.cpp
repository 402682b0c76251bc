// Twitter15/16 propagation trees (Ma, Gao and Wong, ACL 2017): one file per source tweet, lines
// "['uid', 'tweet id', 'delay']->['uid', 'tweet id', 'delay']", read from the archive or a folder.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <numeric>
#include <unordered_map>

#include "twitter/tar_archive.hpp"
#include "twitter/text_lines.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/forward_phase.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/util/file_reader.hpp"

namespace wildfire::twitter {

namespace {

struct tree_node {
  std::string_view user;
  double delay = 0.0;
};

/// "['uid', 'tweet id', 'delay']" -> (uid, delay); ROOT gives user "ROOT".
tree_node parse_tuple(std::string_view text, const std::string& file, std::uint64_t line) {
  auto trim = [](std::string_view s) {
    const std::size_t a = s.find_first_not_of(" \t'\"");
    const std::size_t b = s.find_last_not_of(" \t'\"");
    return a == std::string_view::npos ? std::string_view{} : s.substr(a, b - a + 1);
  };
  const std::size_t open = text.find('['), close = text.rfind(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    throw input_error(file, line, "expected ['uid', 'tweet id', 'delay'], got " + detail::quoted(text));
  }
  std::string_view inner = text.substr(open + 1, close - open - 1);
  std::string_view parts[3];
  for (int k = 0; k < 3; ++k) {
    const std::size_t comma = inner.find(',');
    if ((k < 2) == (comma == std::string_view::npos)) {
      throw input_error(file, line, "expected three fields in " + detail::quoted(text));
    }
    parts[k] = trim(inner.substr(0, comma));
    inner = k < 2 ? inner.substr(comma + 1) : std::string_view{};
  }
  if (parts[0].empty()) throw input_error(file, line, "empty user id in " + detail::quoted(text));
  tree_node node{parts[0], 0.0};
  if (parts[0] != "ROOT") node.delay = detail::parse_real(parts[2], file, line, "a delay in minutes");
  return node;
}

/// One tree file parsed: users in local order, back edges between local ids, dropped lines.
struct parsed_tree {
  std::vector<std::string_view> users;  // local order: (time, first appearance), publisher first
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  read_stats stats;
};

/// Users are the nodes; local ids follow (time, first appearance), the root's child first. A
/// line's back edge child -> parent is kept only when the parent comes earlier in that order:
/// spreading only goes forward in time (thesis sec. 2.3.1, assumption 5), which also keeps the
/// graph acyclic although the raw trees repeat users. Pure: runs in parallel over files.
parsed_tree parse_tree(std::string_view bytes, const std::string& file) {
  std::unordered_map<std::string_view, std::uint32_t> index;  // user -> first-appearance order
  std::vector<std::string_view> names;
  std::vector<double> time;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lines;  // (child, parent) in appearance ids
  std::int64_t publisher = -1;
  auto node_of = [&](const tree_node& n) {
    auto [it, inserted] = index.try_emplace(n.user, static_cast<std::uint32_t>(names.size()));
    if (inserted) {
      names.push_back(n.user);
      time.push_back(n.delay);
    } else {
      time[it->second] = std::min(time[it->second], n.delay);
    }
    return it->second;
  };
  detail::for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
    const std::size_t arrow = text.find("->");
    if (arrow == std::string_view::npos) throw input_error(file, line, "expected \"[parent]->[child]\", got " + detail::quoted(text));
    const tree_node parent = parse_tuple(text.substr(0, arrow), file, line);
    const tree_node child = parse_tuple(text.substr(arrow + 2), file, line);
    if (child.user == "ROOT") throw input_error(file, line, "ROOT cannot be a child");
    const std::uint32_t c = node_of(child);
    if (parent.user == "ROOT") {
      if (publisher >= 0 && static_cast<std::uint32_t>(publisher) != c) throw input_error(file, line, "a second ROOT line");
      publisher = c;
      return;
    }
    lines.emplace_back(c, node_of(parent));
  });
  if (publisher < 0) throw input_error(file, 0, "no ROOT line: the tree has no publisher");
  const std::uint32_t n = static_cast<std::uint32_t>(names.size());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const auto p = static_cast<std::uint32_t>(publisher);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (a == p || b == p) return a == p && b != p;
    return time[a] < time[b];
  });
  std::vector<std::uint32_t> rank(n);
  for (std::uint32_t k = 0; k < n; ++k) rank[order[k]] = k;
  parsed_tree tree;
  for (const auto& [child, parent] : lines) {
    if (child == parent) {
      ++tree.stats.self_loops_dropped;
    } else if (rank[parent] > rank[child]) {
      ++tree.stats.late_parent_edges_dropped;
    } else {
      tree.edges.emplace_back(rank[child], rank[parent]);
    }
  }
  tree.users.resize(n);
  for (std::uint32_t k = 0; k < n; ++k) tree.users[k] = names[order[k]];
  return tree;
}

/// Parses every (tweet id, bytes, name) in parallel, then appends in order; the first failing
/// file (in that order) is the error reported.
void add_trees(spreading_graphs& g, user_table& users, const std::vector<std::string>& tweets,
               const std::vector<std::string_view>& contents, const std::vector<std::string>& names, read_stats& stats) {
  const std::size_t count = tweets.size();
  std::vector<parsed_tree> trees(count);
  std::vector<std::exception_ptr> errors(count);
#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(count); ++k) {
    const auto i = static_cast<std::size_t>(k);
    try {
      trees[i] = parse_tree(contents[i], names[i]);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  for (std::size_t i = 0; i < count; ++i) {
    parsed_tree& t = trees[i];
    std::vector<std::uint32_t> node_user(t.users.size());
    for (std::size_t k = 0; k < t.users.size(); ++k) node_user[k] = users.intern(t.users[k]);
    stats.self_loops_dropped += t.stats.self_loops_dropped;
    stats.late_parent_edges_dropped += t.stats.late_parent_edges_dropped;
    stats.repeated_edges_dropped +=
        append_graph(g, tweets[i], std::vector<double>(t.users.size(), 1.0), node_user, std::move(t.edges));
  }
}

/// "…/tree/123.txt" -> "123" when the path is a tree file, else "".
std::string tree_tweet_id(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.extension() != ".txt" || p.parent_path().filename() != "tree") return "";
  return p.stem().string();
}

}  // namespace

spreading_graphs read_propagation_trees(const std::string& path, read_stats* stats_out) {
  read_stats stats;
  spreading_graphs g;
  user_table users;
  std::vector<std::string> tweets, names;
  std::vector<std::string_view> contents;
  std::vector<std::string> file_bytes;  // folder input: owns the contents
  std::string archive_bytes;            // archive input: owns the contents
  if (std::filesystem::is_directory(path)) {
    std::filesystem::path dir = path;
    if (std::filesystem::is_directory(dir / "tree")) dir /= "tree";
    std::vector<std::pair<std::string, std::string>> files;  // (tweet id, file path)
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".txt") {
        files.emplace_back(entry.path().stem().string(), entry.path().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& [tweet, file] : files) {
      tweets.push_back(tweet);
      names.push_back(file);
      file_bytes.push_back(read_file_bytes(file));
    }
    for (const auto& bytes : file_bytes) contents.emplace_back(bytes);
  } else {
    archive_bytes = read_file_bytes(path);
    auto entries = detail::read_tar_entries(archive_bytes, path);
    std::vector<std::pair<std::string, std::size_t>> trees;
    for (std::size_t k = 0; k < entries.size(); ++k) {
      if (std::string id = tree_tweet_id(entries[k].path); !id.empty()) trees.emplace_back(std::move(id), k);
    }
    if (trees.empty()) throw input_error(path, 0, "no tree/<tweet id>.txt members: not a Twitter15/16 archive");
    std::sort(trees.begin(), trees.end());
    for (const auto& [tweet, k] : trees) {
      tweets.push_back(tweet);
      names.push_back(path + ":" + entries[k].path);
      contents.push_back(entries[k].data);
    }
  }
  add_trees(g, users, tweets, contents, names, stats);
  if (g.num_graphs() == 0) throw input_error(path, 0, "no propagation trees found");
  g.user_ids = users.ids();
  if (stats_out) *stats_out = stats;
  return g;
}

std::vector<double> read_follower_counts(const std::string& path, const user_table& users, std::vector<double> counts) {
  const std::string bytes = read_file_bytes(path);
  detail::for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
    const auto fields = detail::split_fields(text);
    if (fields.size() != 2) throw input_error(path, line, "expected \"user_id followers\", got " + detail::quoted(text));
    const double count = detail::parse_number(fields[1], path, line, "a follower count");
    if (const std::uint32_t u = users.find(fields[0]); u != user_table::none && u < counts.size()) counts[u] = count;
  });
  return counts;
}

std::uint64_t apply_follower_counts(spreading_graphs& g, const std::string& path) {
  user_table users;
  for (const auto& id : g.user_ids) users.intern(id);
  std::vector<double> unset(g.user_ids.size(), -1.0);
  const std::vector<double> counts = read_follower_counts(path, users, std::move(unset));
  std::uint64_t set = 0;
  for (std::uint64_t i = 0; i < g.num_nodes(); ++i) {
    if (const double c = counts[g.node_user[i]]; c >= 0.0) {
      g.base[i] = c;
      ++set;
    }
  }
  return set;
}

}  // namespace wildfire::twitter
