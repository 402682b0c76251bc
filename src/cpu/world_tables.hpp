// The per-graph tables through which CPU traversals read a sample's live-edge world: LT's
// cumulative in-weights (binary search) and IC's block plan (random/ic_block_rule.hpp). Built once
// per collection in O(n + m) and shared read-only by every worker's sampler.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/ic_vertex_records.hpp"
#include "cpu/lt_cumulative.hpp"
#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::cpu {

struct world_tables {
  std::vector<std::uint64_t> lt_cumulative;  // LT: build_lt_cumulative; empty under IC
  ic_block_plan ic_plan;                     // IC: make_ic_block_plan; empty under LT
  std::vector<ic_vertex_record> ic_records;  // IC: make_ic_vertex_records (may be empty)

  std::uint64_t memory_bytes() const noexcept {
    return lt_cumulative.capacity() * sizeof(std::uint64_t) + ic_plan.memory_bytes() +
           ic_records.capacity() * sizeof(ic_vertex_record);
  }
};

/// The tables `model` needs on `graph` (the other model's stay empty). Throws config_error where
/// make_ic_block_plan does (2^40 edges or more under IC).
inline world_tables build_world_tables(const csr_graph& graph, diffusion_model model) {
  world_tables tables;
  if (model == diffusion_model::lt) {
    tables.lt_cumulative = build_lt_cumulative(graph);
  } else {
    tables.ic_plan = make_ic_block_plan(graph.view());
    tables.ic_records = make_ic_vertex_records(graph.view(), tables.ic_plan.view());
  }
  return tables;
}

}  // namespace wildfire::cpu
