// Diffusion probabilities stored as 32-bit integer thresholds (ARCHITECTURE.md section 1):
// an IC edge is live in a sample iff a 32-bit draw is below its threshold.
#pragma once

#include <cmath>
#include <cstdint>

#include "wildfire/host_device.hpp"

namespace wildfire {

/// Threshold meaning "probability exactly 1": the edge is always live.
inline constexpr std::uint32_t always_live_threshold = 0xffffffffU;

/// round(p * 2^32), with p >= 1 mapped to always_live_threshold. Precondition: 0 <= p <= 1.
inline std::uint32_t threshold_from_probability(double p) noexcept {
  if (p >= 1.0) return always_live_threshold;
  const double scaled = std::nearbyint(p * 4294967296.0);
  return scaled >= 4294967295.0 ? always_live_threshold - 1 : static_cast<std::uint32_t>(scaled);
}

/// The weight of a threshold in units of 2^-32 (2^32 for always-live), for LT cumulative sums.
WF_HOST_DEVICE constexpr std::uint64_t threshold_weight(std::uint32_t threshold) noexcept {
  return threshold == always_live_threshold ? (1ULL << 32) : threshold;
}

/// The probability a stored threshold represents.
inline double probability_from_threshold(std::uint32_t threshold) noexcept {
  return static_cast<double>(threshold_weight(threshold)) / 4294967296.0;
}

}  // namespace wildfire
