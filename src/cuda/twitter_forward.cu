// Launcher of the forward-phase kernels: candidate counts, a CUB scan, candidate fill, then the
// per-tweet reachability fixed point.
#include "cuda/twitter_forward.hpp"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/event_stopwatch.hpp"
#include "cuda/twitter_forward_kernels.cuh"
#include "wildfire/error.hpp"

namespace wildfire::cuda {

namespace {

template <class T>
struct buffer {
  T* ptr = nullptr;
  explicit buffer(std::uint64_t n) { WF_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::uint64_t>(n, 1) * sizeof(T))); }
  explicit buffer(const std::vector<T>& host) : buffer(host.size()) {
    if (!host.empty()) WF_CUDA_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() { cudaFree(ptr); }
};

template <class T>
std::vector<T> download(const buffer<T>& b, std::uint64_t n) {
  std::vector<T> host(n);
  if (n > 0) WF_CUDA_CHECK(cudaMemcpy(host.data(), b.ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

twitter_forward_output twitter_forward_candidates(const twitter_forward_input& in) {
  const std::uint64_t num_users = in.followee_offsets->size() - 1;
  const std::uint64_t num_tweets = in.tweet_offsets->size() - 1;
  const std::uint64_t num_nodes = in.users->size();
  buffer<std::uint64_t> d_followee_offsets(*in.followee_offsets), d_tweet_offsets(*in.tweet_offsets);
  buffer<std::uint32_t> d_followees(*in.followees), d_users(*in.users), d_sorted_users(*in.sorted_users),
      d_sorted_local(*in.sorted_local), d_node_tweet(*in.node_tweet);
  const twitter_kernels::forward_view view{d_followee_offsets.ptr, d_followees.ptr,    num_users,
                                           d_tweet_offsets.ptr,    d_users.ptr,        d_sorted_users.ptr,
                                           d_sorted_local.ptr,     d_node_tweet.ptr};
  buffer<std::uint32_t> d_counts(num_nodes + 1);
  buffer<std::uint64_t> d_offsets(num_nodes + 1);
  WF_CUDA_CHECK(cudaMemset(d_counts.ptr, 0, (num_nodes + 1) * sizeof(std::uint32_t)));
  event_stopwatch stopwatch;
  stopwatch.start();
  // One warp per participant, grid-stride beyond a million blocks.
  const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>((num_nodes * 32 + 255) / 256 + 1, 1u << 20));
  twitter_kernels::forward_candidates<false><<<blocks, 256>>>(view, num_nodes, d_counts.ptr, nullptr, nullptr);
  WF_CUDA_CHECK(cudaGetLastError());
  // Exclusive scan over N + 1 counts (the last is 0), so offsets[N] is the candidate total.
  std::size_t scratch_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, d_counts.ptr, d_offsets.ptr, num_nodes + 1));
  buffer<char> d_scratch(scratch_bytes);
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_scratch.ptr, scratch_bytes, d_counts.ptr, d_offsets.ptr, num_nodes + 1));
  std::uint64_t num_candidates = 0;
  WF_CUDA_CHECK(cudaMemcpy(&num_candidates, d_offsets.ptr + num_nodes, sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  buffer<std::uint32_t> d_candidates(num_candidates), d_reach(num_nodes);
  twitter_kernels::forward_candidates<true><<<blocks, 256>>>(view, num_nodes, d_counts.ptr, d_offsets.ptr, d_candidates.ptr);
  WF_CUDA_CHECK(cudaGetLastError());
  if (num_tweets > 0) {
    twitter_kernels::forward_reach<<<static_cast<unsigned>(std::min<std::uint64_t>(num_tweets, 1u << 30)), 128>>>(
        view, num_tweets, d_offsets.ptr, d_candidates.ptr, d_reach.ptr);
    WF_CUDA_CHECK(cudaGetLastError());
  }
  const double device_seconds = stopwatch.stop_seconds();
  twitter_forward_output out;
  out.offsets = download(d_offsets, num_nodes + 1);
  out.candidates = download(d_candidates, num_candidates);
  out.reach = download(d_reach, num_nodes);
  out.device_seconds = device_seconds;
  return out;
}

}  // namespace wildfire::cuda
