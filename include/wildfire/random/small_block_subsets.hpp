// Which edges of a small block are live, as one bounded draw and a table lookup
// (random/ic_block_rule.hpp). A block of S <= small_block_max edges whose count draw gave K live
// edges takes the r-th S-bit mask with K bits set, in increasing order, r uniform below C(S, K)
// (Lemire's multiply-shift draw from the count hash's low half): a uniform K-subset, as Floyd's
// K draws give, with no loop over the picks. The masks below 2^S with K bits set are the first
// C(S, K) of those below 2^small_block_max, so one list per K serves every size. 8.5 KB: the GPU
// edge masks keep it in shared memory, the other kernels read it through the caches.
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {

/// Largest block drawn from the subset table.
inline constexpr std::uint32_t small_block_max = 12;

struct alignas(16) small_block_subsets {
  // (s, k): C(s, k) in the low 16 bits, where the masks with k bits set start in `masks` in the high
  // 16: one load gives both (the GPU edge masks' draw is bound by issuing instructions).
  std::uint32_t ranks[small_block_max + 1][small_block_max + 1];
  std::uint16_t masks[1U << small_block_max];  // every mask below 2^small_block_max, by bits set, then value
};

/// C(s, k) and where the masks with k bits set start, from a `ranks` entry.
WF_HOST_DEVICE constexpr std::uint32_t subset_count(std::uint32_t rank_entry) noexcept { return rank_entry & 0xffffU; }
WF_HOST_DEVICE constexpr std::uint32_t subset_first(std::uint32_t rank_entry) noexcept { return rank_entry >> 16; }

constexpr small_block_subsets make_small_block_subsets() noexcept {
  small_block_subsets t{};
  std::uint32_t binomial[small_block_max + 1][small_block_max + 1] = {};
  for (std::uint32_t s = 0; s <= small_block_max; ++s) {
    binomial[s][0] = 1;
    for (std::uint32_t k = 1; k <= s; ++k) binomial[s][k] = binomial[s - 1][k - 1] + (k < s ? binomial[s - 1][k] : 0);
  }
  std::uint32_t next = 0;
  for (std::uint32_t k = 0; k <= small_block_max; ++k) {
    for (std::uint32_t s = 0; s <= small_block_max; ++s) t.ranks[s][k] = binomial[s][k] | next << 16;
    for (std::uint32_t mask = 0; mask < (1U << small_block_max); ++mask) {
      std::uint32_t bits = 0;
      for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1) ++bits;
      if (bits == k) t.masks[next++] = static_cast<std::uint16_t>(mask);
    }
  }
  return t;
}

/// The host's table; devices get a copy (device_graph, MERIT's store).
inline constexpr small_block_subsets small_block_subset_table = make_small_block_subsets();

/// Index of the lowest set bit of x != 0.
WF_HOST_DEVICE inline std::uint32_t lowest_set_bit(std::uint32_t x) noexcept {
#ifdef __CUDA_ARCH__
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(x)) - 1);
#else
  return static_cast<std::uint32_t>(__builtin_ctz(x));
#endif
}

/// A small block's live edges as a mask (bit i: offset i), and whether the draw was exact.
struct small_block_draw {
  std::uint32_t bits;
  bool exact;
};

/// The live edges of a block of `size` <= small_block_max edges, `count` of them live, from the
/// count draw's low half `picks`. Not exact when Lemire's test rejects (probability below
/// C(size, count) / 2^32 <= 2^-22): the caller then draws Floyd's picks one hash each.
WF_HOST_DEVICE inline small_block_draw small_block_live_bits(const small_block_subsets& t, std::uint32_t size,
                                                             std::uint32_t count, std::uint32_t picks) noexcept {
  const std::uint32_t entry = t.ranks[size][count];
  const lemire_draw rank = lemire_draw_once(picks, subset_count(entry));
  return {t.masks[subset_first(entry) + rank.value], rank.exact};
}

/// small_block_live_bits for `count` <= 1 without the table's loads: C(S, 0) = 1, C(S, 1) = S,
/// and the r-th mask with one bit set is 1 << r.
WF_HOST_DEVICE inline small_block_draw small_block_single_bit(std::uint32_t size, std::uint32_t count,
                                                              std::uint32_t picks) noexcept {
  const lemire_draw rank = lemire_draw_once(picks, count == 0 ? 1U : size);
  return {count << rank.value, rank.exact};
}

}  // namespace wildfire
