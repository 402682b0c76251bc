// The greedy's candidates (max_coverage.hpp). Greedy maximum coverage picks its k seeds among the
// vertices with the largest counts: on LJ-like's IMM sets (k = 50) every seed ranks among the 54
// largest initial counts, and the smallest marginal of a seed (3,819) exceeds the counts of all
// but the largest 5,746. So the greedy can keep exact counts for a few thousand candidates only,
// the vertices whose count exceeds the (T + 1)-th largest: a cover step lowers only their counts
// (on LJ-like a tenth of the members of the newly covered sets), and the argmax scans only them.
// Each step checks that its best candidate's count still exceeds that threshold, which bounds
// every other vertex's marginal, so the seeds are exactly the full greedy's; a step that cannot
// tell makes the caller run the greedy again with more candidates. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/cover_policies.cuh"
#include "cuda/device_memory.hpp"

namespace wildfire::cuda {

class greedy_candidates {
 public:
  /// For a universe of n vertices.
  greedy_candidates(std::uint32_t n, memory_budget& budget, cudaStream_t stream);

  /// Makes the candidates the vertices whose entry of `counts` (device, n entries, each at most
  /// `num_sets`) exceeds the (limit + 1)-th largest (1 <= limit < n): at most `limit` of them.
  /// Asynchronous on the stream.
  void mark(const std::uint32_t* counts, std::uint64_t num_sets, std::uint32_t limit);

  /// The cover-step policy over the candidates; `failed` is a device flag, 0 before the steps.
  kernels::lower_candidate_counts policy(unsigned long long* failed) const noexcept {
    return {bits_.data(), sorted_counts_.data() + limit_, failed};
  }
  /// Queues the argmax over the unselected candidates (counts and `selected` indexed by vertex)
  /// into *best (0 before); nothing after a failed step.
  void argmax(const std::uint32_t* counts, const std::uint8_t* selected, const unsigned long long* failed,
              unsigned long long* best) const;

 private:
  std::uint32_t n_;
  std::uint32_t limit_ = 0;
  memory_budget* budget_;
  cudaStream_t stream_;
  unsigned grid_;                                // blocks of mark's grid-stride kernel
  device_buffer<std::uint32_t> sorted_counts_;   // n, descending: [limit_] is the threshold
  device_buffer<std::uint32_t> bits_;            // ceil(n / 32): the candidates
  device_buffer<std::uint32_t> ids_;             // limit_: the candidates, in no particular order
  device_buffer<std::uint32_t> num_ids_;         // 1
  device_buffer<unsigned char> scratch_;         // CUB scratch of the count sort
};

}  // namespace wildfire::cuda
