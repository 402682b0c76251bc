// Adaptive minimum-cost seed selection (AMCSS, MERIT paper Def. 2.1): rounds on the residual graph
// pick a batch, observe its diffusion in a realization, and stop once eta vertices are active.
// MERIT (Alg. 1 with the digest's corrected loop control) retains and updates its mRR-sets across
// rounds; ASTI (Tang et al. 2019, with costs, as PASTI) regenerates them every round.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wildfire/backend.hpp"
#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"

namespace wildfire::adaptive {

enum class amcss_algorithm {
  merit,   // retained, updated mRR-sets
  asti,    // fresh mRR-sets every round (PASTI with threads > 1)
  degree,  // baseline: the b remaining vertices of largest out-degree / cost each round
};

/// Parses "merit", "asti" or "degree"; throws config_error("--algorithm").
amcss_algorithm parse_amcss_algorithm(const std::string& text);
std::string to_string(amcss_algorithm a);

struct amcss_options {
  amcss_algorithm algorithm = amcss_algorithm::merit;
  diffusion_model model = diffusion_model::ic;
  std::uint64_t eta = 0;              // target number of active vertices, 1 <= eta <= n
  std::uint32_t batch = 4;            // b, seeds per round
  double epsilon = 0.5;
  std::uint64_t seed = 0;             // mRR sampling
  std::uint64_t realization_seed = 0;
  std::uint32_t realizations = 10;
  std::uint32_t first_realization = 0;
  backend_config backend;             // MERIT: cpu or gpu; ASTI and degree run on the CPU
  /// Bound on the bytes of retained sets (0: the store's default_budget_bytes(): half the host's
  /// available memory, a quarter of the GPU's). MERIT drops whole sets by id above it (digest
  /// section 4.2 item 4).
  std::uint64_t memory_budget_bytes = 0;
  /// Wall-clock limit per realization in seconds (0: none; benchmarks only). A realization past
  /// it stops before its next round or its next Generate, unfinished (below eta).
  double time_limit_seconds = 0;
};

struct seed_record {
  std::uint32_t vertex = 0;       // dense id
  std::uint32_t round = 0;        // 1-based
  double cost = 0;
  std::uint64_t activations = 0;  // vertices this seed activated (itself included), in order
};

/// One round as the sampler saw it, to compare the estimate with the outcome: the batch's
/// coverage Lambda over `sets` mRR-sets estimates its truncated influence as eta_i Lambda / sets.
struct round_record {
  std::uint64_t eta_left = 0;     // eta_i
  std::uint32_t remaining = 0;    // n_i
  std::uint64_t sets = 0;         // sets the accepted batch was selected from (0: no sampling)
  std::uint64_t coverage = 0;     // Lambda(S_i)
  std::uint64_t activated = 0;    // |A_i|
  double cost = 0;                // c(S_i)
  double estimate() const { return sets > 0 ? static_cast<double>(eta_left) * static_cast<double>(coverage) / static_cast<double>(sets) : 0; }
};

struct phase_seconds {
  double generate = 0;
  double select = 0;
  double update = 0;    // Update plus post-round Discover
  double diffuse = 0;
  double total = 0;
};

struct realization_result {
  std::uint32_t realization = 0;
  std::vector<seed_record> seeds;
  std::vector<round_record> round_log;
  double total_cost = 0;
  std::uint32_t rounds = 0;
  std::uint64_t activated = 0;        // >= eta when finished
  bool finished = true;               // false: stopped by time_limit_seconds
  std::uint64_t sets_generated = 0;
  std::uint64_t sets_reused = 0;
  std::uint64_t sets_repaired = 0;
  std::uint64_t sets_dropped = 0;
  std::uint64_t max_sets = 0;         // largest collection a round selected from
  std::uint64_t trials = 0;           // Select calls
  std::uint64_t accepted_at_theta_max = 0;  // rounds accepted without passing verification
  std::uint64_t storage_regrowths = 0;
  std::uint64_t peak_bytes = 0;
  phase_seconds seconds;
};

struct amcss_result {
  std::vector<realization_result> runs;
  std::string device;                 // where the sets lived
  double mean_total_cost = 0;
  double mean_rounds = 0;
  double mean_activated = 0;
  phase_seconds mean_seconds;
};

/// Runs options.realizations realizations (numbers first_realization, ...); the means include
/// unfinished realizations (time_limit_seconds) as they stood. `costs` has one entry
/// per vertex in (0, 1]. Throws config_error for eta outside [1, n], batch 0, epsilon outside
/// (0, 1), a graph of 2^31 vertices or more, or a cost vector of the wrong size. Blocks.
amcss_result run_amcss(const csr_graph& graph, std::span<const double> costs, const amcss_options& options);

/// Checks a finished realization against the realization it ran on, as `--verify` does:
/// seeds are distinct, rounds are non-decreasing from 1 without gaps, each round has at most b
/// seeds, replaying the seeds round by round reproduces every activation count, the total cost is
/// the sum of the seed costs, the final activation count reaches eta, and a round starts only
/// while fewer than eta vertices are active.
struct amcss_verification {
  bool ok = true;
  std::string first_mismatch;
};
amcss_verification verify_amcss_realization(const csr_graph& graph, std::span<const double> costs,
                                            const amcss_options& options, const realization_result& run);

}  // namespace wildfire::adaptive
