// The per-vertex IC sampling rule of a graph (random/ic_block_rule.hpp): which vertices draw
// their in-edges per block, and the Binomial count tables they use. Derived from the
// in-thresholds in O(n + m); every sampler, simulator and realization builds (or uploads) one
// before it draws, so a change of weights can never leave a stale plan behind.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"

namespace wildfire {

struct ic_block_plan {
  std::vector<std::uint32_t> vertex_class;  // n
  std::vector<std::uint32_t> cdf;           // 2 * block_cdf_length per class

  ic_block_view view() const noexcept { return {vertex_class.data(), cdf.data(), &small_block_subset_table}; }
  std::uint32_t num_classes() const noexcept {
    return static_cast<std::uint32_t>(cdf.size() / (2 * block_cdf_length));
  }
  std::uint64_t memory_bytes() const noexcept {
    return (vertex_class.size() + cdf.size()) * sizeof(std::uint32_t);
  }
};

/// A vertex uses the block rule iff it has at least two in-edges, all with the same threshold t,
/// fewer than 2^32, and 1 <= t <= 2^31 (0 < p <= 1/2; larger p keeps the per-edge rule, as it did
/// when blocks held round(1/p) edges, one or two there). Classes are shared by vertices with equal
/// (block size, tail size, t); the tail table of a class whose degree is a multiple of its block
/// size is unused.
/// Throws config_error if the graph has 2^40 or more edges (block ids would not fit).
ic_block_plan make_ic_block_plan(const graph_view& g);

/// Table of P(K <= k), k < block_cdf_length, K ~ Binomial(size, t / 2^32), each rounded to a
/// 32-bit threshold (saturating at 2^32 - 1). Exposed for tests.
void binomial_cdf_table(std::uint64_t size, std::uint32_t threshold, std::uint32_t* table);

}  // namespace wildfire
