// `wildfire convert -i IN -o OUT.wfg`: parse a graph once and write the binary format.
#include <fmt/core.h>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {
namespace {

struct convert_options {
  graph_load_options graph;
  std::string output;
  bool json = false;
};

void run_convert(const convert_options& options) {
  stopwatch load_time;
  const csr_graph graph = load_graph(options.graph);
  const double load_seconds = load_time.seconds();
  stopwatch write_time;
  write_binary_graph(graph, options.output);
  const double write_seconds = write_time.seconds();
  if (options.json) {
    nlohmann::json result = graph_input_json(options.graph, graph);
    result["Output"] = options.output;
    result["LoadSeconds"] = load_seconds;
    result["WriteSeconds"] = write_seconds;
    result["PeakMemoryBytes"] = peak_memory_bytes();
    result.update(run_metadata());
    write_json(result, "-");
    return;
  }
  fmt::print("wrote {} ({} vertices, {} edges, weights {}) in {:.3f} s (load {:.3f} s)\n", options.output,
             graph.num_vertices, graph.num_edges, graph.provenance.weight_model, write_seconds, load_seconds);
}

void setup_convert(CLI::App& parent) {
  auto options = std::make_shared<convert_options>();
  CLI::App* cmd = parent.add_subcommand("convert", "Convert a graph to the binary .wfg format (parse once, load fast)");
  add_graph_input_options(*cmd, options->graph);
  cmd->add_option("-o,--output", options->output, "Output .wfg file")->required();
  cmd->add_flag("--json", options->json, "Print a JSON summary instead of a line of text");
  cmd->callback([options] { run_convert(*options); });
}

const bool registered = register_command("convert", &setup_convert);

}  // namespace
}  // namespace wildfire::cli
