// Roots of a sample: how many (a fractional mean r is realised as floor or ceil, MERIT digest
// section 1.6) and which (distinct, uniform without replacement, by Floyd's algorithm so exactly
// r draws are made). A single-root sample is the r = 1 case.
#pragma once

#include <cmath>
#include <cstdint>

#include "wildfire/random/counter_hash.hpp"

namespace wildfire {

/// Number of roots for mean `mean_roots` >= 1: ceil with probability frac(mean), else floor;
/// never more than `pool_size`.
WF_HOST_DEVICE inline std::uint32_t root_count(std::uint64_t key, double mean_roots,
                                               std::uint32_t pool_size) noexcept {
  const double whole = floor(mean_roots);
  std::uint64_t count = static_cast<std::uint64_t>(whole);
  if (mean_roots > whole && element_uniform(key, element_domain::misc | 1) < mean_roots - whole) ++count;
  return static_cast<std::uint32_t>(count < pool_size ? count : pool_size);
}

/// Floyd's draw of slot `slot` when choosing `count` of [0, pool_size): uniform in [0, j] with
/// j = pool_size - count + slot; the slot takes it unless already chosen, else j (never chosen yet).
WF_HOST_DEVICE inline std::uint32_t floyd_candidate(std::uint64_t key, std::uint32_t pool_size, std::uint32_t count,
                                                    std::uint32_t slot) noexcept {
  return bounded_draw(key, element_domain::root | (std::uint64_t{slot} << 16), pool_size - count + slot + 1);
}

/// Draws `count` distinct indices uniformly from [0, pool_size) (Floyd's algorithm). `contains(i)`
/// says whether i was already chosen; `choose(i)` records it. Precondition: count <= pool_size.
template <class Contains, class Choose>
WF_HOST_DEVICE inline void draw_distinct_roots(std::uint64_t key, std::uint32_t pool_size,
                                               std::uint32_t count, Contains&& contains,
                                               Choose&& choose) {
  for (std::uint32_t slot = 0; slot < count; ++slot) {
    const std::uint32_t t = floyd_candidate(key, pool_size, count, slot);
    choose(contains(t) ? pool_size - count + slot : t);
  }
}

/// The single root of a sample over a pool of `pool_size` vertices (the count = 1 case above).
WF_HOST_DEVICE inline std::uint32_t single_root(std::uint64_t key, std::uint32_t pool_size) noexcept {
  return bounded_draw(key, element_domain::root, pool_size);
}

}  // namespace wildfire
