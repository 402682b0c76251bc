// influence / out-degree from a precomputed reciprocal, for the staged GPU sweep's dependent chain
// (twitter_staged_kernels.cuh). Host and device, so a host test checks it against the division.
#pragma once

#include <cmath>

#include "wildfire/host_device.hpp"

namespace wildfire::twitter::detail {

/// influence / degree from r = RN(1 / degree): one product and two fused corrections (Markstein's
/// theorem: with r correctly rounded and the product faithful, the correction gives the correctly
/// rounded quotient), equal to the IEEE division bit for bit (tested for every degree up to
/// 65,535), in three dependent operations where the device's division takes about nine. A degree
/// of 0 with r = 0 gives 0.
WF_HOST_DEVICE inline double divide_by_degree(double influence, double degree, double r) {
#ifdef __CUDA_ARCH__
  const double q = __dmul_rn(influence, r);
  return __fma_rn(__fma_rn(-q, degree, influence), r, q);
#else
  const double q = influence * r;
  return std::fma(std::fma(-q, degree, influence), r, q);
#endif
}

}  // namespace wildfire::twitter::detail
