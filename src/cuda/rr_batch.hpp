// Staging of one batch of RR sets on the GPU and the flat device store they end up in
// (ARCHITECTURE.md section 2): samplers write each set once, unsorted, into an arena; the store
// lays them out in sample-id order by a scan over the sizes and, where its reader needs it, sorts
// each set. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_memory.hpp"

namespace wildfire::cuda {

/// One batch of sets as a sampler leaves them: set i (batch-local) is
/// arena[set_start[i] .. set_start[i] + set_size[i]), in any order.
struct rr_staging {
  device_buffer<std::uint32_t> arena;
  device_buffer<std::uint64_t> set_start;  // count
  device_buffer<std::uint64_t> set_size;   // count + 1 (the last entry is 0, for the scan)
  std::uint64_t count = 0;
  std::uint64_t arena_used = 0;  // entries written, known on the host after the sampler returns
  double expected_mean = 0;      // members per set the sampler expected (shapes the layout's gather)
};

/// Whether a store keeps each set's members sorted ascending. Coverage counts, the index and the
/// greedy do not depend on the order, and sorting the large sets was 15% of IMM on LJ-like
/// (H100, 44 of 298 ms), so the flat store keeps the order the sampler wrote (sets of up to 32
/// members still come out sorted, at no cost); the streamed representation's split looks seeds
/// up by binary search and keeps its chunks sorted. copy_sets sorts what it returns.
enum class set_order { sorted, as_sampled };

/// The device store: set s is members[offsets[s] .. offsets[s+1]), in the store's set_order.
class rr_store {
 public:
  rr_store(memory_budget& budget, set_order order);
  ~rr_store();
  rr_store(const rr_store&) = delete;
  rr_store& operator=(const rr_store&) = delete;

  std::uint64_t num_sets() const noexcept { return num_sets_; }
  std::uint64_t num_members() const noexcept { return num_members_; }
  const std::uint64_t* offsets() const noexcept { return offsets_.data(); }
  const std::uint32_t* members() const noexcept { return members_.data(); }
  std::uint64_t bytes() const noexcept { return offsets_.bytes() + members_.bytes(); }
  set_order order() const noexcept { return order_; }

  /// Appends the staged batch in sample order (sets of up to 32 members sorted by a warp on the
  /// way; larger ones by a CUB segmented sort if the store is sorted). Blocks on `stream` once (to
  /// learn the batch's member count). Throws resource_error if the store cannot grow.
  void append_staged(const rr_staging& staged, cudaStream_t stream);
  /// append_staged in two halves, for a caller that synchronises anyway: the first lays the batch
  /// out after the sets held, with room for `member_bound` members (at least its member total),
  /// and copies the total to the host, without blocking; the second, once `stream` has been
  /// synchronised, sorts the large sets (sorted stores) and commits the batch. Laying out again
  /// before the second half replaces the first layout (nothing is committed until then).
  void lay_out_staged(const rr_staging& staged, std::uint64_t member_bound, cudaStream_t stream);
  void commit_staged(cudaStream_t stream);
  /// True when room for `extra_sets` sets of `extra_members` members is held or the budget
  /// affords growing to it.
  bool can_reserve(std::uint64_t extra_sets, std::uint64_t extra_members) const noexcept {
    return budget_->fits(growth_bytes(extra_sets, extra_members));
  }

  /// Reserves room for `extra_sets` sets holding `extra_members` members in total and returns the
  /// device pointers where the next sets' members and offsets go (fused extraction writes there
  /// directly, already sorted). Call commit() afterwards.
  void reserve(std::uint64_t extra_sets, std::uint64_t extra_members, cudaStream_t stream);
  /// Grows the room for `extra_sets` more sets of `extra_members` members now, where the budget
  /// affords it (a hint: nothing happens otherwise), so that the appends of a request of many
  /// batches need not grow the store (a copy of every member held, and a synchronisation) batch
  /// after batch.
  void reserve_ahead(std::uint64_t extra_sets, std::uint64_t extra_members, cudaStream_t stream);
  /// Sets and members the store holds room for.
  std::uint64_t set_capacity() const noexcept { return offsets_.size() > 0 ? offsets_.size() - 1 : 0; }
  std::uint64_t member_capacity() const noexcept { return members_.size(); }
  std::uint32_t* members_end() noexcept { return members_.data() + num_members_; }
  std::uint64_t* offsets_end() noexcept { return offsets_.data() + num_sets_; }
  void commit(std::uint64_t extra_sets, std::uint64_t extra_members) noexcept {
    num_sets_ += extra_sets;
    num_members_ += extra_members;
  }

  void clear() noexcept {
    num_sets_ = 0;
    num_members_ = 0;
  }
  /// Empties the store and frees its member and scratch arrays (the caller has synchronised any
  /// kernel reading them); the offsets keep their room.
  void release() noexcept {
    clear();
    members_.reset();
    scratch_.reset();
  }

 private:
  /// Bytes reserve() would allocate for the room.
  std::uint64_t growth_bytes(std::uint64_t extra_sets, std::uint64_t extra_members) const noexcept {
    const std::uint64_t sets = num_sets_ + extra_sets + 1;
    const std::uint64_t members = num_members_ + extra_members;
    return (sets > offsets_.size() ? sets * sizeof(std::uint64_t) : 0) +
           (members > members_.size() ? members * sizeof(std::uint32_t) : 0);
  }

  /// The batch laid out and not yet committed (lay_out_staged to commit_staged).
  struct laid_out_batch {
    std::uint64_t count = 0;
    std::uint32_t* gathered = nullptr;  // sorted stores: the large sets, unsorted
    std::uint64_t* big_begin = nullptr;
    std::uint64_t* big_end = nullptr;
    void* cub_storage = nullptr;
    std::size_t cub_bytes = 0;
  };

  memory_budget* budget_;
  set_order order_;
  device_buffer<std::uint64_t> offsets_;  // num_sets + 1 used; offsets[0] == 0
  device_buffer<std::uint32_t> members_;
  // A batch's offsets, large-set count and list, gather buffer and CUB storage, in one block so
  // that a batch allocates at most once (rr_batch.cu lays it out).
  device_buffer<unsigned char> scratch_;
  std::uint64_t num_sets_ = 0;
  std::uint64_t num_members_ = 0;
  std::uint64_t* host_counts_ = nullptr;  // pinned: a batch's member total and large-set count
  laid_out_batch pending_;
};

}  // namespace wildfire::cuda
