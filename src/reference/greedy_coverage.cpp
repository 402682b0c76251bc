// Serial greedy maximum coverage, recounting from scratch at every step.
#include "reference/greedy_coverage.hpp"

#include <algorithm>

namespace wildfire::reference {

greedy_result greedy_coverage(const rr_sets& sets, std::uint32_t universe, std::uint32_t k, std::uint32_t rounds) {
  greedy_result result;
  std::vector<bool> covered(sets.size(), false);
  std::vector<bool> chosen(universe, false);
  std::vector<std::uint32_t> used(rounds, 0);
  const std::uint32_t per_round = universe / rounds;
  const std::uint64_t steps = std::min<std::uint64_t>(std::uint64_t{k} * rounds, universe);
  for (std::uint64_t step = 0; step < steps; ++step) {
    std::vector<std::uint64_t> gain(universe, 0);
    for (std::uint64_t s = 0; s < sets.size(); ++s)
      if (!covered[s])
        for (const std::uint32_t u : sets[s]) ++gain[u];
    std::int64_t best = -1;
    for (std::uint32_t u = 0; u < universe; ++u) {
      if (chosen[u] || used[u / per_round] >= k) continue;
      if (best < 0 || gain[u] > gain[static_cast<std::uint32_t>(best)]) best = u;
    }
    if (best < 0) break;
    const auto v = static_cast<std::uint32_t>(best);
    chosen[v] = true;
    ++used[v / per_round];
    std::uint64_t newly = 0;
    for (std::uint64_t s = 0; s < sets.size(); ++s) {
      if (covered[s]) continue;
      const auto set = sets[s];
      if (std::find(set.begin(), set.end(), v) != set.end()) {
        covered[s] = true;
        ++newly;
      }
    }
    result.seeds.push_back(v);
    result.marginal_coverage.push_back(newly);
    result.covered += newly;
  }
  return result;
}

std::uint64_t covered_sets(const rr_sets& sets, const std::vector<std::uint32_t>& seeds) {
  std::uint64_t count = 0;
  for (std::uint64_t s = 0; s < sets.size(); ++s) {
    const auto set = sets[s];
    if (std::any_of(set.begin(), set.end(), [&](std::uint32_t u) {
          return std::find(seeds.begin(), seeds.end(), u) != seeds.end();
        }))
      ++count;
  }
  return count;
}

}  // namespace wildfire::reference
