// All Twitter15 cascades end to end: read the archive, sweep every propagation tree (sequential,
// OpenMP, GPU), combine per user. Usage: twitter_trees_bench [ARCHIVE] [REPS]
#include <fmt/core.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <string>

#include "wildfire/backend.hpp"
#include "wildfire/twitter/combine.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/version.hpp"

using namespace wildfire;
using namespace wildfire::twitter;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "../shared/data/twitter15.tar.gz";
  const int reps = argc > 2 ? std::max(1, std::stoi(argv[2])) : 5;
  try {
    auto t0 = std::chrono::steady_clock::now();
    read_stats stats;
    const spreading_graphs g = read_propagation_trees(path, &stats);
    const double read_seconds = seconds_since(t0);
    fmt::print("# twitter_trees_bench (wildfire {} commit {})\n", version_string, git_commit);
    fmt::print("{}: T = {} cascades, N = {} participations, M = {} back edges, U = {} users; follower counts 1\n", path,
               g.num_graphs(), g.num_nodes(), g.num_edges(), g.user_ids.size());
    fmt::print("dropped: {} self loops, {} repeated edges, {} edges to a later parent\n", stats.self_loops_dropped,
               stats.repeated_edges_dropped, stats.late_parent_edges_dropped);
    fmt::print("read + parse (gzip, tar, {} tree files): {:.3f} s; {} repetitions per backend (mean)\n\n", g.num_graphs(),
               read_seconds, reps);
    fmt::print("| backend | backward phase (ms) | combine (ms) | end to end incl. read (ms) | max rel. diff |\n|---|---|---|---|---|\n");
    influence_result reference;
    auto report = [&](const std::string& name, auto&& sweep) {
      double backward = 0.0, combine = 0.0;
      influence_result r;
      for (int k = 0; k < reps; ++k) {
        r = sweep();
        backward += r.backward_seconds / reps;
        auto c0 = std::chrono::steady_clock::now();
        const user_scores s = combine_by_user(g, r.influence);
        combine += seconds_since(c0) / reps;
      }
      if (reference.influence.empty()) reference = r;
      double worst = 0.0;
      for (std::size_t i = 0; i < r.influence.size(); ++i) {
        worst = std::max(worst, std::abs(r.influence[i] - reference.influence[i]) / std::max(1.0, reference.influence[i]));
      }
      fmt::print("| {} | {:.3f} | {:.3f} | {:.1f} | {:.1e} |\n", name, backward * 1e3, combine * 1e3,
                 (read_seconds + backward + combine) * 1e3, worst);
    };
    report("CPU sequential", [&] { return backward_sequential(g); });
    report(fmt::format("CPU OpenMP ({} threads)", omp_get_max_threads()), [&] { return backward_openmp(g); });
    if (gpu_available()) {
      report("GPU auto = shared-pull (incl. transfers and layout build: upload, layout, sweep, download)", [&] {
        auto t = std::chrono::steady_clock::now();
        influence_result r = backward_gpu(g);
        r.backward_seconds = seconds_since(t);
        return r;
      });
    }
    const user_scores s = combine_by_user(g, reference.influence);
    fmt::print("\ntop users by total influence:\n");
    for (std::uint32_t u : top_users(s, rank_key::total, 5)) {
      fmt::print("  {} total {:.1f} over {} cascades\n", g.user_ids[u], s.total[u], s.tweets[u]);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "twitter_trees_bench: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
