// The parallel preferential-attachment generators (copy model, cuPPA; BA is p = 1/2): the OpenMP
// CPU version and the dispatch to the CUDA one. Both produce the same graph for the same
// parameters, whatever the thread count or launch shape (pa_slot_rule.hpp).
#pragma once

#include <cstdint>

#include "wildfire/backend.hpp"
#include "wildfire/generators/pa_params.hpp"

namespace wildfire {

/// Tuning knobs of the CPU generator; none of them changes the generated graph.
struct pa_cpu_options {
  int num_threads = 0;                          // 0: the OpenMP default
  std::uint32_t block_vertices = 256;           // round-robin unit dealt to threads
  std::uint32_t max_segment_vertices = 1U << 22;  // cap of one segment (SRRP round)
};

/// How a run went: rounds (segments), sweeps over pending vertices (summed over threads) and
/// the longest pending list of one thread after a first pass.
struct pa_run_stats {
  std::uint64_t segments = 0;
  std::uint64_t resolve_passes = 0;
  std::uint64_t max_pending = 0;
};

/// Generates the copy-model graph on the CPU with OpenMP. Vertices are processed in consecutive
/// segments (cuPPA's SRRP rounds, one barrier each); inside a segment, blocks of vertices are
/// dealt round-robin to threads, a vertex whose copy reads a slot not yet final is set aside, and
/// each thread sweeps its own set-aside vertices until none is left (no thread ever blocks on a
/// slot another thread owns; a sweep that completes nothing yields the core). Throws
/// config_error on bad parameters. Blocking. Memory: 4 bytes per edge plus O(pending).
pa_graph generate_pa_cpu(const pa_params& params, const pa_cpu_options& options = {},
                         pa_run_stats* stats = nullptr);

/// Generates on `device` (cpu, gpu or automatic). The GPU path throws config_error when no GPU
/// is present and resource_error when the graph does not fit in device memory.
pa_graph generate_pa(const pa_params& params, device_kind device, int num_threads = 0);

}  // namespace wildfire
