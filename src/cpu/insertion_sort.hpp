// Insertion sort for the short runs RR sets mostly are (a handful of members under weighted
// cascade), where it beats introsort's setup.
#pragma once

#include <cstdint>

namespace wildfire::cpu {

/// Sorts [first, last) ascending. Shifts instead of swapping: a swap loop gets vectorised into
/// overlapping 8-byte loads and stores that stall on store forwarding. O(n^2): short runs only.
inline void insertion_sort(std::uint32_t* first, std::uint32_t* last) noexcept {
  for (std::uint32_t* i = first + (first != last ? 1 : 0); i < last; ++i) {
    const std::uint32_t key = *i;
    std::uint32_t* j = i;
    for (; j > first && j[-1] > key; --j) *j = j[-1];
    *j = key;
  }
}

}  // namespace wildfire::cpu
