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

/// What resident blocks of one kernel take of a multiprocessor: registers (allocated a warp at a
/// time, in units of 256), threads, shared memory (static, plus the per-block reserve) and a block
/// slot each.
struct sm_share {
  unsigned long long registers = 0;
  unsigned long long threads = 0;
  unsigned long long shared_bytes = 0;
  unsigned blocks = 0;
};

/// What `blocks` resident blocks of `kernel`, `threads` threads each, take of a multiprocessor.
template <class Kernel>
sm_share share_of(Kernel kernel, unsigned threads, unsigned blocks) {
  cudaFuncAttributes attributes{};
  WF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int device = 0;
  int reserved = 0;
  WF_CUDA_CHECK(cudaGetDevice(&device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
  const unsigned long long warps = (threads + 31) / 32;
  const unsigned long long warp_registers =
      (static_cast<unsigned long long>(attributes.numRegs) * 32 + 255) / 256 * 256;
  return {blocks * warps * warp_registers, static_cast<unsigned long long>(blocks) * threads,
          blocks * (attributes.sharedSizeBytes + static_cast<unsigned long long>(reserved)), blocks};
}

/// A persistent grid of `kernel` that one multiprocessor holds beside `beside` (the resident
/// blocks of a kernel running at the same time on another stream): as many blocks as fit in what
/// `beside` leaves, at most as many as fit alone, at least 1 a multiprocessor.
template <class Kernel>
unsigned resident_grid_beside(Kernel kernel, unsigned threads, const sm_share& beside) {
  int device = 0;
  int registers = 0;
  int max_threads = 0;
  int shared_bytes = 0;
  int max_blocks = 0;
  WF_CUDA_CHECK(cudaGetDevice(&device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&registers, cudaDevAttrMaxRegistersPerMultiprocessor, device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&shared_bytes, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, device));
  const sm_share one = share_of(kernel, threads, 1);
  const auto left = [](unsigned long long total, unsigned long long taken, unsigned long long each) {
    return each == 0 ? ~0ULL : (total > taken ? (total - taken) / each : 0);
  };
  unsigned long long blocks = resident_blocks_per_sm(kernel, threads);
  blocks = std::min(blocks, left(static_cast<unsigned long long>(registers), beside.registers, one.registers));
  blocks = std::min(blocks, left(static_cast<unsigned long long>(max_threads), beside.threads, one.threads));
  blocks = std::min(blocks, left(static_cast<unsigned long long>(shared_bytes), beside.shared_bytes, one.shared_bytes));
  blocks = std::min(blocks, left(static_cast<unsigned long long>(max_blocks), beside.blocks, 1));
  return multiprocessor_count() * static_cast<unsigned>(std::max<unsigned long long>(blocks, 1));
}

}  // namespace wildfire::cuda
