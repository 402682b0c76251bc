// The order in which Select (Alg. 4 line 3) prefers vertices, shared by the CPU and CUDA stores so
// both pick the same batch: larger coverage / cost first, then lower cost, then lower id.
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"

namespace wildfire::adaptive {

/// True iff vertex a (coverage ca, cost wa) is preferred over vertex b.
WF_HOST_DEVICE inline bool selection_before(std::uint32_t ca, double wa, std::uint32_t a, std::uint32_t cb, double wb,
                                            std::uint32_t b) noexcept {
  const double ra = static_cast<double>(ca) / wa;
  const double rb = static_cast<double>(cb) / wb;
  if (ra != rb) return ra > rb;
  if (wa != wb) return wa < wb;
  return a < b;
}

}  // namespace wildfire::adaptive
