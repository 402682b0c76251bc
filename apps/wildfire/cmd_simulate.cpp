// `wildfire simulate`: Monte-Carlo spread of a seed set given by ORIGINAL ids (a list or a file)
// under IC or LT: mean, standard error and 95% interval over R worlds (fused forward traversals).
#include <fmt/core.h>

#include <sstream>
#include <unordered_map>

#include "backend_options.hpp"
#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "ris_run.hpp"
#include "wildfire/sampling/spread_simulator.hpp"
#include "wildfire/util/file_reader.hpp"

namespace wildfire::cli {
namespace {

struct simulate_cli_options {
  graph_load_options graph;
  backend_cli_options backend;
  std::string seeds;       // comma- or space-separated original ids
  std::string seeds_file;  // whitespace-separated original ids; '#' starts a comment
  std::uint64_t worlds = 10000;
  std::uint64_t first_world = 0;
  std::string model = "IC";
  std::string output;
};

/// Original ids from `text`; `source` names the flag or file for errors.
std::vector<std::uint64_t> parse_ids(const std::string& text, const std::string& source, bool is_file) {
  std::vector<std::uint64_t> ids;
  std::istringstream lines(text);
  std::string line;
  std::uint64_t line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      std::size_t used = 0;
      std::uint64_t id = 0;
      try {
        id = std::stoull(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size() || word[0] == '-') {
        if (is_file) throw input_error(source, line_number, "expected a vertex id, got \"" + word + "\"");
        throw config_error(source, "expected a vertex id, got \"" + word + "\"");
      }
      ids.push_back(id);
    }
  }
  return ids;
}

void run_simulate_command(const simulate_cli_options& o) {
  WF_EXPECTS(!o.seeds.empty() || !o.seeds_file.empty(), "--seeds", "give the seeds with --seeds or --seeds-file");
  WF_EXPECTS(o.worlds >= 2, "-R", "at least 2 worlds are needed for a standard error");
  const ris_run run = start_ris_run(o.graph, o.backend, o.model);
  const csr_graph& graph = run.graph;

  std::vector<std::uint64_t> original = parse_ids(o.seeds, "--seeds", false);
  if (!o.seeds_file.empty()) {
    const auto from_file = parse_ids(read_file_bytes(o.seeds_file), o.seeds_file, true);
    original.insert(original.end(), from_file.begin(), from_file.end());
  }
  std::unordered_map<std::uint64_t, std::uint32_t> dense_of;
  for (std::uint32_t v = 0; v < graph.num_vertices; ++v)
    dense_of.emplace(graph.original_ids.empty() ? v : graph.original_ids[v], v);
  std::vector<std::uint32_t> seeds;
  for (const auto id : original) {
    const auto it = dense_of.find(id);
    if (it == dense_of.end()) throw config_error("--seeds", "vertex " + std::to_string(id) + " is not in the graph");
    seeds.push_back(it->second);
  }

  stopwatch setup_clock;
  auto simulator = make_spread_simulator(run.config, graph, run.params);
  const double setup_seconds = setup_clock.seconds();
  const spread_estimate estimate = simulator->estimate(seeds, o.first_world, o.worlds);

  nlohmann::json out = graph_input_json(o.graph, graph);
  out["Seeds"] = original_ids_json(graph, seeds);
  out["DiffusionModel"] = std::string(to_string(run.params.model));
  out["Worlds"] = estimate.worlds;
  out["FirstWorld"] = o.first_world;
  out["Spread"] = estimate.mean;
  out["StdErr"] = estimate.standard_error;
  out["CI95"] = {estimate.ci95_low, estimate.ci95_high};
  out["EdgesExamined"] = estimate.edges_examined;
  add_backend_json(out, run, simulator->traversal());
  out["Times"] = times_json(run, setup_seconds, {{"Simulation", estimate.seconds}});
  finish_ris_run(out, run, std::nullopt, 0, o.output);
}

void setup(CLI::App& parent) {
  auto o = std::make_shared<simulate_cli_options>();
  CLI::App* cmd = parent.add_subcommand("simulate", "Monte-Carlo spread of a seed set (mean, standard error, 95% interval)");
  add_graph_input_options(*cmd, o->graph);
  add_backend_options(*cmd, o->backend);
  cmd->add_option("-s,--seeds", o->seeds, "Seed vertices as original ids, e.g. \"12,40,7\"");
  cmd->add_option("--seeds-file", o->seeds_file, "File of seed vertices (original ids, whitespace-separated)");
  cmd->add_option("-R,--worlds", o->worlds, "Number of simulated worlds")->capture_default_str();
  cmd->add_option("--first-world", o->first_world, "Id of the first world (worlds are keyed like RR samples)")
      ->capture_default_str();
  add_ris_run_options(*cmd, o->model, o->output, nullptr);
  cmd->callback([o] { run_simulate_command(*o); });
}

const bool registered = register_command("simulate", &setup);

}  // namespace
}  // namespace wildfire::cli
