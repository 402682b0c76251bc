// The sum of the k largest of n counts by a descending CUB radix sort and a one-block sum of the
// first k (the OPIM-C bound's top-k marginal sum of the flat, bitmap and streamed greedies; the
// flat one takes a one-block radix select on small universes instead, max_coverage_kernels.cuh).
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace wildfire::cuda {

/// Scratch bytes top_k_sort_sum_async needs to sort counts[0, n) (values below 2^end_bit) into
/// `sorted`.
std::size_t top_k_sort_scratch_bytes(const std::uint32_t* counts, std::uint32_t* sorted, std::uint32_t n, int end_bit,
                                     cudaStream_t stream);

/// Adds the sum of the k largest of counts[0, n) (k <= n, values below 2^end_bit) to *out: sorts
/// them descending into `sorted` (n entries) with `scratch`, then sums the first k. Queued on
/// `stream`.
void top_k_sort_sum_async(void* scratch, std::size_t scratch_bytes, const std::uint32_t* counts, std::uint32_t* sorted,
                          std::uint32_t n, int end_bit, std::uint64_t k, unsigned long long* out, cudaStream_t stream);

}  // namespace wildfire::cuda
