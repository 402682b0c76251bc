// Launcher of the GPU forward phase (candidate back edges and reachability per tweet); the host
// preparation and the compaction into spreading graphs live in src/twitter/forward_gpu.cpp.
// g++-includable.
#pragma once

#include <cstdint>
#include <vector>

namespace wildfire::cuda {

/// Host arrays the kernels read (see twitter_forward_kernels.cuh for their meaning).
struct twitter_forward_input {
  const std::vector<std::uint64_t>* followee_offsets;  // U + 1
  const std::vector<std::uint32_t>* followees;
  const std::vector<std::uint64_t>* tweet_offsets;     // T + 1
  const std::vector<std::uint32_t>* users;             // N, time order per tweet
  const std::vector<std::uint32_t>* sorted_users;      // N, ascending per tweet
  const std::vector<std::uint32_t>* sorted_local;      // N
  const std::vector<std::uint32_t>* node_tweet;        // N
};

/// What comes back: candidate back edges per node (local targets, unsorted) and reachability.
struct twitter_forward_output {
  std::vector<std::uint64_t> offsets;      // N + 1
  std::vector<std::uint32_t> candidates;
  std::vector<std::uint32_t> reach;        // N: 1 when reachable from the tweet's publisher
  double device_seconds = 0.0;             // kernels only (CUDA events)
};

/// Uploads, runs the candidate and reachability kernels, downloads. Blocking.
twitter_forward_output twitter_forward_candidates(const twitter_forward_input& input);

}  // namespace wildfire::cuda
