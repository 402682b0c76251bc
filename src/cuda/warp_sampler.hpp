// Launcher of the warp-per-sample RR traversal (warp_sampler_kernels.cuh), with the retry paths
// that make it safe on any set size: a set that outgrows its warp's room is sampled again by
// fewer warps with room for the whole graph; a full arena is grown and the lost sets redone.
// Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_memory.hpp"
#include "cuda/rr_batch.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cuda {
namespace kernels {
struct warp_sampler_args;
struct ic_vertex_record;
}

class warp_sampler {
 public:
  /// Sizes the persistent grid from the device's occupancy and the budget (visited bitmaps of
  /// n bits per warp). `blocks`: the graph's IC block plan on the device (device_graph::blocks),
  /// required under IC. Throws resource_error if not even one block fits.
  warp_sampler(const graph_view& graph, const ic_block_view& blocks, const sampling_params& params,
               memory_budget& budget, cudaStream_t stream);
  ~warp_sampler();
  warp_sampler(const warp_sampler&) = delete;
  warp_sampler& operator=(const warp_sampler&) = delete;

  /// Starts sampling ids first_id .. first_id + count - 1 into `staged` (batch-local index i
  /// holds id first_id + i) without blocking: under single-round IC the thread-per-sample pass,
  /// then the warp kernel on the sets it handed on (their number read on the device), otherwise
  /// the warp kernel alone; then the counters go to the host. `expected_size` sizes the arena; when
  /// it exceeds a warp's room for members, every warp gets room for a whole set from the start.
  /// Call settle_batch() after synchronising the stream.
  void launch_batch(std::uint64_t first_id, std::uint64_t count, double expected_size, rr_staging& staged);
  /// Arena entries a batch of `count` sets gets (an upper guess of their members; launch_batch
  /// grows the arena to it).
  std::uint64_t arena_entries(std::uint64_t count, double expected_size) const noexcept;
  /// Completes the batch launch_batch started (the caller has synchronised the stream since):
  /// redoes, synchronising, the sets that found the arena full or outgrew a warp's room, and
  /// sets staged.arena_used. Returns true when it had to, i.e. when `staged` changed after the
  /// caller's last synchronisation. Every set of the batch is in `staged` afterwards.
  bool settle_batch(rr_staging& staged);

  std::uint64_t edges_examined() const noexcept { return edges_examined_; }
  std::uint64_t num_warps() const noexcept { return num_warps_; }
  std::uint64_t retries() const noexcept { return retries_; }
  /// Sets the thread-per-sample pass finished, and those it handed to the warp kernel.
  std::uint64_t small_sets() const noexcept { return small_sets_; }
  std::uint64_t small_deferred() const noexcept { return small_deferred_; }
  /// IC: the warp kernel's expansion rounds (each expands up to 32 queued vertices) and the
  /// vertices it expanded; their ratio is how full a round is.
  std::uint64_t expansions() const noexcept { return expansions_; }
  std::uint64_t expanded() const noexcept { return expanded_; }

 private:
  struct counters {
    // Restarted by every launch:
    unsigned next_item;
    unsigned num_deferred;
    unsigned flags;
    unsigned pad;
    unsigned long long lost_members;
    // Kept over a batch's launches:
    unsigned long long arena_tail;
    unsigned long long edges_examined;
    unsigned long long expansions;
    unsigned long long expanded;
    unsigned long long warp_members;
    unsigned long long warp_sets;
  };
  /// A launch's arguments. Chained: the warp kernel behind the thread-per-sample pass, taking
  /// that pass's deferred list (and its length on the device), with its own per-launch counters
  /// (counters_[1]) and deferred list.
  kernels::warp_sampler_args args(const std::uint32_t* items, std::uint32_t num_items, rr_staging& staged,
                                  bool chained = false);
  void launch(const std::uint32_t* items, std::uint32_t num_items, bool big, rr_staging& staged, bool chained = false);
  /// The thread-per-sample first pass (warp_sampler_small_kernels.cuh).
  void launch_small(std::uint32_t num_items, rr_staging& staged);
  /// Members per set the arena is sized for (launch_batch, arena_entries).
  double arena_mean(double expected_size) const noexcept;
  /// Copies both counter blocks to the host (not synchronised).
  void copy_counters();

  void (*kernel_)(graph_view, kernels::warp_sampler_args) = nullptr;  // the warp traversal for the model
  graph_view graph_;
  ic_block_view blocks_;
  sampling_params params_;
  memory_budget* budget_;
  cudaStream_t stream_;
  std::uint64_t num_warps_ = 0;
  unsigned small_blocks_ = 0;  // grid of the thread-per-sample pass; 0: not used (LT, several rounds)
  std::uint64_t words_per_warp_ = 0;
  std::uint64_t stage_capacity_ = 0;
  device_buffer<kernels::ic_vertex_record> records_;  // IC: per vertex (in-CSR range, block size)
  device_buffer<std::uint32_t> visited_;
  device_buffer<std::uint32_t> stage_;
  device_buffer<std::uint32_t> deferred_;
  device_buffer<std::uint32_t> chained_deferred_;  // the chained warp launch's deferred list
  device_buffer<std::uint32_t> retry_items_;
  device_buffer<counters> counters_;   // [0]: the batch's and most launches'; [1]: the chained launch's
  counters* host_counters_ = nullptr;  // pinned, two
  // The batch in flight (launch_batch to settle_batch).
  std::uint64_t batch_first_id_ = 0;
  double batch_mean_ = 0;  // the arena's members per set
  bool big_first_ = false;
  bool chained_ = false;
  std::uint64_t edges_examined_ = 0;
  std::uint64_t expansions_ = 0;
  std::uint64_t expanded_ = 0;
  std::uint64_t retries_ = 0;
  std::uint64_t small_sets_ = 0;
  std::uint64_t small_deferred_ = 0;
  std::uint64_t warp_members_ = 0;  // members of the sets the warp kernel stored, all batches
  std::uint64_t warp_sets_ = 0;
};

}  // namespace wildfire::cuda
