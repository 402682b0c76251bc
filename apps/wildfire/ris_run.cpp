#include "ris_run.hpp"

#include "cli_output.hpp"
#include "spread_verification_report.hpp"

namespace wildfire::cli {

ris_run start_ris_run(const graph_load_options& graph, const backend_cli_options& backend, const std::string& model) {
  ris_run run;
  run.config = to_backend_config(backend);
  run.params.model = parse_diffusion_model(model, "-d");
  run.params.seed = backend.seed;
  stopwatch load_clock;
  run.graph = load_graph(graph);
  if (run.params.model == diffusion_model::lt) validate_lt_weights(run.graph, graph.path);
  run.load_seconds = load_clock.seconds();
  stopwatch context_clock;
  initialize_device(run.config);
  run.context_seconds = context_clock.seconds();
  return run;
}

void add_ris_run_options(CLI::App& cmd, std::string& model, std::string& output, std::uint64_t* verify_worlds) {
  cmd.add_option("-d,--model", model, "Diffusion model: IC or LT")->capture_default_str();
  if (verify_worlds != nullptr) {
    cmd.add_option("--verify", *verify_worlds, "Check the spread by R independent Monte-Carlo worlds");
  }
  cmd.add_option("-o,--output", output, "Write the JSON result here instead of stdout");
}

void add_backend_json(nlohmann::json& out, const ris_run& run, const std::string& sampler) {
  out["Device"] = to_string(resolve_device(run.config.device));
  out["Sampler"] = sampler;
  out["NumThreads"] = effective_threads(run.config);
  out["Seed"] = run.params.seed;
}

nlohmann::json times_json(const ris_run& run, double setup_seconds, const nlohmann::json& phases) {
  nlohmann::json times = {{"Load", run.load_seconds}, {"DeviceContext", run.context_seconds}, {"Setup", setup_seconds}};
  times.update(phases);
  return times;
}

void finish_ris_run(nlohmann::json& out, const ris_run& run, const std::optional<spread_check>& check,
                    std::uint64_t verify_worlds, const std::string& output) {
  if (check) out["Verification"] = spread_verification_json(*check, verify_worlds);
  out["PeakMemoryBytes"] = peak_memory_bytes();
  out["Total"] = run.total.seconds();
  out.update(run_metadata());
  write_json(out, output);
  if (check) report_spread_verification(*check);
}

}  // namespace wildfire::cli
