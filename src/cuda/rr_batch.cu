// The canonical device store of RR sets (see rr_batch.hpp).
#include "cuda/rr_batch.hpp"

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
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_total_), sizeof(std::uint64_t)));
}

rr_store::~rr_store() {
  if (host_total_ != nullptr) (void)cudaFreeHost(host_total_);
}

void rr_store::reserve(std::uint64_t extra_sets, std::uint64_t extra_members, cudaStream_t stream) {
  grow_buffer(offsets_, *budget_, num_sets_ + extra_sets + 1, num_sets_ + 1, stream, "RR set offsets");
  grow_buffer(members_, *budget_, num_members_ + extra_members, num_members_, stream, "RR set members");
}

void rr_store::append_staged(const rr_staging& staged, cudaStream_t stream) {
  const std::uint64_t count = staged.count;
  if (count == 0) return;
  // Offsets of the batch's sets in sample order: exclusive scan over the sizes (count + 1 items,
  // the last size is 0, so batch_offsets[count] is the batch's member total).
  grow_buffer(batch_offsets_, *budget_, count + 1, 0, stream, "RR batch offsets");
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, staged.set_size.data(), batch_offsets_.data(),
                                              count + 1, stream));
  grow_buffer(sort_scratch_, *budget_, scan_bytes, 0, stream, "CUB scan scratch");
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(sort_scratch_.data(), scan_bytes, staged.set_size.data(),
                                              batch_offsets_.data(), count + 1, stream));
  WF_CUDA_CHECK(cudaMemcpyAsync(host_total_, batch_offsets_.data() + count, sizeof(std::uint64_t),
                                cudaMemcpyDeviceToHost, stream));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t total = *host_total_;

  reserve(count, total, stream);
  grow_buffer(gathered_, *budget_, total, 0, stream, "RR batch gather buffer");
  if (total > 0) {
    kernels::gather_staged_sets<<<grid_for(count * 32, 256), 256, 0, stream>>>(
        staged.arena.data(), staged.set_start.data(), batch_offsets_.data(), count, gathered_.data());
    WF_CUDA_CHECK(cudaGetLastError());
    std::size_t sort_bytes = 0;
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, sort_bytes, gathered_.data(), members_end(),
                                                     static_cast<std::int64_t>(total), static_cast<std::int64_t>(count),
                                                     batch_offsets_.data(), batch_offsets_.data() + 1, stream));
    grow_buffer(sort_scratch_, *budget_, sort_bytes, 0, stream, "CUB segmented-sort scratch");
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(sort_scratch_.data(), sort_bytes, gathered_.data(),
                                                     members_end(), static_cast<std::int64_t>(total),
                                                     static_cast<std::int64_t>(count), batch_offsets_.data(),
                                                     batch_offsets_.data() + 1, stream));
  }
  kernels::append_offsets<<<grid_for(count, 256), 256, 0, stream>>>(batch_offsets_.data(), count, num_members_,
                                                                     offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  commit(count, total);
}

}  // namespace wildfire::cuda
