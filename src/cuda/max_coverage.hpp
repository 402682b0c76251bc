// Greedy maximum coverage on the GPU over the device store (max_coverage_kernels.cuh): the same
// seeds, marginals, coverage and OPIM-C bound as the CPU greedy (selection/max_coverage.hpp).
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuda/device_memory.hpp"
#include "cuda/greedy_candidates.hpp"
#include "cuda/rr_batch.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire::cuda {

class device_max_coverage {
 public:
  /// `universe`: n, or n * T for multi-round families (members encoded round * n + vertex).
  device_max_coverage(std::uint32_t universe, memory_budget& budget, cudaStream_t stream);

  /// Greedy with `k` seeds per round over `rounds` rounds of universe / rounds elements each:
  /// min(k * rounds, universe) seeds, ties to the lowest id; once nothing adds coverage the
  /// lowest unselected ids with budget left follow with gain 0. With one round the OPIM-C bound
  /// is computed when `want_bound`; otherwise (and always with several rounds, as on the CPU) it
  /// is the number of sets. The element-to-sets index is kept across calls while the store only
  /// grows by appends under the same `store_epoch` (the caller changes the epoch whenever held
  /// sets change otherwise): the sets appended since the last call are indexed as a new segment
  /// (their members counted and scattered once), up to max_index_segments, after which the index
  /// is rebuilt as one segment. Blocks once, at the end.
  /// `preselected` (one round only): seeds already chosen by the caller, whose sets the store no
  /// longer holds (the streamed representation's residual); they are never picked again, the
  /// greedy runs the remaining min(k, universe) - preselected.size() steps, and the result lists
  /// only those steps (the bound's top-k still sums k counts).
  /// One round without the bound and without preselected seeds, on a universe larger than the
  /// candidate limit, keeps exact counts for candidates only and lists the sets of the largest
  /// counts only (greedy_candidates.hpp), with no index: the same result. Where one of its steps
  /// cannot vouch for its seed, the greedy runs again with four times the candidates (at n or
  /// more: every vertex, with the index), and so do the later selects. Without candidates, chunks
  /// and the bound, the whole greedy is one cooperative launch (kernels::greedy_persistent).
  coverage_selection select(const rr_store& store, std::uint64_t store_epoch, std::uint32_t k,
                            std::uint32_t rounds = 1, bool want_bound = true,
                            std::span<const std::uint32_t> preselected = {});

  /// Sets of the store holding at least one of `seeds` (encoded ids < universe). Blocks.
  std::uint64_t coverage(const rr_store& store, std::span<const std::uint32_t> seeds);

  /// Frees the index (the store is about to change or be cleared).
  void drop_index() noexcept;

  /// Selects over candidates, and those that had to run again.
  std::uint64_t candidate_selects() const noexcept { return candidate_selects_; }
  std::uint64_t candidate_fallbacks() const noexcept { return candidate_fallbacks_; }
  /// Work counters, for profiles (cuda_rr_collection.hpp).
  std::uint64_t segments_built() const noexcept { return segments_built_; }
  std::uint64_t full_rebuilds() const noexcept { return full_rebuilds_; }
  std::uint64_t members_indexed() const noexcept { return members_indexed_; }
  /// Seconds spent bringing the index up to date in select(); exact only with profiling on,
  /// which synchronises the stream after each update (else the kernels run on asynchronously).
  double index_seconds() const noexcept { return index_seconds_; }
  void set_profiling(bool on) noexcept { profiling_ = on; }

  /// Segments of the index before it is rebuilt as one (each costs an (n + 1)-entry offset array
  /// and a list read per greedy step).
  static constexpr std::uint32_t max_index_segments = 8;

 private:
  /// Brings the index up to the store's sets: a new segment for the sets appended since the last
  /// call, or a rebuild from scratch when the epoch changed, the store shrank or the segments are
  /// used up. Asynchronous on the stream.
  void update_index(const rr_store& store, std::uint64_t store_epoch);
  void add_segment(const rr_store& store);
  /// Frees the index's lists and marks it stale, keeping the counts (base_counts_).
  void release_index_lists() noexcept;
  /// Brings base_counts_ up to the store's sets: the members appended since the last count, or
  /// all of them when the epoch changed or the store shrank. Asynchronous on the stream.
  void count_new_members(const rr_store& store, std::uint64_t store_epoch);
  /// Counts the store's sets and builds the candidates and their lists; false when they do not fit.
  bool prepare_candidates(const rr_store& store, std::uint64_t store_epoch);

  struct index_segment {
    device_buffer<std::uint64_t> offsets;  // n + 1: vertex v's sets are sets[offsets[v] .. offsets[v+1])
    device_buffer<std::uint32_t> sets;     // ids of the store's sets (not segment-local)
  };
  /// Fills `segment.sets` with the new sets' ids grouped by member by a radix sort of the
  /// (member, set id) pairs; false (nothing done) when the sort's 12 bytes per member do not fit.
  bool sort_into_segment(const rr_store& store, std::uint64_t first_set, std::uint64_t sets, std::uint64_t members,
                         index_segment& segment);

  std::uint32_t n_;
  unsigned cover_grid_ = 1;  // blocks of a cover step
  unsigned persistent_grid_ = 0;  // blocks of greedy_persistent; 0: a launch per step (WF_GREEDY_PERSISTENT=0)
  memory_budget* budget_;
  cudaStream_t stream_;
  std::uint32_t candidate_limit_;             // T of greedy_candidates; 0: every vertex's count kept
  std::unique_ptr<greedy_candidates> candidates_;
  int cover_chunks_;                           // 1 or 0 forced (WF_COVER_CHUNKS), -1 by the mean set
  device_buffer<std::uint32_t> set_ids_;       // per member position of the store: its set (candidate lists)
  std::uint64_t counted_epoch_ = ~0ULL;        // base_counts_ count the store's sets [0, counted_sets_)
  std::uint64_t counted_sets_ = 0;
  std::uint64_t counted_members_ = 0;
  std::uint64_t labeled_sets_ = 0;             // set_ids_ hold the sets [0, labeled_sets_) (same epoch)
  std::uint64_t labeled_members_ = 0;
  std::uint64_t candidate_selects_ = 0;
  std::uint64_t candidate_fallbacks_ = 0;
  std::uint64_t index_epoch_ = ~0ULL;
  std::uint64_t indexed_sets_ = 0;             // the store's sets [0, indexed_sets_) are indexed
  std::uint64_t indexed_members_ = 0;
  std::vector<index_segment> segments_;        // over consecutive ranges of sets, in order
  std::uint64_t segments_built_ = 0;
  std::uint64_t full_rebuilds_ = 0;
  std::uint64_t members_indexed_ = 0;
  double index_seconds_ = 0;
  bool profiling_ = false;
  std::uint64_t sort_min_members_;             // segments at least this large are built by sorting
  device_buffer<std::uint32_t> base_counts_;   // n: sets holding each vertex
  device_buffer<std::uint32_t> counts_;        // n, working copy
  device_buffer<std::uint32_t> sorted_counts_; // n
  device_buffer<std::uint8_t> covered_;        // per set
  device_buffer<std::uint8_t> flags_;          // n: selected (greedy) or is_seed (coverage)
  device_buffer<unsigned long long> step_results_;  // best, gained, top-k sum per step; failed; chunks per step
  device_buffer<unsigned long long> chunks_;   // a cover step's chunks of large newly covered sets
  device_buffer<std::uint32_t> round_used_;    // seeds taken per round
  device_buffer<unsigned char> scratch_;
};

}  // namespace wildfire::cuda
