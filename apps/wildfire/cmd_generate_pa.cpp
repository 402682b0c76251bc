// `wildfire generate pa`: a scale-free graph by preferential attachment (Barabasi-Albert, or the
// copy model with direct-edge probability p; cuPPA), on the CPU or the GPU, written as the
// binary .wfg format or a (gzip) edge list. docs/generators.md describes the model.
#include <fmt/core.h>

#include <cmath>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_output.hpp"
#include "wildfire/generators/pa_verify.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/edge_weights.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {
namespace {

struct options {
  double num_vertices = 0;  // double so that 1e6 is accepted; must be an integer
  std::uint32_t out_degree = 0;
  double copy_probability = 0.5;
  std::uint64_t seed = 0;
  std::string device = "auto";
  int threads = 0;
  bool undirected = false;
  bool verify = false;
  std::string weights = "wc";
  std::string output;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void run(const options& o) {
  WF_EXPECTS(o.num_vertices >= 0 && o.num_vertices < 4294967295.0 && std::floor(o.num_vertices) == o.num_vertices,
             "-n", fmt::format("the vertex count must be an integer below 2^32 - 1, got {}", o.num_vertices));
  const pa_params params{static_cast<std::uint32_t>(o.num_vertices), o.out_degree, o.copy_probability, o.seed};
  validate_pa_params(params);
  const bool binary = ends_with(o.output, ".wfg");
  const weight_spec weights = parse_weight_spec(o.weights);
  WF_EXPECTS(binary || o.weights == "wc", "-w", "weights are stored only in the binary .wfg format");
  WF_EXPECTS(weights.kind != weight_kind::file && weights.kind != weight_kind::automatic, "-w",
             "a generated graph needs a weight model: wc, uniform:P, trivalency or random:A:B");
  const device_kind device = resolve_device(parse_device_kind(o.device));

  const stopwatch generate_time;
  const pa_graph graph = generate_pa(params, device, o.threads);
  const double generate_seconds = generate_time.seconds();

  std::string verification = "skipped";
  if (o.verify) {
    const pa_verification check = verify_pa_graph(graph, params);
    verification = check.ok ? "PASS" : "FAIL";
    if (!check.ok) fmt::print(stderr, "verification: FAIL: {}\n", check.first_mismatch);
  }

  const stopwatch write_time;
  const std::string description =
      fmt::format("wildfire generate pa -n {} -d {} --copy-p {} --seed {}: {} edges, {}", params.num_vertices,
                  params.out_degree, params.copy_probability, params.seed, graph.num_edges(),
                  o.undirected ? "both directions" : "directed new -> old");
  if (binary) {
    csr_graph g = pa_to_csr_graph(graph, o.undirected);
    assign_model_weights(g, weights, o.seed);
    write_binary_graph(g, o.output);
  } else {
    write_pa_edge_list(graph, o.output, o.undirected, description);
  }
  const double write_seconds = write_time.seconds();

  nlohmann::json result{{"Output", o.output},
                        {"Format", binary ? "wfg" : (ends_with(o.output, ".gz") ? "edge list (gzip)" : "edge list")},
                        {"Model", params.copy_probability == 0.5 ? "Barabasi-Albert (copy model, p = 1/2)" : "copy model"},
                        {"Vertices", params.num_vertices},
                        {"OutDegree", params.out_degree},
                        {"CopyP", params.copy_probability},
                        {"Seed", params.seed},
                        {"Edges", graph.num_edges() * (o.undirected ? 2 : 1)},
                        {"Undirected", o.undirected},
                        {"Device", to_string(device)},
                        {"GenerateSeconds", generate_seconds},
                        {"EdgesPerSecond", generate_seconds > 0 ? static_cast<double>(graph.num_edges()) / generate_seconds : 0.0},
                        {"WriteSeconds", write_seconds},
                        {"PeakMemoryBytes", peak_memory_bytes()},
                        {"Verification", verification}};
  if (binary) result["Weights"] = o.weights;
  result.update(run_metadata());
  write_json(result, "");
  if (o.verify) {
    fmt::print("verification: {}\n", verification);
    if (verification != "PASS") throw error("verification failed");
  }
}

void setup(CLI::App& parent) {
  auto opts = std::make_shared<options>();
  CLI::App* cmd = parent.add_subcommand(
      "pa", "Scale-free graph by preferential attachment: Barabasi-Albert (--copy-p 0.5) or the copy model");
  cmd->add_option("-n,--vertices", opts->num_vertices, "number of vertices n (1e6 style accepted)")->required();
  cmd->add_option("-d,--out-degree", opts->out_degree, "distinct earlier targets of every new vertex")->required();
  cmd->add_option("--copy-p", opts->copy_probability,
                  "probability p of a direct edge (else an edge of a uniform vertex is copied); "
                  "0.5 is Barabasi-Albert, tail exponent (2 - p) / (1 - p)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the counter hash (same graph on every device)")->capture_default_str();
  cmd->add_option("--device", opts->device, "cpu, gpu or auto")->capture_default_str();
  cmd->add_option("-p,--threads", opts->threads, "CPU threads (0: all)")->capture_default_str();
  cmd->add_flag("--undirected", opts->undirected, "write both directions of every edge");
  cmd->add_option("-w,--weights", opts->weights, "edge probabilities stored in a .wfg file: wc, uniform:P, "
                                                  "trivalency or random:A:B (seeded by --seed)")
      ->capture_default_str();
  cmd->add_flag("--verify", opts->verify, "check d distinct earlier targets per vertex; print verification: PASS|FAIL");
  cmd->add_option("-o,--output", opts->output, "output: FILE.wfg (binary), FILE.txt.gz or FILE.txt (edge list)")
      ->required();
  cmd->callback([opts] { run(*opts); });
}

const bool registered = register_command("generate/pa", &setup);

}  // namespace
}  // namespace wildfire::cli
