// `wildfire info -i FILE [--json]`: what the graph is (counts, degrees, top vertices, weak
// components, probabilities), how it was read, and what loading it cost.
#include <fmt/core.h>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "wildfire/graph/graph_statistics.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {
namespace {

struct info_options {
  graph_load_options graph;
  bool json = false;
  std::string output;  // -o: where the report goes (stdout when empty)
  std::size_t top = 10;
};

nlohmann::json degree_json(const degree_summary& d) {
  return nlohmann::json{{"Min", d.min}, {"Mean", d.mean}, {"Max", d.max}};
}

nlohmann::json info_json(const info_options& options, const csr_graph& graph, const graph_statistics& s,
                         double load_seconds) {
  nlohmann::json result = graph_input_json(options.graph, graph);
  const auto& p = graph.provenance;
  result["Directed"] = !p.undirected_input;
  result["SelfLoopsDropped"] = p.self_loops_dropped;
  result["ParallelEdges"] = p.parallel_edges;
  result["ParallelEdgesMerged"] = p.parallel_edges_merged;
  result["InvalidLinesSkipped"] = p.invalid_lines_skipped;
  result["IsolatedVertices"] = s.isolated_vertices;
  result["InDegree"] = degree_json(s.in_degree);
  result["OutDegree"] = degree_json(s.out_degree);
  auto top = nlohmann::json::array();
  for (const auto& v : s.top_out_degree) top.push_back({{"Id", v.original_id}, {"OutDegree", v.degree}});
  result["TopOutDegree"] = top;
  result["WeakComponents"] = s.num_weak_components;
  result["LargestWeakComponent"] = s.largest_weak_component;
  result["Probabilities"] = {{"Model", p.weight_model},
                             {"Min", s.probabilities.min},
                             {"Mean", s.probabilities.mean},
                             {"Max", s.probabilities.max},
                             {"AlwaysLive", s.probabilities.always_live}};
  result["GraphMemoryBytes"] = graph.memory_bytes();
  result["LoadSeconds"] = load_seconds;
  result["PeakMemoryBytes"] = peak_memory_bytes();
  result.update(run_metadata());
  return result;
}

std::string info_text(const info_options& options, const csr_graph& graph, const graph_statistics& s,
                      double load_seconds) {
  const auto& p = graph.provenance;
  std::string out;
  auto line = [&out](const char* key, const std::string& value) { out += fmt::format("{:<22}{}\n", key, value); };
  line("input", fmt::format("{} (format {})", options.graph.path, options.graph.format));
  line("vertices", fmt::format("{} ({} isolated)", graph.num_vertices, s.isolated_vertices));
  line("edges", fmt::format("{} ({})", graph.num_edges, p.undirected_input ? "undirected input, both directions" : "directed"));
  line("self-loops dropped", std::to_string(p.self_loops_dropped));
  line("parallel edges", fmt::format("{} ({} merged)", p.parallel_edges, p.parallel_edges_merged));
  line("invalid lines skipped", std::to_string(p.invalid_lines_skipped));
  line("in-degree", fmt::format("min {}, mean {:.3f}, max {}", s.in_degree.min, s.in_degree.mean, s.in_degree.max));
  line("out-degree", fmt::format("min {}, mean {:.3f}, max {}", s.out_degree.min, s.out_degree.mean, s.out_degree.max));
  std::string top;
  for (const auto& v : s.top_out_degree) top += fmt::format("{}{}:{}", top.empty() ? "" : " ", v.original_id, v.degree);
  line("top out-degree (id:d)", top.empty() ? "-" : top);
  line("weak components",
       fmt::format("{}, largest {} vertices ({:.1f}%)", s.num_weak_components, s.largest_weak_component,
                   graph.num_vertices ? 100.0 * static_cast<double>(s.largest_weak_component) / graph.num_vertices : 0.0));
  line("probabilities", fmt::format("{}: min {:.6g}, mean {:.6g}, max {:.6g}", p.weight_model, s.probabilities.min,
                                    s.probabilities.mean, s.probabilities.max));
  line("graph memory", fmt::format("{:.1f} MiB", static_cast<double>(graph.memory_bytes()) / (1 << 20)));
  line("load time", fmt::format("{:.3f} s", load_seconds));
  line("peak memory", fmt::format("{:.1f} MiB", static_cast<double>(peak_memory_bytes()) / (1 << 20)));
  return out;
}

void run_info(const info_options& options) {
  stopwatch load_time;
  const csr_graph graph = load_graph(options.graph);
  const double load_seconds = load_time.seconds();
  const graph_statistics stats = compute_graph_statistics(graph, options.top);
  if (options.json) {
    write_json(info_json(options, graph, stats, load_seconds), options.output);
  } else {
    write_text(info_text(options, graph, stats, load_seconds), options.output);
  }
}

void setup_info(CLI::App& parent) {
  auto options = std::make_shared<info_options>();
  CLI::App* cmd = parent.add_subcommand("info", "Describe a graph: counts, degrees, components, probabilities");
  add_graph_input_options(*cmd, options->graph);
  cmd->add_flag("--json", options->json, "Print JSON instead of text");
  cmd->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  cmd->add_option("--top", options->top, "How many vertices to list by out-degree")->capture_default_str();
  cmd->callback([options] { run_info(*options); });
}

const bool registered = register_command("info", &setup_info);

}  // namespace
}  // namespace wildfire::cli
