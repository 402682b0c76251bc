// `wildfire imm`: influence maximization by IMM (Tang, Shi, Xiao 2015), or multi-round IM with
// --rounds T (gIM digest section 3.1); JSON with the seeds' original ids, theta, phase times and
// counters; --verify R checks the spread estimate by independent Monte Carlo.

#include "backend_options.hpp"
#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "spread_verification_report.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/algorithms/spread_check.hpp"
#include "wildfire/util/resource_usage.hpp"

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
  stopwatch total;
  const backend_config config = to_backend_config(o.backend);
  sampling_params params;
  params.model = parse_diffusion_model(o.model, "-d");
  params.seed = o.backend.seed;
  params.rounds = o.rounds;
  WF_EXPECTS(o.rounds >= 1, "--rounds", "rounds must be at least 1");

  stopwatch load_clock;
  const csr_graph graph = load_graph(o.graph);
  if (params.model == diffusion_model::lt) validate_lt_weights(graph, o.graph.path);
  const double load_seconds = load_clock.seconds();

  auto collection = make_rr_collection(config, graph, params);
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
  out["Device"] = to_string(resolve_device(config.device));
  out["Sampler"] = stats.traversal;
  out["Representation"] = stats.representation;
  out["Colours"] = config.colours;
  out["NumThreads"] = effective_threads(config);
  out["Seed"] = params.seed;
  out["Times"] = {{"Load", load_seconds}, {"Sampling", stats.sampling_seconds}, {"Selection", stats.selection_seconds}};
  out["RRSetsPerSecond"] = stats.sampling_seconds > 0 ? static_cast<double>(stats.sets_generated) / stats.sampling_seconds : 0.0;
  out["EdgesPerSecond"] = stats.sampling_seconds > 0 ? static_cast<double>(stats.edges_examined) / stats.sampling_seconds : 0.0;
  out["RRMemoryPeakBytes"] = stats.peak_bytes;

  spread_check check;
  if (o.verify_worlds > 0) {
    collection.reset();  // free the sets before simulating
    auto simulator = make_spread_simulator(config, graph, params);
    check = verify_spread(*simulator, result.selection.seeds, result.estimated_spread, result.estimated_spread_stderr,
                          o.verify_worlds, o.epsilon / 2);
    out["Verification"] = spread_verification_json(check, o.verify_worlds);
  }
  out["PeakMemoryBytes"] = peak_memory_bytes();
  out["Total"] = total.seconds();
  out.update(run_metadata());
  write_json(out, o.output);
  if (o.verify_worlds > 0) report_spread_verification(check);
}

void setup(CLI::App& parent) {
  auto o = std::make_shared<imm_cli_options>();
  CLI::App* cmd = parent.add_subcommand("imm", "Influence maximization by IMM (k seeds, (1-1/e-eps) guarantee)");
  add_graph_input_options(*cmd, o->graph);
  add_backend_options(*cmd, o->backend);
  cmd->add_option("-k,--seeds", o->k, "Number of seeds (per round with --rounds)")->capture_default_str();
  cmd->add_option("-e,--epsilon", o->epsilon, "Approximation parameter, in (0, 1)")->capture_default_str();
  cmd->add_option("-d,--model", o->model, "Diffusion model: IC or LT")->capture_default_str();
  cmd->add_option("--ell", o->ell, "Confidence: success probability at least 1 - n^-ell")->capture_default_str();
  cmd->add_flag("--reuse-rrsets", o->reuse_rrsets,
                "Reuse the estimation-phase RR sets in the final phase (original IMM; W. Chen 2018 shows "
                "this breaks the guarantee's independence)");
  cmd->add_option("--rounds", o->rounds, "Multi-round IM: T rounds, k seeds each (gIM section 4.8)")
      ->capture_default_str();
  cmd->add_option("--verify", o->verify_worlds, "Check the spread by R independent Monte-Carlo worlds");
  cmd->add_option("-o,--output", o->output, "Write the JSON result here instead of stdout");
  cmd->callback([o] { run_imm_command(*o); });
}

const bool registered = register_command("imm", &setup);

}  // namespace
}  // namespace wildfire::cli
