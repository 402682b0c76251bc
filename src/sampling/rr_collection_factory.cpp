// make_rr_collection: the CPU backend, or the CUDA one when built and asked for.
#include "wildfire/error.hpp"
#include "wildfire/sampling/rr_collection.hpp"

#include "cpu/cpu_rr_collection.hpp"

#if defined(WF_HAVE_CUDA) && __has_include("cuda/cuda_rr_collection.hpp")
#include "cuda/cuda_rr_collection.hpp"
#define WF_HAVE_CUDA_RR_COLLECTION 1
#endif

namespace wildfire {

std::unique_ptr<rr_collection> make_rr_collection(const backend_config& config, const csr_graph& graph,
                                                  const sampling_params& params) {
#ifdef WF_HAVE_CUDA_RR_COLLECTION
  if (resolve_device(config.device) == device_kind::gpu) return cuda::make_cuda_rr_collection(config, graph, params);
#else
  // Without a CUDA sampler, auto means the CPU; an explicit gpu request is an error.
  if (config.device == device_kind::gpu) {
    resolve_device(config.device);
    throw config_error("--device", "this build has no CUDA RR sampler");
  }
#endif
  return std::make_unique<cpu::cpu_rr_collection>(config, graph, params);
}

}  // namespace wildfire
