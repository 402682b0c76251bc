// Builds the IC block plan: a parallel scan for uniform in-thresholds, then one Binomial count
// table pair per distinct (block size, tail size, threshold).
#include "wildfire/sampling/ic_block_plan.hpp"

#include <algorithm>
#include <cmath>

#include "wildfire/error.hpp"

namespace wildfire {
namespace {

/// Class key of a block-rule vertex: (canonical degree << 32) | threshold, where the canonical
/// degree B + (d mod B) has the same block and tail sizes as d; 0 marks a per-edge vertex.
std::uint64_t class_key(std::uint64_t degree, std::uint32_t threshold) {
  const std::uint64_t b = ic_block_size(degree, threshold);
  const std::uint64_t canonical = degree > b ? b + degree % b : degree;
  return canonical << 32 | threshold;
}

}  // namespace

void binomial_cdf_table(std::uint64_t size, std::uint32_t threshold, std::uint32_t* table) {
  // Long double keeps the pmf recurrence accurate far below the 2^-32 resolution of the table.
  const long double p = static_cast<long double>(threshold) / 4294967296.0L;
  const auto n = static_cast<long double>(size);
  long double pmf = std::exp(n * std::log1p(-p));  // P(K = 0)
  long double cumulative = 0;
  for (std::uint32_t k = 0; k < block_cdf_length; ++k) {
    cumulative += pmf;
    const long double scaled = std::nearbyint(std::min(cumulative, 1.0L) * 4294967296.0L);
    table[k] = scaled >= 4294967295.0L || k >= size ? 0xffffffffU : static_cast<std::uint32_t>(scaled);
    pmf *= (n - k) / (k + 1) * p / (1 - p);
  }
}

ic_block_plan make_ic_block_plan(const graph_view& g) {
  WF_EXPECTS(g.num_edges < max_block_rule_edges, "graph",
             "IC sampling supports fewer than 2^40 edges, the graph has " + std::to_string(g.num_edges));
  const std::uint32_t n = g.num_vertices;
  ic_block_plan plan;
  plan.vertex_class.assign(n, per_edge_class);
  std::vector<std::uint64_t> keys(n, 0);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t vi = 0; vi < static_cast<std::int64_t>(n); ++vi) {
    const auto v = static_cast<std::uint32_t>(vi);
    const std::uint64_t begin = g.in_begin(v), end = g.in_end(v);
    if (end - begin < 2 || end - begin >= (1ULL << 32)) continue;
    const std::uint32_t t = g.in_thresholds[begin];
    if (t == 0 || t > (1U << 31)) continue;
    bool uniform = true;
    for (std::uint64_t j = begin + 1; j < end && uniform; ++j) uniform = g.in_thresholds[j] == t;
    if (uniform) keys[v] = class_key(end - begin, t);
  }
  // Distinct keys in sorted order are the classes: the numbering does not depend on threads.
  std::vector<std::uint64_t> distinct;
  for (const std::uint64_t k : keys)
    if (k != 0) distinct.push_back(k);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  plan.cdf.assign(distinct.size() * 2 * block_cdf_length, 0xffffffffU);
  for (std::size_t c = 0; c < distinct.size(); ++c) {
    const std::uint64_t degree = distinct[c] >> 32;
    const auto t = static_cast<std::uint32_t>(distinct[c]);
    const std::uint64_t b = ic_block_size(degree, t);
    std::uint32_t* full = plan.cdf.data() + 2 * c * block_cdf_length;
    binomial_cdf_table(b, t, full);
    if (degree % b != 0) binomial_cdf_table(degree % b, t, full + block_cdf_length);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t vi = 0; vi < static_cast<std::int64_t>(n); ++vi) {
    const std::uint64_t k = keys[static_cast<std::size_t>(vi)];
    if (k == 0) continue;
    const auto it = std::lower_bound(distinct.begin(), distinct.end(), k);
    plan.vertex_class[static_cast<std::size_t>(vi)] = static_cast<std::uint32_t>(it - distinct.begin());
  }
  return plan;
}

}  // namespace wildfire
