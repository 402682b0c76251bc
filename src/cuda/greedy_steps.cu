// Assembly of the device greedy's step results (see greedy_steps.hpp).
#include "cuda/greedy_steps.hpp"

#include <algorithm>
#include <limits>

namespace wildfire::cuda {

coverage_selection assemble_selection(std::span<const unsigned long long> steps, std::uint64_t wanted, bool bound,
                                      std::uint64_t num_sets) {
  const std::uint64_t slots = wanted + 1;
  const auto best = steps.subspan(0, slots);
  const auto gained = steps.subspan(slots, slots);
  const auto top_sums = steps.subspan(2 * slots, slots);
  coverage_selection result;
  result.optimum_upper_bound = std::numeric_limits<std::uint64_t>::max();
  for (std::uint64_t step = 0; step < wanted; ++step) {
    if (bound) {
      result.optimum_upper_bound = std::min<std::uint64_t>(result.optimum_upper_bound, result.covered + top_sums[step]);
    }
    if (best[step] == 0) break;
    result.seeds.push_back(argmax_key_vertex(best[step]));
    result.marginal_coverage.push_back(gained[step]);
    result.covered += gained[step];
  }
  if (bound) {
    result.optimum_upper_bound = std::min<std::uint64_t>(result.optimum_upper_bound, result.covered + top_sums[wanted]);
  }
  result.optimum_upper_bound = std::min<std::uint64_t>(result.optimum_upper_bound, num_sets);
  return result;
}

}  // namespace wildfire::cuda
