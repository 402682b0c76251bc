// The staged layout of the `staged` GPU sweep (src/twitter/staged_layout.*): its stage limits and
// far-sum chunks, and its host sweep in the device's data order (which checks every near entry
// against its window, its near slots against its in-list and every far sum's coverage) against
// the Kahn reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "twitter/staged_layout.hpp"
#include "twitter/twitter_fixtures.hpp"
#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {
namespace {

std::vector<std::uint32_t> every_graph(const spreading_graphs& g) {
  std::vector<std::uint32_t> all(g.num_graphs());
  std::iota(all.begin(), all.end(), 0u);
  return all;
}

/// Stage records, limits and chunk bounds of every staged graph.
void expect_stage_invariants(const spreading_graphs& g, const pull_layout& pull, const staged_layout& s) {
  std::uint32_t most = 0;
  for (const staged_graph& record : s.graphs) {
    const pull_graph& r = pull.graphs[record.graph];
    const staged_stage* st = s.stages.data() + record.stage_base;
    const std::uint32_t* start = s.near_start.data() + pull.node_index(g, record.graph);
    ASSERT_GE(record.num_stages, 1u);
    EXPECT_EQ(st[0].first_level, 0u);
    EXPECT_EQ(st[record.num_stages].first_level, r.num_levels);
    EXPECT_EQ(st[record.num_stages].first_position, g.graph_size(record.graph));
    for (std::uint32_t k = 0; k < record.num_stages; ++k) {
      ASSERT_LT(st[k].first_level, st[k + 1].first_level);
      EXPECT_LE(st[k + 1].first_level - st[k].first_level, staged_max_stage_levels);
      EXPECT_LE(st[k + 1].first_position - st[k].first_position, staged_max_stage_nodes);
      EXPECT_LE(start[st[k + 1].first_position] - start[st[k].first_position], staged_max_stage_near);
      EXPECT_EQ(pull.levels[r.level_base + st[k].first_level].first_position, st[k].first_position);
    }
    most = std::max(most, record.num_stages);
    EXPECT_LE(record.first_step + record.num_stages, s.num_steps);
    // The device copies a stage's near slots in whole units: every run starts on one and the
    // graph's slots lie inside the list.
    EXPECT_EQ(record.near_base % staged_near_unit, 0u);
    for (std::uint32_t p = 0; p <= g.graph_size(record.graph); ++p) {
      ASSERT_EQ(start[p] % staged_near_unit, 0u) << p;
      if (p < g.graph_size(record.graph)) {
        ASSERT_EQ(s.older_near[pull.node_index(g, record.graph) + p] % staged_near_unit, 0u) << p;
      }
    }
    EXPECT_LE(record.near_base + start[g.graph_size(record.graph)], s.near_slots.size());
  }
  EXPECT_EQ(s.num_steps, most);
  // Every step lasts as long as its longest stage: the critical path holds at least the levels of
  // any one graph, exactly those with one graph, and at most all levels of all graphs.
  std::uint64_t most_levels = 0, all_levels = 0;
  for (const staged_graph& record : s.graphs) {
    most_levels = std::max<std::uint64_t>(most_levels, pull.graphs[record.graph].num_levels);
    all_levels += pull.graphs[record.graph].num_levels;
  }
  EXPECT_GE(critical_levels(s), most_levels);
  EXPECT_LE(critical_levels(s), all_levels);
  if (s.graphs.size() == 1) {
    EXPECT_EQ(critical_levels(s), most_levels);
  }
  // Every slot (padding included) is a byte offset of a window slot or of the zero slot.
  EXPECT_EQ(s.near_slots.size() % staged_near_unit, 0u);
  for (std::uint16_t slot : s.near_slots) {
    ASSERT_EQ(slot % 8, 0u);
    ASSERT_LE(slot, 8 * staged_zero_slot);
  }
  ASSERT_EQ(s.chunk_offsets.size(), static_cast<std::size_t>(s.num_steps) + 1);
  EXPECT_EQ(s.chunk_offsets.back(), s.chunks.size());
  // Each chunk sits at its graph's pass step; its pass has a stage before and one after it. A
  // chunk lies in one slot, and each slot gets passes 1, 2, ... in step order, so that a chunk may
  // wait for its slot's previous pass alone; within a step, the chunks of each graph's next stage
  // come first.
  ASSERT_EQ(s.step_bytes.size(), static_cast<std::size_t>(s.num_steps));
  std::uint32_t slots = 0;
  for (const staged_graph& record : s.graphs) {
    EXPECT_EQ(record.slot_base, slots);
    slots += (s.stages[record.stage_base + record.num_stages].first_position + staged_chunk_nodes - 1) / staged_chunk_nodes;
  }
  EXPECT_EQ(s.num_slots, slots);
  std::vector<std::uint32_t> slot_passes(slots, 0);
  for (std::uint32_t step = 0; step < s.num_steps; ++step) {
    bool later_stages = false;
    for (std::uint64_t c = s.chunk_offsets[step]; c < s.chunk_offsets[step + 1]; ++c) {
      const staged_chunk& chunk = s.chunks[c];
      const staged_graph& record = s.graphs[chunk.staged];
      EXPECT_EQ(record.first_step + chunk.pass, step);
      EXPECT_GE(chunk.pass, 1u);
      EXPECT_LT(chunk.pass + 1, record.num_stages);
      ASSERT_LT(chunk.first, chunk.last);
      EXPECT_EQ(chunk.first / staged_chunk_nodes, (chunk.last - 1) / staged_chunk_nodes);
      std::uint32_t& passes = slot_passes[record.slot_base + chunk.first / staged_chunk_nodes];
      EXPECT_EQ(passes + 1, chunk.pass);
      passes = chunk.pass;
      const bool next_stage = chunk.first < s.stages[record.stage_base + chunk.pass + 2].first_position;
      EXPECT_FALSE(next_stage && later_stages);
      later_stages = later_stages || !next_stage;
    }
    if (s.chunk_offsets[step] == s.chunk_offsets[step + 1]) {
      EXPECT_EQ(s.step_bytes[step], 0u);
    }
  }
}

void expect_staged_sweep_matches(const spreading_graphs& g, const staged_layout& s, const pull_layout& pull, double tolerance) {
  const influence_result reference = backward_sequential(g);
  const influence_result staged = sweep_staged_layout(g, pull, s);
  EXPECT_EQ(staged.cyclic_graphs, reference.cyclic_graphs);
  EXPECT_EQ(staged.num_stalled_nodes, reference.num_stalled_nodes);
  ASSERT_EQ(staged.influence.size(), reference.influence.size());
  for (std::size_t i = 0; i < reference.influence.size(); ++i) {
    ASSERT_LE(std::abs(staged.influence[i] - reference.influence[i]), tolerance * std::max(1.0, std::abs(reference.influence[i])))
        << "node " << i;
  }
}

TEST(StagedLayout, HandCheckedExamplesExactly) {
  for (const spreading_graphs& g : {testing::worked_example(), testing::diamond_example(), testing::cycle_example()}) {
    const pull_layout pull = build_pull_layout(g, 1);
    const staged_layout s = build_staged_layout(g, pull, every_graph(g), 100);
    ASSERT_EQ(s.graphs.size(), 1u);
    expect_stage_invariants(g, pull, s);
    EXPECT_EQ(sweep_staged_layout(g, pull, s).influence, backward_sequential(g).influence);
  }
}

TEST(StagedLayout, MixedSetWithCycles) {
  const spreading_graphs g = testing::mixed_set(5);
  const pull_layout pull = build_pull_layout(g, 2);
  const staged_layout s = build_staged_layout(g, pull, every_graph(g), 1000);
  expect_stage_invariants(g, pull, s);
  EXPECT_GT(s.graphs.size(), 10u);
  expect_staged_sweep_matches(g, s, pull, 1e-12);
}

TEST(StagedLayout, DenseGraphsTakeManyStagesAndFarSums) {
  // RSG graphs of the Large shape: thousands of levels of a few nodes, in-lists of hundreds of
  // entries, so stages end at the near-entry limit and most pulls are far ones.
  rsg_params p;
  p.seed = 4;
  p.batches = {{2, 2500, 3000, 10.0}, {1, 4000, 4000, 5.0}, {3, 40, 200, 10.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  const pull_layout pull = build_pull_layout(g, 2);
  const staged_layout s = build_staged_layout(g, pull, every_graph(g), 1000);
  expect_stage_invariants(g, pull, s);
  ASSERT_EQ(s.graphs.size(), g.num_graphs());
  EXPECT_GT(s.num_steps, 10u);
  EXPECT_GT(s.chunks.size(), 100u);
  // The graph with the most levels comes first.
  for (std::size_t j = 1; j < s.graphs.size(); ++j) {
    EXPECT_GE(pull.graphs[s.graphs[j - 1].graph].num_levels, pull.graphs[s.graphs[j].graph].num_levels);
  }
  EXPECT_LT(s.num_near, g.num_edges() / 2);
  expect_staged_sweep_matches(g, s, pull, 1e-12);
  // Balanced starts never lengthen a step: no step's longest stage is longer than with every
  // graph starting at step 0, and the sweep gets the same bits either way.
  const staged_layout together = build_staged_layout(g, pull, every_graph(g), 1000, staged_start::together);
  expect_stage_invariants(g, pull, together);
  for (const staged_graph& record : together.graphs) EXPECT_EQ(record.first_step, 0u);
  EXPECT_LE(critical_levels(s), critical_levels(together));
  EXPECT_EQ(sweep_staged_layout(g, pull, together).influence, sweep_staged_layout(g, pull, s).influence);
}

/// One dense RSG graph of 2,000 nodes with its pull and staged layouts, for the tests that break
/// a layout on purpose.
struct staged_graph_set {
  spreading_graphs g;
  pull_layout pull;
  staged_layout s;
};
staged_graph_set one_dense_staged_graph() {
  rsg_params p;
  p.seed = 9;
  p.batches = {{1, 2000, 2000, 10.0}};
  staged_graph_set set{generate_rsg(p, 2), {}, {}};
  set.pull = build_pull_layout(set.g, 2);
  set.s = build_staged_layout(set.g, set.pull, every_graph(set.g), 1000);
  return set;
}

TEST(StagedLayout, TheSweepChecksNearSlotsOlderCountsAndRecentSlots) {
  // The device takes each position's near entries as window slots, its older run length and
  // recent window slots from the layout, and cannot check them against positions: the host sweep
  // checks all three against the in-lists, so a wrong one cannot pass unnoticed.
  const auto [g, pull, s] = one_dense_staged_graph();
  ASSERT_EQ(s.graphs.size(), 1u);
  EXPECT_NO_THROW(sweep_staged_layout(g, pull, s));
  // A position deep in the graph has both older and recent entries.
  const std::uint64_t record = pull.node_index(g, s.graphs[0].graph) + g.graph_size(s.graphs[0].graph) - 1;
  ASSERT_GT(s.older_near[record], 0u);
  ASSERT_NE(s.recent_slots[record * staged_recent_slots], 8 * staged_zero_slot);
  staged_layout older = s;
  --older.older_near[record];
  EXPECT_THROW(sweep_staged_layout(g, pull, older), error);
  staged_layout slot = s;
  slot.recent_slots[record * staged_recent_slots] = 8 * staged_zero_slot;
  EXPECT_THROW(sweep_staged_layout(g, pull, slot), error);
  // A near slot of the older run pointing at another window slot, and one of its padding made a
  // real slot.
  const std::uint32_t first = s.near_start[record] + static_cast<std::uint32_t>(s.graphs[0].near_base);
  ASSERT_NE(s.near_slots[first], 8 * staged_zero_slot);
  staged_layout moved = s;
  moved.near_slots[first] = static_cast<std::uint16_t>(s.near_slots[first] == 0 ? 8 : s.near_slots[first] - 8);
  EXPECT_THROW(sweep_staged_layout(g, pull, moved), error);
  std::uint64_t padded_at = 0;  // the last slot of an older run that ends in padding
  for (std::uint64_t q = record; q > pull.node_index(g, s.graphs[0].graph) && padded_at == 0; --q) {
    const std::uint64_t last = s.graphs[0].near_base + s.near_start[q] + s.older_near[q] - 1;
    if (s.older_near[q] > 0 && s.near_slots[last] == 8 * staged_zero_slot) padded_at = last;
  }
  ASSERT_GT(padded_at, 0u);
  staged_layout padded = s;
  padded.near_slots[padded_at] = 0;
  EXPECT_THROW(sweep_staged_layout(g, pull, padded), error);
}

TEST(StagedLayout, TheSweepChecksTheFarRuns) {
  // The device adds whatever a chunk's far runs hold (it checks only that each entry lies in the
  // source stage), so the host sweep checks them entry by entry against the in-lists.
  const auto [g, pull, s] = one_dense_staged_graph();
  ASSERT_EQ(s.graphs.size(), 1u);
  EXPECT_NO_THROW(sweep_staged_layout(g, pull, s));
  // Runs are whole units in chunk order, each chunk's right after the previous one's.
  ASSERT_FALSE(s.chunks.empty());
  EXPECT_EQ(s.far_runs.size(), s.chunks.back().run_base + s.chunks.back().last - s.chunks.back().first + 1);
  EXPECT_EQ(std::uint64_t{s.far_runs.back()} * pull_align, s.far_entries.size());
  for (std::size_t i = 1; i < s.far_runs.size(); ++i) ASSERT_LE(s.far_runs[i - 1], s.far_runs[i]);
  // A chunk whose first position's run has two entries or more.
  std::size_t c = 0;
  std::uint64_t at = 0;
  for (; c < s.chunks.size(); ++c) {
    at = std::uint64_t{s.far_runs[s.chunks[c].run_base]} * pull_align;
    if (s.far_runs[s.chunks[c].run_base + 1] > s.far_runs[s.chunks[c].run_base] && s.far_entries[at + 1] != pull_pad) break;
  }
  ASSERT_LT(c, s.chunks.size());
  staged_layout swapped = s;  // another source of the same stage: the device cannot tell
  swapped.far_entries[at] = s.far_entries[at + 1];
  EXPECT_THROW(sweep_staged_layout(g, pull, swapped), error);
  staged_layout dropped = s;  // the run's first entry missing, the rest moved up
  std::copy(s.far_entries.begin() + static_cast<std::ptrdiff_t>(at + 1), s.far_entries.begin() + static_cast<std::ptrdiff_t>(at + pull_align),
            dropped.far_entries.begin() + static_cast<std::ptrdiff_t>(at));
  dropped.far_entries[at + pull_align - 1] = pull_pad;
  EXPECT_THROW(sweep_staged_layout(g, pull, dropped), error);
  staged_layout shifted = s;  // a run record pointing one unit on
  ++shifted.far_runs[s.chunks[c].run_base];
  EXPECT_THROW(sweep_staged_layout(g, pull, shifted), error);
}

std::uint64_t busiest_step(const staged_layout& s) { return *std::max_element(s.step_bytes.begin(), s.step_bytes.end()); }

TEST(StagedLayout, BalancedStartsSpreadTheFarWorkWithoutLongerSteps) {
  // One long graph and eight shorter ones of one shape: starting together, the shorter graphs'
  // heavy first passes fall on the same steps; balanced, they start at different steps, each
  // re-planned so that none of its stages is longer than the long graph's at that step.
  rsg_params p;
  p.seed = 9;
  p.batches = {{1, 5000, 5000, 5.0}, {8, 1500, 1500, 5.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  const pull_layout pull = build_pull_layout(g, 2);
  const staged_layout s = build_staged_layout(g, pull, every_graph(g), 1000);
  const staged_layout together = build_staged_layout(g, pull, every_graph(g), 1000, staged_start::together);
  expect_stage_invariants(g, pull, s);
  ASSERT_EQ(s.graphs.size(), g.num_graphs());
  std::uint32_t longest = 0;
  for (const staged_graph& record : s.graphs) longest = std::max(longest, pull.graphs[record.graph].num_levels);
  EXPECT_EQ(critical_levels(s), longest);
  EXPECT_GT(critical_levels(together), longest);
  std::set<std::uint32_t> starts;
  for (const staged_graph& record : s.graphs) starts.insert(record.first_step);
  EXPECT_GT(starts.size(), 4u);
  EXPECT_LT(busiest_step(s), busiest_step(together) / 2);
  expect_staged_sweep_matches(g, s, pull, 1e-12);
}

TEST(StagedLayout, IntegerSharesAreExactOnLongChains) {
  // Out-degree 1 everywhere: every share and partial sum is an integer, so the staged order
  // (base + far, then near) gives the Kahn sweep's bits. Node v credits v - 1, or v - 2 one time
  // in 64 (then v - 1 may be a source), so the graphs are chains of thousands of narrow levels.
  std::mt19937_64 rng(8);
  spreading_graphs g;
  g.user_ids = {"u"};
  for (std::uint32_t n : {1u, 2u, 33u, 1500u, 9000u}) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::vector<double> base(n);
    for (std::uint32_t v = 0; v < n; ++v) {
      base[v] = static_cast<double>(rng() % 1000);
      if (v > 0) edges.emplace_back(v, v > 1 && rng() % 64 == 0 ? v - 2 : v - 1);
    }
    append_graph(g, "forest", base, std::vector<std::uint32_t>(n, 0), edges);
  }
  const pull_layout pull = build_pull_layout(g, 2);
  const staged_layout s = build_staged_layout(g, pull, every_graph(g), 1000);
  expect_stage_invariants(g, pull, s);
  EXPECT_EQ(s.graphs.size(), 5u);
  EXPECT_GT(s.num_steps, 100u);
  EXPECT_EQ(sweep_staged_layout(g, pull, s).influence, backward_sequential(g).influence);
}

TEST(StagedLayout, WideLevelsAndTheGraphLimitLeaveGraphsOut) {
  // Graph 0: a level of 1,500 sources (wider than a stage): left out. Graphs 1-3: chains of
  // 300, 200 and 100 levels; with room for two, the two longest are staged.
  spreading_graphs g;
  g.user_ids = {"u"};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> wide;
  for (std::uint32_t v = 0; v < 1500; ++v) wide.emplace_back(v, 1500);
  append_graph(g, "wide", std::vector<double>(1501, 1.0), std::vector<std::uint32_t>(1501, 0), wide);
  for (std::uint32_t n : {100u, 300u, 200u}) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chain;
    for (std::uint32_t v = 1; v < n; ++v) chain.emplace_back(v, v - 1);
    append_graph(g, "chain", std::vector<double>(n, 2.0), std::vector<std::uint32_t>(n, 0), chain);
  }
  const pull_layout pull = build_pull_layout(g, 1);
  const staged_layout s = build_staged_layout(g, pull, every_graph(g), 2);
  ASSERT_EQ(s.graphs.size(), 2u);
  EXPECT_EQ(s.graphs[0].graph, 2u);
  EXPECT_EQ(s.graphs[1].graph, 3u);
  expect_stage_invariants(g, pull, s);
  EXPECT_EQ(sweep_staged_layout(g, pull, s).influence, backward_sequential(g).influence);
  EXPECT_TRUE(build_staged_layout(g, pull, {0}, 10).graphs.empty());
}

TEST(StagedLayout, CycleInsideADenseGraph) {
  // A two-node cycle near the sink: the stalled group (the cycle and what it reaches) is the
  // last level and its in-lists name finished predecessors only.
  const spreading_graphs g = testing::rsg_graph_with_edges(9, 2000, 5.0, {{1990, 1995}, {1995, 1990}});
  const pull_layout pull = build_pull_layout(g, 2);
  const staged_layout s = build_staged_layout(g, pull, {0}, 1);
  ASSERT_EQ(s.graphs.size(), 1u);
  EXPECT_GT(pull.graphs[0].num_stalled, 0u);
  expect_stage_invariants(g, pull, s);
  expect_staged_sweep_matches(g, s, pull, 1e-12);
}

}  // namespace
}  // namespace wildfire::twitter::detail
