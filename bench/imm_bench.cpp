// IMM on real graphs with weighted-cascade weights (issue 3 benchmarks): time by phase, RR sets
// and edges per second, memory, and the Monte-Carlo spread of the seeds next to the top
// out-degree vertices (and, with --reference-eps, an IMM run at a smaller epsilon).
// Usage: imm_bench --graphs a.txt.gz,b.txt.gz [--models IC,LT] [--eps 0.05,0.1] [--threads 1,2]
//                  [-k 50] [--mc 10000] [--sampler auto] [--reference-eps 0.01] [--seed 0]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "wildfire/algorithms/imm.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/spread_simulator.hpp"
#include "wildfire/algorithms/spread_check.hpp"
#include "wildfire/util/resource_usage.hpp"
#include "wildfire/version.hpp"
#include "bench_args.hpp"

namespace {

using wildfire::bench::arg;
using wildfire::bench::split;

using namespace wildfire;

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

struct run_row {
  imm_result result;
  collection_stats stats;
  double total_seconds;
};

run_row run_once(const csr_graph& g, diffusion_model model, double eps, std::uint32_t k, int threads,
                 traversal_kind traversal, std::uint64_t seed) {
  backend_config config;
  config.device = device_kind::cpu;
  config.num_threads = threads;
  config.traversal = traversal;
  sampling_params params;
  params.model = model;
  params.seed = seed;
  stopwatch clock;
  auto collection = make_rr_collection(config, g, params);
  imm_options options;
  options.k = k;
  options.epsilon = eps;
  run_row row;
  row.result = run_imm(*collection, g.num_vertices, options);
  row.total_seconds = clock.seconds();
  row.stats = collection->stats();
  return row;
}

spread_estimate monte_carlo(const csr_graph& g, diffusion_model model, const std::vector<std::uint32_t>& seeds,
                            std::uint64_t worlds, std::uint64_t seed) {
  backend_config config;
  config.device = device_kind::cpu;
  sampling_params params;
  params.model = model;
  params.seed = seed;
  auto simulator = make_spread_simulator(config, g, params);
  return simulator->estimate(seeds, verification_first_world, worlds);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto graphs = split(arg(argc, argv, "graphs", "../shared/data/soc-Epinions1.txt.gz"));
    const auto models = split(arg(argc, argv, "models", "IC,LT"));
    const auto epsilons = split(arg(argc, argv, "eps", "0.05,0.1"));
    const auto thread_counts = split(arg(argc, argv, "threads", "1,2"));
    const auto k = static_cast<std::uint32_t>(std::stoul(arg(argc, argv, "k", "50")));
    const std::uint64_t worlds = std::stoull(arg(argc, argv, "mc", "10000"));
    const traversal_kind traversal = parse_traversal_kind(arg(argc, argv, "sampler", "auto"));
    const std::string reference_eps = arg(argc, argv, "reference-eps", "");
    const std::uint64_t seed = std::stoull(arg(argc, argv, "seed", "0"));

    fmt::print("# imm_bench: wildfire {} (commit {}), cpu, {} hardware threads\n", version_string, git_commit,
               omp_get_num_procs());
    fmt::print("# k = {}, weights = wc, sampler = {}, Monte Carlo = {} worlds, seed = {}\n\n", k, to_string(traversal),
               worlds, seed);
    fmt::print("| graph | n | m | model | eps | threads | theta | RR sets | total s | load s | sampling s | selection s | "
               "RR sets/s | edges/s | RR MiB | peak RSS MiB | RR spread | MC spread (se) | top-{} out-degree MC (se) |\n",
               k);
    fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& path : graphs) {
      graph_load_options load;
      load.path = path;
      load.weights = "wc";
      stopwatch load_clock;
      const csr_graph g = load_graph(load);
      const double load_seconds = load_clock.seconds();
      std::vector<std::uint32_t> top(g.num_vertices);
      for (std::uint32_t v = 0; v < g.num_vertices; ++v) top[v] = v;
      std::partial_sort(top.begin(), top.begin() + std::min<std::size_t>(k, top.size()), top.end(), [&](auto a, auto b) {
        return g.out_degree(a) > g.out_degree(b) || (g.out_degree(a) == g.out_degree(b) && a < b);
      });
      top.resize(std::min<std::size_t>(k, top.size()));
      for (const auto& model_name : models) {
        const diffusion_model model = parse_diffusion_model(model_name);
        const spread_estimate top_mc = monte_carlo(g, model, top, worlds, seed);
        for (const auto& eps_text : epsilons) {
          const double eps = std::stod(eps_text);
          for (const auto& threads_text : thread_counts) {
            const int threads = std::stoi(threads_text);
            const run_row row = run_once(g, model, eps, k, threads, traversal, seed);
            const spread_estimate mc = monte_carlo(g, model, row.result.selection.seeds, worlds, seed);
            const double sampling = row.stats.sampling_seconds;
            fmt::print("| {} | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3g} | {:.3g} | "
                       "{:.1f} | {:.1f} | {:.1f} | {:.1f} ({:.1f}) | {:.1f} ({:.1f}) |\n",
                       base_name(path), g.num_vertices, g.num_edges, model_name, eps, threads, row.result.theta,
                       row.stats.sets_generated, row.total_seconds + load_seconds, load_seconds, sampling,
                       row.stats.selection_seconds, sampling > 0 ? row.stats.sets_generated / sampling : 0.0,
                       sampling > 0 ? row.stats.edges_examined / sampling : 0.0, row.stats.peak_bytes / 1048576.0,
                       peak_memory_bytes() / 1048576.0, row.result.estimated_spread, mc.mean, mc.standard_error,
                       top_mc.mean, top_mc.standard_error);
            std::fflush(stdout);
          }
        }
        if (!reference_eps.empty()) {
          const double eps = std::stod(reference_eps);
          const run_row row = run_once(g, model, eps, k, omp_get_max_threads(), traversal, seed);
          const spread_estimate mc = monte_carlo(g, model, row.result.selection.seeds, worlds, seed);
          fmt::print("| {} | {} | {} | {} | {} (reference) | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | - | - | "
                     "{:.1f} | {:.1f} | {:.1f} | {:.1f} ({:.1f}) | {:.1f} ({:.1f}) |\n",
                     base_name(path), g.num_vertices, g.num_edges, model_name, eps, omp_get_max_threads(),
                     row.result.theta, row.stats.sets_generated, row.total_seconds + load_seconds, load_seconds,
                     row.stats.sampling_seconds, row.stats.selection_seconds, row.stats.peak_bytes / 1048576.0,
                     peak_memory_bytes() / 1048576.0, row.result.estimated_spread, mc.mean, mc.standard_error,
                     top_mc.mean, top_mc.standard_error);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "imm_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
