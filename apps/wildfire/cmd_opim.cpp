// `wildfire opim`: influence maximization by OPIM-C (Tang, Tang, Xiao, Yuan 2018), reporting the
// approximation ratio it certifies for this instance; --verify R checks the spread by Monte Carlo.

#include "backend_options.hpp"
#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "ris_run.hpp"
#include "wildfire/algorithms/opim.hpp"
#include "wildfire/algorithms/spread_check.hpp"

namespace wildfire::cli {
namespace {

struct opim_cli_options {
  graph_load_options graph;
  backend_cli_options backend;
  std::uint32_t k = 50;
  double epsilon = 0.1;
  double delta = 0;
  std::string model = "IC";
  std::uint64_t verify_worlds = 0;
  std::string output;
};

void run_opim_command(const opim_cli_options& o) {
  const ris_run run = start_ris_run(o.graph, o.backend, o.model);
  const csr_graph& graph = run.graph;
  const sampling_params& params = run.params;

  stopwatch setup_clock;
  auto r1 = make_rr_collection(run.config, graph, params);
  auto r2 = make_rr_collection(run.config, graph, params);
  const double setup_seconds = setup_clock.seconds();
  opim_options options;
  options.k = o.k;
  options.epsilon = o.epsilon;
  options.delta = o.delta;
  progress_line progress("opim (RR sets)", 0);
  options.progress = [&](const std::string&, std::uint64_t done, std::uint64_t) { progress.update(done); };
  const opim_result result = run_opim(*r1, *r2, graph.num_vertices, options);
  progress.finish();
  const collection_stats s1 = r1->stats(), s2 = r2->stats();

  nlohmann::json out = graph_input_json(o.graph, graph);
  out["Algorithm"] = "OPIM-C";
  out["Seeds"] = original_ids_json(graph, result.selection.seeds);
  out["K"] = o.k;
  out["Epsilon"] = o.epsilon;
  out["Delta"] = o.delta > 0 ? o.delta : 1.0 / graph.num_vertices;
  out["DiffusionModel"] = std::string(to_string(params.model));
  out["ApproximationRatio"] = result.approximation;
  out["SpreadLowerBound"] = result.spread_lower;
  out["OptimumUpperBound"] = result.optimum_upper;
  out["EstimatedSpread"] = result.estimated_spread;
  out["Iterations"] = result.iterations;
  out["Theta"] = result.sets_r1;
  out["RRSetsSelection"] = result.sets_r1;
  out["RRSetsValidation"] = result.sets_r2;
  out["RRSetsGenerated"] = s1.sets_generated + s2.sets_generated;
  out["RRSetMembersGenerated"] = s1.members_generated + s2.members_generated;
  out["EdgesExamined"] = s1.edges_examined + s2.edges_examined;
  add_backend_json(out, run, s1.traversal);
  out["Times"] = times_json(run, setup_seconds,
                            {{"Sampling", s1.sampling_seconds + s2.sampling_seconds},
                             {"Selection", s1.selection_seconds + s2.selection_seconds}});
  out["RRMemoryPeakBytes"] = s1.peak_bytes + s2.peak_bytes;

  std::optional<spread_check> check;
  if (o.verify_worlds > 0) {
    r1.reset();
    r2.reset();
    auto simulator = make_spread_simulator(run.config, graph, params);
    const double theta_2 = static_cast<double>(result.sets_r2);
    const double f = result.estimated_spread / graph.num_vertices;
    // R2 did not choose the seeds, so its estimate is unbiased: a plain consistency check.
    check = verify_spread(*simulator, result.selection.seeds, result.estimated_spread,
                          graph.num_vertices * std::sqrt(f * (1 - f) / theta_2), o.verify_worlds, 0.0);
  }
  finish_ris_run(out, run, check, o.verify_worlds, o.output);
}

void setup(CLI::App& parent) {
  auto o = std::make_shared<opim_cli_options>();
  CLI::App* cmd = parent.add_subcommand("opim", "Influence maximization by OPIM-C, with a certified approximation ratio");
  add_graph_input_options(*cmd, o->graph);
  add_backend_options(*cmd, o->backend);
  cmd->add_option("-k,--seeds", o->k, "Number of seeds")->capture_default_str();
  cmd->add_option("-e,--epsilon", o->epsilon, "Stop once the certified ratio reaches 1 - 1/e - epsilon")
      ->capture_default_str();
  cmd->add_option("--delta", o->delta, "Failure probability of the certificate (default 1/n)");
  add_ris_run_options(*cmd, o->model, o->output, &o->verify_worlds);
  cmd->callback([o] { run_opim_command(*o); });
}

const bool registered = register_command("opim", &setup);

}  // namespace
}  // namespace wildfire::cli
