// make_spread_simulator (CPU, or CUDA when built and asked for) and the summary of spreads.
#include "wildfire/sampling/spread_simulator.hpp"

#include <cmath>
#include <string>

#include "cpu/cpu_spread_simulator.hpp"
#include "wildfire/error.hpp"
#include "wildfire/sampling/multi_round.hpp"

#if defined(WF_HAVE_CUDA) && __has_include("cuda/cuda_spread_simulator.hpp")
#include "cuda/cuda_spread_simulator.hpp"
#define WF_HAVE_CUDA_SPREAD_SIMULATOR 1
#endif

namespace wildfire {

std::vector<std::vector<std::uint32_t>> seeds_by_round(std::span<const std::uint32_t> seeds, std::uint32_t n,
                                                       std::uint32_t rounds) {
  std::vector<std::vector<std::uint32_t>> by_round(rounds);
  for (const std::uint32_t s : seeds) {
    WF_EXPECTS(s < std::uint64_t{n} * rounds, "seeds",
               "seed " + std::to_string(s) + " is outside the graph (n * rounds = " +
                   std::to_string(std::uint64_t{n} * rounds) + ")");
    by_round[member_round(s, n)].push_back(member_vertex(s, n));
  }
  return by_round;
}

spread_estimate summarize_spreads(std::span<const std::uint32_t> spreads) {
  spread_estimate result;
  result.worlds = spreads.size();
  if (spreads.empty()) return result;
  // Two passes (mean, then squared deviations) keep the variance accurate for large spreads.
  double sum = 0;
  for (const std::uint32_t s : spreads) sum += s;
  const double mean = sum / static_cast<double>(spreads.size());
  double squares = 0;
  for (const std::uint32_t s : spreads) squares += (s - mean) * (s - mean);
  const double variance = spreads.size() > 1 ? squares / static_cast<double>(spreads.size() - 1) : 0.0;
  result.mean = mean;
  result.standard_error = std::sqrt(variance / static_cast<double>(spreads.size()));
  result.ci95_low = mean - 1.96 * result.standard_error;
  result.ci95_high = mean + 1.96 * result.standard_error;
  return result;
}

std::unique_ptr<spread_simulator> make_spread_simulator(const backend_config& config, const csr_graph& graph,
                                                        const sampling_params& params) {
#ifdef WF_HAVE_CUDA_SPREAD_SIMULATOR
  if (resolve_device(config.device) == device_kind::gpu) return cuda::make_cuda_spread_simulator(config, graph, params);
#else
  if (config.device == device_kind::gpu) {
    resolve_device(config.device);
    throw config_error("--device", "this build has no CUDA spread simulator");
  }
#endif
  return std::make_unique<cpu::cpu_spread_simulator>(config, graph, params);
}

}  // namespace wildfire
