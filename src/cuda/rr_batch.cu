// The canonical device store of RR sets (see rr_batch.hpp).
#include "cuda/rr_batch.hpp"

#include <algorithm>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/rr_batch_kernels.cuh"

namespace wildfire::cuda {
namespace {

unsigned grid_for(std::uint64_t items, unsigned per_block) {
  const std::uint64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks == 0 ? 1 : (blocks > 65535 ? 65535 : blocks));
}

}  // namespace

rr_store::rr_store(memory_budget& budget) : budget_(&budget) {
  offsets_ = device_buffer<std::uint64_t>(budget, 1024, "RR set offsets");
  WF_CUDA_CHECK(cudaMemset(offsets_.data(), 0, sizeof(std::uint64_t)));
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counts_), 2 * sizeof(std::uint64_t)));
}

rr_store::~rr_store() {
  if (host_counts_ != nullptr) (void)cudaFreeHost(host_counts_);
}

void rr_store::reserve(std::uint64_t extra_sets, std::uint64_t extra_members, cudaStream_t stream) {
  grow_buffer(offsets_, *budget_, num_sets_ + extra_sets + 1, num_sets_ + 1, stream, "RR set offsets");
  grow_buffer(members_, *budget_, num_members_ + extra_members, num_members_, stream, "RR set members");
}

void rr_store::append_staged(const rr_staging& staged, cudaStream_t stream) {
  const std::uint64_t count = staged.count;
  if (count == 0) return;
  // The batch's members fit the arena and number at most the entries reserved in it: every
  // buffer is sized by that bound, so the one host synchronisation comes last.
  const std::uint64_t bound = std::min<std::uint64_t>(staged.arena_used, staged.arena.size());
  const std::uint64_t most_big = std::min<std::uint64_t>(count, bound / 33 + 1);  // sets of > 32 members
  reserve(count, bound, stream);
  grow_buffer(batch_offsets_, *budget_, count + 1, 0, stream, "RR batch offsets");
  grow_buffer(gathered_, *budget_, std::max<std::uint64_t>(bound, 1), 0, stream, "RR batch gather buffer");
  grow_buffer(big_segments_, *budget_, 2 * most_big + 1, 0, stream, "RR batch large-set list");
  // Offsets of the batch's sets in sample order: exclusive scan over the sizes (count + 1 items,
  // the last size is 0, so batch_offsets[count] is the batch's member total).
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, staged.set_size.data(), batch_offsets_.data(),
                                              count + 1, stream));
  grow_buffer(sort_scratch_, *budget_, scan_bytes, 0, stream, "CUB scan scratch");
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(sort_scratch_.data(), scan_bytes, staged.set_size.data(),
                                              batch_offsets_.data(), count + 1, stream));
  std::uint64_t* big_begin = big_segments_.data() + 1;
  std::uint64_t* big_end = big_begin + most_big;
  auto* num_big = reinterpret_cast<unsigned long long*>(big_segments_.data());
  WF_CUDA_CHECK(cudaMemsetAsync(num_big, 0, sizeof(std::uint64_t), stream));
  kernels::gather_staged_sets<<<grid_for(count * 32, 256), 256, 0, stream>>>(
      staged.arena.data(), staged.set_start.data(), batch_offsets_.data(), count, members_end(), gathered_.data(),
      big_begin, big_end, num_big);
  WF_CUDA_CHECK(cudaGetLastError());
  kernels::append_offsets<<<grid_for(count, 256), 256, 0, stream>>>(batch_offsets_.data(), count, num_members_,
                                                                     offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counts_, batch_offsets_.data() + count, sizeof(std::uint64_t),
                                cudaMemcpyDeviceToHost, stream));
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counts_ + 1, num_big, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t total = host_counts_[0];
  const std::uint64_t big = host_counts_[1];
  if (big > 0) {
    // The sets of more than 32 members, sorted from the gather buffer into their places.
    std::size_t sort_bytes = 0;
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, sort_bytes, gathered_.data(), members_end(),
                                                     static_cast<std::int64_t>(total), static_cast<std::int64_t>(big),
                                                     big_begin, big_end, stream));
    grow_buffer(sort_scratch_, *budget_, sort_bytes, 0, stream, "CUB segmented-sort scratch");
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(sort_scratch_.data(), sort_bytes, gathered_.data(),
                                                     members_end(), static_cast<std::int64_t>(total),
                                                     static_cast<std::int64_t>(big), big_begin, big_end, stream));
  }
  commit(count, total);
}

}  // namespace wildfire::cuda
