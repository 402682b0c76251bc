// The CPU backend of spread_simulator: forward traversals on the out-CSR, C worlds per fused
// traversal (colour bitmasks, visited marked at discovery) or one world at a time (unfused).
#pragma once

#include <vector>

#include "wildfire/sampling/ic_block_plan.hpp"
#include "wildfire/sampling/spread_simulator.hpp"

namespace wildfire::cpu {

class cpu_spread_simulator final : public spread_simulator {
 public:
  cpu_spread_simulator(const backend_config& config, const csr_graph& graph, const sampling_params& params);

  std::vector<std::uint32_t> simulate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                      std::uint64_t count) override;
  spread_estimate estimate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                           std::uint64_t count) override;
  std::string traversal() const override { return fused_ ? "fused" : "unfused"; }
  std::uint64_t edges_examined() const noexcept { return edges_examined_; }

 private:
  const csr_graph& graph_;
  sampling_params params_;
  int threads_;
  bool fused_;
  std::uint32_t colours_;
  /// LT: cumulative in-weight before each edge (in-CSR order), so "v picks edge j" is one
  /// comparison of v's draw with [lt_before_[j], lt_before_[j] + weight_j).
  std::vector<std::uint64_t> lt_before_;
  /// IC: which targets draw their in-edges per block (random/ic_block_rule.hpp).
  ic_block_plan ic_plan_;
  std::uint64_t edges_examined_ = 0;
};

}  // namespace wildfire::cpu
