// Plain IC liveness per vertex: the per-edge hash or the block rule's draws, one block at a time,
// each block's count table computed from (size, threshold) and memoised per thread.
#include "reference/ic_live_edges.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::reference {
namespace {

const std::uint32_t* count_table(std::uint64_t size, std::uint32_t threshold) {
  thread_local std::map<std::pair<std::uint64_t, std::uint32_t>, std::array<std::uint32_t, block_cdf_length>> tables;
  const auto [it, added] = tables.try_emplace({size, threshold});
  if (added) binomial_cdf_table(size, threshold, it->second.data());
  return it->second.data();
}

}  // namespace

bool uses_block_rule(const csr_graph& g, std::uint32_t v) {
  const std::uint64_t begin = g.in_offsets[v], end = g.in_offsets[v + 1];
  if (end - begin < 2) return false;
  const std::uint32_t t = g.in_thresholds[begin];
  if (t == 0 || t > (1U << 31)) return false;
  for (std::uint64_t j = begin; j < end; ++j)
    if (g.in_thresholds[j] != t) return false;
  return true;
}

std::vector<std::uint64_t> ic_live_in_edges(const csr_graph& g, std::uint64_t key, std::uint32_t v) {
  const std::uint64_t begin = g.in_offsets[v], end = g.in_offsets[v + 1];
  std::vector<std::uint64_t> live;
  if (!uses_block_rule(g, v)) {
    for (std::uint64_t j = begin; j < end; ++j)
      if (ic_edge_live(key, j, g.in_thresholds[j])) live.push_back(j);
    return live;
  }
  const std::uint32_t t = g.in_thresholds[begin];
  const std::uint64_t block = ic_block_size(end - begin, t);
  for (std::uint64_t first = begin; first < end; first += block) {
    const std::uint64_t size = std::min(block, end - first);
    const ic_block_counted drawn = ic_block_live_count(key, first, count_table(size, t), size);
    std::uint32_t slots[block_cdf_length];
    ic_block_live_slots(small_block_subset_table, key, first, size, drawn.count, drawn.picks, slots);
    for (std::uint32_t i = 0; i < drawn.count; ++i) live.push_back(first + slots[i]);
  }
  std::sort(live.begin(), live.end());
  return live;
}

}  // namespace wildfire::reference
