// Parsing of backend flags and GPU discovery.
#include "wildfire/backend.hpp"

#include <string>

#include "wildfire/error.hpp"

#ifdef WF_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace wildfire {

device_kind parse_device_kind(const std::string& text) {
  if (text == "cpu") return device_kind::cpu;
  if (text == "gpu") return device_kind::gpu;
  if (text == "auto") return device_kind::automatic;
  throw config_error("--device", "unknown device \"" + text + "\", expected cpu, gpu or auto");
}

traversal_kind parse_traversal_kind(const std::string& text) {
  if (text == "auto") return traversal_kind::automatic;
  if (text == "fused") return traversal_kind::fused;
  if (text == "unfused") return traversal_kind::unfused;
  if (text == "warp") return traversal_kind::warp;
  throw config_error("--sampler", "unknown sampler \"" + text + "\", expected auto, fused, unfused or warp");
}

std::string to_string(device_kind d) {
  switch (d) {
    case device_kind::cpu: return "cpu";
    case device_kind::gpu: return "gpu";
    default: return "auto";
  }
}

std::string to_string(traversal_kind t) {
  switch (t) {
    case traversal_kind::fused: return "fused";
    case traversal_kind::unfused: return "unfused";
    case traversal_kind::warp: return "warp";
    default: return "auto";
  }
}

bool gpu_available() noexcept {
#ifdef WF_HAVE_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  return false;
#endif
}

device_kind resolve_device(device_kind requested) {
  if (requested == device_kind::automatic) return gpu_available() ? device_kind::gpu : device_kind::cpu;
  if (requested == device_kind::gpu && !gpu_available()) {
#ifdef WF_HAVE_CUDA
    throw config_error("--device", "no CUDA GPU is visible");
#else
    throw config_error("--device", "this build has no CUDA backend (nvcc was not found at build time)");
#endif
  }
  return requested;
}

void initialize_device(const backend_config& config) {
  if (resolve_device(config.device) != device_kind::gpu) return;
#ifdef WF_HAVE_CUDA
  // cudaFree(nullptr) is the documented idiom that forces the context into existence.
  cudaError_t status = cudaSetDevice(config.gpu_id);
  if (status == cudaSuccess) status = cudaFree(nullptr);
  if (status != cudaSuccess) {
    throw error("cannot initialise CUDA device " + std::to_string(config.gpu_id) + ": " + cudaGetErrorString(status));
  }
#endif
}

}  // namespace wildfire
