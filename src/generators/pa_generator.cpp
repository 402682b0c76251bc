// Device dispatch of the preferential-attachment generators.
#include "wildfire/generators/pa_generator.hpp"

#ifdef WF_HAVE_CUDA
#include "cuda/pa_generator.hpp"
#endif

namespace wildfire {

pa_graph generate_pa(const pa_params& params, device_kind device, int num_threads) {
  validate_pa_params(params);
  if (resolve_device(device) == device_kind::gpu) {
#ifdef WF_HAVE_CUDA
    return cuda::generate_pa_gpu(params);
#endif
  }
  pa_cpu_options options;
  options.num_threads = num_threads;
  return generate_pa_cpu(params, options);
}

}  // namespace wildfire
