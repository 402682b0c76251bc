// Monte-Carlo forward simulation of a seed set under IC or LT, backend-neutral. World w is the
// live-edge world of sample_key(seed, w) read on the out-CSR through out_edge_ids, so forward
// world s and RR sample s are the same world (docs/design.md "Randomness").
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire {

/// Mean spread over the simulated worlds with its standard error and a 95% normal interval.
struct spread_estimate {
  double mean = 0;
  double standard_error = 0;   // sample standard deviation / sqrt(worlds)
  double ci95_low = 0;         // mean - 1.96 standard errors
  double ci95_high = 0;        // mean + 1.96 standard errors
  std::uint64_t worlds = 0;
  std::uint64_t edges_examined = 0;  // out-edges read (IC) plus in-edges scanned for LT choices
  double seconds = 0;
};

/// Mean, standard error and interval of per-world spreads (the summary every backend reports).
spread_estimate summarize_spreads(std::span<const std::uint32_t> spreads);

/// The seeds of each of `rounds` rounds as vertices: a seed is encoded round * n + vertex (as
/// simulate() takes them). Throws config_error ("seeds") for one at or past n * rounds.
std::vector<std::vector<std::uint32_t>> seeds_by_round(std::span<const std::uint32_t> seeds, std::uint32_t n,
                                                       std::uint32_t rounds);

class spread_simulator {
 public:
  virtual ~spread_simulator() = default;

  /// Number of vertices active at the end of each world w in [first_world, first_world + count),
  /// starting from `seeds` (dense ids; with sampling_params::rounds = T > 1, encoded
  /// round * n + vertex, and a vertex counts once however many rounds activate it). Blocks.
  virtual std::vector<std::uint32_t> simulate(std::span<const std::uint32_t> seeds,
                                              std::uint64_t first_world, std::uint64_t count) = 0;

  /// simulate() summarised. Blocks.
  virtual spread_estimate estimate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                   std::uint64_t count) = 0;

  /// The traversal actually used ("fused" or "unfused") and edges read so far.
  virtual std::string traversal() const = 0;
};

/// Makes the simulator for `config.device` (resolved): the CPU one, or under WF_HAVE_CUDA
/// `cuda::make_cuda_spread_simulator(config, graph, params)`. `params.mean_roots` is unused.
/// Throws config_error for an unsupported combination. The graph must outlive the simulator.
std::unique_ptr<spread_simulator> make_spread_simulator(const backend_config& config, const csr_graph& graph,
                                                        const sampling_params& params);

}  // namespace wildfire
