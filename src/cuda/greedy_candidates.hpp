// The greedy's candidates (max_coverage.hpp). Greedy maximum coverage picks its k seeds among the
// vertices with the largest counts: on LJ-like's IMM sets (k = 50) every seed ranks among the 54
// largest initial counts, and the smallest marginal of a seed (3,819) exceeds the counts of all
// but the largest 5,746. So the greedy keeps exact counts for a few thousand candidates only, the
// vertices whose count exceeds the (T + 1)-th largest: a cover step lowers only their counts (on
// LJ-like a tenth of the members of the newly covered sets), and the argmax scans only them. And
// only the vertices with the L largest counts (L = T / 8) get their lists of sets, built in one
// pass over the store, instead of the index of every member (LJ-like: 455M entries, radix sorted).
// Each step checks that its best candidate's count still exceeds the threshold, which bounds every
// other vertex's marginal, and that it has its list, so the seeds are exactly the full greedy's; a
// step that cannot tell makes the caller run the greedy again with more candidates. Included only
// by .cu files.
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

  /// Lists that `limit` candidates come with.
  static std::uint32_t list_limit(std::uint32_t limit) noexcept { return limit / 8 > 0 ? limit / 8 : 1; }

  /// Makes the candidates the vertices whose entry of `counts` (device, n entries, each at most
  /// `num_sets`) exceeds the (limit + 1)-th largest (1 <= limit < n), at most `limit` of them, and
  /// lists those above the (list_limit(limit) + 1)-th largest: each one's sets, from the store's
  /// `members` and the set of each member position, `set_ids` (num_members entries). Returns false,
  /// holding no lists, when they do not fit the budget. Synchronises the stream once, to size the
  /// lists.
  bool build(const std::uint32_t* counts, std::uint64_t num_sets, std::uint32_t limit, const std::uint32_t* members,
             const std::uint32_t* set_ids, std::uint64_t num_members);

  /// The lists as one index segment (max_coverage_kernels.cuh): listed v's sets are
  /// lists()[list_offsets()[v] .. list_offsets()[v+1]), every other vertex's list is empty.
  const std::uint64_t* list_offsets() const noexcept { return list_offsets_.data(); }
  const std::uint32_t* lists() const noexcept { return lists_.data(); }

  /// The cover-step policy over the candidates; `failed` is a device flag, 0 before the steps.
  kernels::lower_candidate_counts policy(unsigned long long* failed) const noexcept {
    return {bits_.data(), listed_.data(), sorted_counts_.data() + limit_, failed, candidate_filter()};
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
  unsigned grid_;                                // blocks of the grid-stride kernels
  device_buffer<std::uint32_t> sorted_counts_;   // n, descending: [limit_] and [list_limit] the thresholds
  device_buffer<std::uint32_t> bits_;            // ceil(n / 32): the candidates
  device_buffer<std::uint32_t> listed_;          // ceil(n / 32): those with lists
  device_buffer<std::uint32_t> list_sizes_;      // n + 1: the listed vertices' counts, 0 elsewhere and at [n]
  device_buffer<std::uint64_t> list_offsets_;    // n + 1: exclusive scan of list_sizes_
  device_buffer<std::uint32_t> cursors_;         // n: list fill cursors
  device_buffer<std::uint32_t> lists_;
  std::uint32_t* candidate_filter() const noexcept { return filters_.data(); }
  std::uint32_t* list_filter() const noexcept { return filters_.data() + kernels::vertex_filter_words; }

  device_buffer<std::uint32_t> ids_;             // limit_: the candidates, in no particular order
  device_buffer<std::uint32_t> num_ids_;         // 1
  device_buffer<std::uint32_t> filters_;         // the candidates' and the listed vertices' filters
  device_buffer<unsigned char> scratch_;         // CUB scratch of the count sort and the offsets scan
};

}  // namespace wildfire::cuda
