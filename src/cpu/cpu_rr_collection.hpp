// The CPU backend of rr_collection: OpenMP workers sample blocks of consecutive ids (fused or
// unfused) into their own arenas, which are then copied in id order into one flat store, so the
// store is the same whatever the thread count and no lock is taken per set.
#pragma once

#include <memory>
#include <vector>

#include "cpu/flat_set_store.hpp"
#include "cpu/fused_rr_sampler.hpp"
#include "cpu/unfused_rr_sampler.hpp"
#include "cpu/world_tables.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire::cpu {

class cpu_rr_collection final : public rr_collection {
 public:
  /// Throws config_error for a bad colour count or when n * rounds does not fit 32 bits.
  cpu_rr_collection(const backend_config& config, const csr_graph& graph, const sampling_params& params);

  void generate(std::uint64_t first_id, std::uint64_t count) override;
  std::uint64_t size() const override { return sets_.size(); }
  std::uint64_t num_members() const override { return sets_.num_members(); }
  void clear() override;
  coverage_selection select(std::uint32_t k, bool with_upper_bound) override;
  coverage_selection select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                      std::uint32_t rounds) override;
  std::uint64_t coverage(std::span<const std::uint32_t> seeds) override;
  rr_sets copy_sets(std::uint64_t first, std::uint64_t count) const override;
  collection_stats stats() const override;

 private:
  struct worker {
    std::unique_ptr<unfused_rr_sampler> unfused;
    std::unique_ptr<fused_rr_sampler> fused;
    rr_sets arena;
  };
  coverage_selection run_greedy(std::uint32_t k, std::uint32_t rounds, bool with_upper_bound);
  void check_budget(std::uint64_t more_sets) const;

  const csr_graph& graph_;
  sampling_params params_;
  backend_config config_;
  int threads_;
  bool fused_;     // fixed choice (traversal fused or unfused)
  bool adaptive_;  // automatic under IC: chosen per generate call by the mean set size so far
  std::uint64_t fused_sets_ = 0;
  std::uint64_t unfused_sets_ = 0;
  std::vector<worker> workers_;
  world_tables tables_;  // LT cumulative weights or IC block plan: shared by every worker's sampler
  flat_set_store sets_;
  collection_stats stats_;
};

}  // namespace wildfire::cpu
