// The greedy's candidates (see greedy_candidates.hpp).
#include "cuda/greedy_candidates.hpp"

#include <algorithm>
#include <bit>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "cuda/greedy_candidates_kernels.cuh"
#include "cuda/resident_grid.hpp"

namespace wildfire::cuda {

greedy_candidates::greedy_candidates(std::uint32_t n, memory_budget& budget, cudaStream_t stream)
    : n_(n), budget_(&budget), stream_(stream), grid_(multiprocessor_count() * 8) {
  const std::uint64_t words = (std::uint64_t{n} + 31) / 32;
  sorted_counts_ = device_buffer<std::uint32_t>(budget, n, "sorted coverage counts");
  bits_ = device_buffer<std::uint32_t>(budget, words, "greedy candidate flags");
  listed_ = device_buffer<std::uint32_t>(budget, words, "greedy list flags");
  list_sizes_ = device_buffer<std::uint32_t>(budget, std::uint64_t{n} + 1, "greedy list sizes");
  list_offsets_ = device_buffer<std::uint64_t>(budget, std::uint64_t{n} + 1, "greedy list offsets");
  cursors_ = device_buffer<std::uint32_t>(budget, n, "greedy list cursors");
  num_ids_ = device_buffer<std::uint32_t>(budget, 1, "greedy candidate count");
  filters_ = device_buffer<std::uint32_t>(budget, 2 * kernels::vertex_filter_words, "greedy candidate filters");
  // [n] stays 0, so that the scan over n + 1 entries closes with the total.
  WF_CUDA_CHECK(cudaMemsetAsync(list_sizes_.data() + n, 0, sizeof(std::uint32_t), stream));
}

bool greedy_candidates::build(const std::uint32_t* counts, std::uint64_t num_sets, std::uint32_t limit,
                              const std::uint32_t* members, const std::uint32_t* set_ids, std::uint64_t num_members) {
  WF_EXPECTS(limit >= 1 && limit < n_, "candidates", "the candidate limit must lie in [1, n)");
  limit_ = limit;
  grow_buffer(ids_, *budget_, limit, 0, stream_, "greedy candidates");
  // Counts are at most the number of sets: the sort needs only that many low bits.
  const int count_bits = std::max(1, static_cast<int>(std::bit_width(num_sets)));
  const auto plus = ::cuda::std::plus<std::uint64_t>{};
  std::size_t sort_bytes = 0;
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, sort_bytes, counts, sorted_counts_.data(),
                                                         static_cast<std::int64_t>(n_), 0, count_bits, stream_));
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, list_sizes_.data(), list_offsets_.data(), plus,
                                               std::uint64_t{0}, static_cast<std::int64_t>(n_) + 1, stream_));
  grow_buffer(scratch_, *budget_, std::max<std::size_t>({sort_bytes, scan_bytes, 1}), 0, stream_, "CUB scratch");
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(scratch_.data(), sort_bytes, counts, sorted_counts_.data(),
                                                         static_cast<std::int64_t>(n_), 0, count_bits, stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(num_ids_.data(), 0, num_ids_.bytes(), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(filters_.data(), 0, filters_.bytes(), stream_));
  kernels::mark_candidates<<<grid_, kernels::candidate_block_threads, 0, stream_>>>(
      counts, n_, sorted_counts_.data() + limit, sorted_counts_.data() + list_limit(limit), bits_.data(),
      listed_.data(), list_sizes_.data(), ids_.data(), num_ids_.data(), candidate_filter(), list_filter());
  WF_CUDA_CHECK(cudaGetLastError());
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scratch_.data(), scan_bytes, list_sizes_.data(), list_offsets_.data(),
                                               plus, std::uint64_t{0}, static_cast<std::int64_t>(n_) + 1, stream_));
  std::uint64_t total = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&total, list_offsets_.data() + n_, sizeof(total), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (total > lists_.size() && !budget_->fits(total * sizeof(std::uint32_t))) return false;
  grow_buffer(lists_, *budget_, total, 0, stream_, "greedy candidate lists");
  WF_CUDA_CHECK(cudaMemsetAsync(cursors_.data(), 0, cursors_.bytes(), stream_));
  if (num_members > 0) {
    kernels::fill_candidate_lists<<<grid_, kernels::candidate_block_threads, 0, stream_>>>(
        members, set_ids, num_members, listed_.data(), list_filter(), list_offsets_.data(), cursors_.data(),
        lists_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  return true;
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
