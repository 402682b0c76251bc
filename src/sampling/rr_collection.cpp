// The default multi-round selection of rr_collection: copy the sets to the host, run the CPU
// cross-round greedy (gIM digest section 3.1). Backends with their own per-round greedy override it.
#include "wildfire/sampling/rr_collection.hpp"

#include "wildfire/error.hpp"
#include "wildfire/selection/max_coverage.hpp"

namespace wildfire {

coverage_selection rr_collection::select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                                   std::uint32_t rounds) {
  WF_EXPECTS(rounds >= 1, "--rounds", "rounds must be at least 1");
  const std::uint64_t universe = std::uint64_t{num_vertices} * rounds;
  WF_EXPECTS(universe < (std::uint64_t{1} << 32), "--rounds", "rounds * n must stay below 2^32");
  const rr_sets host = copy_sets(0, size());
  max_coverage_options options;
  options.k = k_per_round;
  options.universe = static_cast<std::uint32_t>(universe);
  options.rounds = rounds;
  return greedy_max_coverage(rr_sets_view{host.offsets, host.members}, options);
}

}  // namespace wildfire
