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

std::uint64_t align_up(std::uint64_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

rr_store::rr_store(memory_budget& budget, set_order order) : budget_(&budget), order_(order) {
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

void rr_store::reserve_ahead(std::uint64_t extra_sets, std::uint64_t extra_members, cudaStream_t stream) {
  const std::uint64_t more = growth_bytes(extra_sets, extra_members);
  if (more > 0 && budget_->fits(more)) reserve(extra_sets, extra_members, stream);
}

void rr_store::append_staged(const rr_staging& staged, cudaStream_t stream) {
  // The batch's members fit the arena and number at most the entries reserved in it.
  lay_out_staged(staged, std::min<std::uint64_t>(staged.arena_used, staged.arena.size()), stream);
  WF_CUDA_CHECK(cudaStreamSynchronize(stream));
  commit_staged(stream);
}

void rr_store::lay_out_staged(const rr_staging& staged, std::uint64_t bound, cudaStream_t stream) {
  const std::uint64_t count = staged.count;
  pending_ = laid_out_batch{};
  if (count == 0) return;
  // Every buffer is sized by the bound on the batch's members, so no host synchronisation is
  // needed before the copy of the total.
  const std::uint64_t most_big = std::min<std::uint64_t>(count, bound / 33 + 1);  // sets of > 32 members
  const bool sort_big = order_ == set_order::sorted;
  reserve(count, bound, stream);
  // The scratch block: batch offsets (count + 1) and the large-set count, then the large sets'
  // begins and ends (64-bit words); the gather buffer (bound members, sorted stores only); CUB's
  // storage. CUB's needs grow with items and segments, so asking for the bounds sizes the block
  // before any kernel. Separate buffers each cost a cudaMalloc and a cudaFree whenever the
  // batches grow.
  const std::uint64_t gather_at = align_up((count + 2 + 2 * most_big) * sizeof(std::uint64_t));
  const std::uint64_t cub_at =
      gather_at + (sort_big ? align_up(std::max<std::uint64_t>(bound, 1) * sizeof(std::uint32_t)) : 0);
  std::size_t scan_bytes = 0;
  std::size_t sort_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, staged.set_size.data(),
                                              static_cast<std::uint64_t*>(nullptr), count + 1, stream));
  if (sort_big) {
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(
        nullptr, sort_bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::int64_t>(bound), static_cast<std::int64_t>(most_big), static_cast<std::uint64_t*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), stream));
  }
  grow_buffer(scratch_, *budget_, cub_at + std::max<std::size_t>({scan_bytes, sort_bytes, 1}), 0, stream,
              "RR batch scratch");
  auto* batch_offsets = reinterpret_cast<std::uint64_t*>(scratch_.data());
  auto* num_big = reinterpret_cast<unsigned long long*>(batch_offsets + count + 1);
  std::uint64_t* big_begin = batch_offsets + count + 2;
  std::uint64_t* big_end = big_begin + most_big;
  // Large sets go to the gather buffer for the sort, or straight to their places.
  std::uint32_t* gathered = sort_big ? reinterpret_cast<std::uint32_t*>(scratch_.data() + gather_at) : members_end();
  void* cub_storage = scratch_.data() + cub_at;
  const std::size_t cub_bytes = scratch_.size() - cub_at;
  std::size_t bytes = cub_bytes;
  // Offsets of the batch's sets in sample order: exclusive scan over the sizes (count + 1 items,
  // the last size is 0, so batch_offsets[count] is the batch's member total).
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_storage, bytes, staged.set_size.data(),
                                              batch_offsets, count + 1, stream));
  WF_CUDA_CHECK(cudaMemsetAsync(num_big, 0, sizeof(unsigned long long), stream));
  // Sets expected of at most gather_lane_max members on average: most are small, a lane each.
  const bool lane_per_small_set = staged.expected_mean <= static_cast<double>(kernels::gather_lane_max);
  (lane_per_small_set ? kernels::gather_staged_sets<true> : kernels::gather_staged_sets<false>)
      <<<grid_for(lane_per_small_set ? count : count * 32, 256), 256, 0, stream>>>(
          staged.arena.data(), staged.set_start.data(), batch_offsets, count, members_end(), gathered,
          sort_big ? big_begin : nullptr, big_end, num_big, num_members_, offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  // The member total and the large-set count sit side by side: one copy.
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counts_, batch_offsets + count, 2 * sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                stream));
  pending_ = laid_out_batch{count, gathered, big_begin, big_end, cub_storage, cub_bytes};
}

void rr_store::commit_staged(cudaStream_t stream) {
  if (pending_.count == 0) return;
  const std::uint64_t total = host_counts_[0];
  const std::uint64_t big = host_counts_[1];
  if (big > 0 && order_ == set_order::sorted) {
    // The sets of more than 32 members, sorted from the gather buffer into their places.
    std::size_t bytes = pending_.cub_bytes;
    WF_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(pending_.cub_storage, bytes, pending_.gathered, members_end(),
                                                     static_cast<std::int64_t>(total), static_cast<std::int64_t>(big),
                                                     pending_.big_begin, pending_.big_end, stream));
  }
  commit(pending_.count, total);
  pending_ = laid_out_batch{};
}

}  // namespace wildfire::cuda
