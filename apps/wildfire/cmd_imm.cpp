// `wildfire imm`: influence maximization by IMM (Tang, Shi, Xiao 2015), or multi-round IM with
// --rounds T (gIM digest section 3.1); JSON with the seeds' original ids, theta, phase times and
// counters; --verify R checks the spread estimate by independent Monte Carlo.

#include "backend_options.hpp"
#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "ris_run.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/algorithms/spread_check.hpp"

namespace wildfire::cli {
namespace {

struct imm_cli_options {
  graph_load_options graph;
  backend_cli_options backend;
  std::uint32_t k = 50;
  double epsilon = 0.5;
  double ell = 1.0;
  std::string model = "IC";
  bool reuse_rrsets = false;
  std::uint32_t rounds = 1;
  std::uint64_t verify_worlds = 0;
  std::string output;
};

nlohmann::json seeds_json(const csr_graph& graph, const std::vector<std::uint32_t>& seeds, std::uint32_t rounds) {
  if (rounds == 1) return original_ids_json(graph, seeds);
  // Multi-round: one list of original ids per round, in selection order.
  std::vector<std::vector<std::uint32_t>> by_round(rounds);
  for (const auto s : seeds) by_round[s / graph.num_vertices].push_back(s % graph.num_vertices);
  auto out = nlohmann::json::array();
  for (const auto& r : by_round) out.push_back(original_ids_json(graph, r));
  return out;
}

void run_imm_command(const imm_cli_options& o) {
  WF_EXPECTS(o.rounds >= 1, "--rounds", "rounds must be at least 1");
  ris_run run = start_ris_run(o.graph, o.backend, o.model);
  run.params.rounds = o.rounds;
  const csr_graph& graph = run.graph;
  const sampling_params& params = run.params;

  stopwatch setup_clock;
  auto collection = make_rr_collection(run.config, graph, params);
  const double setup_seconds = setup_clock.seconds();
  imm_options options;
  options.k = o.k;
  options.epsilon = o.epsilon;
  options.ell = o.ell;
  options.reuse_rrsets = o.reuse_rrsets;
  options.rounds = o.rounds;
  std::unique_ptr<progress_line> progress;
  std::string phase;
  options.progress = [&](const std::string& name, std::uint64_t done, std::uint64_t) {
    if (name != phase) {
      phase = name;
      progress = std::make_unique<progress_line>("imm " + name + " (RR sets)", 0);
    }
    progress->update(done);
  };
  const imm_result result = run_imm(*collection, graph.num_vertices, options);
  progress.reset();
  const collection_stats stats = collection->stats();

  nlohmann::json out = graph_input_json(o.graph, graph);
  out["Algorithm"] = o.rounds == 1 ? "IMM" : "IMM multi-round (cross-round greedy)";
  out["Seeds"] = seeds_json(graph, result.selection.seeds, o.rounds);
  out["K"] = o.k;
  out["Epsilon"] = o.epsilon;
  out["Ell"] = o.ell;
  out["Rounds"] = o.rounds;
  out["DiffusionModel"] = std::string(to_string(params.model));
  out["Theta"] = result.theta;
  out["LowerBound"] = result.lower_bound;
  out["EstimationIterations"] = result.estimation_iterations;
  out["FinalPhaseSets"] = o.reuse_rrsets ? "reused" : "fresh";
  out["EstimatedSpread"] = result.estimated_spread;
  out["EstimatedSpreadStdErr"] = result.estimated_spread_stderr;
  out["MarginalCoverage"] = result.selection.marginal_coverage;
  out["RRSetsGenerated"] = stats.sets_generated;
  out["RRSetMembersGenerated"] = stats.members_generated;
  out["RRSetsFinal"] = collection->size();
  out["RRSetMembersFinal"] = collection->num_members();
  out["EdgesExamined"] = stats.edges_examined;
  add_backend_json(out, run, stats.traversal);
  out["Representation"] = stats.representation;
  out["Colours"] = run.config.colours;
  out["Times"] = times_json(run, setup_seconds, {{"Sampling", stats.sampling_seconds}, {"Selection", stats.selection_seconds}});
  out["RRSetsPerSecond"] = stats.sampling_seconds > 0 ? static_cast<double>(stats.sets_generated) / stats.sampling_seconds : 0.0;
  out["EdgesPerSecond"] = stats.sampling_seconds > 0 ? static_cast<double>(stats.edges_examined) / stats.sampling_seconds : 0.0;
  out["RRMemoryPeakBytes"] = stats.peak_bytes;

  std::optional<spread_check> check;
  if (o.verify_worlds > 0) {
    collection.reset();  // free the sets before simulating
    auto simulator = make_spread_simulator(run.config, graph, params);
    check = verify_spread(*simulator, result.selection.seeds, result.estimated_spread, result.estimated_spread_stderr,
                          o.verify_worlds, o.epsilon / 2);
  }
  finish_ris_run(out, run, check, o.verify_worlds, o.output);
}

void setup(CLI::App& parent) {
  auto o = std::make_shared<imm_cli_options>();
  CLI::App* cmd = parent.add_subcommand("imm", "Influence maximization by IMM (k seeds, (1-1/e-eps) guarantee)");
  add_graph_input_options(*cmd, o->graph);
  add_backend_options(*cmd, o->backend);
  cmd->add_option("-k,--seeds", o->k, "Number of seeds (per round with --rounds)")->capture_default_str();
  cmd->add_option("-e,--epsilon", o->epsilon, "Approximation parameter, in (0, 1)")->capture_default_str();
  cmd->add_option("--ell", o->ell, "Confidence: success probability at least 1 - n^-ell")->capture_default_str();
  cmd->add_flag("--reuse-rrsets", o->reuse_rrsets,
                "Reuse the estimation-phase RR sets in the final phase (original IMM; W. Chen 2018 shows "
                "this breaks the guarantee's independence)");
  cmd->add_option("--rounds", o->rounds, "Multi-round IM: T rounds, k seeds each (gIM section 4.8)")
      ->capture_default_str();
  add_ris_run_options(*cmd, o->model, o->output, &o->verify_worlds);
  cmd->callback([o] { run_imm_command(*o); });
}

const bool registered = register_command("imm", &setup);

}  // namespace
}  // namespace wildfire::cli
