// Greedy maximum coverage (IMM NodeSelection; OPIM-C upper bound, Tang et al. 2018 Eq. 9).
// The element-to-sets index comes from a two-pass parallel counting sort over contiguous ranges
// of sets, so each index list is in set order whatever the thread count.
#include "wildfire/selection/max_coverage.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <vector>

#include "wildfire/error.hpp"

namespace wildfire {
namespace {

int resolve_threads(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

/// Set-index boundaries splitting the members into `parts` nearly equal ranges.
std::vector<std::uint64_t> balanced_set_ranges(rr_sets_view sets, int parts) {
  std::vector<std::uint64_t> bounds(static_cast<std::size_t>(parts) + 1, sets.size());
  bounds[0] = 0;
  const std::uint64_t total = sets.members.size();
  for (int p = 1; p < parts; ++p) {
    const std::uint64_t target = total * static_cast<std::uint64_t>(p) / static_cast<std::uint64_t>(parts);
    const auto it = std::lower_bound(sets.offsets.begin(), sets.offsets.end() - 1, target);
    bounds[static_cast<std::size_t>(p)] = std::max<std::uint64_t>(
        bounds[static_cast<std::size_t>(p) - 1], static_cast<std::uint64_t>(it - sets.offsets.begin()));
  }
  return bounds;
}

struct inverted_index {
  std::vector<std::uint32_t> counts;   // sets holding each element
  std::vector<std::uint64_t> offsets;  // universe + 1
  std::vector<std::uint32_t> sets;     // set ids, ascending within each element
};

inverted_index build_index(rr_sets_view sets, std::uint32_t universe, int threads) {
  inverted_index index;
  const auto ranges = balanced_set_ranges(sets, threads);
  std::vector<std::vector<std::uint32_t>> local(static_cast<std::size_t>(threads));
  index.counts.assign(universe, 0);
  index.offsets.assign(static_cast<std::size_t>(universe) + 1, 0);
  index.sets.resize(sets.members.size());
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    auto& mine = local[static_cast<std::size_t>(t)];
    mine.assign(universe, 0);
    const std::uint64_t begin = sets.offsets[ranges[static_cast<std::size_t>(t)]];
    const std::uint64_t end = sets.offsets[ranges[static_cast<std::size_t>(t) + 1]];
    for (std::uint64_t i = begin; i < end; ++i) ++mine[sets.members[i]];
#pragma omp barrier
#pragma omp for schedule(static)
    for (std::int64_t u = 0; u < static_cast<std::int64_t>(universe); ++u) {
      std::uint32_t total = 0;
      for (int p = 0; p < threads; ++p) total += local[static_cast<std::size_t>(p)][static_cast<std::size_t>(u)];
      index.counts[static_cast<std::size_t>(u)] = total;
    }
#pragma omp single
    {
      std::uint64_t run = 0;
      for (std::uint32_t u = 0; u < universe; ++u) {
        index.offsets[u] = run;
        run += index.counts[u];
      }
      index.offsets[universe] = run;
    }
#pragma omp for schedule(static)
    for (std::int64_t u = 0; u < static_cast<std::int64_t>(universe); ++u) {
      std::uint64_t run = index.offsets[static_cast<std::size_t>(u)];
      for (int p = 0; p < threads; ++p) {
        auto& slot = local[static_cast<std::size_t>(p)][static_cast<std::size_t>(u)];
        const std::uint64_t here = slot;
        slot = static_cast<std::uint32_t>(run - index.offsets[static_cast<std::size_t>(u)]);
        run += here;
      }
    }
    for (std::uint64_t s = ranges[static_cast<std::size_t>(t)]; s < ranges[static_cast<std::size_t>(t) + 1]; ++s) {
      for (std::uint64_t i = sets.offsets[s]; i < sets.offsets[s + 1]; ++i) {
        const std::uint32_t u = sets.members[i];
        index.sets[index.offsets[u] + mine[u]++] = static_cast<std::uint32_t>(s);
      }
    }
  }
  return index;
}

/// Sum of the `k` largest counts (OPIM-C: no k elements can add more than this); their ids go
/// to `top_ids`.
std::uint64_t top_k_sum(const std::vector<std::uint32_t>& counts, const std::vector<std::uint32_t>& active,
                        std::uint32_t k, std::vector<std::uint64_t>& scratch, std::vector<std::uint32_t>& top_ids) {
  scratch.clear();
  for (const std::uint32_t u : active)
    if (counts[u] != 0) scratch.push_back(std::uint64_t{counts[u]} << 32 | u);
  if (scratch.size() > k) {
    std::nth_element(scratch.begin(), scratch.begin() + k, scratch.end(), std::greater<>());
    scratch.resize(k);
  }
  std::uint64_t sum = 0;
  top_ids.clear();
  for (const std::uint64_t c : scratch) {
    sum += c >> 32;
    top_ids.push_back(static_cast<std::uint32_t>(c));
  }
  return sum;
}

struct best_element {
  std::uint32_t count = 0;
  std::uint32_t id = std::numeric_limits<std::uint32_t>::max();
  bool better_than(const best_element& other) const noexcept {
    return count > other.count || (count == other.count && id < other.id);
  }
};

/// Max-heap order: larger count first, then lower id.
struct heap_order {
  bool operator()(const best_element& a, const best_element& b) const noexcept { return b.better_than(a); }
};

}  // namespace

coverage_selection greedy_max_coverage(rr_sets_view sets, const max_coverage_options& options) {
  WF_EXPECTS(options.k >= 1, "-k", "k must be at least 1");
  WF_EXPECTS(options.rounds >= 1 && options.universe % options.rounds == 0, "--rounds",
             "the universe must hold the same number of elements in every round");
  WF_EXPECTS(sets.size() < std::numeric_limits<std::uint32_t>::max(), "theta",
             "at most 2^32 - 2 RR sets can be selected over");
  const int threads = resolve_threads(options.num_threads);
  const std::uint32_t universe = options.universe;
  const std::uint32_t per_round = options.rounds == 0 ? universe : universe / options.rounds;
  const std::uint64_t wanted = std::min<std::uint64_t>(std::uint64_t{options.k} * options.rounds, universe);

  // Below about a million members the barriers of a parallel build cost more than the build.
  inverted_index index = build_index(sets, universe, sets.members.size() < (1U << 20) ? 1 : threads);
  std::vector<std::uint8_t> covered(sets.size(), 0);
  std::vector<std::uint8_t> selected(universe, 0);
  std::vector<std::uint32_t> used(options.rounds, 0);
  std::vector<std::uint64_t> scratch;
  std::vector<std::uint32_t> top_ids;
  const bool want_bound = options.upper_bound && options.rounds == 1;

  coverage_selection result;
  result.optimum_upper_bound = std::numeric_limits<std::uint64_t>::max();
  auto& counts = index.counts;
  auto eligible = [&](std::uint32_t u) {
    return !selected[u] && used[per_round == 0 ? 0 : u / per_round] < options.k;
  };

  // Lazy greedy (CELF): counts only decrease, so a heap entry whose stored count is still current
  // is the true maximum; stale entries are refreshed when they reach the top. Only elements with
  // a positive count enter the heap; the zero-gain fill takes the lowest eligible ids.
  std::vector<std::uint32_t> active;
  std::vector<best_element> heap;
  for (std::uint32_t u = 0; u < universe; ++u)
    if (counts[u] != 0) {
      active.push_back(u);
      heap.push_back({counts[u], u});
    }
  std::make_heap(heap.begin(), heap.end(), heap_order{});

  // Eq. 9's minimum over steps. The current counts of the last top-k elements sum to at most the
  // current top-k sum, so when even they reach the minimum this step cannot lower it: skip the scan.
  auto tighten_bound = [&]() {
    if (!top_ids.empty()) {
      std::uint64_t floor = result.covered;
      for (const std::uint32_t u : top_ids) floor += counts[u];
      if (floor >= result.optimum_upper_bound) return;
    }
    result.optimum_upper_bound = std::min(result.optimum_upper_bound,
                                          result.covered + top_k_sum(counts, active, options.k, scratch, top_ids));
  };
  for (std::uint64_t step = 0; step < wanted; ++step) {
    if (want_bound) tighten_bound();
    best_element best;
    while (!heap.empty()) {
      const best_element top = heap.front();
      std::pop_heap(heap.begin(), heap.end(), heap_order{});
      heap.pop_back();
      if (!eligible(top.id)) continue;
      if (counts[top.id] != top.count) {
        if (counts[top.id] != 0) {
          heap.push_back({counts[top.id], top.id});
          std::push_heap(heap.begin(), heap.end(), heap_order{});
        }
        continue;
      }
      best = top;
      break;
    }
    if (best.id == std::numeric_limits<std::uint32_t>::max()) {
      for (std::uint32_t u = 0; u < universe; ++u)
        if (eligible(u)) {
          best = {0, u};
          break;
        }
    }
    if (best.id == std::numeric_limits<std::uint32_t>::max()) break;  // every round's budget is spent

    const std::uint32_t v = best.id;
    selected[v] = 1;
    ++used[per_round == 0 ? 0 : v / per_round];
    const std::uint64_t list_begin = index.offsets[v];
    const std::uint64_t list_end = index.offsets[static_cast<std::size_t>(v) + 1];
    std::uint64_t gained = 0;
    if (threads > 1 && list_end - list_begin > (1U << 15)) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(+ : gained)
      for (std::int64_t i = static_cast<std::int64_t>(list_begin); i < static_cast<std::int64_t>(list_end); ++i) {
        const std::uint32_t s = index.sets[static_cast<std::size_t>(i)];
        if (covered[s]) continue;  // each set occurs once in v's list: no other thread writes it
        covered[s] = 1;
        ++gained;
        for (std::uint64_t j = sets.offsets[s]; j < sets.offsets[s + 1]; ++j)
          std::atomic_ref<std::uint32_t>(counts[sets.members[j]]).fetch_sub(1, std::memory_order_relaxed);
      }
    } else {
      // The sets of v's list are scattered over the whole store: fetch the offsets of the set
      // 16 ahead and the members of the set 8 ahead, so the misses overlap instead of queueing.
      for (std::uint64_t i = list_begin; i < list_end; ++i) {
        if (i + 16 < list_end) __builtin_prefetch(&sets.offsets[index.sets[i + 16]]);
        if (i + 8 < list_end) {
          const std::uint32_t ahead = index.sets[i + 8];
          __builtin_prefetch(&covered[ahead]);
          __builtin_prefetch(&sets.members[sets.offsets[ahead]]);
        }
        const std::uint32_t s = index.sets[i];
        if (covered[s]) continue;
        covered[s] = 1;
        ++gained;
        for (std::uint64_t j = sets.offsets[s]; j < sets.offsets[s + 1]; ++j) --counts[sets.members[j]];
      }
    }
    result.seeds.push_back(v);
    result.marginal_coverage.push_back(gained);
    result.covered += gained;
  }
  if (want_bound) {
    tighten_bound();
  } else {
    result.optimum_upper_bound = sets.size();
  }
  result.optimum_upper_bound = std::min<std::uint64_t>(result.optimum_upper_bound, sets.size());
  return result;
}

std::uint64_t count_covered(rr_sets_view sets, std::span<const std::uint32_t> seeds, std::uint32_t universe,
                            int num_threads) {
  std::vector<std::uint8_t> is_seed(universe, 0);
  for (const std::uint32_t s : seeds) {
    WF_EXPECTS(s < universe, "seeds", "seed id " + std::to_string(s) + " is outside the graph");
    is_seed[s] = 1;
  }
  std::uint64_t covered = 0;
  const auto num_sets = static_cast<std::int64_t>(sets.size());
  const int team = sets.members.size() < (1U << 20) ? 1 : resolve_threads(num_threads);
#pragma omp parallel for num_threads(team) schedule(static) reduction(+ : covered)
  for (std::int64_t s = 0; s < num_sets; ++s) {
    for (std::uint64_t j = sets.offsets[static_cast<std::size_t>(s)]; j < sets.offsets[static_cast<std::size_t>(s) + 1]; ++j) {
      if (is_seed[sets.members[j]]) {
        ++covered;
        break;
      }
    }
  }
  return covered;
}

}  // namespace wildfire
