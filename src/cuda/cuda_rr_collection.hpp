// Entry points of the CUDA backend for the backend-neutral interfaces (ARCHITECTURE.md section 3):
// RR collections whose sets live on the GPU. Plain C++ (no CUDA types), so the host factory in
// src/sampling/ can include it with g++; the implementation is in the .cu files beside it.
#pragma once

#include <memory>

#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cuda {

/// An rr_collection that samples (warp-per-sample or fused multi-colour traversal, chosen by
/// `config.traversal` or automatically), stores, counts and selects on GPU `config.gpu_id`. The
/// graph is uploaded once, here; `graph` must outlive the collection. Throws config_error for bad
/// parameters, resource_error when the graph or the sets cannot fit `config.memory_budget_bytes`
/// (0: the free device memory), cuda_error for a failing runtime call. Blocks.
std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params);

/// How the collection holds its sets (`collection_stats::representation`):
/// - `flat`: every set's sorted members in device memory (fastest selection);
/// - `streamed`: per-vertex coverage counts only; selection regenerates the sets from their sample
///   ids once per select and keeps the sets the first greedy seed leaves uncovered (the dense
///   regime, where flat storage does not fit; docs/gpu.md);
/// - `automatic`: flat while the flat store and its index are projected to fit the budget, then
///   streamed from the generate call that would not fit (the sets so far are folded into counts).
/// Both give the same sets (copy_sets), counts and greedy results.
enum class rr_representation { automatic, flat, streamed };

std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params, rr_representation representation);

}  // namespace wildfire::cuda
