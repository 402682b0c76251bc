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

  /// Samples ids first_id .. first_id + count - 1 into `staged` (batch-local index i holds id
  /// first_id + i). `expected_size` sizes the arena; when it exceeds a warp's room for members,
  /// every warp gets room for a whole set from the start. Blocks until the batch is complete.
  void sample(std::uint64_t first_id, std::uint64_t count, double expected_size, rr_staging& staged);

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
  kernels::warp_sampler_args args(std::uint64_t first_id, const std::uint32_t* items, std::uint32_t num_items, rr_staging& staged);
  void launch(std::uint64_t first_id, const std::uint32_t* items, std::uint32_t num_items, bool big, rr_staging& staged);
  /// The thread-per-sample first pass (warp_sampler_small_kernels.cuh).
  void launch_small(std::uint64_t first_id, std::uint32_t num_items, rr_staging& staged);
  /// Checks the launch, copies the counters to the host and synchronises.
  void finish_launch();

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
  device_buffer<std::uint32_t> retry_items_;
  device_buffer<counters> counters_;
  counters* host_counters_ = nullptr;  // pinned
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
