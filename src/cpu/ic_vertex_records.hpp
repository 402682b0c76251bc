// One 16-byte record per vertex holding what an IC reverse step reads before its first random
// draw: the in-CSR range, the block-rule class and the block size (random/ic_block_rule.hpp), or
// for a per-edge vertex its first in-edge's threshold. A traversal of small weighted-cascade sets
// is a chain of dependent cache misses; the record turns the three of them per expanded vertex
// (offsets, class, first threshold) into one, and can be prefetched as soon as the vertex is
// discovered. A vertex of in-degree 1 (always live under weighted cascade) needs nothing else.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"

namespace wildfire::cpu {

struct alignas(16) ic_vertex_record {
  std::uint32_t begin;   // first in-edge (in-CSR position)
  std::uint32_t degree;  // in-degree
  std::uint32_t cls;     // ic_block_view::vertex_class
  std::uint32_t param;   // block rule: ic_block_size(degree, first threshold); per-edge rule:
                         // the first in-edge's threshold (0 without in-edges)
};

/// Records of every vertex, or none when the graph has 2^32 edges or more (positions would not
/// fit; callers then read the CSR and the plan directly).
inline std::vector<ic_vertex_record> make_ic_vertex_records(const graph_view& g, const ic_block_view& blocks) {
  std::vector<ic_vertex_record> records;
  if (g.num_edges >= (std::uint64_t{1} << 32) || blocks.vertex_class == nullptr) return records;
  records.resize(g.num_vertices);
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    const std::uint64_t begin = g.in_begin(v), end = g.in_end(v);
    const std::uint32_t cls = blocks.vertex_class[v];
    const std::uint32_t first_threshold = end > begin ? g.in_thresholds[begin] : 0;
    records[v] = {static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end - begin), cls,
                  cls == per_edge_class ? first_threshold
                                        : static_cast<std::uint32_t>(ic_block_size(end - begin, first_threshold))};
  }
  return records;
}

/// for_each_live_in_edge(key, g, blocks, v, on_live) for a block-rule vertex with record `r`
/// (r.cls != per_edge_class): the same draws in the same order, without reading the CSR offsets.
template <class OnLive>
inline void for_each_live_block_edge(std::uint64_t key, const ic_vertex_record& r, const ic_block_view& blocks,
                                     OnLive&& on_live) {
  const std::uint64_t end = std::uint64_t{r.begin} + r.degree;
  for (std::uint64_t first = r.begin; first < end; first += r.param) {
    const std::uint64_t size = ic_block_size_at(first, end, r.param);
    const ic_block_counted drawn = ic_block_live_count(key, first, ic_block_table(blocks, r.cls, size, r.param), size);
    if (drawn.count == 0) continue;
    std::uint32_t slots[block_cdf_length];
    ic_block_live_slots(*blocks.subsets, key, first, size, drawn.count, drawn.picks, slots);
    for (std::uint32_t i = 0; i < drawn.count; ++i) on_live(first + slots[i]);
  }
}

}  // namespace wildfire::cpu
