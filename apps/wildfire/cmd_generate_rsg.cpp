// `wildfire generate rsg`: random spreading graphs (thesis Algorithm 10) written as a 0-based TU
// collection that `wildfire twitter-influence -i PREFIX` reads.
#include <fmt/core.h>

#include <chrono>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/twitter/rsg.hpp"

namespace wildfire::cli {
namespace {

using namespace wildfire::twitter;

struct options {
  std::string batches, output;
  double scale = 0.0;
  double outliers = 0.05;
  std::uint64_t seed = 1;
  std::uint32_t max_followers = 10000;
  int threads = 0;
};

void run(const options& o) {
  rsg_params p;
  WF_EXPECTS(o.batches.empty() != (o.scale == 0.0), "--batches", "give either --batches or --thesis-scale");
  p.batches = o.batches.empty() ? thesis_rsg_batches(o.scale) : parse_rsg_batches(o.batches);
  p.outlier_probability = o.outliers;
  p.seed = o.seed;
  p.max_followers = o.max_followers;
  const auto start = std::chrono::steady_clock::now();
  const spreading_graphs g = generate_rsg(p, o.threads);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_tu_dataset(g, o.output);
  std::uint64_t categories[4] = {0, 0, 0, 0};
  std::uint64_t max_nodes = 0;
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    ++categories[static_cast<int>(categorize(g.graph_size(t)))];
    max_nodes = std::max(max_nodes, g.graph_size(t));
  }
  nlohmann::json result{{"Output", o.output},
                        {"Graphs", g.num_graphs()},
                        {"Nodes", g.num_nodes()},
                        {"Edges", g.num_edges()},
                        {"MaxNodes", max_nodes},
                        {"Categories", {{"Empty", categories[0]}, {"Small", categories[1]}, {"Medium", categories[2]},
                                        {"Large", categories[3]}}},
                        {"Seed", o.seed},
                        {"GenerateSeconds", seconds}};
  result.update(run_metadata());
  write_json(result, "");
}

void setup(CLI::App& parent) {
  auto opts = std::make_shared<options>();
  CLI::App* cmd = parent.add_subcommand("rsg", "Random spreading graphs (thesis Algorithm 10) as a TU collection");
  cmd->add_option("--batches", opts->batches, "COUNTxMIN-MAX@PERCENT[,...], e.g. 100x2-32@5,10x33-500@4");
  cmd->add_option("--thesis-scale", opts->scale, "the thesis's RSG set (15,435 graphs, ~450M edges) scaled by (0, 1]");
  cmd->add_option("--outliers", opts->outliers, "probability that a node links to every later node")->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the counter hash")->capture_default_str();
  cmd->add_option("--max-followers", opts->max_followers, "follower counts are log-uniform in [1, this]")->capture_default_str();
  cmd->add_option("-p,--threads", opts->threads, "threads (0: all)")->capture_default_str();
  cmd->add_option("-o,--output", opts->output, "prefix of the TU files (PREFIX_A.txt, ...)")->required();
  cmd->callback([opts] { run(*opts); });
}

static const bool registered = register_command("generate/rsg", &setup);

}  // namespace
}  // namespace wildfire::cli
