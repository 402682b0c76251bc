// The streamed RR representation's device steps (see streamed_coverage.hpp).
#include "cuda/streamed_coverage.hpp"

#include <algorithm>
#include <bit>

#include <cub/device/device_scan.cuh>

#include "cuda/greedy_steps.hpp"
#include "cuda/streamed_coverage_kernels.cuh"
#include "cuda/top_k_sort_sum.hpp"

namespace wildfire::cuda {
namespace {

unsigned grid_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::streamed::block_threads - 1) / kernels::streamed::block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 16));
}

}  // namespace

streamed_coverage::streamed_coverage(std::uint32_t num_vertices, memory_budget& budget, cudaStream_t stream)
    : n_(num_vertices), budget_(&budget), stream_(stream) {
  result_ = device_buffer<unsigned long long>(budget, 2, "streamed coverage results");
}

void streamed_coverage::add_counts(const rr_store& store, std::uint32_t* counts) {
  if (store.num_members() == 0) return;
  kernels::streamed::add_counts<<<grid_for(store.num_members()), kernels::streamed::block_threads, 0, stream_>>>(
      store.members(), store.num_members(), counts);
  WF_CUDA_CHECK(cudaGetLastError());
}

std::uint32_t streamed_coverage::argmax(const std::uint32_t* counts) {
  WF_CUDA_CHECK(cudaMemsetAsync(result_.data(), 0, sizeof(unsigned long long), stream_));
  kernels::streamed::argmax<<<grid_for(n_), kernels::streamed::block_threads, 0, stream_>>>(counts, n_,
                                                                                          result_.data());
  WF_CUDA_CHECK(cudaGetLastError());
  unsigned long long packed = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&packed, result_.data(), sizeof(packed), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return argmax_key_vertex(packed);
}

std::uint64_t streamed_coverage::top_sum(const std::uint32_t* counts, std::uint32_t k, std::uint64_t num_sets) {
  if (n_ == 0) return 0;
  grow_buffer(sorted_, *budget_, n_, 0, stream_, "sorted coverage counts");
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(num_sets)));
  const std::size_t bytes = top_k_sort_scratch_bytes(counts, sorted_.data(), n_, end_bit, stream_);
  grow_buffer(scratch_, *budget_, std::max<std::size_t>(bytes, 1), 0, stream_, "CUB radix-sort scratch");
  WF_CUDA_CHECK(cudaMemsetAsync(result_.data() + 1, 0, sizeof(unsigned long long), stream_));
  top_k_sort_sum_async(scratch_.data(), bytes, counts, sorted_.data(), n_, end_bit, std::min<std::uint64_t>(k, n_),
                       result_.data() + 1, stream_);
  unsigned long long sum = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&sum, result_.data() + 1, sizeof(sum), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return sum;
}

std::uint64_t streamed_coverage::split(const rr_store& chunk, std::uint32_t seed, rr_store& residual) {
  const std::uint64_t count = chunk.num_sets();
  if (count == 0) return 0;
  grow_buffer(kept_, *budget_, count + 1, 0, stream_, "streamed kept sizes");
  grow_buffer(kept_offsets_, *budget_, count + 1, 0, stream_, "streamed kept offsets");
  WF_CUDA_CHECK(cudaMemsetAsync(result_.data() + 1, 0, sizeof(unsigned long long), stream_));
  kernels::streamed::split_sizes<<<grid_for(count + 1), kernels::streamed::block_threads, 0, stream_>>>(
      chunk.offsets(), chunk.members(), count, seed, kept_.data(), result_.data() + 1);
  WF_CUDA_CHECK(cudaGetLastError());
  std::size_t bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, kept_.data(), kept_offsets_.data(), count + 1, stream_));
  grow_buffer(scratch_, *budget_, std::max<std::size_t>(bytes, 1), 0, stream_, "CUB scan scratch");
  WF_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(scratch_.data(), bytes, kept_.data(), kept_offsets_.data(), count + 1, stream_));
  unsigned long long host[2] = {0, 0};  // kept members, sets holding the seed
  WF_CUDA_CHECK(cudaMemcpyAsync(&host[0], kept_offsets_.data() + count, sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                stream_));
  WF_CUDA_CHECK(cudaMemcpyAsync(&host[1], result_.data() + 1, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  residual.reserve(count, host[0], stream_);
  kernels::streamed::gather_kept<<<grid_for(count * 32), kernels::streamed::block_threads, 0, stream_>>>(
      chunk.offsets(), chunk.members(), count, kept_offsets_.data(), residual.num_members(), residual.members_end(),
      residual.offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  residual.commit(count, host[0]);
  return host[1];
}

}  // namespace wildfire::cuda
