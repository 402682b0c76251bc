// IMM (Tang, Shi, Xiao, SIGMOD 2015; gIM digest section 1.7) written once against rr_collection:
// lower-bound estimation by doubling, then theta = lambda* / LB RR sets and greedy max coverage.
// By default the final phase samples fresh sets (W. Chen 2018); multi-round IM (gIM digest 3.1)
// runs the same loop over (vertex, round) pairs with a per-round budget.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {

/// ln C(n, k) via lgamma. Precondition k <= n.
double log_binomial(double n, double k);

/// The parameters IMM's bounds use. `log_solutions` is ln of the number of candidate seed sets
/// (ln C(n, k); T ln C(n, k) for T rounds) and `greedy_ratio` the greedy's approximation ratio
/// (1 - 1/e; 1/2 over a partition matroid).
struct imm_bounds {
  double n;
  double epsilon;
  double ell;            // after the ell * (1 + ln 2 / ln n) adjustment when it is applied
  double log_solutions;
  double greedy_ratio;
};

/// IMM's ell adjustment: ell * (1 + ln 2 / ln n), so that both phases together fail with
/// probability at most n^-ell (Tang et al. 2015, Sec. 4.2).
double imm_adjusted_ell(double n, double ell);
/// lambda' = (2 + 2/3 eps') (log_solutions + ell ln n + ln log2 n) n / eps'^2, eps' = sqrt(2) eps.
double imm_lambda_prime(const imm_bounds& b);
/// lambda* = 2 n (ratio alpha + beta)^2 / eps^2, alpha = sqrt(ell ln n + ln 2),
/// beta = sqrt(ratio (log_solutions + ell ln n + ln 2)).
double imm_lambda_star(const imm_bounds& b);

struct imm_options {
  std::uint32_t k = 50;        // seeds (per round with rounds > 1)
  double epsilon = 0.5;
  double ell = 1.0;
  bool adjust_ell = true;      // apply ell * (1 + ln 2 / ln n)
  bool reuse_rrsets = false;   // original IMM: the final phase reuses the estimation sets
  std::uint32_t rounds = 1;    // must equal the collection's sampling_params::rounds
  /// Called with a phase name and sets generated so far / wanted (progress display); may be empty.
  std::function<void(const std::string&, std::uint64_t, std::uint64_t)> progress;
};

struct imm_result {
  coverage_selection selection;       // dense ids (round * n + vertex with rounds > 1)
  std::uint64_t theta = 0;            // sets the final selection ran on
  double lower_bound = 1;             // LB of OPT from the estimation phase
  std::uint32_t estimation_iterations = 0;
  double estimated_spread = 0;        // n * F_R(S) on the final sets
  double estimated_spread_stderr = 0; // n * sqrt(F (1 - F) / theta)
  std::uint64_t final_first_id = 0;   // sample ids of the final sets: [final_first_id, + theta)
  std::uint64_t total_sets_generated = 0;
};

/// Runs IMM on `collection` (which must be empty) for a graph of `num_vertices` vertices.
/// Throws config_error for k = 0, k > n, epsilon outside (0, 1) or ell <= 0. Blocks.
imm_result run_imm(rr_collection& collection, std::uint32_t num_vertices, const imm_options& options);

}  // namespace wildfire
