// Greedy maximum coverage (IMM NodeSelection; OPIM-C upper bound, Tang et al. 2018 Eq. 9).
// Counts come from one parallel pass over contiguous ranges of sets; the element-to-sets lists
// from a counting sort over the same ranges (so each list is in set order whatever the thread
// count), built only for the elements of largest count and extended when a step needs more.
#include "wildfire/selection/max_coverage.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <span>
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

/// The element-to-sets lists, built in tiers of decreasing count. The greedy only ever follows
/// the lists of the k elements it selects, and a selected element's count when chosen is at most
/// its initial count, so lists are first built only for the elements whose initial count is among
/// the few largest (tier 0); a tier of lower counts is added if a step picks an element without a
/// list. Under weighted cascade the 1600 largest of soc-Epinions1's 75,879 counts hold about a
/// third of the members: the scattered writes of the counting sort shrink threefold and land on
/// few enough write positions to stay in cache. Lists are in set order whatever the thread count.
class coverage_lists {
 public:
  /// Counts every element over contiguous, member-balanced ranges of sets, one per thread.
  coverage_lists(rr_sets_view sets, std::uint32_t universe, int threads)
      : sets_(sets), threads_(threads), ranges_(balanced_set_ranges(sets, threads)),
        local_(static_cast<std::size_t>(threads)), counts_(universe, 0), tier_of_(universe, unlisted),
        slot_of_(universe, 0) {
#pragma omp parallel num_threads(threads)
    {
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
      auto& mine = local_[t];
      mine.assign(universe, 0);
      for (std::uint64_t i = sets.offsets[ranges_[t]]; i < sets.offsets[ranges_[t + 1]]; ++i) ++mine[sets.members[i]];
#pragma omp barrier
#pragma omp for schedule(static)
      for (std::int64_t u = 0; u < static_cast<std::int64_t>(universe); ++u) {
        std::uint32_t total = 0;
        for (const auto& part : local_) total += part[static_cast<std::size_t>(u)];
        counts_[static_cast<std::size_t>(u)] = total;
      }
    }
  }

  /// Sets holding each element.
  const std::vector<std::uint32_t>& counts() const noexcept { return counts_; }
  bool listed(std::uint32_t u) const noexcept { return tier_of_[u] != unlisted; }
  /// Lowest count listed so far (0 before the first tier).
  std::uint32_t threshold() const noexcept { return threshold_; }

  /// Sets holding u, ascending; u must be listed.
  std::span<const std::uint32_t> list(std::uint32_t u) const noexcept {
    const tier& t = tiers_[tier_of_[u]];
    const std::uint32_t slot = slot_of_[u];
    return {t.sets.get() + t.offsets[slot], t.sets.get() + t.offsets[slot + 1]};
  }

  /// Lists every element not yet listed whose count is at least `threshold` (>= 1).
  void add_tier(std::uint32_t threshold) {
    const auto id = static_cast<std::uint8_t>(tiers_.size());
    tier& t = tiers_.emplace_back();
    std::vector<std::uint32_t> elements;
    for (std::uint32_t u = 0; u < counts_.size(); ++u) {
      if (counts_[u] < threshold || tier_of_[u] != unlisted) continue;
      tier_of_[u] = id;
      slot_of_[u] = static_cast<std::uint32_t>(elements.size());
      elements.push_back(u);
    }
    threshold_ = threshold;
    // Each thread's write cursor per list, starting after the lists' parts of the threads with
    // lower set ranges. Elements outside the tier map to one more cursor per thread that points
    // at a scratch slot of that thread and never advances: the scatter loop has no branch on
    // tier membership, which would be mispredicted on about every third member.
    const auto size = static_cast<std::uint32_t>(elements.size());
    t.offsets.resize(static_cast<std::size_t>(size) + 1);
    std::vector<std::vector<std::uint64_t>> cursor(static_cast<std::size_t>(threads_),
                                                   std::vector<std::uint64_t>(static_cast<std::size_t>(size) + 1));
    std::uint64_t run = 0;
    for (std::uint32_t i = 0; i < size; ++i) {
      t.offsets[i] = run;
      for (std::size_t p = 0; p < local_.size(); ++p) {
        cursor[p][i] = run;
        run += local_[p][elements[i]];
      }
    }
    t.offsets[size] = run;
    for (std::size_t p = 0; p < local_.size(); ++p) cursor[p][size] = run + p * scratch_stride;
    t.sets = std::make_unique_for_overwrite<std::uint32_t[]>(run + local_.size() * scratch_stride);
    if (size == 0) return;
    std::vector<std::uint32_t> slot(counts_.size(), size);
    for (std::uint32_t i = 0; i < size; ++i) slot[elements[i]] = i;
#pragma omp parallel num_threads(threads_)
    {
      const auto p = static_cast<std::size_t>(omp_get_thread_num());
      std::uint64_t* mine = cursor[p].data();
      std::uint32_t* out = t.sets.get();
      for (std::uint64_t s = ranges_[p]; s < ranges_[p + 1]; ++s) {
        for (std::uint64_t i = sets_.offsets[s]; i < sets_.offsets[s + 1]; ++i) {
          const std::uint32_t at = slot[sets_.members[i]];
          out[mine[at]] = static_cast<std::uint32_t>(s);
          mine[at] += at != size ? 1 : 0;
        }
      }
    }
  }

 private:
  static constexpr std::uint8_t unlisted = 0xff;
  static constexpr std::uint64_t scratch_stride = 16;  // a cache line per thread's scratch slot
  struct tier {
    std::vector<std::uint64_t> offsets;                  // per slot, into sets
    std::unique_ptr<std::uint32_t[]> sets;  // set ids, ascending within each list (no zeroing pass)
  };

  rr_sets_view sets_;
  int threads_;
  std::vector<std::uint64_t> ranges_;              // thread p counts sets [ranges_[p], ranges_[p + 1])
  std::vector<std::vector<std::uint32_t>> local_;  // per thread: each element's count in its range
  std::vector<std::uint32_t> counts_;
  std::vector<std::uint8_t> tier_of_;              // tier holding each element's list, or unlisted
  std::vector<std::uint32_t> slot_of_;             // the element's position within its tier
  std::vector<tier> tiers_;
  std::uint32_t threshold_ = 0;
};

/// Count of the `wanted`-th largest positive count (1 when fewer are positive): tier 0's threshold.
std::uint32_t first_tier_threshold(const std::vector<std::uint32_t>& counts, std::uint64_t wanted) {
  std::vector<std::uint32_t> positive;
  for (const std::uint32_t c : counts)
    if (c != 0) positive.push_back(c);
  if (positive.size() <= wanted) return 1;
  std::nth_element(positive.begin(), positive.begin() + static_cast<std::ptrdiff_t>(wanted - 1), positive.end(),
                   std::greater<>());
  return std::max<std::uint32_t>(1, positive[wanted - 1]);
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
  coverage_lists lists(sets, universe, sets.members.size() < (1U << 20) ? 1 : threads);
  // Tier 0: the 32 k T largest counts (soc-Epinions1, k = 50: the 50th greedy gain is about 4x
  // the 1600th count, so no second tier is needed).
  lists.add_tier(first_tier_threshold(lists.counts(), 32 * wanted));
  std::vector<std::uint8_t> covered(sets.size(), 0);
  std::vector<std::uint8_t> selected(universe, 0);
  std::vector<std::uint32_t> used(options.rounds, 0);
  std::vector<std::uint64_t> scratch;
  std::vector<std::uint32_t> top_ids;
  const bool want_bound = options.upper_bound && options.rounds == 1;

  coverage_selection result;
  result.optimum_upper_bound = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint32_t> counts = lists.counts();  // current marginal counts
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
    // v's count when chosen is at most its initial count: a tier down to a quarter of it lists v.
    if (best.count > 0 && !lists.listed(v))
      lists.add_tier(std::max<std::uint32_t>(1, std::min(best.count, lists.threshold()) / 4));
    // A zero-gain pick covers nothing new: its list (all covered) is not walked.
    const std::span<const std::uint32_t> list =
        best.count > 0 ? lists.list(v) : std::span<const std::uint32_t>{};
    const std::uint64_t list_end = list.size();
    std::uint64_t gained = 0;
    if (threads > 1 && list_end > (1U << 15)) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256) reduction(+ : gained)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(list_end); ++i) {
        const std::uint32_t s = list[static_cast<std::size_t>(i)];
        if (covered[s]) continue;  // each set occurs once in v's list: no other thread writes it
        covered[s] = 1;
        ++gained;
        for (std::uint64_t j = sets.offsets[s]; j < sets.offsets[s + 1]; ++j)
          std::atomic_ref<std::uint32_t>(counts[sets.members[j]]).fetch_sub(1, std::memory_order_relaxed);
      }
    } else {
      // The sets of v's list are scattered over the whole store: fetch the offsets of the set
      // 16 ahead and the members of the set 8 ahead, so the misses overlap instead of queueing.
      for (std::uint64_t i = 0; i < list_end; ++i) {
        if (i + 16 < list_end) __builtin_prefetch(&sets.offsets[list[i + 16]]);
        if (i + 8 < list_end) {
          const std::uint32_t ahead = list[i + 8];
          __builtin_prefetch(&covered[ahead]);
          __builtin_prefetch(&sets.members[sets.offsets[ahead]]);
        }
        const std::uint32_t s = list[i];
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
