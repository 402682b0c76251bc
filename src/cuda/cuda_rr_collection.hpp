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

}  // namespace wildfire::cuda
