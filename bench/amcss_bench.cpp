// Benchmark of adaptive minimum-cost seeding (MERIT paper section 5 setting): WC weights, degree
// costs, eps = 0.5, R realizations, b and eta over grids, IC and LT; MERIT on the CPU or GPU
// against ASTI/PASTI with T threads. Prints the configuration and a markdown table of total
// cost, rounds and time by phase (means over the realizations that finished within the budget).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "wildfire/adaptive/amcss.hpp"
#include "wildfire/adaptive/node_costs.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/util/resource_usage.hpp"
#include "wildfire/version.hpp"
#include "bench_args.hpp"

namespace {

using wildfire::bench::split;

struct bench_options {
  wildfire::graph_load_options graph;
  std::string name;
  std::vector<std::string> models{"IC"};
  std::vector<std::string> batches{"4"};
  std::vector<std::string> etas{"1000"};
  std::vector<std::string> runs{"merit:cpu", "asti"};  // merit:cpu | merit:gpu | asti | degree
  std::uint32_t realizations = 10;
  std::uint32_t first_realization = 0;  // realizations first .. first + R - 1 (split a long comparison over runs)
  double epsilon = 0.5;
  int threads = 0;
  double budget_seconds = 60;  // per configuration: stop after the realization that passes it
  double time_limit = 0;       // per realization (0: none); an unfinished one ends its row
  bool round_log = false;      // per round to stderr: eta_i, n_i, sets, coverage, estimate, |A_i|, cost
};

void usage() {
  std::fputs(
      "amcss_bench -i GRAPH [--name NAME] [-w WEIGHTS] [--undirected] [--models IC,LT] [--batches 4,16]\n"
      "            [--etas 1000,2000] [--runs merit:gpu,merit:cpu,asti,degree] [-R 10] [--first-realization 0] [-e 0.5]\n"
      "            [-p THREADS] [--budget SECONDS] [--time-limit SECONDS] [--round-log]\n",
      stderr);
}

bench_options parse(int argc, char** argv) {
  bench_options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw wildfire::config_error(flag, "needs a value");
      return argv[++i];
    };
    if (flag == "-i") o.graph.path = value();
    else if (flag == "--name") o.name = value();
    else if (flag == "-w") o.graph.weights = value();
    else if (flag == "--undirected") o.graph.undirected = true;
    else if (flag == "--models") o.models = split(value());
    else if (flag == "--batches") o.batches = split(value());
    else if (flag == "--etas") o.etas = split(value());
    else if (flag == "--runs") o.runs = split(value());
    else if (flag == "-R") o.realizations = static_cast<std::uint32_t>(std::stoul(value()));
    else if (flag == "--first-realization") o.first_realization = static_cast<std::uint32_t>(std::stoul(value()));
    else if (flag == "-e") o.epsilon = std::stod(value());
    else if (flag == "-p") o.threads = std::stoi(value());
    else if (flag == "--budget") o.budget_seconds = std::stod(value());
    else if (flag == "--time-limit") o.time_limit = std::stod(value());
    else if (flag == "--round-log") o.round_log = true;
    else throw wildfire::config_error(flag, "unknown flag");
  }
  WF_EXPECTS(!o.graph.path.empty(), "-i", "a graph is required");
  if (o.name.empty()) o.name = o.graph.path;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wildfire;
  try {
    const bench_options o = parse(argc, argv);
    stopwatch load;
    const csr_graph graph = load_graph(o.graph);
    const double load_seconds = load.seconds();
    const std::vector<double> costs = adaptive::degree_costs(graph);
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    fmt::print("# amcss_bench\n\ngraph {} (n = {}, m = {}, loaded in {:.1f} s), weights {}, costs degree "
               "(0.01 + 0.01 outdeg, normalised), eps {}, up to {} realizations from realization {}, CPU threads {}, "
               "budget {} s per row, wildfire {} commit {}\n\n",
               o.name, graph.num_vertices, graph.num_edges, load_seconds, graph.provenance.weight_model, o.epsilon,
               o.realizations, o.first_realization, threads, o.budget_seconds, version_string, git_commit);
    fmt::print("| graph | model | b | eta | algorithm | device | R done | mean cost | rounds | generate s | select s "
               "| update s | diffuse s | total s / realization | sets generated | sets reused | sets repaired | sets dropped | peak set MB | regrowths | cost per realization |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);
    for (const auto& model_name : o.models) {
      const diffusion_model model = parse_diffusion_model(model_name, "--models");
      if (model == diffusion_model::lt) validate_lt_weights(graph, o.graph.path);
      for (const auto& b_text : o.batches) {
        for (const auto& eta_text : o.etas) {
          for (const auto& run : o.runs) {
            adaptive::amcss_options a;
            a.model = model;
            a.batch = static_cast<std::uint32_t>(std::stoul(b_text));
            a.eta = std::stoull(eta_text);
            a.epsilon = o.epsilon;
            a.seed = 1;
            a.realization_seed = 2;
            a.realizations = 1;
            a.backend.num_threads = threads;
            a.time_limit_seconds = o.time_limit;
            a.algorithm = adaptive::parse_amcss_algorithm(run.substr(0, run.find(':')));
            a.backend.device = run == "merit:gpu" ? device_kind::gpu : device_kind::cpu;
            std::vector<adaptive::realization_result> done;
            std::string device;
            stopwatch row;
            for (std::uint32_t r = o.first_realization; r < o.first_realization + o.realizations; ++r) {
              a.first_realization = r;
              adaptive::amcss_result result;
              try {
                result = adaptive::run_amcss(graph, costs, a);
              } catch (const std::exception& e) {
                // One failing row (say, out of device memory) must not cost the others.
                fmt::print("| {} | {} | {} | {} | {} | - | failed (realization {}): {} |\n", o.name, model_name, a.batch,
                           a.eta, run, r, e.what());
                std::fflush(stdout);
                break;
              }
              device = result.device;
              const adaptive::realization_result& last = result.runs[0];
              if (!last.finished) {
                // Stopped by --time-limit: its time is a lower bound on this configuration's.
                fmt::print("| {} | {} | {} | {} | {} | {} | unfinished (realization {}: {} of {} active) | - | {} | {:.3f} "
                           "| {:.3f} | {:.3f} | {:.3f} | > {:.1f} | {} | {} | {} | {} | {:.0f} | {} | - |\n",
                           o.name, model_name, a.batch, a.eta, adaptive::to_string(a.algorithm),
                           result.device == "cpu" ? fmt::format("cpu x{}", threads) : result.device, r, last.activated,
                           a.eta, last.rounds, last.seconds.generate, last.seconds.select, last.seconds.update,
                           last.seconds.diffuse, last.seconds.total, last.sets_generated, last.sets_reused,
                           last.sets_repaired, last.sets_dropped, static_cast<double>(last.peak_bytes) / 1e6,
                           last.storage_regrowths);
                std::fflush(stdout);
                break;
              }
              if (o.round_log) {
                fmt::print(stderr, "{} {} eta {} realization {}: cost {:.4f}, {} rounds\n", model_name,
                           adaptive::to_string(a.algorithm), a.eta, r, last.total_cost, last.rounds);
                std::uint32_t i = 0;
                for (const auto& rr : last.round_log) {
                  fmt::print(stderr, "  round {} eta_i {} n_i {} sets {} coverage {} estimate {:.1f} activated {} cost {:.4f}\n",
                             ++i, rr.eta_left, rr.remaining, rr.sets, rr.coverage, rr.estimate(), rr.activated, rr.cost);
                }
              }
              done.push_back(last);
              if (row.seconds() > o.budget_seconds) break;
            }
            if (done.empty()) continue;
            adaptive::phase_seconds mean;
            // Realization r of every row is the same world, and the cost varies a lot between worlds
            // (IC under weighted cascade: a batch either reaches a giant live component or not), so
            // rows with different R done compare only realization by realization.
            std::string per_realization;
            for (const auto& d : done) per_realization += fmt::format("{}{:.4f}", per_realization.empty() ? "" : " ", d.total_cost);
            double cost = 0, rounds = 0, generated = 0, reused = 0, repaired = 0, dropped = 0, peak_mb = 0,
                   regrowths = 0;
            const double count = static_cast<double>(done.size());
            for (const auto& d : done) {
              cost += d.total_cost / count;
              rounds += d.rounds / count;
              generated += static_cast<double>(d.sets_generated) / count;
              reused += static_cast<double>(d.sets_reused) / count;
              repaired += static_cast<double>(d.sets_repaired) / count;
              dropped += static_cast<double>(d.sets_dropped) / count;
              regrowths += static_cast<double>(d.storage_regrowths) / count;
              peak_mb = std::max(peak_mb, static_cast<double>(d.peak_bytes) / 1e6);
              mean.generate += d.seconds.generate / count;
              mean.select += d.seconds.select / count;
              mean.update += d.seconds.update / count;
              mean.diffuse += d.seconds.diffuse / count;
              mean.total += d.seconds.total / count;
            }
            const std::string device_text = device == "cpu" ? fmt::format("cpu x{}", threads) : device;
            fmt::print("| {} | {} | {} | {} | {} | {} | {} | {:.4f} | {:.1f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} "
                       "| {:.0f} | {:.0f} | {:.0f} | {:.0f} | {:.0f} | {:.1f} | {} |\n",
                       o.name, model_name, a.batch, a.eta, adaptive::to_string(a.algorithm), device_text, done.size(),
                       cost, rounds, mean.generate, mean.select, mean.update, mean.diffuse, mean.total, generated,
                       reused, repaired, dropped, peak_mb, regrowths, per_realization);
            std::fflush(stdout);
          }
        }
      }
    }
  } catch (const wildfire::error& e) {
    usage();
    std::fprintf(stderr, "amcss_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
