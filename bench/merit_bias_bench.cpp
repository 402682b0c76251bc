// Diagnostic of MERIT's retained mRR-sets over many rounds: runs MERIT's round loop on the CPU
// store for one realization and, after each round's batch S_i is chosen, estimates S_i's coverage
// fraction both in MERIT's retained sets (which chose it) and in an independent fresh collection on
// the same residual graph. Unbiased retained sets give the same fraction up to the greedy's own
// winner's curse, which the fresh collection's own batch (scored on a second fresh collection)
// measures. Prints one markdown row per round.
//   merit_bias_bench -i GRAPH [-w wc] [--eta 5000] [-b 4] [-r REALIZATION] [--fresh 20000] [-p T]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "wildfire/adaptive/mrr_rules.hpp"
#include "wildfire/adaptive/mrr_store.hpp"
#include "wildfire/adaptive/node_costs.hpp"
#include "wildfire/adaptive/realization.hpp"
#include "wildfire/adaptive/residual_graph.hpp"
#include "wildfire/adaptive/round_bounds.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/graph_loader.hpp"

namespace {

using namespace wildfire;
using namespace wildfire::adaptive;

/// Fraction of the sets in `snap` that hold a vertex of `batch`.
double covered_fraction(const mrr_snapshot& snap, const std::vector<std::uint32_t>& batch) {
  const std::size_t sets = snap.members.offsets.size() - 1;
  std::uint64_t hit = 0;
  for (std::size_t s = 0; s < sets; ++s) {
    const auto* begin = snap.members.members.data() + snap.members.offsets[s];
    const auto* end = snap.members.members.data() + snap.members.offsets[s + 1];
    hit += std::any_of(begin, end, [&](std::uint32_t v) { return std::find(batch.begin(), batch.end(), v) != batch.end(); })
               ? 1
               : 0;
  }
  return sets > 0 ? static_cast<double>(hit) / static_cast<double>(sets) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    graph_load_options load;
    load.weights = "wc";
    std::uint64_t eta = 5000, fresh = 20000;
    std::uint32_t batch = 4, realization = 0;
    int threads = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string flag = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw config_error(flag, "needs a value");
        return argv[++i];
      };
      if (flag == "-i") load.path = value();
      else if (flag == "-w") load.weights = value();
      else if (flag == "--eta") eta = std::stoull(value());
      else if (flag == "-b") batch = static_cast<std::uint32_t>(std::stoul(value()));
      else if (flag == "-r") realization = static_cast<std::uint32_t>(std::stoul(value()));
      else if (flag == "--fresh") fresh = std::stoull(value());
      else if (flag == "-p") threads = std::stoi(value());
      else throw config_error(flag, "unknown flag");
    }
    const csr_graph graph = load_graph(load);
    const std::vector<double> costs = degree_costs(graph);
    const ic_block_plan plan = make_ic_block_plan(graph.view());
    realization_diffusion world(graph, diffusion_model::ic, 2, realization, &plan);
    residual_graph residual(graph);
    auto merit = make_cpu_mrr_store(graph, diffusion_model::ic, costs, realization_sampling_seed(1, realization), threads, &plan);
    fmt::print("| round | eta_i | n_i | merit sets | merit Lambda/theta | fresh Lambda(S_i)/theta | ratio | fresh own batch | "
               "on 2nd fresh | ratio | |A_i| | c(S_i) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    double total_cost = 0;
    for (std::uint32_t round = 1; world.num_active() < eta; ++round) {
      const std::uint64_t eta_left = eta - world.num_active();
      std::vector<std::uint32_t> seeds;
      double merit_fraction = 0, fresh_fraction = 0, own = 0, own_second = 0;
      std::uint64_t merit_sets = 0;
      if (eta_left <= batch) {
        std::vector<std::uint32_t> pool(residual.remaining().begin(), residual.remaining().end());
        std::partial_sort(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(eta_left), pool.end(),
                          [&](std::uint32_t a, std::uint32_t b) { return costs[a] != costs[b] ? costs[a] < costs[b] : a < b; });
        seeds.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(eta_left));
      } else {
        const double mean_roots = static_cast<double>(residual.num_remaining()) / static_cast<double>(eta_left);
        const round_bounds bounds = compute_round_bounds(residual.num_remaining(), batch, 0.5);
        merit->begin_round(residual, mean_roots, round);
        if (merit->size() > 0) merit->update();
        const auto theta0 = static_cast<std::uint64_t>(std::ceil(bounds.theta0));
        if (merit->size() < theta0) merit->generate(theta0 - merit->size());
        for (;;) {
          const batch_selection s = merit->select(batch);
          if (batch_verified(s.coverage, bounds) || merit->size() >= bounds.theta_max) {
            merit->commit_selection();
            seeds = s.seeds;
            merit_sets = merit->size();
            merit_fraction = static_cast<double>(s.coverage) / static_cast<double>(merit_sets);
            break;
          }
          merit->generate(merit->size());
        }
        auto first = make_cpu_mrr_store(graph, diffusion_model::ic, costs, realization_sampling_seed(77, realization, round), threads, &plan);
        auto second = make_cpu_mrr_store(graph, diffusion_model::ic, costs, realization_sampling_seed(78, realization, round), threads, &plan);
        for (auto* store : {first.get(), second.get()}) {
          store->begin_round(residual, mean_roots, round);
          store->generate(fresh);
        }
        const mrr_snapshot first_snap = first->snapshot();
        const mrr_snapshot second_snap = second->snapshot();
        fresh_fraction = covered_fraction(first_snap, seeds);
        const std::vector<std::uint32_t> own_batch = first->select(batch).seeds;
        own = covered_fraction(first_snap, own_batch);
        own_second = covered_fraction(second_snap, own_batch);
      }
      std::uint64_t activated_count = 0;
      std::vector<std::uint32_t> activated;
      double cost = 0;
      for (const std::uint32_t seed : seeds) {
        const std::vector<std::uint32_t> reached = world.activate(seed);
        activated.insert(activated.end(), reached.begin(), reached.end());
        cost += costs[seed];
      }
      activated_count = activated.size();
      total_cost += cost;
      residual.remove(activated);
      if (merit_sets > 0) merit->discover(activated);
      fmt::print("| {} | {} | {} | {} | {:.4f} | {:.4f} | {:.2f} | {:.4f} | {:.4f} | {:.2f} | {} | {:.4f} |\n", round,
                 eta_left, residual.num_remaining() + activated_count, merit_sets, merit_fraction, fresh_fraction,
                 fresh_fraction > 0 ? merit_fraction / fresh_fraction : 0.0, own, own_second,
                 own_second > 0 ? own / own_second : 0.0, activated_count, cost);
      std::fflush(stdout);
    }
    fmt::print("\ntotal cost {:.4f}\n", total_cost);
  } catch (const wildfire::error& e) {
    std::fprintf(stderr, "merit_bias_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
