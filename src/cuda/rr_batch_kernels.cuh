// Kernels that move a staged batch of RR sets into the canonical store (see rr_batch.hpp).
#pragma once

#include <cstdint>

namespace wildfire::cuda::kernels {

/// Warp per set: copies set i from the arena to its place in sample order.
__global__ void gather_staged_sets(const std::uint32_t* arena, const std::uint64_t* set_start,
                                   const std::uint64_t* batch_offsets, std::uint64_t count,
                                   std::uint32_t* gathered) {
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < count;
       i += warps) {
    const std::uint64_t from = set_start[i];
    const std::uint64_t to = batch_offsets[i];
    const std::uint64_t size = batch_offsets[i + 1] - to;
    for (std::uint64_t k = lane; k < size; k += 32) gathered[to + k] = arena[from + k];
  }
}

/// offsets[1 + i] = base + batch_offsets[1 + i]: appends the batch's set ends to the store.
__global__ void append_offsets(const std::uint64_t* batch_offsets, std::uint64_t count, std::uint64_t base,
                               std::uint64_t* offsets_end) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    offsets_end[1 + i] = base + batch_offsets[1 + i];
  }
}

}  // namespace wildfire::cuda::kernels
