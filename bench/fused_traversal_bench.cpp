// Fused against unfused RR sampling (fused-BPT digest sections 3-4): edges examined and time of C
// samples sharing one frontier, as ratios to one traversal per sample, for uniform edge
// probabilities p. C = 1 and 8 run the fused traversal with 1 or 8 samples per batch.
// Usage: fused_traversal_bench --graph powerlaw.txt [--p 0.01,0.05,0.1,0.2,wc] [--colours 1,8,32,64,256]
//                              [--sets 20000] [--threads 2] [--model IC] [--seed 0]
// The graph is read once; p replaces its weights (generate it with ../shared/tools/gen_powerlaw.py).
#include <omp.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "cpu/fused_rr_sampler.hpp"
#include "cpu/unfused_rr_sampler.hpp"
#include "cpu/world_tables.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/util/resource_usage.hpp"
#include "wildfire/version.hpp"
#include "bench_args.hpp"

namespace {

using wildfire::bench::arg;
using wildfire::bench::split;

using namespace wildfire;

struct measurement {
  double seconds = 0;
  std::uint64_t edges = 0;
  std::uint64_t members = 0;
};

/// Samples ids [0, sets) with `batch` samples per traversal (0 = unfused), `threads` workers.
measurement run(const csr_graph& g, const sampling_params& params, std::uint32_t batch, std::uint64_t sets, int threads) {
  measurement m;
  const std::uint32_t block = batch == 0 ? 64 : batch;
  const auto blocks = static_cast<std::int64_t>((sets + block - 1) / block);
  std::uint64_t edges = 0, members = 0;
  const cpu::world_tables tables = cpu::build_world_tables(g, params.model);
  stopwatch clock;
#pragma omp parallel num_threads(threads) reduction(+ : edges, members)
  {
    std::unique_ptr<cpu::unfused_rr_sampler> unfused;
    std::unique_ptr<cpu::fused_rr_sampler> fused;
    if (batch == 0) unfused = std::make_unique<cpu::unfused_rr_sampler>(g, params, &tables);
    else fused = std::make_unique<cpu::fused_rr_sampler>(g, params, std::max<std::uint32_t>(32, (batch + 31) / 32 * 32), &tables);
    rr_sets out;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint64_t first = static_cast<std::uint64_t>(b) * block;
      const auto count = static_cast<std::uint32_t>(std::min<std::uint64_t>(block, sets - first));
      out.clear();
      edges += batch == 0 ? unfused->sample(first, count, out) : fused->sample(first, count, out);
      members += out.num_members();
    }
  }
  m.seconds = clock.seconds();
  m.edges = edges;
  m.members = members;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string path = arg(argc, argv, "graph", "");
    if (path.empty()) throw config_error("--graph", "give a graph file (e.g. from gen_powerlaw.py)");
    const auto probabilities = split(arg(argc, argv, "p", "0.01,0.05,0.1,0.2"));
    const auto colour_counts = split(arg(argc, argv, "colours", "1,8,32,64,256"));
    const std::uint64_t sets = std::stoull(arg(argc, argv, "sets", "20000"));
    const int threads = std::stoi(arg(argc, argv, "threads", std::to_string(omp_get_max_threads())));
    sampling_params params;
    params.model = parse_diffusion_model(arg(argc, argv, "model", "IC"));
    params.seed = std::stoull(arg(argc, argv, "seed", "0"));

    graph_load_options load;
    load.path = path;
    load.weights = "wc";
    csr_graph g = load_graph(load);
    fmt::print("# fused_traversal_bench: wildfire {} (commit {}), cpu, {} threads\n", version_string, git_commit, threads);
    fmt::print("# graph {}: n = {}, m = {}, average degree {:.1f}; model {}, {} RR sets per row, seed {}\n\n", path,
               g.num_vertices, g.num_edges, static_cast<double>(g.num_edges) / g.num_vertices, to_string(params.model),
               sets, params.seed);
    fmt::print("| p | C | edges examined | edges / unfused | time s | time / unfused | mean set size | RR sets/s |\n");
    fmt::print("|---|---|---|---|---|---|---|---|\n");
    const std::vector<std::uint32_t> wc_thresholds = g.in_thresholds;
    for (const auto& p_text : probabilities) {
      // "wc" keeps the weighted-cascade weights; a number p sets every edge to p.
      const double p = p_text == "wc" ? 0.0 : std::stod(p_text);
      if (p_text == "wc") g.in_thresholds = wc_thresholds;
      // LT needs in-weights summing to at most 1: use p / in-degree there (p scales WC).
      for (std::uint32_t v = 0; v < g.num_vertices && p_text != "wc"; ++v) {
        const auto degree = static_cast<double>(g.in_degree(v));
        for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j)
          g.in_thresholds[j] = threshold_from_probability(params.model == diffusion_model::ic ? p : p / degree);
      }
      const measurement base = run(g, params, 0, sets, threads);
      fmt::print("| {} | unfused | {} | 1.000 | {:.3f} | 1.000 | {:.1f} | {:.3g} |\n", p_text, base.edges, base.seconds,
                 static_cast<double>(base.members) / sets, sets / base.seconds);
      for (const auto& c_text : colour_counts) {
        const auto c = static_cast<std::uint32_t>(std::stoul(c_text));
        const measurement m = run(g, params, c, sets, threads);
        if (m.members != base.members) throw error("fused and unfused sets differ in size: a bug");
        fmt::print("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.1f} | {:.3g} |\n", p_text, c, m.edges,
                   static_cast<double>(m.edges) / base.edges, m.seconds, m.seconds / base.seconds,
                   static_cast<double>(m.members) / sets, sets / m.seconds);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fused_traversal_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
