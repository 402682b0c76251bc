// Entry point of the CUDA forward Monte-Carlo simulator for the backend-neutral spread_simulator
// interface (ARCHITECTURE.md section 3). Plain C++ (no CUDA types), so the host factory in
// src/sampling/spread_simulator.cpp can include it with g++; the implementation is in
// cuda_spread_simulator.cu and forward_kernels.cuh.
#pragma once

#include <memory>

#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/sampling_params.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire::cuda {

/// A spread_simulator on GPU `config.gpu_id`: fused forward traversals of 64 worlds per colour
/// word (fused-BPT digest section 3.6, forward), world w being the same live-edge world as the
/// CPU simulator's world w, so per-world spreads agree exactly. The graph is uploaded once, here;
/// `graph` must outlive the simulator. Throws config_error for bad parameters (`--sampler warp`
/// or `unfused`, rounds * n >= 2^32), resource_error when the graph or one group of 64 worlds does
/// not fit `config.memory_budget_bytes` (0: the free device memory), cuda_error for a failing
/// runtime call.
std::unique_ptr<spread_simulator> make_cuda_spread_simulator(const backend_config& config, const csr_graph& graph,
                                                             const sampling_params& params);

}  // namespace wildfire::cuda
