// OPIM-C (Tang, Tang, Xiao, Yuan 2018, Algorithm 2). The optimum-coverage upper bound on R1 is the
// tighter of Lambda_1(S)/(1 - (1 - 1/k)^k) and the greedy's Eq. 9 bound (min over steps of
// coverage + sum of the k largest marginals).
#include "wildfire/algorithms/opim.hpp"

#include <algorithm>
#include <cmath>

#include "wildfire/algorithms/imm.hpp"
#include "wildfire/error.hpp"

namespace wildfire {

opim_schedule opim_plan(std::uint32_t n, std::uint32_t k, double epsilon, double delta) {
  const double nn = n;
  const double ratio = 1.0 - std::exp(-1.0);
  const double log6 = std::log(6.0 / delta);
  const double root = ratio * std::sqrt(log6) + std::sqrt(ratio * (log_binomial(nn, k) + log6));
  opim_schedule plan{};
  plan.theta_max = 2.0 * nn * root * root / (epsilon * epsilon * k);
  plan.theta_0 = static_cast<std::uint64_t>(std::ceil(plan.theta_max * epsilon * epsilon * k / nn));
  plan.i_max = static_cast<std::uint32_t>(std::max(1.0, std::ceil(std::log2(plan.theta_max / static_cast<double>(plan.theta_0)))));
  plan.a = std::log(3.0 * plan.i_max / delta);
  return plan;
}

double opim_lower_bound(double covered_r2, double theta_2, double n, double a) {
  const double root = std::sqrt(covered_r2 + 2.0 * a / 9.0) - std::sqrt(a / 2.0);
  return std::max(0.0, root * root - a / 18.0) * n / theta_2;
}

double opim_upper_bound(double optimum_coverage_bound_r1, double theta_1, double n, double a) {
  const double root = std::sqrt(optimum_coverage_bound_r1 + a / 2.0) + std::sqrt(a / 2.0);
  return root * root * n / theta_1;
}

opim_result run_opim(rr_collection& r1, rr_collection& r2, std::uint32_t num_vertices, const opim_options& options) {
  WF_EXPECTS(options.k >= 1, "-k", "k must be at least 1");
  WF_EXPECTS(options.k <= num_vertices, "-k",
             "k = " + std::to_string(options.k) + " exceeds the number of vertices (" + std::to_string(num_vertices) + ")");
  WF_EXPECTS(options.epsilon > 0 && options.epsilon < 1, "-e", "epsilon must lie in (0, 1)");
  WF_EXPECTS(num_vertices >= 2, "-i", "OPIM-C needs a graph of at least 2 vertices");
  const double n = num_vertices;
  const double delta = options.delta > 0 ? options.delta : 1.0 / n;
  WF_EXPECTS(delta > 0 && delta < 1, "--delta", "delta must lie in (0, 1)");
  WF_EXPECTS(r1.size() == 0 && r2.size() == 0, "collection", "OPIM-C needs empty collections");

  const opim_schedule plan = opim_plan(num_vertices, options.k, options.epsilon, delta);
  const double target = 1.0 - std::exp(-1.0) - options.epsilon;
  const double greedy_ratio = 1.0 - std::pow(1.0 - 1.0 / options.k, options.k);
  opim_result result;
  std::uint64_t wanted = plan.theta_0;
  for (std::uint32_t i = 1; i <= plan.i_max; ++i) {
    // The last round holds theta_max sets, where the guarantee holds without validation.
    if (i == plan.i_max) wanted = std::max<std::uint64_t>(wanted, static_cast<std::uint64_t>(std::ceil(plan.theta_max)));
    r1.generate(r1.size(), wanted - r1.size());
    r2.generate(opim_validation_first_id + r2.size(), wanted - r2.size());
    if (options.progress) options.progress("sampling", r1.size() + r2.size(), 2 * static_cast<std::uint64_t>(plan.theta_max));
    result.selection = r1.select(options.k, true);
    result.iterations = i;
    const double theta_1 = static_cast<double>(r1.size());
    const double theta_2 = static_cast<double>(r2.size());
    const double optimum_bound = std::min(static_cast<double>(result.selection.covered) / greedy_ratio,
                                          static_cast<double>(result.selection.optimum_upper_bound));
    const double covered_2 = static_cast<double>(r2.coverage(result.selection.seeds));
    result.spread_lower = opim_lower_bound(covered_2, theta_2, n, plan.a);
    result.optimum_upper = opim_upper_bound(optimum_bound, theta_1, n, plan.a);
    result.approximation = result.optimum_upper > 0 ? result.spread_lower / result.optimum_upper : 0.0;
    result.estimated_spread = n * covered_2 / theta_2;
    if (result.approximation >= target) break;
    wanted *= 2;
  }
  result.sets_r1 = r1.size();
  result.sets_r2 = r2.size();
  return result;
}

}  // namespace wildfire
