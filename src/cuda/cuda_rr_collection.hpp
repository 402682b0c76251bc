// Entry points of the CUDA backend for the backend-neutral interfaces (ARCHITECTURE.md section 3):
// RR collections whose sets live on the GPU. Plain C++ (no CUDA types), so the host factory in
// src/sampling/ can include it with g++; the implementation is in the .cu files beside it.
#pragma once

#include <cstdint>
#include <memory>

#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cuda {

/// The automatic traversal choice (`traversal_kind::automatic`; cuda_rr_collection.cu). Samples in
/// its pilot.
constexpr std::uint64_t pilot_samples = 64;
/// Mean pilot set size from which the fused traversal is used.
constexpr double fused_min_mean_size = 2048;
/// Share of in-edges under the IC block rule from which the warp path keeps the sets smaller than
/// fused_large_set_share of the vertices.
constexpr double warp_min_block_edge_share = 0.5;
/// Mean set, as a share of the vertices, from which the fused traversal (with its edge masks,
/// fused_sampler.hpp) beats the warp path under the IC block rule too: from there it feeds the
/// bitmap and the streamed chunks under the automatic choice, and takes flat sets whatever the
/// block rule. H200, topcats-like, uniform p, 8192 sets into the bitmap, warp against fused with
/// 64 colours (docs/benchmarks/cuda.md, twenty-ninth session): a mean set of 10% of n (p = 0.06)
/// 0.897 against 0.827 s, 18% 1.648 against 0.957 s, 33% 3.282 against 1.111 s; flat at 7% of n
/// (p = 0.05) warp 0.915 against 1.514 s then, 0.880 against 0.661 s (32 colours) once the masks
/// were drawn ahead (thirty-seventh session), when dense IMM at p = 0.05 (8% of n, bitmap) took
/// 40.0 s on the warp path and 21.6 s fused. The share is the masks' own (fused_mask_min_share).
/// Before the masks, warp and fused broke even at ~16%.
constexpr double fused_large_set_share = 0.05;

/// An rr_collection that samples (warp-per-sample or fused multi-colour traversal, chosen by
/// `config.traversal` or automatically), stores, counts and selects on GPU `config.gpu_id`. The
/// graph is uploaded once, here; `graph` must outlive the collection. Throws config_error for bad
/// parameters, resource_error when the graph or the sets cannot fit `config.memory_budget_bytes`
/// (0: the free device memory), cuda_error for a failing runtime call. Blocks.
/// generate() only records the requested ids; they are sampled together, in as few batches as
/// the memory allows, by the next call that reads the sets (select, coverage, copy_sets,
/// num_members, stats, clear), so an algorithm that grows the collection in slices pays the
/// per-batch costs (launch, host synchronisation, store growth) once per read, not per slice.
/// The sets are the same; only the point where sampling errors surface moves to that call.
std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params);

/// How the collection holds its sets (`collection_stats::representation`; docs/gpu.md):
/// - `flat`: every set's members in device memory (8 bytes per member with the index);
/// - `bitmap`: vertex-major bit columns, 8n bytes per 64 sets whatever their sizes (the dense
///   regime: smaller than flat once the mean set holds n / 64 vertices; bitmap_coverage.hpp);
/// - `streamed`: per-vertex coverage counts only; selection regenerates the sets from their sample
///   ids once per select and keeps the sets the first greedy seed leaves uncovered (slow; for
///   when neither of the others fits);
/// - `automatic`: flat while the mean set is below n / 64 members and the flat store and its index
///   are projected to fit the budget; from the generate call where either fails, the bitmap if
///   the bitmap of all sets so far and requested fits, else streamed (the sets so far move over).
/// All give the same sets (copy_sets), counts and greedy results. A forced bitmap that outgrows
/// the budget, or an automatic one that later does, throws resource_error with the bytes.
enum class rr_representation { automatic, flat, streamed, bitmap };

std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params, rr_representation representation);

/// Where a CUDA collection's time went (benchmarks; docs/gpu.md). The counts are always kept. The
/// seconds are host wall-clock; with profiling on, each part ends with a stream synchronisation so
/// that it holds its own kernels (slightly slower overall); with it off, asynchronous work shows up
/// in the part that next waits for the stream.
struct cuda_collection_profile {
  std::uint64_t generate_calls = 0;    // rr_collection::generate calls
  std::uint64_t sample_flushes = 0;    // times the deferred requests were sampled (see generate)
  std::uint64_t sample_batches = 0;    // sampler launches: warp batches and fused calls
  std::uint64_t select_calls = 0;      // select and select_per_round
  std::uint64_t index_segments = 0;    // vertex-to-sets index segments built
  std::uint64_t index_rebuilds = 0;    // index rebuilt from scratch while segments were held
  std::uint64_t members_indexed = 0;   // member-to-index scatters, over all segments
  std::uint64_t candidate_selects = 0;    // greedy runs over candidates only (greedy_candidates.hpp)
  std::uint64_t candidate_fallbacks = 0;  // of those, run again with more candidates
  std::uint64_t small_sets = 0;        // sets finished by the thread-per-sample pass (IC)
  std::uint64_t small_deferred = 0;    // sets it handed to the warp kernel (too large for a lane)
  std::uint64_t warp_expansions = 0;   // IC warp kernel: expansion rounds (up to 32 queued vertices each)
  std::uint64_t warp_expanded = 0;     // the vertices those rounds expanded
  std::uint64_t warp_retries = 0;      // warp-kernel launches after a batch's first pass (deferred or redone sets)
  double traversal_seconds = 0;        // sampler kernels (warp or fused, retries included)
  double store_seconds = 0;            // staged sets into the store (scan, gather, per-set sort)
  double index_seconds = 0;            // index updates inside select
  double greedy_seconds = 0;           // the rest of select: greedy steps and the result copy
  std::uint64_t warp_sets = 0;         // sets sampled by each traversal (the pilot is warp's)
  std::uint64_t fused_sets = 0;
  double warp_seconds = 0;             // their part of traversal_seconds
  double fused_seconds = 0;
  std::uint64_t fused_levels = 0;      // fused traversal levels with work, over all batches
  std::uint64_t fused_batches = 0;     // fused traversal batches, and those with edge masks
  std::uint64_t fused_mask_batches = 0;
  std::uint64_t fused_chunked_batches = 0;  // of those, by chunks of one vertex's 32 slots
  std::uint64_t fused_drawn_ahead_batches = 0;  // of those, masks drawn beside the last batch's levels
  std::uint64_t fused_early_slots = 0;      // slots that took colours early in a level (edge masks)
  std::uint64_t fused_pulled_levels = 0;    // chunked levels that pulled (fused_chunk_pull)
  std::uint64_t fused_touched_levels = 0;   // levels settled by the regions they touched only
  bool profiling = false;
};

/// The profile of a collection made by make_cuda_rr_collection; throws config_error for another.
cuda_collection_profile profile_of(const rr_collection& collection);
/// Turns profiling on or off (also on from construction when the environment sets
/// WF_CUDA_PROFILE=1, and then the collection prints its profile, with the fused traversal's
/// levels, slot counts and cudaEvent kernel times, to stderr when it is destroyed); throws
/// config_error for a collection not made here.
void set_profiling(rr_collection& collection, bool on);

}  // namespace wildfire::cuda
