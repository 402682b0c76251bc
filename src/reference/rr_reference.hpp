// Plain serial RR sampling: the specification every optimised sampler is checked against.
// Depends only on graph/ and random/ (STYLE.md), so it stays independent of the optimised code.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_sets.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::reference {

/// RR set number `sample_id`: every vertex that reaches one of the sample's roots in the sample's
/// live-edge world (IC: breadth-first over the live in-edges named by ic_live_in_edges, the
/// per-edge or block rule of random/ic_block_rule.hpp; LT: each root's backward walk until it
/// meets a visited vertex or a vertex that picks no in-edge). Sorted ascending. With
/// params.rounds = T > 1: the union over rounds t of the round-t set (world
/// round_sample_key(key, t), same roots), each member encoded t * n + vertex.
std::vector<std::uint32_t> rr_set(const csr_graph& g, const sampling_params& params,
                                  std::uint64_t sample_id);

/// The roots of sample `sample_id`, sorted ascending.
std::vector<std::uint32_t> rr_roots(const csr_graph& g, const sampling_params& params,
                                    std::uint64_t sample_id);

/// Sets for ids first_id .. first_id + count - 1, in id order.
rr_sets sample_rr_sets(const csr_graph& g, const sampling_params& params, std::uint64_t first_id,
                       std::uint64_t count);

}  // namespace wildfire::reference
