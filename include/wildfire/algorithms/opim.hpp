// OPIM-C (Tang, Tang, Xiao, Yuan, SIGMOD 2018, Algorithm 2): two independent RR collections, R1
// to select and R2 to validate, doubled until the certified ratio sigma^l(S) / sigma^u(S*)
// reaches 1 - 1/e - eps or theta_max is reached. Written once against rr_collection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {

struct opim_options {
  std::uint32_t k = 50;
  double epsilon = 0.1;
  double delta = 0;  // failure probability; 0 means 1/n
  std::function<void(const std::string&, std::uint64_t, std::uint64_t)> progress;
};

/// Sample ids of R2 start here, so R1 and R2 are disjoint families of one seed.
inline constexpr std::uint64_t opim_validation_first_id = std::uint64_t{1} << 40;

/// OPIM-C's sample sizes: theta_max, theta_0 and i_max = ceil(log2(theta_max / theta_0)).
struct opim_schedule {
  double theta_max;
  std::uint64_t theta_0;
  std::uint32_t i_max;
  double a;  // ln(3 i_max / delta), used by both bounds
};
opim_schedule opim_plan(std::uint32_t n, std::uint32_t k, double epsilon, double delta);

/// OPIM's bounds (Lemmas 4.2, 4.3 of the paper; MERIT digest Lemma 8.1): lower bound on the
/// spread of S from its coverage on R2, and upper bound on OPT from an upper bound on the optimum
/// coverage on R1.
double opim_lower_bound(double covered_r2, double theta_2, double n, double a);
double opim_upper_bound(double optimum_coverage_bound_r1, double theta_1, double n, double a);

struct opim_result {
  coverage_selection selection;  // on R1
  double approximation = 0;      // certified ratio sigma^l(S) / sigma^u(OPT), w.p. >= 1 - delta
  double spread_lower = 0;       // sigma^l(S)
  double optimum_upper = 0;      // sigma^u(OPT)
  double estimated_spread = 0;   // n * Lambda_2(S) / |R2| (unbiased)
  std::uint64_t sets_r1 = 0;
  std::uint64_t sets_r2 = 0;
  std::uint32_t iterations = 0;
};

/// Runs OPIM-C with empty collections r1 and r2 of the same family. Throws config_error for
/// k = 0, k > n, epsilon outside (0, 1) or delta outside (0, 1). Blocks.
opim_result run_opim(rr_collection& r1, rr_collection& r2, std::uint32_t num_vertices, const opim_options& options);

}  // namespace wildfire
