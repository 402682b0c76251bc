// `wildfire info -i FILE [--json]`: what the graph is (counts, degrees, top vertices, weak
// components, probabilities), how it was read, and what loading it cost.
#include <fmt/core.h>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/degree_plot.hpp"
#include "wildfire/graph/graph_statistics.hpp"
#include "wildfire/graph/power_law_fit.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {
namespace {

struct info_options {
  graph_load_options graph;
  bool json = false;
  std::string output;  // -o: where the report goes (stdout when empty)
  std::size_t top = 10;
  bool degrees = false;             // --degrees: distribution and power-law fit
  std::string degree_kind = "total";
  std::string plot;                 // --plot FILE.png|svg (implies --degrees)
};

/// The degree distribution `info --degrees` reports: total (in + out; for --undirected input,
/// where both directions are stored, the undirected degree), in or out; with its discrete
/// power-law fit (Clauset-Shalizi-Newman x_min).
struct degree_report {
  std::vector<value_count> counts;
  std::optional<power_law_fit_result> fit;
};

degree_report compute_degree_report(const info_options& options, const csr_graph& graph) {
  std::vector<std::uint64_t> degree(graph.num_vertices);
  const bool undirected = graph.provenance.undirected_input;
  for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
    if (options.degree_kind == "in") degree[v] = graph.in_degree(v);
    else if (options.degree_kind == "out" || undirected) degree[v] = graph.out_degree(v);
    else degree[v] = graph.in_degree(v) + graph.out_degree(v);
  }
  degree_report report;
  report.counts = count_values(degree);
  report.fit = fit_discrete_power_law(report.counts);
  return report;
}

nlohmann::json degree_report_json(const info_options& options, const degree_report& r) {
  auto counts = nlohmann::json::array();
  for (const auto& vc : r.counts) counts.push_back({vc.value, vc.count});
  nlohmann::json out{{"Kind", options.degree_kind}, {"Counts", counts}};
  if (r.fit) {
    out["PowerLawFit"] = {{"Alpha", r.fit->alpha},           {"AlphaStdErr", r.fit->alpha_stderr},
                          {"XMin", r.fit->x_min},            {"TailCount", r.fit->tail_count},
                          {"FittedCount", r.fit->total_count}, {"KsDistance", r.fit->ks_distance},
                          {"Method", "discrete MLE, x_min by minimum KS distance (Clauset-Shalizi-Newman 2009)"}};
  } else {
    out["PowerLawFit"] = nullptr;
  }
  if (!options.plot.empty()) out["Plot"] = options.plot;
  return out;
}

std::string degree_report_text(const info_options& options, const degree_report& r) {
  std::string out;
  std::uint64_t total = 0;
  for (const auto& vc : r.counts) total += vc.count;
  out += fmt::format("{:<22}{} degree, {} distinct values\n", "degree distribution", options.degree_kind,
                     r.counts.size());
  if (r.fit) {
    out += fmt::format("{:<22}alpha = {:.3f} +- {:.3f} for k >= {} ({} vertices, KS distance {:.4f}; discrete MLE, "
                       "CSN x_min)\n",
                       "power-law fit", r.fit->alpha, r.fit->alpha_stderr, r.fit->x_min, r.fit->tail_count,
                       r.fit->ks_distance);
  } else {
    out += fmt::format("{:<22}not enough vertices of positive degree\n", "power-law fit");
  }
  // Log-binned table (bins doubling from 1; degree 0 alone), so heavy tails stay readable.
  out += fmt::format("  {:>21} {:>12} {:>12}\n", "degree k", "vertices", "fraction");
  std::size_t i = 0;
  for (std::uint64_t lo = 0, hi = 0; i < r.counts.size(); lo = hi + 1, hi = 2 * hi + 1) {
    std::uint64_t in_bin = 0;
    while (i < r.counts.size() && r.counts[i].value <= hi) in_bin += r.counts[i++].count;
    if (in_bin == 0) continue;
    const std::string range = lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
    out += fmt::format("  {:>21} {:>12} {:>12.6f}\n", range, in_bin, static_cast<double>(in_bin) / total);
  }
  if (!options.plot.empty()) out += fmt::format("{:<22}{}\n", "degree plot", options.plot);
  return out;
}

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
  const bool degrees = options.degrees || !options.plot.empty();
  degree_report report;
  if (degrees) {
    report = compute_degree_report(options, graph);
    if (!options.plot.empty()) {
      degree_plot_options plot;
      plot.title = fmt::format("{} ({} vertices, {} edges)", options.graph.path, graph.num_vertices, graph.num_edges);
      plot.x_label = options.degree_kind + " degree k";
      plot.fit = report.fit;
      write_degree_plot(report.counts, options.plot, plot);
    }
  }
  if (options.json) {
    nlohmann::json result = info_json(options, graph, stats, load_seconds);
    if (degrees) result["DegreeDistribution"] = degree_report_json(options, report);
    write_json(result, options.output);
  } else {
    write_text(info_text(options, graph, stats, load_seconds) + (degrees ? degree_report_text(options, report) : ""),
               options.output);
  }
}

void setup_info(CLI::App& parent) {
  auto options = std::make_shared<info_options>();
  CLI::App* cmd = parent.add_subcommand("info", "Describe a graph: counts, degrees, components, probabilities");
  add_graph_input_options(*cmd, options->graph);
  cmd->add_flag("--json", options->json, "Print JSON instead of text");
  cmd->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  cmd->add_option("--top", options->top, "How many vertices to list by out-degree")->capture_default_str();
  cmd->add_flag("--degrees", options->degrees,
                "Degree distribution with a discrete power-law fit (MLE, Clauset-Shalizi-Newman x_min)");
  cmd->add_option("--degree-kind", options->degree_kind, "Degree for --degrees: total (in + out), in or out")
      ->check(CLI::IsMember({"total", "in", "out"}))
      ->capture_default_str();
  cmd->add_option("--plot", options->plot, "Draw the log-log degree distribution to FILE.png or FILE.svg");
  cmd->callback([options] { run_info(*options); });
}

const bool registered = register_command("info", &setup_info);

}  // namespace
}  // namespace wildfire::cli
