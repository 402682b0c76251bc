// The thesis's input format (sec. 6.2), a TUDataset-style graph collection: edges, graph
// indicator, node labels (user id, followers) and graph labels (publisher); reading and writing.
#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "twitter/text_lines.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/forward_phase.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/util/file_reader.hpp"

namespace wildfire::twitter {

namespace {

/// PREFIX_name.txt, or PREFIX_name.txt.gz when only that exists; "" when neither does.
std::string part_path(const std::string& prefix, const char* name) {
  const std::string plain = prefix + "_" + name + ".txt";
  if (std::filesystem::exists(plain)) return plain;
  if (std::filesystem::exists(plain + ".gz")) return plain + ".gz";
  return "";
}

}  // namespace

spreading_graphs read_tu_dataset(const std::string& prefix, int index_base, read_stats* stats) {
  using detail::for_each_line;
  using detail::split_fields;
  WF_EXPECTS(index_base >= -1 && index_base <= 1, "--tu-base", "index base must be 0, 1 or auto");
  const std::string indicator_path = part_path(prefix, "graph_indicator");
  const std::string edges_path = part_path(prefix, "A");
  const std::string labels_path = part_path(prefix, "node_labels");
  if (indicator_path.empty() || edges_path.empty() || labels_path.empty()) {
    throw input_error(prefix, 0, "a TU collection needs PREFIX_A.txt, PREFIX_graph_indicator.txt and "
                                 "PREFIX_node_labels.txt (plain or .gz)");
  }

  // Graph indicator: node i (line i) belongs to graph g; graphs must be contiguous and numbered
  // without gaps, which is what lets graph offsets replace a per-node graph id (thesis sec. 6.2).
  spreading_graphs g;
  std::vector<std::uint64_t> node_graph;
  {
    const std::string bytes = read_file_bytes(indicator_path);
    std::uint64_t previous = 0;
    for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
      const auto fields = split_fields(text);
      if (fields.size() != 1) throw input_error(indicator_path, line, "expected one graph id, got " + detail::quoted(text));
      std::uint64_t graph = detail::parse_index(fields[0], indicator_path, line, "a graph id");
      if (node_graph.empty()) {
        if (index_base == -1) {
          if (graph > 1) throw input_error(indicator_path, line, "the first graph id must be 0 or 1 (the index base)");
          index_base = static_cast<int>(graph);
        }
        if (graph != static_cast<std::uint64_t>(index_base)) {
          throw input_error(indicator_path, line, "the first graph id must equal the index base " + std::to_string(index_base));
        }
      } else if (graph != previous && graph != previous + 1) {
        throw input_error(indicator_path, line, "graph ids must be contiguous and non-decreasing (previous " +
                                                    std::to_string(previous) + ", got " + std::to_string(graph) + ")");
      }
      previous = graph;
      node_graph.push_back(graph - static_cast<std::uint64_t>(index_base));
    });
  }
  if (index_base == -1) index_base = 0;
  const std::uint64_t num_nodes = node_graph.size();
  const std::uint64_t num_graphs = num_nodes == 0 ? 0 : node_graph.back() + 1;
  std::vector<std::uint64_t> graph_offsets(num_graphs + 1, 0);
  for (std::uint64_t graph : node_graph) ++graph_offsets[graph + 1];
  for (std::uint64_t t = 0; t < num_graphs; ++t) graph_offsets[t + 1] += graph_offsets[t];

  // Node labels: "r_id, followers" (a lone r_id means one follower).
  user_table users;
  std::vector<double> base;
  std::vector<std::uint32_t> node_user;
  {
    const std::string bytes = read_file_bytes(labels_path);
    for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
      const auto fields = split_fields(text);
      if (fields.empty() || fields.size() > 2) {
        throw input_error(labels_path, line, "expected \"user_id, followers\", got " + detail::quoted(text));
      }
      node_user.push_back(users.intern(fields[0]));
      base.push_back(fields.size() == 2 ? detail::parse_number(fields[1], labels_path, line, "a follower count") : 1.0);
    });
    if (base.size() != num_nodes) {
      throw input_error(labels_path, 0, "has " + std::to_string(base.size()) + " node labels for " +
                                            std::to_string(num_nodes) + " nodes in " + indicator_path);
    }
  }

  // Edges "i, j": directed i -> j, retweeter towards the earlier spreader.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> edges(num_graphs);
  {
    const std::string bytes = read_file_bytes(edges_path);
    const std::uint64_t base_index = static_cast<std::uint64_t>(index_base);
    for_each_line(bytes, [&](std::uint64_t line, std::string_view text) {
      const auto fields = split_fields(text);
      if (fields.size() != 2) throw input_error(edges_path, line, "expected two node ids \"i, j\", got " + detail::quoted(text));
      const std::uint64_t i = detail::parse_index(fields[0], edges_path, line, "a node id");
      const std::uint64_t j = detail::parse_index(fields[1], edges_path, line, "a node id");
      if (i < base_index || j < base_index || i - base_index >= num_nodes || j - base_index >= num_nodes) {
        throw input_error(edges_path, line, fmt::format("node id out of range [{}, {}]", base_index,
                                                        num_nodes + base_index - 1));
      }
      const std::uint64_t a = i - base_index, b = j - base_index;
      const std::uint64_t t = node_graph[a];
      if (node_graph[b] != t) {
        throw input_error(edges_path, line, fmt::format("edge joins graphs {} and {}", t, node_graph[b]));
      }
      edges[t].emplace_back(static_cast<std::uint32_t>(a - graph_offsets[t]), static_cast<std::uint32_t>(b - graph_offsets[t]));
    });
  }

  std::vector<std::string> labels;
  if (const std::string path = part_path(prefix, "graph_labels"); !path.empty()) {
    const std::string bytes = read_file_bytes(path);
    for_each_line(bytes, [&](std::uint64_t, std::string_view text) {
      const auto fields = split_fields(text);
      labels.emplace_back(fields.empty() ? std::string_view{} : fields[0]);
    });
    if (labels.size() != num_graphs) {
      throw input_error(path, 0, "has " + std::to_string(labels.size()) + " graph labels for " +
                                     std::to_string(num_graphs) + " graphs");
    }
  }

  std::uint64_t dropped = 0;
  for (std::uint64_t t = 0; t < num_graphs; ++t) {
    const auto lo = static_cast<std::ptrdiff_t>(graph_offsets[t]), hi = static_cast<std::ptrdiff_t>(graph_offsets[t + 1]);
    if (graph_offsets[t + 1] - graph_offsets[t] > 0xfffffffeULL) throw input_error(indicator_path, 0, "graph too large");
    dropped += append_graph(g, labels.empty() ? std::to_string(t) : labels[t],
                            std::vector<double>(base.begin() + lo, base.begin() + hi),
                            std::vector<std::uint32_t>(node_user.begin() + lo, node_user.begin() + hi),
                            std::move(edges[t]));
  }
  g.user_ids = users.ids();
  if (stats) stats->repeated_edges_dropped += dropped;  // self loops and repeats together
  return g;
}

void write_tu_dataset(const spreading_graphs& g, const std::string& prefix) {
  auto open = [&](const char* name) {
    const std::string path = prefix + "_" + name + ".txt";
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!f) throw config_error("-o", "cannot write " + path);
    return f;
  };
  {
    auto f = open("A");
    for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
      const std::uint64_t lo = g.graph_offsets[t];
      for (std::uint64_t i = lo; i < g.graph_offsets[t + 1]; ++i) {
        for (std::uint64_t j = g.row_offsets[i]; j < g.row_offsets[i + 1]; ++j) {
          fmt::print(f.get(), "{}, {}\n", i, lo + g.edge_targets[j]);
        }
      }
    }
  }
  {
    auto f = open("graph_indicator");
    for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
      for (std::uint64_t i = g.graph_offsets[t]; i < g.graph_offsets[t + 1]; ++i) fmt::print(f.get(), "{}\n", t);
    }
  }
  {
    auto f = open("node_labels");
    for (std::uint64_t i = 0; i < g.num_nodes(); ++i) fmt::print(f.get(), "{}, {}\n", g.user_ids[g.node_user[i]], g.base[i]);
  }
  {
    auto f = open("graph_labels");
    for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
      fmt::print(f.get(), "{}\n", t < g.tweet_ids.size() ? g.tweet_ids[t] : std::to_string(t));
    }
  }
}

}  // namespace wildfire::twitter
