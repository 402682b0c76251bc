// Picks the mRR-set store for the requested device (ARCHITECTURE.md section 3: one algorithm,
// several backends).
#include "wildfire/adaptive/mrr_store.hpp"

#ifdef WF_HAVE_CUDA
#include "cuda/merit_store.hpp"
#endif

namespace wildfire::adaptive {

std::unique_ptr<mrr_store> make_mrr_store(const backend_config& config, const csr_graph& graph,
                                          diffusion_model model, std::span<const double> costs,
                                          std::uint64_t seed, const ic_block_plan* ic_plan) {
  if (resolve_device(config.device) == device_kind::gpu) {
#ifdef WF_HAVE_CUDA
    return cuda::make_gpu_mrr_store(graph, model, costs, seed, config.gpu_id, config.memory_budget_bytes, 0, ic_plan);
#endif
  }
  return make_cpu_mrr_store(graph, model, costs, seed, config.num_threads, ic_plan);
}

}  // namespace wildfire::adaptive
