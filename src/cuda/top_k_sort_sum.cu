// The top-k sum by sort (see top_k_sort_sum.hpp).
#include "cuda/top_k_sort_sum.hpp"

#include <cub/device/device_radix_sort.cuh>

#include "cuda/cuda_check.hpp"
#include "cuda/top_k_sort_sum_kernels.cuh"

namespace wildfire::cuda {

std::size_t top_k_sort_scratch_bytes(const std::uint32_t* counts, std::uint32_t* sorted, std::uint32_t n, int end_bit,
                                     cudaStream_t stream) {
  std::size_t bytes = 0;
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, bytes, counts, sorted, static_cast<std::int64_t>(n), 0,
                                                         end_bit, stream));
  return bytes;
}

void top_k_sort_sum_async(void* scratch, std::size_t scratch_bytes, const std::uint32_t* counts, std::uint32_t* sorted,
                          std::uint32_t n, int end_bit, std::uint64_t k, unsigned long long* out, cudaStream_t stream) {
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(scratch, scratch_bytes, counts, sorted,
                                                         static_cast<std::int64_t>(n), 0, end_bit, stream));
  kernels::sum_prefix<<<1, 1024, 0, stream>>>(sorted, k, out);
  WF_CUDA_CHECK(cudaGetLastError());
}

}  // namespace wildfire::cuda
