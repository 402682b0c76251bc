// Grid-stride indexing for kernels that walk an array with every thread of the grid.
#pragma once

#include <cstdint>

namespace wildfire::cuda {

/// This thread's index in the whole grid (64-bit: the arrays can exceed 2^32 entries).
__device__ __forceinline__ std::uint64_t grid_thread_id() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// Threads in the grid: the stride of a grid-stride loop.
__device__ __forceinline__ std::uint64_t grid_thread_count() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

}  // namespace wildfire::cuda
