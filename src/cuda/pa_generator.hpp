// Launcher of the CUDA copy-model generator (cuPPA, Alam & Perumalla 2017, section 3). Plain
// C++ so host code compiled by g++ can call it; defined in pa_generator.cu.
#pragma once

#include <cstdint>

#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_params.hpp"

namespace wildfire::cuda {

/// Launch shape and schedule; none of them changes the generated graph.
struct pa_gpu_options {
  std::uint32_t threads_per_block = 256;
  std::uint32_t max_blocks = 0;                   // 0: SMs x resident blocks per SM
  std::uint32_t max_segment_vertices = 1U << 24;  // cap of one round; sizes the pending queues
  std::uint32_t passes_per_check = 4;             // resolve passes launched per count read-back
  bool copy_to_host = true;                       // false: leave `targets` empty (benchmarks)
};

/// What a run cost. generate_seconds spans the sentinel fill and every round (CUDA events), not
/// the allocation or the copy to the host, which transfer_seconds times.
struct pa_gpu_report {
  double generate_seconds = 0;
  double transfer_seconds = 0;
  std::uint64_t device_bytes = 0;
  pa_run_stats stats;
};

/// Generates the copy-model graph on the current GPU: the same graph as generate_pa_cpu for the
/// same parameters. Rounds are consecutive segments whose vertices are dealt round-robin to the
/// threads (grid-stride); a vertex whose copy reads a slot that is not final yet is queued, and
/// queued vertices are resumed in further kernel launches until none is left. No thread ever
/// waits for another, so any grid size is safe. Throws config_error (bad parameters),
/// resource_error (device memory) or cuda_error. Blocking.
pa_graph generate_pa_gpu(const pa_params& params, const pa_gpu_options& options = {},
                         pa_gpu_report* report = nullptr);

}  // namespace wildfire::cuda
