// Level-ordered pull layout (see pull_layout.hpp): a Kahn pass per graph gives every node its
// level (longest path from a source) or marks it stalled; positions sort nodes by (level, id),
// stalled nodes last; a second pass transposes the back edges into padded in-lists of positions.
// Two passes over graphs in parallel: sizes first, then every graph fills its own ranges.
#include "twitter/pull_layout.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "twitter/backward_sweep.hpp"
#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {

namespace {

constexpr std::uint32_t round_up(std::uint32_t x) { return (x + pull_align - 1) / pull_align * pull_align; }

/// Pass 1 of one graph: levels and positions into the global per-node arrays, sizes into the
/// graph record. Returns false when the graph cannot be laid out (left to the fallback).
bool plan_graph(const spreading_graphs& g, std::uint64_t t, std::uint32_t* level_of, std::uint32_t* position,
                pull_graph& record, std::uint64_t& num_entries, std::vector<std::uint32_t>& indeg,
                std::vector<std::uint32_t>& queue, std::vector<std::uint32_t>& count, bool& bad_target) {
  const std::uint64_t lo = g.graph_offsets[t];
  const std::uint64_t n64 = g.graph_offsets[t + 1] - lo;
  if (n64 == 0 || n64 > pull_max_nodes) return false;
  const auto n = static_cast<std::uint32_t>(n64);
  const std::uint64_t* rows = g.row_offsets.data() + lo;
  const std::uint32_t* targets = g.edge_targets.data();
  indeg.assign(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (rows[v + 1] - rows[v] > 0xffffu) return false;  // out-degree must fit 16 bits
    for (std::uint64_t j = rows[v]; j < rows[v + 1]; ++j) {
      if (targets[j] >= n) {
        bad_target = true;
        return false;
      }
      ++indeg[targets[j]];
    }
  }
  // Kahn with every in-degree-0 node (sinks too: a sink's value is final like any other).
  queue.clear();
  for (std::uint32_t v = 0; v < n; ++v) {
    level_of[lo + v] = 0;
    if (indeg[v] == 0) queue.push_back(v);
  }
  std::uint32_t finished_levels = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t u = queue[head];
    finished_levels = std::max(finished_levels, level_of[lo + u] + 1);
    for (std::uint64_t j = rows[u]; j < rows[u + 1]; ++j) {
      const std::uint32_t w = targets[j];
      level_of[lo + w] = std::max(level_of[lo + w], level_of[lo + u] + 1);
      if (--indeg[w] == 0) queue.push_back(w);
    }
  }
  const auto finished = static_cast<std::uint32_t>(queue.size());
  const std::uint32_t stalled = n - finished;
  // Positions: counting sort of the finished nodes by level (ascending ids within a level), then
  // the stalled nodes in id order as one more level.
  count.assign(finished_levels + 1, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indeg[v] == 0) ++count[level_of[lo + v] + 1];
  }
  for (std::uint32_t l = 0; l < finished_levels; ++l) count[l + 1] += count[l];
  std::uint32_t next_stalled = finished;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indeg[v] == 0) {
      position[lo + v] = count[level_of[lo + v]]++;
    } else {
      level_of[lo + v] = finished_levels;  // the stalled group
      position[lo + v] = next_stalled++;
    }
  }
  // Padded in-list sizes: an in-list names the finished predecessors only.
  count.assign(n, 0);
  for (std::uint32_t u = 0; u < n; ++u) {
    if (indeg[u] != 0) continue;
    for (std::uint64_t j = rows[u]; j < rows[u + 1]; ++j) ++count[targets[j]];
  }
  std::uint64_t entries = 0;
  for (std::uint32_t w = 0; w < n; ++w) entries += round_up(count[w]);
  if (entries > 0xffffffffULL) return false;
  record.num_levels = finished_levels + (stalled > 0 ? 1 : 0);
  record.num_stalled = stalled;
  num_entries = entries;
  return true;
}

/// Pass 2 of one graph: node records, level table and in-lists at the bases found by pass 1.
void fill_graph(const spreading_graphs& g, std::uint64_t t, const std::uint32_t* level_of, const std::uint32_t* position,
                pull_layout& layout, std::vector<std::uint32_t>& node_at, std::vector<std::uint32_t>& cursor) {
  const std::uint64_t lo = g.graph_offsets[t];
  const auto n = static_cast<std::uint32_t>(g.graph_offsets[t + 1] - lo);
  const std::uint64_t* rows = g.row_offsets.data() + lo;
  const std::uint32_t* targets = g.edge_targets.data();
  const pull_graph& record = layout.graphs[t];
  const std::uint32_t stalled_level = record.num_stalled > 0 ? record.num_levels - 1 : record.num_levels;
  auto finished = [&](std::uint32_t v) { return level_of[lo + v] < stalled_level; };
  node_at.assign(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) node_at[position[lo + v]] = v;
  cursor.assign(n + 1, 0);
  for (std::uint32_t u = 0; u < n; ++u) {
    if (!finished(u)) continue;
    for (std::uint64_t j = rows[u]; j < rows[u + 1]; ++j) ++cursor[position[lo + targets[j]]];
  }
  pull_node* nodes = layout.nodes.data() + layout.node_index(g, t);
  std::uint32_t entry = 0;
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t size = cursor[p];
    const std::uint32_t v = node_at[p];
    nodes[p] = {entry, static_cast<std::uint16_t>(v), static_cast<std::uint16_t>(rows[v + 1] - rows[v])};
    cursor[p] = entry;
    entry += round_up(size);
  }
  nodes[n] = {entry, 0, 0};
  pull_level* levels = layout.levels.data() + record.level_base;
  std::uint32_t current = 0xffffffffu;
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t l = level_of[lo + node_at[p]];
    if (l != current) {
      levels[l] = {p, nodes[p].in_begin};
      current = l;
    }
  }
  levels[record.num_levels] = {n, entry};
  std::uint16_t* sources = layout.sources.data() + record.entry_base;
  std::fill(sources, sources + entry, pull_pad);
  // Sources in ascending position, so every in-list is sorted.
  for (std::uint32_t p = 0; p < n; ++p) {
    const std::uint32_t u = node_at[p];
    if (!finished(u)) continue;  // a stalled node passes nothing on
    for (std::uint64_t j = rows[u]; j < rows[u + 1]; ++j) sources[cursor[position[lo + targets[j]]]++] = static_cast<std::uint16_t>(p);
  }
}

}  // namespace

pull_layout build_pull_layout(const spreading_graphs& g, int num_threads) {
  WF_EXPECTS(num_threads >= 0, "-p", "thread count must be >= 0");
  const std::uint64_t num_graphs = g.num_graphs();
  pull_layout layout;
  layout.graphs.assign(num_graphs, {});
  layout.included.assign(num_graphs, 0);
  std::vector<std::uint32_t> level_of(g.num_nodes()), position(g.num_nodes());
  std::vector<std::uint64_t> entries(num_graphs, 0);
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  std::atomic<bool> bad_target{false};
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::uint32_t> a, b, c;
    bool bad = false;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(num_graphs); ++k) {
      const auto t = static_cast<std::uint64_t>(k);
      layout.included[t] = plan_graph(g, t, level_of.data(), position.data(), layout.graphs[t], entries[t], a, b, c, bad) ? 1 : 0;
    }
    if (bad) bad_target = true;
  }
  if (bad_target) throw input_error("spreading graphs", 0, "an edge target lies outside its graph");
  std::uint64_t entry_base = 0, level_base = 0;
  for (std::uint64_t t = 0; t < num_graphs; ++t) {
    if (!layout.included[t]) continue;
    pull_graph& r = layout.graphs[t];
    r.entry_base = entry_base;
    r.level_base = level_base;
    entry_base += entries[t];
    level_base += r.num_levels + 1;
    layout.max_levels = std::max(layout.max_levels, r.num_levels);
    layout.num_included_nodes += g.graph_size(t);
  }
  layout.nodes.assign(g.num_nodes() + num_graphs, pull_node{0, 0, 0});
  layout.levels.assign(level_base, pull_level{0, 0});
  layout.sources.resize(entry_base);
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::uint32_t> a, b;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(num_graphs); ++k) {
      const auto t = static_cast<std::uint64_t>(k);
      if (layout.included[t]) fill_graph(g, t, level_of.data(), position.data(), layout, a, b);
    }
  }
  return layout;
}

std::uint64_t pull_bytes_moved(const spreading_graphs& g, const pull_layout& layout) {
  std::uint64_t bytes = 0;
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    if (!layout.included[t]) continue;
    const pull_graph& r = layout.graphs[t];
    const std::uint64_t n = g.graph_size(t);
    const std::uint64_t entries = layout.levels[r.level_base + r.num_levels].first_entry;
    bytes += 2 * entries + sizeof(pull_node) * (n + 1) + sizeof(pull_level) * (r.num_levels + 1) + 16 * n +
             sizeof(pull_graph) + 2 * sizeof(std::uint64_t) + sizeof(std::uint32_t);  // record, offsets, stalled
  }
  return bytes;
}

std::uint32_t sweep_pull_graph(const spreading_graphs& g, const pull_layout& layout, std::uint64_t t, double* influence,
                               std::vector<double>& share) {
  const std::uint64_t lo = g.graph_offsets[t];
  const pull_graph& record = layout.graphs[t];
  const pull_node* nodes = layout.nodes.data() + layout.node_index(g, t);
  const std::uint16_t* sources = layout.sources.data() + record.entry_base;
  const std::uint32_t n = layout.levels[record.level_base + record.num_levels].first_position;
  share.resize(n);
  for (std::uint32_t p = 0; p < n; ++p) {
    double sum = 0.0;
    for (std::uint32_t e = nodes[p].in_begin; e < nodes[p + 1].in_begin; ++e) {
      if (sources[e] != pull_pad) sum += share[sources[e]];
    }
    const double value = g.base[lo + nodes[p].local_id] + sum;
    influence[lo + nodes[p].local_id] = value;
    share[p] = nodes[p].out_degree ? value / static_cast<double>(nodes[p].out_degree) : 0.0;
  }
  return record.num_stalled;
}

influence_result sweep_pull_layout(const spreading_graphs& g, const pull_layout& layout) {
  WF_EXPECTS(layout.graphs.size() == g.num_graphs(), "layout", "built for another graph set");
  influence_result r;
  r.influence.assign(g.num_nodes(), 0.0);
  std::vector<double> share;
  sweep_scratch scratch;
  std::vector<std::uint64_t> stalled(g.num_graphs(), 0);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    stalled[t] = layout.included[t] ? sweep_pull_graph(g, layout, t, r.influence.data(), share)
                                    : sweep_graph(g, t, r.influence.data(), scratch);
  }
  r.backward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  collect_cycles(stalled, r);
  return r;
}

}  // namespace wildfire::twitter::detail
