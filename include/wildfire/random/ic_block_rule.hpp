// IC liveness drawn per block of in-edges instead of per edge, for vertices whose in-edges all
// carry the same probability p (weighted cascade, uniform:P). The in-edges of such a vertex are
// cut into blocks of B = max(round(1/p), 12) edges (the last one shorter; a vertex of smaller
// in-degree is one block); per block one 64-bit draw gives the number K ~ Binomial(S, p) of live
// edges (S = the block's size; its high half, inverse CDF from a table of 32-bit thresholds) and,
// from its low half, which ones (a uniform K-subset: for blocks of at most 12 edges the r-th mask
// of a table, r one exact draw below C(S, K), small_block_subsets.hpp; larger blocks Floyd's K
// draws, as the digits of one exact draw, ic_batched_picks). That is the same
// distribution as S independent Bernoulli(p) edges, at one hash per block instead of S: under
// weighted cascade a hub with 10^4 in-edges costs ~1.6 hashes, not 10^4 (its blocks with two or
// more live edges take a draw per pick, ic_block_floyd_draw).
//
// This refines ARCHITECTURE.md section 1 ("edge e is live iff hash(seed, s, e) < threshold[e]"):
// every decision is still a pure function of (seed, sample, element), the element being a block,
// so RR set s stays bit-for-bit the same on every backend, fused or not, on any thread count.
// Vertices with mixed in-probabilities (trivalency, random, file) keep the per-edge rule.
#pragma once

#include <cstdint>

#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/small_block_subsets.hpp"

namespace wildfire {

/// vertex_class value of a vertex whose in-edges are drawn one by one (ic_edge_live).
inline constexpr std::uint32_t per_edge_class = 0xffffffffU;
/// Entries of a block-count table: P(K <= k) for k < 16. K >= 16 has probability below 2^-32
/// because a block's mean S * p is at most about 1, or its size at most small_block_max.
inline constexpr std::uint32_t block_cdf_length = 16;
/// Block draws address edges by the id of the block's first edge in 40 bits (10^12 edges).
inline constexpr std::uint64_t max_block_rule_edges = 1ULL << 40;

/// Which rule each vertex uses, the count tables (built by make_ic_block_plan on the host) and the
/// small blocks' subset table (small_block_subset_table, or its copy on the device).
struct ic_block_view {
  const std::uint32_t* vertex_class = nullptr;  // n entries: per_edge_class or a class c
  const std::uint32_t* cdf = nullptr;           // class c: table 2c for full blocks, 2c+1 for the tail
  const small_block_subsets* subsets = nullptr;
};

/// Block size B = min(degree, max(round(2^32 / threshold), small_block_max)) of a block-rule
/// vertex (1 <= threshold <= 2^31). Blocks of about 1/p edges keep the count's tail below 2^-32;
/// for p > 1/12 they would hold a few edges each, and blocks of 12 cost fewer count draws with
/// their live edges still from the subset table.
WF_HOST_DEVICE constexpr std::uint64_t ic_block_size(std::uint64_t degree, std::uint32_t threshold) noexcept {
  // floor((2^32 + t/2) / t) >= degree iff 2^32 + t/2 >= degree * t: weighted cascade (t ~ 2^32 / d)
  // takes the multiplication and skips the division. degree < 2^32 and t <= 2^31: no overflow.
  const std::uint64_t rounded = (1ULL << 32) + threshold / 2;
  if (degree * threshold <= rounded || degree <= small_block_max) return degree;
  const std::uint64_t block = rounded / threshold;
  return block < small_block_max ? small_block_max : block;
}

/// Element id of draw `draw` (0: the count, 1 + i: Floyd slot i) of the block starting at edge
/// `first_edge`. The vertex domain's bit 61 is free under IC (LT draws use vertex ids < 2^32);
/// the low 16 bits stay zero for bounded_draw's attempts.
WF_HOST_DEVICE constexpr std::uint64_t ic_block_element(std::uint64_t first_edge, std::uint32_t draw) noexcept {
  return element_domain::vertex | (1ULL << 61) | (first_edge << 21) | (std::uint64_t{draw} << 16);
}

/// Code (element_code) of the count draw of the block starting at `first_edge`. Draw d's code is
/// this plus d * ic_block_draw_step, and the block `offset` edges further starts
/// element_code_step(offset << 21) further: loops step codes instead of multiplying.
WF_HOST_DEVICE constexpr std::uint64_t ic_block_code(std::uint64_t first_edge) noexcept {
  return element_code(ic_block_element(first_edge, 0));
}
inline constexpr std::uint64_t ic_block_draw_step = element_code_step(1ULL << 16);

/// The first Length entries of a count table, which settle nearly every count (ic_block_count).
/// The edge masks load 8 once a vertex (a block of 12 edges at p = 0.2 has K >= 8 once in 1,700);
/// a single block draw (ic_block_live_count) loads 4, each a load on the warp path, where weighted
/// cascade's counts are nearly all below 4.
template <std::uint32_t Length>
struct ic_table_head {
  std::uint32_t entry[Length];
};
template <std::uint32_t Length>
WF_HOST_DEVICE inline ic_table_head<Length> ic_block_table_head(const std::uint32_t* table) noexcept {
  ic_table_head<Length> head;
  for (std::uint32_t k = 0; k < Length; ++k) head.entry[k] = table[k];
  return head;
}

/// Number of live edges in a block of `size` edges whose count draw is `u`, from its count table
/// and that table's head.
template <std::uint32_t Length>
WF_HOST_DEVICE inline std::uint32_t ic_block_count(std::uint32_t u, const ic_table_head<Length>& head,
                                                   const std::uint32_t* table, std::uint64_t size) noexcept {
  // K = the first k with u < table[k]; the table is non-decreasing (binomial_cdf_table), so that
  // is the number of entries <= u: the head's compared at once (K is nearly always below its
  // length, and a warp's lanes then take no data-dependent branch), the rest one by one.
  std::uint32_t k = 0;
  if constexpr (Length == 8) {
    // A binary search, with selects for the entries (a register array indexed at run time would
    // go to local memory): 4 comparisons instead of 8, for the GPU edge masks, whose draw is bound
    // by issuing instructions. After the first three, k = min(entries <= u, 7), and the last adds
    // entry 7, which only k = 7 can pass (below it u < entry k <= entry 7).
    const bool half = u >= head.entry[3];
    const bool quarter = u >= (half ? head.entry[5] : head.entry[1]);
    const std::uint32_t at = half ? (quarter ? head.entry[6] : head.entry[4]) : (quarter ? head.entry[2] : head.entry[0]);
    k = (half ? 4U : 0U) + (quarter ? 2U : 0U) + static_cast<std::uint32_t>(u >= at) +
        static_cast<std::uint32_t>(u >= head.entry[7]);
  } else {
    for (std::uint32_t i = 0; i < Length; ++i) k += static_cast<std::uint32_t>(u >= head.entry[i]);
  }
  if (k == Length)
    while (k < block_cdf_length && u >= table[k]) ++k;
  return size < k ? static_cast<std::uint32_t>(size) : k;
}

/// A block's count draw: its number of live edges (from the hash's high half) and the hash's low
/// half, from which the live edges are picked (ic_block_live_slots, ic_block_live_bits).
struct ic_block_counted {
  std::uint32_t count;
  std::uint32_t picks;
};

/// The count draw of the block of `size` edges starting at `first_edge`, whose count table is `table`.
WF_HOST_DEVICE inline ic_block_counted ic_block_live_count(std::uint64_t key, std::uint64_t first_edge,
                                                           const std::uint32_t* table, std::uint64_t size) noexcept {
  const std::uint64_t hash = coded_hash64(key, ic_block_code(first_edge));
  return {ic_block_count(static_cast<std::uint32_t>(hash >> 32), ic_block_table_head<4>(table), table, size),
          static_cast<std::uint32_t>(hash)};
}

/// Largest product of a block's Floyd ranges drawn from its count draw's low half; one from 32 bits
/// below P is rejected with probability below P / 2^32, here 2^-8 (the picks then take a draw each).
inline constexpr std::uint64_t ic_batched_picks_limit = 1ULL << 24;

/// Floyd's draws of a block from one 32-bit word (its count draw's low half), one range at a time
/// (Brackett-Rozinsky and Lemire's batched draws): draw i is the high half of word * range_i and
/// the next word its low half. By induction word * P = (sum_i draw_i * prod_{j>i} range_j) * 2^32
/// + last word, P the product of the ranges: the draws are the mixed-radix digits of Lemire's draw
/// floor(word * P / 2^32) below P, and the last word is that product's low half. When Lemire's
/// test accepts it (ic_batched_picks_exact), the digits are exactly uniform and independent, as
/// Floyd needs.
struct ic_batched_picks {
  std::uint32_t word;
  WF_HOST_DEVICE std::uint32_t next(std::uint32_t range) noexcept {
    const std::uint64_t wide = std::uint64_t{word} * range;
    word = static_cast<std::uint32_t>(wide);
    return static_cast<std::uint32_t>(wide >> 32);
  }
};

/// True iff a block's batched picks are exact: the product P = size (size - 1) ... (size - count + 1)
/// of their ranges is at most ic_batched_picks_limit and Lemire's test accepts the last word. At
/// most 4 picks among at most 64 edges (P <= 64^4 = 2^24) with a last word of at least 2^24 >= P
/// pass without computing P: the picks' loop keeps no product (H200: the GPU edge masks' draw
/// measured 5% slower with a per-vertex bound on the count instead).
WF_HOST_DEVICE constexpr bool ic_batched_picks_exact(std::uint32_t last_word, std::uint64_t size,
                                                     std::uint32_t count) noexcept {
  if (size <= 64 && count <= 4 && last_word >= ic_batched_picks_limit) return true;
  std::uint64_t product = 1;  // stops above the limit: at most 2^24 * size, below 2^64
  for (std::uint32_t i = 0; i < count && product <= ic_batched_picks_limit; ++i) product *= size - i;
  return product <= ic_batched_picks_limit && lemire_accepts(last_word, static_cast<std::uint32_t>(product));
}

/// Floyd's draw i of a block of `size` edges with `count` live ones, uniform in [0, size - count + i],
/// from its own element: what the picks draw where the draw from the count's low half is not exact
/// (rare: large blocks with several live edges, or a rejection). The slot form below calls it, the
/// bit form steps the same codes (a test holds the two equal).
WF_HOST_DEVICE inline std::uint32_t ic_block_floyd_draw(std::uint64_t key, std::uint64_t first_edge,
                                                        std::uint32_t size, std::uint32_t count,
                                                        std::uint32_t i) noexcept {
  return coded_bounded_draw(key, ic_block_code(first_edge) + (i + 1) * ic_block_draw_step, size - count + i + 1);
}

/// Floyd's step i: draw `t` becomes slots[i], or the range's top `top` if an earlier pick took it.
WF_HOST_DEVICE inline void floyd_place(std::uint32_t* slots, std::uint32_t i, std::uint32_t t, std::uint32_t top) noexcept {
  for (std::uint32_t q = 0; q < i; ++q)
    if (slots[q] == t) {
      t = top;
      break;
    }
  slots[i] = t;
}

/// Floyd's step in bit form: offset `t` joins the set `chosen`, or the range's top `top` if t is in it.
WF_HOST_DEVICE constexpr std::uint32_t floyd_add(std::uint32_t chosen, std::uint32_t t, std::uint32_t top) noexcept {
  return chosen | (1U << (((chosen >> t) & 1U) != 0 ? top : t));
}

/// Offsets (in [0, size)) of the `count` live edges of a block whose count draw's low half is
/// `picks`, distinct and uniform, written to `slots[0..count)`: a block of at most small_block_max
/// edges takes its mask from the subset table (in increasing order), a larger one Floyd's
/// algorithm (draw i is uniform in [0, size - count + i], and one already taken takes that range's
/// top instead). count <= block_cdf_length. Returns the hashes it made: 0 when the draw from
/// `picks` is exact (nearly always), else `count` (Floyd's picks, a hash each).
WF_HOST_DEVICE inline std::uint32_t ic_block_live_slots(const small_block_subsets& subsets, std::uint64_t key,
                                                        std::uint64_t first_edge, std::uint64_t size,
                                                        std::uint32_t count, std::uint32_t picks,
                                                        std::uint32_t* slots) noexcept {
  const auto pool = static_cast<std::uint32_t>(size);
  if (size <= small_block_max) {
    // Blocks with at most one live edge (about 3 in 4 under weighted cascade) skip the table's two
    // dependent loads here; the edge masks' bit form below does not branch on the count, as a
    // warp's lanes would take both sides (GPU masks at p = 0.2: 0.114 -> 0.122 s with it).
    const small_block_draw drawn =
        count <= 1 ? small_block_single_bit(pool, count, picks) : small_block_live_bits(subsets, pool, count, picks);
    if (drawn.exact) {
      std::uint32_t i = 0;
      for (std::uint32_t rest = drawn.bits; rest != 0; rest &= rest - 1) slots[i++] = lowest_set_bit(rest);
      return 0;
    }
  } else {
    ic_batched_picks batch{picks};
    for (std::uint32_t i = 0; i < count; ++i) floyd_place(slots, i, batch.next(pool - count + i + 1), pool - count + i);
    if (ic_batched_picks_exact(batch.word, size, count)) return 0;
  }
  for (std::uint32_t i = 0; i < count; ++i)
    floyd_place(slots, i, ic_block_floyd_draw(key, first_edge, pool, count, i), pool - count + i);
  return count;
}

/// The same live edges as ic_block_live_slots, as a bit set (bit i: offset i is live) for blocks of
/// at most 32 edges, from the block's code (ic_block_code): small blocks the subset table's mask,
/// larger ones Floyd's, whose "t already chosen" is a bit test; where the picks take a draw each,
/// each draw's code is a step from the last (the GPU edge masks' form).
WF_HOST_DEVICE inline std::uint32_t ic_block_live_bits(const small_block_subsets& subsets, std::uint64_t key,
                                                       std::uint64_t block_code, std::uint32_t size,
                                                       std::uint32_t count, std::uint32_t picks) noexcept {
  std::uint32_t chosen = 0;
  if (size <= small_block_max) {
    const small_block_draw drawn = small_block_live_bits(subsets, size, count, picks);
    if (drawn.exact) return drawn.bits;
  } else {
    ic_batched_picks batch{picks};
    for (std::uint32_t i = 0; i < count; ++i)
      chosen = floyd_add(chosen, batch.next(size - count + i + 1), size - count + i);
    if (ic_batched_picks_exact(batch.word, size, count)) return chosen;
    chosen = 0;
  }
  std::uint64_t code = block_code;
  for (std::uint32_t i = 0; i < count; ++i) {
    code += ic_block_draw_step;
    chosen = floyd_add(chosen, coded_bounded_draw(key, code, size - count + i + 1), size - count + i);
  }
  return chosen;
}

/// Size of the block starting at in-edge `first` of a vertex whose in-edges end at `end` and whose
/// full blocks hold `block` edges.
WF_HOST_DEVICE constexpr std::uint64_t ic_block_size_at(std::uint64_t first, std::uint64_t end,
                                                         std::uint64_t block) noexcept {
  return end - first < block ? end - first : block;
}

/// Count table of a block of `size` edges of class `c` whose full blocks hold `block` edges.
WF_HOST_DEVICE inline const std::uint32_t* ic_block_table(const ic_block_view& blocks, std::uint32_t c,
                                                          std::uint64_t size, std::uint64_t block) noexcept {
  return blocks.cdf + (2ULL * c + (size == block ? 0 : 1)) * block_cdf_length;
}

/// Draws the live edges of the block starting at in-edge `first` of a block-rule vertex of class
/// `c` whose in-edges end at `end` and whose full blocks hold `block` edges: their offsets in the
/// block go to `slots` (block_cdf_length entries) and their number is returned; `hashes`, if given,
/// gains the hashes made. The one block draw every traversal shares, host and device (the fused
/// GPU traversal makes its two steps apart).
WF_HOST_DEVICE inline std::uint32_t ic_block_draw(std::uint64_t key, const ic_block_view& blocks, std::uint32_t c,
                                                  std::uint64_t first, std::uint64_t end, std::uint64_t block,
                                                  std::uint32_t* slots, std::uint64_t* hashes = nullptr) noexcept {
  const std::uint64_t size = ic_block_size_at(first, end, block);
  const ic_block_counted drawn = ic_block_live_count(key, first, ic_block_table(blocks, c, size, block), size);
  const std::uint32_t pick_hashes =
      ic_block_live_slots(*blocks.subsets, key, first, size, drawn.count, drawn.picks, slots);
  if (hashes != nullptr) *hashes += 1 + pick_hashes;
  return drawn.count;
}

/// Calls on_live(j) for every in-edge j (in-CSR position) of v that is live under IC in the
/// sample with key `key`. Returns the number of hashes made (the work measure).
template <class OnLive>
WF_HOST_DEVICE inline std::uint64_t for_each_live_in_edge(std::uint64_t key, const graph_view& g,
                                                          const ic_block_view& blocks, std::uint32_t v,
                                                          OnLive&& on_live) {
  const std::uint64_t begin = g.in_begin(v), end = g.in_end(v);
  const std::uint32_t c = blocks.vertex_class[v];
  if (c == per_edge_class) {
    for (std::uint64_t j = begin; j < end; ++j)
      if (ic_edge_live(key, j, g.in_thresholds[j])) on_live(j);
    return end - begin;
  }
  const std::uint64_t b = ic_block_size(end - begin, g.in_thresholds[begin]);
  std::uint64_t draws = 0;
  for (std::uint64_t first = begin; first < end; first += b) {
    std::uint32_t slots[block_cdf_length];
    const std::uint32_t k = ic_block_draw(key, blocks, c, first, end, b, slots, &draws);
    for (std::uint32_t i = 0; i < k; ++i) on_live(first + slots[i]);
  }
  return draws;
}

/// True iff in-edge j (in-CSR position) of v is live under IC in the sample with key `key`: the
/// single-edge question a forward traversal asks, answered consistently with for_each_live_in_edge.
WF_HOST_DEVICE inline bool ic_in_edge_live(std::uint64_t key, const graph_view& g, const ic_block_view& blocks,
                                           std::uint32_t v, std::uint64_t j) noexcept {
  const std::uint32_t c = blocks.vertex_class[v];
  if (c == per_edge_class) return ic_edge_live(key, j, g.in_thresholds[j]);
  const std::uint64_t begin = g.in_begin(v), end = g.in_end(v);
  const std::uint64_t b = ic_block_size(end - begin, g.in_thresholds[begin]);
  const std::uint64_t first = begin + (j - begin) / b * b;
  std::uint32_t slots[block_cdf_length];
  const std::uint32_t k = ic_block_draw(key, blocks, c, first, end, b, slots);
  for (std::uint32_t i = 0; i < k; ++i)
    if (first + slots[i] == j) return true;
  return false;
}

}  // namespace wildfire
