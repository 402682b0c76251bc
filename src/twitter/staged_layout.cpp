// Staged layout (see staged_layout.hpp): greedy stages of consecutive levels within the limits,
// near entries as window slots per position, first steps that balance the far work, far-sum
// chunks per step.
#include "twitter/staged_layout.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <span>
#include <string>

#include "twitter/backward_sweep.hpp"
#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {

namespace {

/// The byte offset of a position's share in a critical block's window, and of the zero slot.
std::uint16_t window_offset(std::uint16_t position) { return static_cast<std::uint16_t>(8 * (position % staged_window)); }
constexpr std::uint16_t zero_offset = 8 * staged_zero_slot;

/// One graph of the pull layout as the staged builder and sweep read it.
struct pull_graph_view {
  std::uint64_t lo;  // first node of the graph in the input
  std::uint32_t n;
  const pull_node* nodes;    // n + 1 records
  const pull_level* levels;  // num_levels + 1 records
  std::uint32_t num_levels;
  const std::uint16_t* sources;

  pull_graph_view(const spreading_graphs& g, const pull_layout& pull, std::uint64_t t)
      : lo(g.graph_offsets[t]),
        n(static_cast<std::uint32_t>(g.graph_size(t))),
        nodes(pull.nodes.data() + pull.node_index(g, t)),
        levels(pull.levels.data() + pull.graphs[t].level_base),
        num_levels(pull.graphs[t].num_levels),
        sources(pull.sources.data() + pull.graphs[t].entry_base) {}

  /// The entries of position p's in-list at or above `from`, without padding (in-lists are sorted
  /// and padded with pull_pad, the largest 16-bit value, at the end).
  std::pair<const std::uint16_t*, const std::uint16_t*> entries_from(std::uint32_t p, std::uint32_t from) const {
    const std::uint16_t* begin = sources + nodes[p].in_begin;
    const std::uint16_t* end = std::lower_bound(begin, sources + nodes[p + 1].in_begin, pull_pad);
    return {std::lower_bound(begin, end, static_cast<std::uint16_t>(std::min<std::uint32_t>(from, pull_pad))), end};
  }
  /// The first position of level l's recent entries (those the chain warp adds): the level
  /// staged_recent_levels back; entries below it are older (a level helper adds them).
  std::uint32_t recent_from(std::uint32_t l) const {
    return l >= staged_recent_levels ? levels[l - staged_recent_levels].first_position : 0;
  }
  /// Position p's near entries (from window_first) split at recent_from: older, the first
  /// staged_recent_slots recent ones (the chain's slots) and the further recent ones.
  struct near_runs {
    const std::uint16_t *older, *recent, *further, *end;
    /// Its i-th recent slot (staged_layout::recent_slots): the entry's window offset, the zero
    /// slot's past its list.
    std::uint16_t recent_slot(std::uint32_t i) const { return recent + i < end ? window_offset(recent[i]) : zero_offset; }
  };
  near_runs near_entries(std::uint32_t p, std::uint32_t window_first, std::uint32_t recent_from) const {
    const auto [b, e] = entries_from(p, window_first);
    const std::uint16_t* recent = std::lower_bound(b, e, static_cast<std::uint16_t>(std::min<std::uint32_t>(recent_from, pull_pad)));
    return {b, recent, e - recent > staged_recent_slots ? recent + staged_recent_slots : e, e};
  }
  /// The near slots position p takes (staged_layout::near_slots): its older and further runs,
  /// each padded to whole units.
  std::uint32_t near_slot_count(std::uint32_t p, std::uint32_t window_first, std::uint32_t recent_from) const {
    const near_runs r = near_entries(p, window_first, recent_from);
    return whole_units(r.recent - r.older) + whole_units(r.end - r.further);
  }
  static std::uint32_t whole_units(std::ptrdiff_t entries) {
    return static_cast<std::uint32_t>((entries + staged_near_unit - 1) / staged_near_unit * staged_near_unit);
  }
};

/// Appends the window slots of the positions [b, e) to `slots`, padded to whole units with the
/// zero slot's.
void append_slots(std::vector<std::uint16_t>& slots, const std::uint16_t* b, const std::uint16_t* e) {
  for (const std::uint16_t* x = b; x < e; ++x) slots.push_back(window_offset(*x));
  while (slots.size() % staged_near_unit != 0) slots.push_back(zero_offset);
}

/// Greedy stages of one graph: a stage takes levels while it keeps within the limits, its near
/// slots counted against the window that starts at the previous stage's first position. With
/// `caps`, stage k takes at most caps[k] levels and the graph must fit caps.size() stages.
/// Returns false when a single level exceeds the limits or the stages do not fit the caps.
bool plan_stages(const pull_graph_view& v, std::vector<staged_stage>& stages, std::span<const std::uint32_t> caps = {}) {
  stages.clear();
  std::uint64_t near_total = 0;
  std::uint32_t level = 0;
  while (level < v.num_levels) {
    if (!caps.empty() && stages.size() == caps.size()) return false;
    const std::uint32_t cap = caps.empty() ? staged_max_stage_levels : std::min(staged_max_stage_levels, caps[stages.size()]);
    const std::uint32_t window_first = stages.empty() ? 0 : stages.back().first_position;
    const staged_stage stage{level, v.levels[level].first_position};
    std::uint32_t nodes = 0, near = 0, count = 0;
    while (level < v.num_levels && count < cap) {
      const std::uint32_t first = v.levels[level].first_position, last = v.levels[level + 1].first_position;
      std::uint32_t level_near = 0;
      for (std::uint32_t p = first; p < last; ++p) level_near += v.near_slot_count(p, window_first, v.recent_from(level));
      if (nodes + (last - first) > staged_max_stage_nodes || near + level_near > staged_max_stage_near) break;
      nodes += last - first;
      near += level_near;
      ++count;
      ++level;
    }
    if (count == 0) return false;  // one level alone is too wide for a critical block (or a cap is 0)
    stages.push_back(stage);
    near_total += near;
  }
  stages.push_back({v.num_levels, v.levels[v.num_levels].first_position});  // sentinel
  return near_total <= 0xffffffffULL;  // near_start is 32 bits
}

/// In-list entries by the level of their source, as prefix sums over the levels: a stage's pass
/// reads about its levels' entries (an over-estimate by its near ones), so a plan is priced
/// without walking its in-lists again.
std::vector<std::uint64_t> entries_by_source_level(const pull_graph_view& v) {
  std::vector<std::uint32_t> level_of(v.n);
  for (std::uint32_t l = 0; l < v.num_levels; ++l) {
    for (std::uint32_t p = v.levels[l].first_position; p < v.levels[l + 1].first_position; ++p) level_of[p] = l;
  }
  std::vector<std::uint64_t> prefix(v.num_levels + 1, 0);
  for (std::uint32_t p = 0; p < v.n; ++p) {
    const auto [b, e] = v.entries_from(p, 0);
    for (const std::uint16_t* x = b; x < e; ++x) ++prefix[level_of[*x] + 1];
  }
  for (std::uint32_t l = 0; l < v.num_levels; ++l) prefix[l + 1] += prefix[l];
  return prefix;
}

/// The far work of each pass k (1 .. num_stages - 2) of a plan, in bytes (staged_layout::step_bytes).
std::vector<std::uint64_t> pass_bytes(const std::vector<std::uint64_t>& by_level, const staged_stage* stages, std::uint32_t num_stages) {
  std::vector<std::uint64_t> bytes(num_stages, 0);
  const std::uint32_t n = stages[num_stages].first_position;
  for (std::uint32_t k = 1; k + 1 < num_stages; ++k) {
    const std::uint32_t targets = n - stages[k + 1].first_position;
    const std::uint32_t chunks = targets == 0 ? 0 : (n - 1) / staged_chunk_nodes - stages[k + 1].first_position / staged_chunk_nodes + 1;
    bytes[k] = 2 * (by_level[stages[k].first_level] - by_level[stages[k - 1].first_level]) + 48ull * targets +
               8ull * chunks * (stages[k].first_position - stages[k - 1].first_position);
  }
  return bytes;
}

/// Each graph's first step, when the layout is balanced. A step lasts as long as its longest stage
/// and at least its far work over the GPU, so a graph that starts at step o is re-planned with
/// stage k at most as long as the reference's (the graph with the most stages, starting at 0)
/// stage at step o + k: it then never lengthens a step. Among the starts where that fits, the
/// graphs with the most far work first each take the one that adds the least to the sum of
/// squares of the far work per step; a graph that fits no start keeps its own plan at step 0.
void assign_first_steps(const spreading_graphs& g, const pull_layout& pull, const std::vector<std::vector<std::uint64_t>>& by_level,
                        staged_layout& layout, std::vector<std::vector<staged_stage>>& plans) {
  const std::size_t count = layout.graphs.size();
  std::size_t reference = 0;
  for (std::size_t j = 1; j < count; ++j) {
    if (plans[j].size() > plans[reference].size()) reference = j;
  }
  const auto steps = static_cast<std::uint32_t>(plans[reference].size() - 1);
  std::vector<std::uint32_t> caps(steps);
  for (std::uint32_t k = 0; k < steps; ++k) caps[k] = plans[reference][k + 1].first_level - plans[reference][k].first_level;
  // Per graph and start, the far work per pass of its plan from there (empty where none fits).
  std::vector<std::vector<std::vector<std::uint64_t>>> work(count);
#pragma omp parallel for schedule(dynamic)
  for (std::size_t j = 0; j < count; ++j) {
    if (j == reference) continue;
    const pull_graph_view v(g, pull, layout.graphs[j].graph);
    work[j].resize(steps);
    std::vector<staged_stage> stages;
    for (std::uint32_t o = 0; o < steps; ++o) {
      if (!plan_stages(v, stages, std::span<const std::uint32_t>(caps).subspan(o))) continue;
      work[j][o] = pass_bytes(by_level[j], stages.data(), static_cast<std::uint32_t>(stages.size() - 1));
    }
  }
  std::vector<double> load(steps, 0.0), total(count, 0.0);
  for (std::size_t j = 0; j < count; ++j) {
    for (const auto& w : work[j]) total[j] = std::max(total[j], static_cast<double>(std::accumulate(w.begin(), w.end(), std::uint64_t{0})));
  }
  const std::vector<std::uint64_t> reference_work = pass_bytes(by_level[reference], plans[reference].data(), steps);
  for (std::uint32_t k = 0; k < steps; ++k) load[k] = static_cast<double>(reference_work[k]);
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < count; ++j) {
    if (j != reference) order.push_back(j);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return total[a] > total[b]; });
  for (std::size_t j : order) {
    std::int64_t best = -1;
    double best_cost = 0.0;
    for (std::uint32_t o = 0; o < steps; ++o) {
      const std::vector<std::uint64_t>& w = work[j][o];
      if (w.empty()) continue;
      double cost = 0.0;  // the growth of the sum of squares: 2 load . w + |w|^2
      for (std::uint32_t k = 0; k < w.size(); ++k) {
        const auto x = static_cast<double>(w[k]);
        cost += 2.0 * load[o + k] * x + x * x;
      }
      if (best < 0 || cost < best_cost) best = o, best_cost = cost;
    }
    if (best < 0) continue;
    const auto o = static_cast<std::uint32_t>(best);
    const std::vector<std::uint64_t>& w = work[j][o];
    for (std::uint32_t k = 0; k < w.size(); ++k) load[o + k] += static_cast<double>(w[k]);
    layout.graphs[j].first_step = o;
    plan_stages(pull_graph_view(g, pull, layout.graphs[j].graph), plans[j], std::span<const std::uint32_t>(caps).subspan(o));
  }
}

/// staged_layout::far_entries and far_runs from the chunks: a position's run for a chunk is its
/// in-list's entries in [source_first, source_end) (sorted lists: two binary searches), so the
/// chunks are laid out independently, in two passes: each run's units into far_runs (a chunk's
/// end record 0), whose exclusive scan gives every run's first unit and each chunk's end, then
/// the copies.
void lay_out_far_runs(const spreading_graphs& g, const pull_layout& pull, staged_layout& layout) {
  const std::size_t count = layout.chunks.size();
  std::uint64_t runs = 0;
  for (staged_chunk& chunk : layout.chunks) {
    chunk.run_base = static_cast<std::uint32_t>(runs);
    runs += chunk.last - chunk.first + 1;
  }
  WF_EXPECTS(runs <= 0xffffffffULL, "staged layout", "more far-sum position visits than 32-bit run records can index");
  auto run_of = [&](const staged_chunk& chunk, std::uint32_t p) {
    const pull_graph_view v(g, pull, layout.graphs[chunk.staged].graph);
    const auto [b, e] = v.entries_from(p, chunk.source_first);
    return std::pair{b, std::lower_bound(b, e, chunk.source_end)};
  };
  layout.far_runs.assign(runs, 0);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t c = 0; c < count; ++c) {
    const staged_chunk& chunk = layout.chunks[c];
    for (std::uint32_t p = chunk.first; p < chunk.last; ++p) {
      const auto [b, e] = run_of(chunk, p);
      layout.far_runs[chunk.run_base + p - chunk.first] = static_cast<std::uint32_t>((e - b + pull_align - 1) / pull_align);
    }
  }
  const std::uint64_t units = std::accumulate(layout.far_runs.begin(), layout.far_runs.end(), std::uint64_t{0});
  WF_EXPECTS(units <= 0xffffffffULL, "staged layout", "more far-entry units than 32-bit run records can address");
  std::exclusive_scan(layout.far_runs.begin(), layout.far_runs.end(), layout.far_runs.begin(), std::uint32_t{0});
  layout.far_entries.assign(units * pull_align, pull_pad);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t c = 0; c < count; ++c) {
    const staged_chunk& chunk = layout.chunks[c];
    for (std::uint32_t p = chunk.first; p < chunk.last; ++p) {
      const auto [b, e] = run_of(chunk, p);
      std::copy(b, e, layout.far_entries.begin() + static_cast<std::ptrdiff_t>(std::uint64_t{layout.far_runs[chunk.run_base + p - chunk.first]} * pull_align));
    }
  }
}

}  // namespace

staged_layout build_staged_layout(const spreading_graphs& g, const pull_layout& pull,
                                  const std::vector<std::uint32_t>& candidates, std::uint32_t max_graphs, staged_start when) {
  WF_EXPECTS(pull.graphs.size() == g.num_graphs(), "layout", "built for another graph set");
  staged_layout layout;
  layout.near_start.assign(pull.nodes.size(), 0);
  layout.older_near.assign(pull.nodes.size(), 0);
  layout.recent_slots.assign(pull.nodes.size() * staged_recent_slots, zero_offset);
  // Most levels first: the longest chains get critical blocks when there are too few.
  std::vector<std::uint32_t> order;
  for (std::uint32_t t : candidates) {
    if (t < g.num_graphs() && pull.included[t] && g.graph_size(t) > 0) order.push_back(t);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return pull.graphs[a].num_levels > pull.graphs[b].num_levels; });
  std::vector<std::vector<staged_stage>> plans;
  for (std::uint32_t t : order) {
    if (layout.graphs.size() >= max_graphs) break;
    std::vector<staged_stage> stages;
    if (!plan_stages(pull_graph_view(g, pull, t), stages)) continue;
    staged_graph record;
    record.graph = t;
    layout.graphs.push_back(record);
    plans.push_back(std::move(stages));
  }
  std::vector<std::vector<std::uint64_t>> by_level(layout.graphs.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t j = 0; j < layout.graphs.size(); ++j) by_level[j] = entries_by_source_level(pull_graph_view(g, pull, layout.graphs[j].graph));
  if (when == staged_start::balanced && !layout.graphs.empty()) assign_first_steps(g, pull, by_level, layout, plans);
  for (std::size_t j = 0; j < layout.graphs.size(); ++j) {
    staged_graph& record = layout.graphs[j];
    const std::vector<staged_stage>& stages = plans[j];
    const pull_graph_view v(g, pull, record.graph);
    record.num_stages = static_cast<std::uint32_t>(stages.size() - 1);
    record.stage_base = layout.stages.size();
    record.near_base = layout.near_slots.size();  // on a unit boundary: every run is padded to whole units
    layout.stages.insert(layout.stages.end(), stages.begin(), stages.end());
    // Near slots, stage by stage, with each position's older run length and recent slots;
    // positions past the last stage (none) keep the end.
    const std::uint64_t node = pull.node_index(g, record.graph);
    std::uint32_t* start = layout.near_start.data() + node;
    for (std::uint32_t s = 0; s < record.num_stages; ++s) {
      const std::uint32_t window_first = s > 0 ? stages[s - 1].first_position : 0;
      for (std::uint32_t l = stages[s].first_level; l < stages[s + 1].first_level; ++l) {
        for (std::uint32_t p = v.levels[l].first_position; p < v.levels[l + 1].first_position; ++p) {
          start[p] = static_cast<std::uint32_t>(layout.near_slots.size() - record.near_base);
          const pull_graph_view::near_runs r = v.near_entries(p, window_first, v.recent_from(l));
          append_slots(layout.near_slots, r.older, r.recent);
          layout.older_near[node + p] = static_cast<std::uint16_t>(layout.near_slots.size() - record.near_base - start[p]);
          for (std::uint32_t i = 0; i < staged_recent_slots; ++i) layout.recent_slots[(node + p) * staged_recent_slots + i] = r.recent_slot(i);
          append_slots(layout.near_slots, r.further, r.end);
          layout.num_near += static_cast<std::uint64_t>(r.end - r.older);
        }
      }
    }
    start[v.n] = static_cast<std::uint32_t>(layout.near_slots.size() - record.near_base);
    layout.num_steps = std::max(layout.num_steps, record.first_step + record.num_stages);
  }
  // The chunks and the far work, step by step.
  std::vector<std::vector<std::uint64_t>> work(layout.graphs.size());
  for (std::size_t j = 0; j < layout.graphs.size(); ++j) {
    work[j] = pass_bytes(by_level[j], layout.stages.data() + layout.graphs[j].stage_base, layout.graphs[j].num_stages);
  }
  for (staged_graph& record : layout.graphs) {
    record.slot_base = layout.num_slots;
    const std::uint32_t n = layout.stages[record.stage_base + record.num_stages].first_position;
    layout.num_slots += (n + staged_chunk_nodes - 1) / staged_chunk_nodes;
  }
  // A step's chunks: every graph's pass of that step, cut at slot bounds; the slots of each graph's
  // next stage first (the stage waits for them alone), then the others (needed a step later at the
  // earliest).
  layout.chunk_offsets.assign(1, 0);
  layout.step_bytes.assign(layout.num_steps, 0);
  for (std::uint32_t step = 0; step < layout.num_steps; ++step) {
    for (const bool next_stage : {true, false}) {
      for (std::uint32_t j = 0; j < layout.graphs.size(); ++j) {
        const staged_graph& record = layout.graphs[j];
        if (step <= record.first_step) continue;
        const std::uint32_t k = step - record.first_step;
        if (k + 1 >= record.num_stages) continue;
        const staged_stage* st = layout.stages.data() + record.stage_base;
        if (next_stage) layout.step_bytes[step] += work[j][k];
        const std::uint32_t end = st[record.num_stages].first_position, next_end = st[k + 2].first_position;
        for (std::uint32_t first = st[k + 1].first_position; first < end;) {
          const std::uint32_t last = std::min(end, (first / staged_chunk_nodes + 1) * staged_chunk_nodes);
          if ((first < next_end) == next_stage) {
            layout.chunks.push_back({j, k, first, last, static_cast<std::uint16_t>(st[k - 1].first_position),
                                     static_cast<std::uint16_t>(st[k].first_position), 0});
          }
          first = last;
        }
      }
    }
    layout.chunk_offsets.push_back(layout.chunks.size());
  }
  lay_out_far_runs(g, pull, layout);
  return layout;
}

std::uint64_t critical_levels(const staged_layout& staged) {
  std::vector<std::uint32_t> most(staged.num_steps, 0);
  for (const staged_graph& record : staged.graphs) {
    const staged_stage* st = staged.stages.data() + record.stage_base;
    for (std::uint32_t k = 0; k < record.num_stages; ++k) {
      std::uint32_t& m = most[record.first_step + k];
      m = std::max(m, st[k + 1].first_level - st[k].first_level);
    }
  }
  std::uint64_t sum = 0;
  for (std::uint32_t m : most) sum += m;
  return sum;
}

influence_result sweep_staged_layout(const spreading_graphs& g, const pull_layout& pull, const staged_layout& staged) {
  WF_EXPECTS(pull.graphs.size() == g.num_graphs(), "layout", "built for another graph set");
  influence_result r;
  r.influence.assign(g.num_nodes(), 0.0);
  std::vector<std::uint8_t> is_staged(g.num_graphs(), 0);
  for (const staged_graph& record : staged.graphs) is_staged[record.graph] = 1;
  std::vector<std::uint64_t> stalled(g.num_graphs(), 0);
  std::vector<double> share, far;
  sweep_scratch scratch;
  auto fault = [](const std::string& what) { throw error("staged layout fault: " + what); };
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    if (!is_staged[t]) {
      stalled[t] = pull.included[t] ? sweep_pull_graph(g, pull, t, r.influence.data(), share) : sweep_graph(g, t, r.influence.data(), scratch);
    }
  }
  // Far sums grow pass by pass from the chunks, as the device's helpers grow them: every position
  // of stage s >= 2 must be visited at passes 1 .. s - 1, its cursor ending where its near list
  // starts.
  far.assign(g.num_nodes(), 0.0);
  std::vector<std::uint32_t> cursor(g.num_nodes(), 0), visits(g.num_nodes(), 0);
  std::vector<std::vector<double>> shares(staged.graphs.size());
  for (std::uint32_t j = 0; j < staged.graphs.size(); ++j) shares[j].assign(g.graph_size(staged.graphs[j].graph), 0.0);
  for (std::uint32_t step = 0; step < staged.num_steps; ++step) {
    // Critical work of the step: each graph's stage k of it, from base + far + its near entries.
    for (std::uint32_t j = 0; j < staged.graphs.size(); ++j) {
      const staged_graph& record = staged.graphs[j];
      if (step < record.first_step || step - record.first_step >= record.num_stages) continue;
      const std::uint32_t k = step - record.first_step;
      const pull_graph_view v(g, pull, record.graph);
      const staged_stage* st = staged.stages.data() + record.stage_base;
      const std::uint32_t window_first = k > 0 ? st[k - 1].first_position : 0;
      const std::uint32_t* near_start = staged.near_start.data() + pull.node_index(g, record.graph);
      const std::uint16_t* slots = staged.near_slots.data() + record.near_base;
      if (st[k + 1].first_position - st[k].first_position > staged_max_stage_nodes ||
          st[k + 1].first_level - st[k].first_level > staged_max_stage_levels ||
          near_start[st[k + 1].first_position] - near_start[st[k].first_position] > staged_max_stage_near) {
        fault("stage past its limits");
      }
      const std::uint64_t records = pull.node_index(g, record.graph);
      std::vector<std::uint16_t> expected;
      for (std::uint32_t l = st[k].first_level; l < st[k + 1].first_level; ++l) {
        const std::uint32_t level_first = v.levels[l].first_position;
        for (std::uint32_t p = level_first; p < v.levels[l + 1].first_position; ++p) {
          // The near entries from the in-list; older ones (the level helpers') lie below the
          // level staged_recent_levels back, the chain's recent ones from there.
          const pull_graph_view::near_runs runs = v.near_entries(p, window_first, v.recent_from(l));
          if (k >= 2) {
            if (visits[v.lo + p] != k - 1) fault("far sum incomplete");
            if (v.sources + v.nodes[p].in_begin + cursor[v.lo + p] != runs.older) fault("cursor not at the near entries");
          }
          // The layout's view of them: the older run, the recent slots, the further run.
          const std::uint32_t older = staged.older_near[records + p];
          expected.clear();
          append_slots(expected, runs.older, runs.recent);
          if (near_start[p] % staged_near_unit != 0 || older != expected.size() || near_start[p + 1] - near_start[p] < older ||
              !std::equal(expected.begin(), expected.end(), slots + near_start[p])) {
            fault("older run not the near entries'");
          }
          for (std::uint32_t i = 0; i < staged_recent_slots; ++i) {
            if (staged.recent_slots[(records + p) * staged_recent_slots + i] != runs.recent_slot(i)) fault("recent slot not the near entry's");
          }
          expected.clear();
          append_slots(expected, runs.further, runs.end);
          if (near_start[p + 1] - near_start[p] - older != expected.size() || !std::equal(expected.begin(), expected.end(), slots + near_start[p] + older)) {
            fault("further run not the near entries'");
          }
          double sum = 0.0;
          for (const std::uint16_t* e = runs.older; e < runs.end; ++e) {
            if (*e >= level_first) fault("near entry outside its window");
            if (*e - window_first >= staged_window) fault("window too small");
            sum += shares[j][*e];
          }
          const pull_node node = v.nodes[p];
          if (node.local_id >= v.n) fault("bad local id");
          const double influence = (g.base[v.lo + node.local_id] + (k >= 2 ? far[v.lo + p] : 0.0)) + sum;
          r.influence[v.lo + node.local_id] = influence;
          shares[j][p] = node.out_degree ? influence / static_cast<double>(node.out_degree) : 0.0;
        }
      }
      if (k == 0) stalled[record.graph] = pull.graphs[record.graph].num_stalled;
    }
    // Helper work of the step: each graph's pass k of it, stage k - 1's shares into the far sums of
    // its later stages, from the chunk's far runs. Each run must be the in-list's next entries (a
    // cursor, relative to the in-list start, follows them), all of them below source_end and none
    // below source_first, in whole units padded with pull_pad.
    for (std::uint64_t c = staged.chunk_offsets[step]; c < staged.chunk_offsets[step + 1]; ++c) {
      const staged_chunk& chunk = staged.chunks[c];
      const staged_graph& record = staged.graphs[chunk.staged];
      const std::uint32_t k = chunk.pass;
      const pull_graph_view v(g, pull, record.graph);
      const staged_stage* st = staged.stages.data() + record.stage_base;
      if (k == 0 || record.first_step + k != step || k + 1 >= record.num_stages || chunk.source_first != st[k - 1].first_position ||
          chunk.source_end != st[k].first_position || chunk.first < st[k + 1].first_position || chunk.last > v.n ||
          static_cast<std::uint64_t>(chunk.run_base) + chunk.last - chunk.first >= staged.far_runs.size()) {
        fault("chunk outside its step");
      }
      for (std::uint32_t p = chunk.first; p < chunk.last; ++p) {
        if (visits[v.lo + p]++ != k - 1) fault("far sum visited out of order");
        const std::uint32_t begin = v.nodes[p].in_begin, end = v.nodes[p + 1].in_begin;
        std::uint32_t e = begin + (k == 1 ? 0 : cursor[v.lo + p]);
        const std::uint64_t run = staged.far_runs[chunk.run_base + p - chunk.first], run_end = staged.far_runs[chunk.run_base + p - chunk.first + 1];
        if (run > run_end || run_end * pull_align > staged.far_entries.size()) fault("far run outside the far entries");
        double part = 0.0;
        std::uint64_t x = run * pull_align;
        for (; x < run_end * pull_align && staged.far_entries[x] != pull_pad; ++x, ++e) {
          const std::uint16_t u = staged.far_entries[x];
          if (e >= end || v.sources[e] != u) fault("far run not the in-list's entries");
          if (u < chunk.source_first || u >= chunk.source_end) fault("far entry outside its source stage");
          part += shares[chunk.staged][u];
        }
        if (x + pull_align <= run_end * pull_align) fault("far run padded past its last unit");
        for (; x < run_end * pull_align; ++x) {
          if (staged.far_entries[x] != pull_pad) fault("far run padded with an entry");
        }
        if (e < end && v.sources[e] < chunk.source_end) fault("far run short of its source stage");
        cursor[v.lo + p] = e - begin;
        far[v.lo + p] = (k == 1 ? 0.0 : far[v.lo + p]) + part;
      }
    }
  }
  r.backward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  collect_cycles(stalled, r);
  return r;
}

}  // namespace wildfire::twitter::detail
