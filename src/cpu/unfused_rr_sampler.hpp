// One reverse traversal per sample on the in-CSR (IMM's RR sampling, gIM digest section 1.6):
// breadth-first over live in-edges under IC (block-rule vertices enumerate their live edges, the
// others are hashed 64 edges at a time), backward walks under LT. Per-thread state with epoch
// stamps, so a sample allocates nothing. Single-root IC sets (IMM, OPIM-C) run interleaved,
// several samples at a time (ic_lane_sampler), still one traversal per sample. Gives exactly reference::rr_set for every sample id.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/epoch_marker.hpp"
#include "cpu/ic_lane_sampler.hpp"
#include "cpu/world_tables.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_sets.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cpu {

class unfused_rr_sampler {
 public:
  /// `tables`: build_world_tables(graph, params.model), shared by the caller's samplers and
  /// outliving this one; when null, the sampler builds its own.
  unfused_rr_sampler(const csr_graph& graph, const sampling_params& params, const world_tables* tables = nullptr);

  /// Appends the sets of samples [first_id, first_id + count) to `out`, sorted ascending (members
  /// encoded round * n + vertex when params.rounds > 1). Returns the in-edges examined.
  std::uint64_t sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out);

  std::uint64_t memory_bytes() const noexcept;

 private:
  std::uint64_t traverse(std::uint64_t world_key);
  std::uint64_t traverse_ic_records(std::uint64_t world_key);

  graph_view view_;
  sampling_params params_;
  epoch_marker visited_;
  std::vector<std::uint32_t> roots_;
  std::vector<std::uint32_t> queue_;
  world_tables own_tables_;
  const std::uint64_t* lt_cumulative_ = nullptr;
  ic_block_view blocks_;
  const ic_vertex_record* records_ = nullptr;  // IC on graphs below 2^32 edges, else null
  std::unique_ptr<ic_lane_sampler> lanes_;     // single-root, single-round IC with records
};

}  // namespace wildfire::cpu
