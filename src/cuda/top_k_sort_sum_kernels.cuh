// Kernel of top_k_sort_sum.cu: the sum of the first k of the sorted counts. Included only by
// top_k_sort_sum.cu.
#pragma once

#include <cstdint>

#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels {

/// *sum += sorted_desc[0] + ... + sorted_desc[k - 1] (one block; lane 0 of each warp adds).
__global__ void sum_prefix(const std::uint32_t* sorted_desc, std::uint64_t k, unsigned long long* sum) {
  unsigned long long mine = 0;
  for (std::uint64_t i = threadIdx.x; i < k; i += blockDim.x) mine += sorted_desc[i];
  mine = warp_sum(mine);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicAdd(sum, mine);
}

}  // namespace wildfire::cuda::kernels
