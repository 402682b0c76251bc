// How large a grid the GPU holds resident at once: the size of every persistent (work-counter)
// and cooperative grid. WF_CUDA_SMS=N sizes them for at most N multiprocessors, so that
// compute-sanitizer's racecheck, which serialises shared-memory accesses, runs the same kernels
// on the same inputs in seconds instead of scheduling thousands of mostly idle blocks
// (scripts/device/sanitize.sh). Results never depend on the grid size.
#pragma once

#include <algorithm>
#include <cstdlib>

#include <cuda_runtime_api.h>

#include "cuda/cuda_check.hpp"

namespace wildfire::cuda {

/// Multiprocessors of the current device, or fewer where WF_CUDA_SMS asks for fewer (at least 1).
inline unsigned multiprocessor_count() {
  int device = 0;
  int sms = 1;
  WF_CUDA_CHECK(cudaGetDevice(&device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  unsigned count = static_cast<unsigned>(std::max(sms, 1));
  if (const char* cap = std::getenv("WF_CUDA_SMS"); cap != nullptr && std::atoi(cap) > 0) {
    count = std::min(count, static_cast<unsigned>(std::atoi(cap)));
  }
  return count;
}

/// Blocks of `kernel` (with `threads` threads and `shared_bytes` of dynamic shared memory) that
/// one multiprocessor holds at once (at least 1).
template <class Kernel>
unsigned resident_blocks_per_sm(Kernel kernel, unsigned threads, std::size_t shared_bytes = 0) {
  int per_sm = 0;
  WF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), shared_bytes));
  return static_cast<unsigned>(std::max(per_sm, 1));
}

/// A persistent grid of `kernel`: as many blocks as the device (or WF_CUDA_SMS) holds at once.
template <class Kernel>
unsigned resident_grid(Kernel kernel, unsigned threads, std::size_t shared_bytes = 0) {
  return multiprocessor_count() * resident_blocks_per_sm(kernel, threads, shared_bytes);
}

}  // namespace wildfire::cuda
