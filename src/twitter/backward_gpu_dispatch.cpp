// backward_gpu: hands the graphs to the CUDA launcher, or explains that this build has none.
#include "wildfire/error.hpp"
#include "wildfire/twitter/influence.hpp"

#ifdef WF_HAVE_CUDA
#include "cuda/twitter_backward.hpp"
#endif

namespace wildfire::twitter {

influence_result backward_gpu(const spreading_graphs& graphs, gpu_variant variant) {
#ifdef WF_HAVE_CUDA
  return cuda::twitter_backward(graphs, variant);
#else
  (void)graphs;
  (void)variant;
  throw config_error("--device", "this build has no CUDA backend (nvcc was not found at build time)");
#endif
}

}  // namespace wildfire::twitter
