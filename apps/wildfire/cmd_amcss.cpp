// `wildfire amcss`: adaptive minimum-cost seed selection (MERIT, or the ASTI/PASTI and degree
// baselines) over R realizations; prints the seeds per realization, costs, rounds, sets generated
// and reused, phase times and the averages as JSON (docs/amcss.md).
#include <fmt/core.h>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "graph_options.hpp"
#include "wildfire/adaptive/amcss.hpp"
#include "wildfire/adaptive/node_costs.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {
namespace {

struct amcss_cli_options {
  graph_load_options graph;
  std::string algorithm = "merit";
  std::string model = "IC";
  std::string device = "auto";
  std::string cost = "degree";
  std::string cost_file;
  std::uint64_t eta = 0;
  std::uint32_t batch = 4;
  double epsilon = 0.5;
  std::uint64_t seed = 0;
  std::uint64_t realization_seed = 0;
  std::uint32_t realizations = 10;
  int threads = 0;
  int gpu_id = 0;
  double memory_budget_gib = 0;
  bool verify = false;
  std::string output;
};

nlohmann::json phases_json(const adaptive::phase_seconds& s) {
  return {{"Generate", s.generate}, {"Select", s.select}, {"Update", s.update}, {"Diffuse", s.diffuse}, {"Total", s.total}};
}

void run(const amcss_cli_options& o) {
  stopwatch load_watch;
  const csr_graph graph = load_graph(o.graph);
  const double load_seconds = load_watch.seconds();
  adaptive::amcss_options a;
  a.algorithm = adaptive::parse_amcss_algorithm(o.algorithm);
  a.model = parse_diffusion_model(o.model, "-d");
  if (a.model == diffusion_model::lt) validate_lt_weights(graph, o.graph.path);
  a.eta = o.eta;
  a.batch = o.batch;
  a.epsilon = o.epsilon;
  a.seed = o.seed;
  a.realization_seed = o.realization_seed;
  a.realizations = o.realizations;
  a.backend.device = parse_device_kind(o.device);
  a.backend.num_threads = o.threads;
  a.backend.gpu_id = o.gpu_id;
  WF_EXPECTS(o.memory_budget_gib >= 0, "--memory-budget", "must be non-negative");
  a.memory_budget_bytes = static_cast<std::uint64_t>(o.memory_budget_gib * (1ULL << 30));
  const std::vector<double> costs = adaptive::make_costs(graph, o.cost, o.cost_file);

  const adaptive::amcss_result result = adaptive::run_amcss(graph, costs, a);

  nlohmann::json out = graph_input_json(o.graph, graph);
  out["Algorithm"] = adaptive::to_string(a.algorithm);
  out["DiffusionModel"] = std::string(to_string(a.model));
  out["Device"] = result.device;
  out["Eta"] = a.eta;
  out["Batch"] = a.batch;
  out["Epsilon"] = a.epsilon;
  out["Cost"] = o.cost;
  out["Seed"] = a.seed;
  out["RealizationSeed"] = a.realization_seed;
  out["Realizations"] = a.realizations;
  out["LoadSeconds"] = load_seconds;
  bool all_ok = true;
  std::string first_failure;
  auto runs = nlohmann::json::array();
  for (const auto& r : result.runs) {
    auto seeds = nlohmann::json::array();
    for (const auto& s : r.seeds) {
      seeds.push_back({{"Id", graph.original_ids.empty() ? s.vertex : graph.original_ids[s.vertex]},
                       {"Round", s.round},
                       {"Cost", s.cost},
                       {"Activations", s.activations}});
    }
    nlohmann::json run_json{{"Realization", r.realization},
                            {"Seeds", seeds},
                            {"TotalCost", r.total_cost},
                            {"Rounds", r.rounds},
                            {"Activated", r.activated},
                            {"SetsGenerated", r.sets_generated},
                            {"SetsReused", r.sets_reused},
                            {"SetsRepaired", r.sets_repaired},
                            {"SetsDropped", r.sets_dropped},
                            {"MaxSets", r.max_sets},
                            {"SelectTrials", r.trials},
                            {"AcceptedAtThetaMax", r.accepted_at_theta_max},
                            {"StorageRegrowths", r.storage_regrowths},
                            {"PeakSetBytes", r.peak_bytes},
                            {"Seconds", phases_json(r.seconds)}};
    if (o.verify) {
      const auto check = adaptive::verify_amcss_realization(graph, costs, a, r);
      run_json["Verification"] = check.ok ? "PASS" : "FAIL";
      if (!check.ok && all_ok) first_failure = fmt::format("realization {}: {}", r.realization, check.first_mismatch);
      all_ok = all_ok && check.ok;
    }
    runs.push_back(std::move(run_json));
  }
  out["Runs"] = std::move(runs);
  out["MeanTotalCost"] = result.mean_total_cost;
  out["MeanRounds"] = result.mean_rounds;
  out["MeanActivated"] = result.mean_activated;
  out["MeanSeconds"] = phases_json(result.mean_seconds);
  out["PeakMemoryBytes"] = peak_memory_bytes();
  if (o.verify) out["Verification"] = all_ok ? "PASS" : "FAIL";
  out.update(run_metadata());
  write_json(out, o.output);
  if (o.verify) {
    fmt::print(stderr, "verification: {}\n", all_ok ? "PASS" : "FAIL");
    if (!all_ok) throw error("verification failed: " + first_failure);
  }
}

void setup(CLI::App& parent) {
  auto options = std::make_shared<amcss_cli_options>();
  CLI::App* cmd = parent.add_subcommand(
      "amcss", "Adaptive minimum-cost seeding: cheapest seeds, chosen in rounds, that activate eta users");
  add_graph_input_options(*cmd, options->graph);
  cmd->add_option("--eta", options->eta, "Number of users to activate (1 <= eta <= n)")->required();
  cmd->add_option("--algorithm", options->algorithm, "merit, asti (PASTI with -p > 1) or degree")
      ->check(CLI::IsMember({"merit", "asti", "degree"}))
      ->capture_default_str();
  cmd->add_option("-d,--model", options->model, "Diffusion model: IC or LT")->capture_default_str();
  cmd->add_option("--device", options->device, "Where MERIT keeps its sets: cpu, gpu or auto")->capture_default_str();
  cmd->add_option("-b,--batch", options->batch, "Seeds per round")->capture_default_str();
  cmd->add_option("-e,--epsilon", options->epsilon, "Estimation error in (0, 1)")->capture_default_str();
  cmd->add_option("--cost", options->cost, "Node costs: degree (0.01 + 0.01 outdeg), uniform or file")
      ->check(CLI::IsMember({"degree", "uniform", "file"}))
      ->capture_default_str();
  cmd->add_option("--cost-file", options->cost_file, "With --cost file: lines `original_id cost`");
  cmd->add_option("--seed", options->seed, "Seed of the mRR-sets")->capture_default_str();
  cmd->add_option("--realization-seed", options->realization_seed, "Seed of the realizations")->capture_default_str();
  cmd->add_option("-R,--realizations", options->realizations, "Realizations to average over")->capture_default_str();
  cmd->add_option("-p,--threads", options->threads, "CPU threads (0: OpenMP default)")->capture_default_str();
  cmd->add_option("--gpu", options->gpu_id, "GPU id")->capture_default_str();
  cmd->add_option("--memory-budget", options->memory_budget_gib,
                  "GiB the retained sets may use (0: half of what the device has free)")
      ->capture_default_str();
  cmd->add_flag("--verify", options->verify, "Replay every realization and check the result");
  cmd->add_option("-o,--output", options->output, "Write the JSON result here instead of stdout");
  cmd->callback([options] { run(*options); });
}

const bool registered = register_command("amcss", &setup);

}  // namespace
}  // namespace wildfire::cli
