// Fused level-synchronous reverse traversals over colour bitmasks (fused-BPT digest section 3.6).
#include "cpu/fused_rr_sampler.hpp"

#include <algorithm>
#include <bit>

#include "cpu/ic_live_scan.hpp"
#include "cpu/insertion_sort.hpp"
#include "sampling/sample_roots.hpp"
#include "wildfire/error.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::cpu {

fused_rr_sampler::fused_rr_sampler(const csr_graph& graph, const sampling_params& params, std::uint32_t colours,
                                   const world_tables* tables)
    : view_(graph.view()), params_(params), colours_(colours), words_((colours + 63) / 64),
      root_marker_(graph.num_vertices) {
  WF_EXPECTS(colours >= 32 && colours <= 1024 && colours % 32 == 0, "--colours",
             "colours must be a multiple of 32 between 32 and 1024, got " + std::to_string(colours));
  if (tables == nullptr) {
    own_tables_ = build_world_tables(graph, params.model);
    tables = &own_tables_;
  }
  lt_cumulative_ = tables->lt_cumulative.data();
  blocks_ = tables->ic_plan.view();
  const std::size_t n = graph.num_vertices;
  visited_.assign(n * words_, 0);
  next_.assign(n * words_, 0);
  touched_flag_.assign(n, 0);
  next_flag_.assign(n, 0);
  keys_.resize(colours);
  root_keys_.resize(colours);
  positions_.resize(colours);
}

std::uint64_t fused_rr_sampler::memory_bytes() const noexcept {
  return (visited_.capacity() + next_.capacity() + frontier_masks_.capacity()) * sizeof(std::uint64_t) +
         touched_flag_.capacity() * 2 + root_marker_.memory_bytes() + own_tables_.memory_bytes() +
         live_pairs_.capacity() * sizeof(live_pair) +
         (touched_.capacity() + next_list_.capacity() + frontier_.capacity()) * sizeof(std::uint32_t);
}

inline void fused_rr_sampler::discover(std::uint32_t u, std::uint32_t word, std::uint64_t bits) {
  const std::size_t at = static_cast<std::size_t>(u) * words_ + word;
  visited_[at] |= bits;
  next_[at] |= bits;
  if (!touched_flag_[u]) {
    touched_flag_[u] = 1;
    touched_.push_back(u);
  }
  if (!next_flag_[u]) {
    next_flag_[u] = 1;
    next_list_.push_back(u);
  }
}

void fused_rr_sampler::seed_frontier(std::uint32_t count) {
  for (std::uint32_t c = 0; c < count; ++c) {
    const std::uint32_t word = c / 64;
    const std::uint64_t bit = std::uint64_t{1} << (c % 64);
    for (std::uint32_t i = root_offsets_[c]; i < root_offsets_[c + 1]; ++i) discover(roots_[i], word, bit);
  }
}

void fused_rr_sampler::advance_level() {
  frontier_.swap(next_list_);
  next_list_.clear();
  frontier_masks_.resize(frontier_.size() * words_);
  for (std::size_t i = 0; i < frontier_.size(); ++i) {
    const std::uint32_t v = frontier_[i];
    const std::size_t at = static_cast<std::size_t>(v) * words_;
    for (std::uint32_t w = 0; w < words_; ++w) {
      frontier_masks_[i * words_ + w] = next_[at + w];
      next_[at + w] = 0;
    }
    next_flag_[v] = 0;
  }
}

std::uint64_t fused_rr_sampler::expand_ic() {
  // Block-rule vertices enumerate each waiting colour's live in-edges (about one hash per block
  // and colour, whatever the number of colours). Other entries with few colours (the common case
  // when sets are small) hash each colour's edges 64 at a time (ic_live_mask, vectorised) and
  // touch only live edges; entries shared by many colours read each edge once and draw per
  // waiting colour. Prefetching a few entries ahead overlaps the cache misses of independent
  // samples, which is where a fused batch gains on small sets.
  constexpr std::size_t prefetch_distance = 4;
  std::uint64_t edges = 0;
  const std::size_t size = frontier_.size();
  for (std::size_t i = 0; i < size; ++i) {
    if (i + prefetch_distance < size) {
      const std::uint64_t ahead = view_.in_begin(frontier_[i + prefetch_distance]);
      __builtin_prefetch(view_.in_thresholds + ahead);
      __builtin_prefetch(view_.in_sources + ahead);
      if (i + 2 * prefetch_distance < size) {
        __builtin_prefetch(view_.in_offsets + frontier_[i + 2 * prefetch_distance]);
        __builtin_prefetch(blocks_.vertex_class + frontier_[i + 2 * prefetch_distance]);
      }
    }
    const std::uint32_t v = frontier_[i];
    const std::uint64_t* mask = &frontier_masks_[i * words_];
    const std::uint64_t begin = view_.in_begin(v), end = view_.in_end(v);
    edges += end - begin;
    if (blocks_.vertex_class[v] != per_edge_class) {
      // Stage 1 of 3 for block-rule vertices: the live (edge, colour) pairs, enumerated.
      for (std::uint32_t w = 0; w < words_; ++w) {
        for (std::uint64_t bits = mask[w]; bits != 0; bits &= bits - 1) {
          const auto colour = w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits));
          for_each_live_in_edge(keys_[colour], view_, blocks_, v,
                                [&](std::uint64_t j) { live_pairs_.push_back({j, 0, colour}); });
        }
      }
      continue;
    }
    // At most 9 bit clears instead of std::popcount, a libgcc call in a build without -mpopcnt.
    std::uint32_t waiting = 0;
    for (std::uint32_t w = 0; w < words_ && waiting <= 8; ++w)
      for (std::uint64_t bits = mask[w]; bits != 0 && waiting <= 8; bits &= bits - 1) ++waiting;
    if (waiting <= 8) {
      // Stage 1 of 3: record the live (edge, colour) pairs; their sources are looked up below.
      for (std::uint32_t w = 0; w < words_; ++w) {
        for (std::uint64_t bits = mask[w]; bits != 0; bits &= bits - 1) {
          const auto colour = w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits));
          const std::uint64_t key = keys_[colour];
          for (std::uint64_t chunk = begin; chunk < end; chunk += 64) {
            const auto count = static_cast<std::uint32_t>(end - chunk < 64 ? end - chunk : 64);
            for (std::uint64_t live = ic_live_mask(key, chunk, view_.in_thresholds + chunk, count); live != 0;
                 live &= live - 1)
              live_pairs_.push_back({chunk + static_cast<std::uint64_t>(std::countr_zero(live)), 0, colour});
          }
        }
      }
      continue;
    }
    for (std::uint64_t j = begin; j < end; ++j) {
      const std::uint32_t u = view_.in_sources[j];
      const std::uint32_t threshold = view_.in_thresholds[j];
      const std::uint64_t* seen = &visited_[static_cast<std::size_t>(u) * words_];
      for (std::uint32_t w = 0; w < words_; ++w) {
        std::uint64_t candidates = mask[w] & ~seen[w];
        if (candidates == 0) continue;
        const std::uint64_t keep = ic_live_colours(&keys_[w * 64], j, threshold, candidates);
        if (keep != 0) discover(u, w, keep);
      }
    }
  }
  // Stages 2 and 3: sources, then visited marks, each prefetched a few pairs ahead so the cache
  // misses of independent samples overlap instead of forming one dependent chain per edge.
  constexpr std::size_t ahead = 8;
  const std::size_t pairs = live_pairs_.size();
  for (std::size_t k = 0; k < pairs; ++k) {
    if (k + ahead < pairs) __builtin_prefetch(view_.in_sources + live_pairs_[k + ahead].edge);
    live_pairs_[k].source = view_.in_sources[live_pairs_[k].edge];
  }
  for (std::size_t k = 0; k < pairs; ++k) {
    if (k + ahead < pairs) __builtin_prefetch(&visited_[static_cast<std::size_t>(live_pairs_[k + ahead].source) * words_]);
    const std::uint32_t u = live_pairs_[k].source;
    const std::uint32_t w = live_pairs_[k].colour / 64;
    const std::uint64_t bit = std::uint64_t{1} << (live_pairs_[k].colour % 64);
    if ((visited_[static_cast<std::size_t>(u) * words_ + w] & bit) == 0) discover(u, w, bit);
  }
  live_pairs_.clear();
  return edges;
}

std::uint64_t fused_rr_sampler::expand_lt() {
  // Each colour waiting at v picks its in-edge by binary search over v's cumulative weights
  // (lt_chosen_by_search, equal to lt_chosen_in_edge); colours that pick the same source share it.
  std::uint64_t edges = 0;
  for (std::size_t i = 0; i < frontier_.size(); ++i) {
    const std::uint32_t v = frontier_[i];
    for (std::uint32_t w = 0; w < words_; ++w) {
      for (std::uint64_t bits = frontier_masks_[i * words_ + w]; bits != 0; bits &= bits - 1) {
        const int b = std::countr_zero(bits);
        const std::uint64_t j =
            lt_chosen_by_search(keys_[w * 64 + static_cast<std::uint32_t>(b)], view_, lt_cumulative_, v, edges);
        if (j == no_edge) continue;
        const std::uint32_t u = view_.in_sources[j];
        const std::uint64_t bit = std::uint64_t{1} << b;
        if ((visited_[static_cast<std::size_t>(u) * words_ + w] & bit) == 0) discover(u, w, bit);
      }
    }
  }
  return edges;
}

void fused_rr_sampler::extract(std::uint32_t count, std::uint32_t round, rr_sets& dst) {
  std::fill(positions_.begin(), positions_.begin() + count, 0);
  std::uint64_t total = 0;
  for (const std::uint32_t v : touched_) {
    for (std::uint32_t w = 0; w < words_; ++w) {
      for (std::uint64_t bits = visited_[static_cast<std::size_t>(v) * words_ + w]; bits != 0; bits &= bits - 1) {
        ++positions_[w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits))];
        ++total;
      }
    }
  }
  // Sets come out sorted either way: sort the union of touched vertices once (pays when the sets
  // overlap, total >> |touched|), or write each set in touched order and sort it alone (pays for
  // small disjoint sets, weighted cascade's case: 64 sorts of ~5 beat one sort of ~320).
  const std::uint64_t union_size = touched_.size();
  const bool sort_union = total * static_cast<std::uint64_t>(std::bit_width(total / std::max(count, 1U))) >
                          union_size * static_cast<std::uint64_t>(std::bit_width(union_size));
  if (sort_union) std::sort(touched_.begin(), touched_.end());
  const std::uint64_t first_member = dst.members.size();
  std::uint64_t run = first_member;
  for (std::uint32_t c = 0; c < count; ++c) {
    const std::uint64_t size = positions_[c];
    positions_[c] = run;
    run += size;
    dst.offsets.push_back(run);
  }
  dst.members.resize(run);
  const std::uint32_t base = round * view_.num_vertices;
  for (const std::uint32_t v : touched_) {
    for (std::uint32_t w = 0; w < words_; ++w) {
      std::uint64_t& word = visited_[static_cast<std::size_t>(v) * words_ + w];
      for (std::uint64_t bits = word; bits != 0; bits &= bits - 1)
        dst.members[positions_[w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits))]++] = base + v;
      word = 0;
    }
    touched_flag_[v] = 0;
  }
  touched_.clear();
  if (sort_union) return;
  const std::size_t first_set = dst.offsets.size() - count;
  std::uint64_t begin = first_member;
  for (std::uint32_t c = 0; c < count; ++c) {
    const std::uint64_t end = dst.offsets[first_set + c];
    std::uint32_t* m = dst.members.data();
    if (end - begin <= 24) {
      insertion_sort(m + begin, m + end);
    } else {
      std::sort(m + begin, m + end);
    }
    begin = end;
  }
}

std::uint64_t fused_rr_sampler::sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out) {
  WF_EXPECTS(count <= colours_, "--colours", "a fused batch holds at most as many samples as colours");
  roots_.clear();
  root_offsets_.assign(1, 0);
  for (std::uint32_t c = 0; c < count; ++c) {
    root_keys_[c] = sample_key(params_.seed, first_id + c);
    root_marker_.clear();
    append_sample_roots(root_keys_[c], params_.mean_roots, view_.num_vertices, root_marker_, roots_);
    std::sort(roots_.begin() + root_offsets_[c], roots_.end());
    root_offsets_.push_back(static_cast<std::uint32_t>(roots_.size()));
  }

  const bool merge_rounds = params_.rounds > 1;
  if (merge_rounds) round_sets_.resize(params_.rounds);
  std::uint64_t edges = 0;
  for (std::uint32_t round = 0; round < params_.rounds; ++round) {
    for (std::uint32_t c = 0; c < count; ++c) keys_[c] = round_sample_key(root_keys_[c], round);
    seed_frontier(count);
    while (!next_list_.empty()) {
      advance_level();
      edges += params_.model == diffusion_model::ic ? expand_ic() : expand_lt();
    }
    rr_sets& dst = merge_rounds ? round_sets_[round] : out;
    if (merge_rounds) dst.clear();
    extract(count, round, dst);
  }
  if (merge_rounds) {
    for (std::uint32_t c = 0; c < count; ++c) {
      for (const rr_sets& per_round : round_sets_) {
        const auto set = per_round[c];
        out.members.insert(out.members.end(), set.begin(), set.end());
      }
      out.offsets.push_back(out.members.size());
    }
  }
  return edges;
}

}  // namespace wildfire::cpu
