// Which backend runs sampling, selection and simulation, and how it is tuned. Parsed from the
// common CLI flags (--device, -p, --sampler, --colours, --memory-budget).
#pragma once

#include <cstdint>
#include <string>

namespace wildfire {

enum class device_kind { cpu, gpu, automatic };

/// How RR sets are traversed. `fused`: C samples share one frontier through colour bitmasks;
/// `unfused`: one traversal per sample (CPU); `warp`: one warp per sample (GPU).
enum class traversal_kind { automatic, fused, unfused, warp };

struct backend_config {
  device_kind device = device_kind::automatic;
  int num_threads = 0;             // CPU threads; 0 = OpenMP default
  traversal_kind traversal = traversal_kind::automatic;
  std::uint32_t colours = 64;      // samples per fused traversal: a multiple of 32, at most 1024
  std::uint64_t memory_budget_bytes = 0;  // 0 = what the device (or host) has available
  int gpu_id = 0;
};

/// Parses "cpu", "gpu" or "auto"; throws config_error naming --device otherwise.
device_kind parse_device_kind(const std::string& text);
/// Parses "auto", "fused", "unfused" or "warp"; throws config_error naming --sampler otherwise.
traversal_kind parse_traversal_kind(const std::string& text);
std::string to_string(device_kind d);
std::string to_string(traversal_kind t);

/// True when this build has the CUDA backend and a GPU is visible.
bool gpu_available() noexcept;

/// Resolves `automatic` to cpu or gpu; throws config_error if gpu is asked for and absent.
device_kind resolve_device(device_kind requested);

/// Creates the CUDA context of `config.gpu_id` now when the run goes to the GPU (nothing on the
/// CPU), so that commands can report its cost apart from the work. Throws wildfire::error if the
/// device cannot be initialised.
void initialize_device(const backend_config& config);

}  // namespace wildfire
