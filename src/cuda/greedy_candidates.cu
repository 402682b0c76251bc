// The greedy's candidates (see greedy_candidates.hpp).
#include "cuda/greedy_candidates.hpp"

#include <algorithm>
#include <bit>

#include <cub/device/device_radix_sort.cuh>

#include "cuda/greedy_candidates_kernels.cuh"
#include "cuda/resident_grid.hpp"

namespace wildfire::cuda {

greedy_candidates::greedy_candidates(std::uint32_t n, memory_budget& budget, cudaStream_t stream)
    : n_(n), budget_(&budget), stream_(stream), grid_(multiprocessor_count() * 8) {
  sorted_counts_ = device_buffer<std::uint32_t>(budget, n, "sorted coverage counts");
  bits_ = device_buffer<std::uint32_t>(budget, (std::uint64_t{n} + 31) / 32, "greedy candidate flags");
  num_ids_ = device_buffer<std::uint32_t>(budget, 1, "greedy candidate count");
}

void greedy_candidates::mark(const std::uint32_t* counts, std::uint64_t num_sets, std::uint32_t limit) {
  WF_EXPECTS(limit >= 1 && limit < n_, "candidates", "the candidate limit must lie in [1, n)");
  limit_ = limit;
  grow_buffer(ids_, *budget_, limit, 0, stream_, "greedy candidates");
  // Counts are at most the number of sets: the sort needs only that many low bits.
  const int count_bits = std::max(1, static_cast<int>(std::bit_width(num_sets)));
  std::size_t sort_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, sort_bytes, counts, sorted_counts_.data(),
                                                         static_cast<std::int64_t>(n_), 0, count_bits, stream_));
  grow_buffer(scratch_, *budget_, std::max<std::size_t>(sort_bytes, 1), 0, stream_, "CUB radix-sort scratch");
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(scratch_.data(), sort_bytes, counts, sorted_counts_.data(),
                                                         static_cast<std::int64_t>(n_), 0, count_bits, stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(num_ids_.data(), 0, sizeof(std::uint32_t), stream_));
  kernels::mark_candidates<<<grid_, kernels::candidate_block_threads, 0, stream_>>>(
      counts, n_, sorted_counts_.data() + limit, bits_.data(), ids_.data(), num_ids_.data());
  WF_CUDA_CHECK(cudaGetLastError());
}

void greedy_candidates::argmax(const std::uint32_t* counts, const std::uint8_t* selected,
                               const unsigned long long* failed, unsigned long long* best) const {
  const unsigned blocks = static_cast<unsigned>(std::clamp<std::uint64_t>(
      (limit_ + kernels::candidate_block_threads - 1) / kernels::candidate_block_threads, 1, grid_));
  kernels::argmax_candidates<<<blocks, kernels::candidate_block_threads, 0, stream_>>>(
      counts, selected, ids_.data(), num_ids_.data(), failed, best);
  WF_CUDA_CHECK(cudaGetLastError());
}

}  // namespace wildfire::cuda
