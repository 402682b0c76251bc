// IMM (Tang, Shi, Xiao 2015, Algorithms 1-3) over any rr_collection; formulas in gIM digest 1.7.
// Deviations from the printed algorithm, on purpose: fresh final-phase sets by default (W. Chen
// 2018, "An issue in the martingale analysis of IMM"); 2/3 is real division (the original code's
// integer 2/3 == 0 shrinks lambda'); multi-round uses the per-round greedy (ratio 1/2) and
// T ln C(n, k) candidate solutions.
#include "wildfire/algorithms/imm.hpp"

#include <algorithm>
#include <cmath>

#include "wildfire/error.hpp"

namespace wildfire {

double log_binomial(double n, double k) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

double imm_adjusted_ell(double n, double ell) { return ell * (1.0 + std::log(2.0) / std::log(n)); }

double imm_lambda_prime(const imm_bounds& b) {
  const double eps_prime = std::sqrt(2.0) * b.epsilon;
  return (2.0 + 2.0 / 3.0 * eps_prime) *
         (b.log_solutions + b.ell * std::log(b.n) + std::log(std::log2(b.n))) * b.n / (eps_prime * eps_prime);
}

double imm_lambda_star(const imm_bounds& b) {
  const double alpha = std::sqrt(b.ell * std::log(b.n) + std::log(2.0));
  const double beta = std::sqrt(b.greedy_ratio * (b.log_solutions + b.ell * std::log(b.n) + std::log(2.0)));
  const double root = b.greedy_ratio * alpha + beta;
  return 2.0 * b.n * root * root / (b.epsilon * b.epsilon);
}

imm_result run_imm(rr_collection& collection, std::uint32_t num_vertices, const imm_options& options) {
  WF_EXPECTS(options.k >= 1, "-k", "k must be at least 1");
  WF_EXPECTS(options.k <= num_vertices, "-k",
             "k = " + std::to_string(options.k) + " exceeds the number of vertices (" + std::to_string(num_vertices) + ")");
  WF_EXPECTS(options.epsilon > 0 && options.epsilon < 1, "-e", "epsilon must lie in (0, 1)");
  WF_EXPECTS(options.ell > 0, "--ell", "ell must be positive");
  WF_EXPECTS(options.rounds >= 1, "--rounds", "rounds must be at least 1");
  WF_EXPECTS(collection.size() == 0, "collection", "IMM needs an empty collection");
  WF_EXPECTS(num_vertices >= 2, "-i", "IMM needs a graph of at least 2 vertices");

  const double n = num_vertices;
  imm_bounds bounds{n, options.epsilon, options.adjust_ell ? imm_adjusted_ell(n, options.ell) : options.ell,
                    options.rounds * log_binomial(n, options.k),
                    options.rounds == 1 ? 1.0 - std::exp(-1.0) : 0.5};
  auto select = [&]() {
    return options.rounds == 1 ? collection.select(options.k, false)
                               : collection.select_per_round(options.k, num_vertices, options.rounds);
  };
  auto report = [&](const std::string& phase, std::uint64_t done, std::uint64_t wanted) {
    if (options.progress) options.progress(phase, done, wanted);
  };

  imm_result result;
  std::uint64_t next_id = 0;
  auto grow_to = [&](std::uint64_t wanted, const std::string& phase) {
    // Grow in slices so a progress display can follow long phases.
    while (collection.size() < wanted) {
      const std::uint64_t slice = std::min<std::uint64_t>(wanted - collection.size(), std::max<std::uint64_t>(wanted / 8, 1 << 16));
      collection.generate(next_id, slice);
      next_id += slice;
      report(phase, collection.size(), wanted);
    }
  };

  // Estimation (Algorithm 2): x_i = n / 2^i for i = 1 .. log2(n) - 1.
  const double eps_prime = std::sqrt(2.0) * options.epsilon;
  const double lambda_prime = imm_lambda_prime(bounds);
  const auto last_i = static_cast<std::uint32_t>(std::max(1.0, std::floor(std::log2(n) - 1.0)));
  double lower_bound = 1.0;
  for (std::uint32_t i = 1; i <= last_i; ++i) {
    const double x = n / std::pow(2.0, i);
    const auto theta_i = static_cast<std::uint64_t>(std::ceil(lambda_prime / x));
    grow_to(theta_i, "estimation");
    const coverage_selection s = select();
    ++result.estimation_iterations;
    const double spread = n * static_cast<double>(s.covered) / static_cast<double>(collection.size());
    if (spread >= (1.0 + eps_prime) * x) {
      lower_bound = spread / (1.0 + eps_prime);
      break;
    }
  }
  result.lower_bound = lower_bound;

  // Final phase (Algorithm 3): theta = lambda* / LB.
  const auto theta = static_cast<std::uint64_t>(std::ceil(imm_lambda_star(bounds) / lower_bound));
  if (!options.reuse_rrsets) collection.clear();
  result.final_first_id = options.reuse_rrsets ? 0 : next_id;
  grow_to(std::max<std::uint64_t>(theta, options.reuse_rrsets ? collection.size() : 0), "sampling");
  result.selection = select();
  result.theta = collection.size();
  const double fraction = static_cast<double>(result.selection.covered) / static_cast<double>(result.theta);
  result.estimated_spread = n * fraction;
  result.estimated_spread_stderr = n * std::sqrt(fraction * (1 - fraction) / static_cast<double>(result.theta));
  result.total_sets_generated = next_id;
  return result;
}

}  // namespace wildfire
