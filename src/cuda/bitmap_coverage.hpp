// The "bitmap" RR representation of the CUDA collection (docs/gpu.md, dense regime): the held
// sets as vertex-major bit columns. Held set i is bit i % 64 of word v of batch i / 64 for every
// member v, so a batch of 64 sets costs 8n bytes whatever their sizes. The flat store costs
// 8 bytes per member (the member and its vertex-to-sets index entry), so the bitmap is the smaller
// one once the mean set holds more than n / 64 vertices.
// - Filling: the fused traversal's visited colour words are such columns (fused_sampler ORs them
//   in at their held-set positions); flat sets (warp path, or the flat store when the collection
//   switches) are scattered in by append.
// - Greedy: per-vertex counts are one pass of popcounts. Each step takes the argmax of
//   (count << 32 | ~id) over unselected vertices (ties to the lowest id), marks the seed's
//   uncovered sets covered batch by batch, and subtracts popcount(word & newly covered) from every
//   vertex's count, over the touched batches only (after the first seeds, a handful). The counts
//   are the flat greedy's at every step, so the seeds, marginals, coverage and OPIM-C bound are
//   too (same sets, same rule).
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <vector>

#include "cuda/device_memory.hpp"
#include "cuda/rr_batch.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire::cuda {

/// Device view of the bitmap: batch b's n words are chunks[b / per_chunk] + (b % per_chunk) * n.
struct bitmap_view {
  unsigned long long* const* chunks = nullptr;  // device table of chunk pointers
  std::uint64_t n = 0;
  std::uint32_t per_chunk = 1;
#ifdef __CUDACC__
  __device__ __forceinline__ unsigned long long* batch(std::uint64_t b) const {
    return chunks[b / per_chunk] + (b % per_chunk) * n;
  }
#endif
};

class rr_bitmap {
 public:
  rr_bitmap(std::uint32_t num_vertices, memory_budget& budget, cudaStream_t stream);

  std::uint64_t num_sets() const noexcept { return num_sets_; }
  std::uint64_t num_members() const noexcept { return num_members_; }
  /// Device bytes the words of `sets` sets over `num_vertices` vertices take (whole chunks), for
  /// the representation choice.
  static std::uint64_t bytes_for(std::uint32_t num_vertices, std::uint64_t sets) noexcept;

  /// Makes room (zeroed) for `extra_sets` more sets. Throws resource_error naming the bytes the
  /// missing chunks need and the bytes the budget has left, before allocating any of them.
  void reserve(std::uint64_t extra_sets);
  /// Device bytes reserve(extra_sets) would allocate (0 when the room is there).
  std::uint64_t bytes_to_reserve(std::uint64_t extra_sets) const noexcept;
  /// counts[v] = held sets holding v, for every vertex v (n entries). Stream-ordered.
  void count_sets(std::uint32_t* counts) const;
  bitmap_view view() const noexcept { return {table_.data(), n_, per_chunk_}; }
  /// Appends the sets of `store`, in order, as the next held sets (after reserve). Stream-ordered.
  void append(const rr_store& store);
  /// Counts `sets` sets of `members` members that a sampler wrote through view() (after reserve).
  void commit(std::uint64_t sets, std::uint64_t members) noexcept {
    num_sets_ += sets;
    num_members_ += members;
  }
  /// Drops every set (zeroes the words in use; the room stays).
  void clear();

  /// Greedy maximum coverage with min(k, n) seeds over the held sets; equal to the CPU greedy
  /// (selection/max_coverage.hpp). Blocks once, at the end.
  coverage_selection select(std::uint32_t k, bool want_bound);
  /// Held sets holding at least one of `seeds`. Blocks.
  std::uint64_t coverage(std::span<const std::uint32_t> seeds);
  /// Held sets [first, first + count), sorted, copied batch by batch to the host. Blocks.
  rr_sets copy_sets(std::uint64_t first, std::uint64_t count) const;

 private:
  std::uint64_t batches_used() const noexcept { return (num_sets_ + 63) / 64; }
  /// Chunks that hold the held sets and `extra_sets` more.
  std::uint64_t chunks_for(std::uint64_t extra_sets) const noexcept;
  static std::uint32_t batches_per_chunk(std::uint32_t num_vertices) noexcept;

  std::uint32_t n_;
  std::uint32_t per_chunk_;
  memory_budget* budget_;
  cudaStream_t stream_;
  std::vector<device_buffer<unsigned long long>> chunks_;
  std::vector<unsigned long long*> host_table_;
  device_buffer<unsigned long long*> table_;
  std::uint64_t num_sets_ = 0;
  std::uint64_t num_members_ = 0;
  // Greedy state, grown on demand.
  device_buffer<std::uint32_t> counts_;         // n: uncovered sets holding each vertex
  device_buffer<std::uint32_t> sorted_counts_;  // n: OPIM-C's top-k
  device_buffer<std::uint8_t> selected_;        // n
  device_buffer<unsigned long long> covered_;   // per batch: covered sets
  device_buffer<unsigned long long> fresh_;     // per batch: sets the current step covers
  device_buffer<std::uint32_t> touched_;        // batches the current step covers sets in
  device_buffer<unsigned long long> results_;   // per step: best, gained, top-k sum, touched count
  device_buffer<std::uint32_t> seeds_;
  device_buffer<unsigned char> scratch_;
};

}  // namespace wildfire::cuda
