// Staged layout of the Large graphs for the `staged` GPU sweep (docs/twitter.md, "staged"): built
// on the host from the level-ordered pull layout (pull_layout.hpp). Each graph's levels are cut
// into stages of consecutive levels; a node's in-list is split at the first position of the stage
// before its own: the "far" prefix (predecessors at least one whole stage back) and the "near"
// suffix (the previous stage and its own). On the device, one block per graph (the critical block)
// solves stage k level by level from the near lists alone, while the other blocks add the shares
// of stage k - 1 (just final, held in shared memory) to the far sums of the stages after k; a
// stage waits for its own far sums and for the graph with the most stages to reach its step. The
// dependent chain per level then touches shared memory only, and the bulk of the pulls (the far
// entries, ~88% on the RSG set) runs spread over the whole GPU. A graph with fewer stages than
// the longest starts at a later step, chosen so that the far-sum work per step is balanced (a
// graph's early stages carry most of its far work, and with every graph starting at step 0 the
// first steps took most of the whole far work). Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "twitter/pull_layout.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter::detail {

/// Share slots of a critical block: a window of two consecutive stages, positions modulo this.
inline constexpr std::uint32_t staged_window = 2048;
/// Limits of one stage (what its critical block stages into shared memory).
inline constexpr std::uint32_t staged_max_stage_nodes = staged_window / 2;
inline constexpr std::uint32_t staged_max_stage_levels = 64;
inline constexpr std::uint32_t staged_max_stage_near = 16384;  // near slots, padding included
/// Near slots per 16-byte unit: every position's older and further runs (staged_layout::near_slots)
/// start on a unit and are padded to whole units.
inline constexpr std::uint32_t staged_near_unit = 8;
/// Positions per far-sum slot: a graph's positions fall into aligned slots of this many, and a
/// chunk (a block's unit of helper work, a thread per position) covers one slot or its tail.
inline constexpr std::uint32_t staged_chunk_nodes = 256;
/// The chain warp adds a node's near entries of its last staged_recent_levels levels (its
/// "recent" entries); its level helper has added the older ones. The first staged_recent_slots
/// recent entries reach the chain as byte offsets of their window slots (16 bits each, one 16-byte
/// record), the zero slot's (staged_window) past its list; further ones it reads one at a time.
inline constexpr std::uint32_t staged_recent_levels = 5;
inline constexpr std::uint32_t staged_recent_slots = 8;
inline constexpr std::uint32_t staged_zero_slot = staged_window;

/// One staged graph; its stages are stages[stage_base .. stage_base + num_stages] (a sentinel
/// stage at the end: the level count and n), its near entries start at near_base. Its stage k is
/// solved at step first_step + k.
struct staged_graph {
  std::uint32_t graph = 0;  // index in the spreading-graph set
  std::uint32_t num_stages = 0;
  std::uint64_t stage_base = 0;
  std::uint64_t near_base = 0;
  std::uint32_t first_step = 0;
  std::uint32_t slot_base = 0;  // its first far-sum slot among every staged graph's
};

/// First level (index into the graph's pull levels) and first position of a stage.
struct staged_stage {
  std::uint32_t first_level;
  std::uint32_t first_position;
};
static_assert(sizeof(staged_stage) == 8);

/// Helper work of pass k >= 1 of a graph (done at step first_step + k): for the positions
/// [first, last) of staged graph `staged` (all in stages k + 1 and later, within one slot), add to
/// their far sums the shares of their in-list entries in stage k - 1, the positions [source_first,
/// source_end). Those entries, a run of each sorted in-list, are copied per chunk
/// (staged_layout::far_entries): the run of position first + i from unit far_runs[run_base + i] to
/// far_runs[run_base + i + 1]. A slot gets one chunk from each of passes 1, 2, ... up to the last
/// that reaches it, in that order.
struct staged_chunk {
  std::uint32_t staged;
  std::uint32_t pass;
  std::uint32_t first;
  std::uint32_t last;
  std::uint16_t source_first;
  std::uint16_t source_end;
  std::uint32_t run_base;
};
static_assert(sizeof(staged_chunk) == 24);

struct staged_layout {
  std::vector<staged_graph> graphs;  // critical-block order (most levels first)
  std::vector<staged_stage> stages;
  /// Per node record of the pull layout (graph t's n + 1 entries at node_index(g, t)): the first
  /// near slot of each position, relative to its graph's near_base; only staged graphs are set.
  std::vector<std::uint32_t> near_start;
  /// The near entries as the byte offsets of their window slots (8 x (position mod staged_window)),
  /// in position order, each position's in two runs padded to whole units with the zero slot's
  /// offset: its older entries (below its level - staged_recent_levels: a level helper adds them)
  /// and its recent entries past its first staged_recent_slots (rare: the chain warp adds them one
  /// at a time). So a helper adds whole units without a bound or a position to translate. Structure
  /// only: the host sweep checks them against the in-lists.
  std::vector<std::uint16_t> near_slots;
  /// Per node record, like near_start: the length of the position's older run (padding included,
  /// a multiple of staged_near_unit), and its first staged_recent_slots recent entries' window
  /// slots (byte offsets, the zero slot's past its list; one 16-byte record).
  std::vector<std::uint16_t> older_near;
  std::vector<std::uint16_t> recent_slots;
  /// The chunks of step K, every graph's pass K - first_step: chunks[chunk_offsets[K] ..
  /// chunk_offsets[K + 1]], first every graph's chunks of the slots of its next stage (stage K -
  /// first_step + 1, which waits for them), then the rest. num_steps = the most first_step +
  /// num_stages of any staged graph (the most stages: a graph starts no later than it can end with
  /// the longest).
  std::vector<std::uint64_t> chunk_offsets;
  std::vector<staged_chunk> chunks;
  /// The far entries in chunk order: per chunk, its positions' runs of in-list entries in its
  /// source stage, in position order, each padded with pull_pad to whole units of pull_align
  /// entries. A chunk reads one contiguous range (in the in-lists its positions' runs lie a whole
  /// in-list apart) and needs no cursor into the in-lists; far_runs holds, per chunk, the first
  /// unit of each position's run and the end of the last (chunk.last - chunk.first + 1 entries).
  std::vector<std::uint16_t> far_entries;
  std::vector<std::uint32_t> far_runs;
  std::uint32_t num_steps = 0;
  std::uint32_t num_slots = 0;  // far-sum slots of every staged graph
  /// The far-sum work of each step in bytes, estimated: 2 per in-list entry whose source lies in
  /// the stage a pass adds (its near entries included), 48 per position visit, 8 per source share
  /// a chunk stages. What balanced starts even out.
  std::vector<std::uint64_t> step_bytes;
  std::uint64_t num_near = 0;  // near entries, each counted once (near_slots holds fewer or more)
};

/// When a graph with fewer stages than the longest starts: at step 0 (every graph at once) or at
/// the step that balances the far-sum work per step (greedily, the graphs with the most work first).
enum class staged_start { together, balanced };

/// Lays out the graphs of `candidates` (indices included in `pull`) that fit the stage limits
/// (every level at most staged_max_stage_nodes nodes and staged_max_stage_near near entries),
/// at most `max_graphs` of them, those with the most levels first; the others are left out (a
/// caller sweeps them another way). O(entries of the staged graphs), plus, balanced, a plan per
/// graph and start (OpenMP over the graphs).
staged_layout build_staged_layout(const spreading_graphs& g, const pull_layout& pull,
                                  const std::vector<std::uint32_t>& candidates, std::uint32_t max_graphs,
                                  staged_start when = staged_start::balanced);

/// The levels on the cooperative kernel's critical path: over the steps, the most levels any
/// staged graph solves in that step (a stage waits for the graph with the most stages to reach its
/// step, so a step lasts about as long as its longest stage). At least the levels of the graph
/// with the most.
std::uint64_t critical_levels(const staged_layout& staged);

/// The staged sweep done on the host, in the device's data order (step by step, every graph's stage
/// of that step: base plus the far sum, plus the near sum, every near entry checked to lie in its
/// window and its slots, older count and recent slots checked against it; far sums grown chunk by
/// chunk from the far runs, each run checked against the in-list, entry by entry, and the runs of a
/// position to end where its near entries start); graphs
/// not in `staged` are swept as sweep_pull_layout does. Throws wildfire::error on a layout fault.
/// For tests: equals backward_sequential to rounding, exactly with integer shares.
influence_result sweep_staged_layout(const spreading_graphs& g, const pull_layout& pull, const staged_layout& staged);

}  // namespace wildfire::twitter::detail
