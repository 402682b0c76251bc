// The roots of one sample, drawn exactly as reference::rr_roots draws them (root_draw.hpp), with a
// caller-supplied marker instead of a search so many roots cost O(count).
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/random/root_draw.hpp"

namespace wildfire {

/// Appends the roots of the sample with (round-0) key `key` to `roots`, in draw order.
/// `marker` supports test(v) and set(v) and must be clear of the pool's ids; the roots stay
/// marked afterwards. With mean_roots == 1 this is single_root(key, n).
template <class Marker>
inline void append_sample_roots(std::uint64_t key, double mean_roots, std::uint32_t num_vertices, Marker& marker,
                                std::vector<std::uint32_t>& roots) {
  if (num_vertices == 0) return;
  if (mean_roots == 1.0) {
    const std::uint32_t r = single_root(key, num_vertices);
    marker.set(r);
    roots.push_back(r);
    return;
  }
  const std::uint32_t count = root_count(key, mean_roots, num_vertices);
  draw_distinct_roots(
      key, num_vertices, count, [&](std::uint32_t v) { return marker.test(v); },
      [&](std::uint32_t v) {
        marker.set(v);
        roots.push_back(v);
      });
}

}  // namespace wildfire
