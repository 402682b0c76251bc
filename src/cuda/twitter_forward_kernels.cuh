// Forward-phase kernels: for every participant v of tweet t, its followees that took part in t
// earlier (candidate back edges), then per tweet the participants reachable from the publisher
// along candidates (the digest's corrected Algorithm 1, as a fixed point). Included only by
// twitter_forward.cu.
#pragma once

#include <cstdint>

namespace wildfire::cuda::twitter_kernels {

struct forward_view {
  const std::uint64_t* followee_offsets;  // U + 1: in-CSR of the follower graph
  const std::uint32_t* followees;
  std::uint64_t num_users;
  const std::uint64_t* tweet_offsets;     // T + 1 into the participant arrays
  const std::uint32_t* users;             // participants in time order (local index = position)
  const std::uint32_t* sorted_users;      // per tweet: participant users ascending ...
  const std::uint32_t* sorted_local;      // ... with their local indices
  const std::uint32_t* node_tweet;        // per participant: its tweet
};

/// Local index of `user` in tweet [lo, hi) of the sorted arrays, or 0xffffffff.
__device__ __forceinline__ std::uint32_t find_participant(const forward_view& v, std::uint64_t lo, std::uint64_t hi,
                                                          std::uint32_t user) {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const std::uint32_t x = v.sorted_users[mid];
    if (x == user) return v.sorted_local[mid];
    if (x < user) lo = mid + 1;
    else hi = mid;
  }
  return 0xffffffffu;
}

/// One warp per participant node: counts (Fill = false) or writes (Fill = true) the local indices
/// of its earlier followees. Written slots per node are [offsets[i], offsets[i] + count) in any
/// order; the host sorts rows.
template <bool Fill>
__global__ void forward_candidates(forward_view v, std::uint64_t num_nodes, std::uint32_t* counts,
                                   const std::uint64_t* offsets, std::uint32_t* candidates) {
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  for (std::uint64_t i = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; i < num_nodes;
       i += warps) {
    const std::uint32_t t = v.node_tweet[i];
    const std::uint64_t lo = v.tweet_offsets[t], hi = v.tweet_offsets[t + 1];
    const auto local = static_cast<std::uint32_t>(i - lo);
    const std::uint32_t user = v.users[i];
    std::uint32_t written = 0;
    if (local > 0 && user < v.num_users) {  // the publisher has no back edges
      for (std::uint64_t j = v.followee_offsets[user]; j < v.followee_offsets[user + 1]; j += 32) {
        const std::uint64_t jj = j + lane;
        std::uint32_t u = 0xffffffffu;
        if (jj < v.followee_offsets[user + 1]) u = find_participant(v, lo, hi, v.followees[jj]);
        const bool keep = u < local;  // earlier in time order (none is 0xffffffff)
        const unsigned mask = __ballot_sync(0xffffffffu, keep);
        if (Fill && keep) candidates[offsets[i] + written + __popc(mask & ((1u << lane) - 1u))] = u;
        written += __popc(mask);
      }
    }
    if (!Fill && lane == 0) counts[i] = written;
  }
}

/// One block per tweet: reach[publisher] = 1, then every participant with a reachable candidate
/// becomes reachable, until nothing changes (at most depth + 1 rounds; monotone, so the order of
/// updates within a round does not matter).
__global__ void forward_reach(forward_view v, std::uint64_t num_tweets, const std::uint64_t* offsets,
                              const std::uint32_t* candidates, std::uint32_t* reach) {
  for (std::uint64_t t = blockIdx.x; t < num_tweets; t += gridDim.x) {
    const std::uint64_t lo = v.tweet_offsets[t], hi = v.tweet_offsets[t + 1];
    for (std::uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) reach[i] = i == lo ? 1u : 0u;
    for (;;) {
      __syncthreads();
      int changed = 0;
      for (std::uint64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        if (__ldcg(reach + i)) continue;
        for (std::uint64_t j = offsets[i]; j < offsets[i + 1]; ++j) {
          const std::uint32_t u = candidates[j];
          if (u < hi - lo && __ldcg(reach + lo + u)) {
            reach[i] = 1u;
            changed = 1;
            break;
          }
        }
      }
      if (__syncthreads_or(changed) == 0) break;
    }
  }
}

}  // namespace wildfire::cuda::twitter_kernels
