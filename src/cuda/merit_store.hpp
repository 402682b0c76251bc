// The CUDA mRR-set store of MERIT (paper section 3): segment-per-warp Generate, Select with
// Discover, post-round Discover and the circular in-place Update. g++-includable: no CUDA types.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "wildfire/adaptive/mrr_store.hpp"

namespace wildfire::adaptive::cuda {

/// The GPU store on device `gpu_id`. `memory_budget_bytes` (0: free device memory) bounds its
/// allocations; beyond it Generate/Update throw resource_error. `num_segments` (0: one per warp
/// the GPU keeps resident) sets the segment count; the sets are the same for any count (set s
/// lives in segment s mod count). `ic_plan`: the graph's make_ic_block_plan (IC; null: built
/// here), only read while constructing. Graph and costs must outlive it.
std::unique_ptr<mrr_store> make_gpu_mrr_store(const csr_graph& graph, diffusion_model model,
                                              std::span<const double> costs, std::uint64_t seed, int gpu_id,
                                              std::uint64_t memory_budget_bytes, std::uint32_t num_segments = 0,
                                              const ic_block_plan* ic_plan = nullptr);

}  // namespace wildfire::adaptive::cuda
