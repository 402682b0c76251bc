// Staged sweep of the Large graphs (ours; docs/twitter.md "staged"; layout in
// twitter/staged_layout.hpp). One cooperative grid, all blocks resident, so blocks may wait for
// each other, and a kernel of small far-sum blocks beside it. Block j of the grid solves staged
// graph j stage by stage:
//   - critical: stage k level by level. A node's value is its base plus its far sum (complete
//     before the stage starts) plus its near entries, whose shares (the previous stage and this
//     one) sit in a shared-memory window; the stage's node records, near slots and base values
//     are copied into shared memory while its far sums are still being added, the far sums once
//     complete. Two warps (the chain) then solve the levels in turn, adding each node's entries
//     of its last few levels; the block's other warps (level helpers) have added its older ones
//     ahead of them. A level's chain is a few shared-memory reads, adds and one division inside
//     one warp. The block then publishes the stage in its graph's progress record;
//   - far sums: pass k + 1 of a graph adds the shares of its stage k to the far sums of the
//     positions of its stages after k + 1, in chunks of one slot of positions each, which any
//     block may claim once the stage is published and the slot's pass k is done (a chunk holds
//     the source shares in shared memory), in step order by one ticket. A critical block waiting
//     for its next stage's far sums claims chunks up to the step before its stage; the far-sum
//     blocks, and every critical block once its graph is solved, take the rest.
// A stage waits only for the far sums of its own slots and for the reference graph (the one with the
// most stages) to reach the stage's step first_step + k: the layout staggers the graphs' starts
// to balance the far work per step. (Until the seventeenth session a grid barrier ended every
// step, so each step lasted as long as the slowest stage or far-sum work of any graph, and the
// grid's spare blocks took the far sums with 92.5 KB of shared memory each.) Far entries
// are ~88% of the pulls on the RSG set, so the bulk of the work is spread over the whole GPU while
// the dependent chain per level stays inside one SM. No atomics on values (sums in a fixed order):
// a run is deterministic. Included only by twitter_backward.cu.
#pragma once

#include <cuda/atomic>
#include <cuda_pipeline.h>

#include <cstdint>

#include "cuda/twitter_pull_kernels.cuh"
#include "twitter/degree_division.hpp"
#include "twitter/staged_layout.hpp"

namespace wildfire::cuda::twitter_kernels {

/// A far-sum chunk (twitter::detail::staged_chunk) with what its block needs of its graph, so
/// one load of the record starts the chunk.
struct staged_chunk_ref {
  std::uint64_t lo;          // the graph's first node: far sums and shares at lo + position
  std::uint64_t run_base;    // its positions' far runs: units far_runs[run_base + i] .. [+ i + 1]
  std::uint32_t slot;        // its slot among every staged graph's: the chunk may run once the
                             // slot's pass count reaches pass - 1 and its source stage is solved
  std::uint16_t pass;        // the graph's pass (1 starts the far sums)
  std::uint16_t staged;      // the staged graph (its critical block and progress record)
  std::uint16_t first;       // target positions [first, last) (positions fit 16 bits)
  std::uint16_t last;
  std::uint16_t source_first;  // source positions [source_first, source_end)
  std::uint16_t source_end;
};
static_assert(sizeof(staged_chunk_ref) == 32);

/// A staged graph's progress as its critical block publishes it (zero at launch): its stage s may
/// start once each slot of its positions has had passes 1 .. s - 1 (staged_view::slot_passes: its
/// far sums are complete) and once the reference graph has solved stage first_step + s - 1.
struct staged_progress {
  std::uint32_t stages_solved;
};

/// 16-byte far-run units a helper thread loads per round (a visit reads ~32 entries on average;
/// taking two positions a thread with 3 units each, to overlap more loads, was 8% slower on the
/// H100: the second round it needs more often costs another trip).
inline constexpr std::uint32_t staged_helper_units = 6;

struct staged_view {
  pull_view pull;  // pull.spill holds every staged position's share (graph offset + position)
  const twitter::detail::staged_graph* graphs;
  std::uint32_t num_graphs;  // at most the grid size: graph j is solved by block j
  const twitter::detail::staged_stage* stages;
  const std::uint32_t* near_start;  // per pull node record
  const std::uint16_t* near_slots;
  const std::uint16_t* older_near;  // per pull node record
  const uint4* recent_slots;        // per pull node record
  const std::uint64_t* chunk_offsets;  // num_steps + 1: the chunks of step k
  const staged_chunk_ref* chunks;      // in step order (a graph's pass k at step first_step + k)
  std::uint32_t num_chunks;
  std::uint32_t* slot_passes;          // per slot, the passes done on it; zero at launch
  std::uint32_t num_steps;
  std::uint32_t reference;    // the staged graph with the most stages (it starts at step 0); a
                              // stage waits for it to reach the stage's step
  const double* base;         // N: base values by graph offset + position (staged graphs only)
  double* far;                // N: far sums by graph offset + position
  const uint4* far_entries;    // the layout's far runs (twitter::detail::staged_layout::far_entries)
  const std::uint32_t* far_runs;
  staged_progress* progress;  // num_graphs records, zero at launch
  std::uint32_t* counters;    // staged_counters words (the chunk ticket, the cooperative blocks
                              // started, the far-sum blocks taking part), then the slots' pass
                              // counts; zero at launch
  std::uint64_t* timeline;    // null, or staged_timeline_slots per critical block and step, then
                              // block 0's SM clock and global timer at its start and end,
                              // then every block's span (staged_block_span_slots)
  std::uint64_t* chunk_trace;  // null, or staged_chunk_trace_slots per chunk (with timeline)
};

/// staged_view::counters: the next chunk's ticket (every chunk, in step order), the count of
/// cooperative blocks started and that of far-sum blocks taking part.
inline constexpr std::uint32_t staged_ticket_counter = 0, staged_started_counter = 1, staged_far_counter = 2, staged_counters = 3;

/// The bench's diagnostic timeline (the kernel's Timeline instance): per critical block and the
/// step of each of its stages, SM clock stamps once the stage may start (its far sums complete),
/// once it is in shared memory, after its levels and once it is published, written by thread 0
/// after block barriers (zero for steps without a stage of the block's graph); then the stage's
/// level count, the cycles the chain warps waited for level helpers (both warps' waits added) and
/// those the first level helper waited for the chain; then the global timer once the stage may
/// start and once it is published (to set beside the chunk trace: SM clocks differ between SMs),
/// and once thread 0 has staged its part of the stage (before the wait for its far sums).
/// The timed kernels are the other instances, without a trace of them.
inline constexpr std::uint32_t staged_timeline_slots = 10;
inline constexpr std::uint32_t staged_chain_wait_slot = 5, staged_helper_wait_slot = 6;
inline constexpr std::uint32_t staged_ready_ns_slot = 7, staged_published_ns_slot = 8, staged_staged_ns_slot = 9;
/// After those and the tail of four: per block (the critical blocks, then the far-sum blocks), its
/// SM, the global timer once it starts and once it leaves, and its staged graph (a critical block)
/// or whether it took part (a far-sum block).
inline constexpr std::uint32_t staged_block_span_slots = 4;
/// The chunk trace (traced instances): per chunk, the global timer when a block turns to it, once
/// it may run (its source stage published, its slot's previous pass done) and once it is
/// counted done, then the block that ran it (its index, plus staged_trace_far_block for a far-sum
/// block).
inline constexpr std::uint32_t staged_chunk_trace_slots = 4;
inline constexpr std::uint64_t staged_trace_far_block = std::uint64_t{1} << 32;

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// The timeline's tail (traced instances): block 0's SM clock and global timer at its start and
/// end, after every block's and step's slots.
__device__ __forceinline__ std::uint64_t* timeline_tail(const staged_view& v) {
  return v.timeline + std::uint64_t{staged_timeline_slots} * v.num_graphs * v.num_steps;
}
/// Block `index`'s span record (traced instances): critical blocks first, then far-sum blocks.
__device__ __forceinline__ std::uint64_t* block_span(const staged_view& v, std::uint64_t index) {
  return timeline_tail(v) + 4 + staged_block_span_slots * index;
}

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// A block's span record (thread 0): its SM and the global timer, at its start (`leaving` false)
/// or as it leaves.
__device__ __forceinline__ void stamp_block_span(std::uint64_t* span, bool leaving) {
  if (span == nullptr || threadIdx.x != 0) return;
  if (!leaving) span[0] = sm_id();
  span[leaving ? 2 : 1] = global_timer_ns();
}

__device__ __forceinline__ void stamp(std::uint64_t* stamps, std::uint32_t slot) {
  if (stamps != nullptr && threadIdx.x == 0) stamps[slot] = static_cast<std::uint64_t>(clock64());
}
__device__ __forceinline__ void stamp_ns(std::uint64_t* stamps, std::uint32_t slot) {
  if (stamps != nullptr && threadIdx.x == 0) stamps[slot] = global_timer_ns();
}

/// The stamp once a stage is in shared memory, with its level count.
__device__ __forceinline__ void stamp_staged(std::uint64_t* stamps, std::uint32_t levels) {
  stamp(stamps, 1);
  if (stamps != nullptr && threadIdx.x == 0) stamps[4] = levels;
}

inline constexpr std::uint32_t staged_error_bit = 8u;

/// Shared memory of a block: the share window (kept across steps) and one stage's data.
struct staged_shared {
  double* window;              // staged_window shares, position modulo the window, then the zero
                               // slot (never written) and a scratch slot (inactive chain lanes' stores)
  double* acc;                 // base + far per stage position, plus its older near entries once
                               // its level helper is done, and its influence once solved
  double* rcp;                 // RN(1 / out-degree) per stage position (0 for none)
  uint4* recent_slots;         // per stage position, the byte offsets in the window of its first
                               // staged_recent_slots chain entries' shares (the zero slot's past them)
  std::uint32_t* near_start;   // stage-relative, one past the stage's positions
  std::uint32_t* recent_start;  // per stage position, its first recent (chain) entry, stage-relative
  std::uint32_t* level_first;  // first position of the levels from staged_recent_levels before the
                               // stage to its end: level l of the stage at l + staged_recent_levels
  std::uint16_t* degree;       // out-degree per stage position
  uint4* near_units;           // the stage's near slots (window byte offsets), 8 a unit
};

/// The levels of a stage are split between the warps of its critical block: warps 0 and 1, the
/// chain warps, solve them in turn, adding to each node the near entries of its last
/// staged_recent_levels levels (twitter/staged_layout.hpp); the other warps (level helpers, one
/// level each in turn) have by then added its older near entries to its base value, as soon as
/// those were final.
using twitter::detail::staged_recent_levels;
using twitter::detail::staged_recent_slots;
using twitter::detail::staged_zero_slot;
inline constexpr std::size_t staged_near_start_slots = twitter::detail::staged_max_stage_nodes + 4;
inline constexpr std::size_t staged_level_slots =  // a multiple of four keeps what follows 16-byte aligned
    (twitter::detail::staged_max_stage_levels + staged_recent_levels + 4 + 3) / 4 * 4;
inline constexpr std::size_t staged_near_units = twitter::detail::staged_max_stage_near / twitter::detail::staged_near_unit;
/// Byte offsets of a critical block's arrays in its dynamic shared memory (carve_staged); the chain
/// warp and the level helpers address them from one 32-bit base (staged_base).
inline constexpr std::uint32_t staged_acc_at = 8 * (twitter::detail::staged_window + 2);
inline constexpr std::uint32_t staged_rcp_at = staged_acc_at + 8 * twitter::detail::staged_max_stage_nodes;
inline constexpr std::uint32_t staged_slots_at = staged_rcp_at + 8 * twitter::detail::staged_max_stage_nodes;
inline constexpr std::uint32_t staged_near_start_at = staged_slots_at + 16 * twitter::detail::staged_max_stage_nodes;
inline constexpr std::uint32_t staged_recent_start_at = staged_near_start_at + 4 * staged_near_start_slots;
inline constexpr std::uint32_t staged_level_first_at = staged_recent_start_at + 4 * staged_near_start_slots;
inline constexpr std::uint32_t staged_degree_at = staged_level_first_at + 4 * staged_level_slots;
inline constexpr std::size_t staged_units_offset = staged_degree_at + 2 * twitter::detail::staged_max_stage_nodes;
static_assert(staged_units_offset % 16 == 0, "the near units need 16-byte alignment in shared memory");
static_assert(staged_slots_at % 16 == 0, "the recent slots need 16-byte alignment in shared memory");
static_assert(8 * (twitter::detail::staged_window + 1) < 65536, "a window slot's byte offset fits 16 bits");

/// Accesses at 32-bit shared-memory addresses, for the chain warp and the level helpers (see
/// staged_base).
__device__ __forceinline__ double lds_f64(std::uint32_t address) {
  double value;
  asm volatile("ld.shared.f64 %0, [%1];" : "=d"(value) : "r"(address));
  return value;
}
__device__ __forceinline__ std::uint32_t lds_u32(std::uint32_t address) {
  std::uint32_t value;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(value) : "r"(address));
  return value;
}
__device__ __forceinline__ std::uint32_t lds_u16(std::uint32_t address) {
  std::uint16_t value;
  asm volatile("ld.shared.u16 %0, [%1];" : "=h"(value) : "r"(address));
  return value;
}
__device__ __forceinline__ uint4 lds_v4(std::uint32_t address) {
  uint4 value;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(value.x), "=r"(value.y), "=r"(value.z), "=r"(value.w) : "r"(address));
  return value;
}
__device__ __forceinline__ void sts_f64(std::uint32_t address, double value) {
  asm volatile("st.shared.f64 [%0], %1;" ::"r"(address), "d"(value) : "memory");
}
inline constexpr std::size_t staged_shared_bytes = staged_units_offset + 16 * staged_near_units;
static_assert(staged_shared_bytes > 65535 + 8, "a 16-bit window offset, whatever its value, addresses the block's own shared memory");
/// Eight values added as a balanced tree (a fixed order, so a run is deterministic; three
/// dependent adds instead of seven).
__device__ __forceinline__ double tree_sum8(const double (&part)[8]) {
  return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

/// The largest of the eight 16-bit halves of a unit (window slot offsets).
__device__ __forceinline__ std::uint32_t largest_half(uint4 u) {
  const std::uint32_t m = __vmaxu2(__vmaxu2(u.x, u.y), __vmaxu2(u.z, u.w));
  return max(m & 0xffffu, m >> 16);
}

__device__ __forceinline__ staged_shared carve_staged(unsigned char* base) {
  staged_shared s;
  s.window = reinterpret_cast<double*>(base);
  s.acc = reinterpret_cast<double*>(base + staged_acc_at);
  s.rcp = reinterpret_cast<double*>(base + staged_rcp_at);
  s.recent_slots = reinterpret_cast<uint4*>(base + staged_slots_at);  // 16-byte aligned: asserted above
  s.near_start = reinterpret_cast<std::uint32_t*>(base + staged_near_start_at);
  s.recent_start = reinterpret_cast<std::uint32_t*>(base + staged_recent_start_at);
  s.level_first = reinterpret_cast<std::uint32_t*>(base + staged_level_first_at);
  s.degree = reinterpret_cast<std::uint16_t*>(base + staged_degree_at);
  s.near_units = reinterpret_cast<uint4*>(base + staged_units_offset);
  return s;
}

/// The block's dynamic shared memory as a 32-bit address (the window comes first), for the chain
/// warp and the level helpers to address their arrays from. Through staged_shared's generic
/// pointers, ptxas recomputed the base in every level (an S2R of the CTA's id and two dependent
/// integer operations, ahead of the level's first loads); a value read back with a volatile load
/// is one it cannot recompute. A word per warp, which its lane 0 writes: with one word for the
/// block that every thread wrote, the same value, compute-sanitizer racecheck reported a benign
/// race (twenty-second session).
__device__ __forceinline__ std::uint32_t staged_base(const staged_shared& sm) {
  __shared__ std::uint32_t published[32];
  const auto word = static_cast<std::uint32_t>(__cvta_generic_to_shared(published + threadIdx.x / 32));
  std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(sm.window));
  if (threadIdx.x % 32 == 0) asm volatile("st.shared.u32 [%0], %1;" : : "r"(word), "r"(base) : "memory");
  __syncwarp();
  asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(base) : "r"(word) : "memory");
  return base;
}

/// A staged graph as its critical block addresses it (loaded once per kernel).
struct staged_graph_ref {
  std::uint32_t t;
  std::uint32_t n;
  std::uint64_t lo;
  std::uint32_t num_stages;
  const twitter::detail::pull_node* nodes;
  const twitter::detail::pull_level* levels;
  const twitter::detail::staged_stage* stages;
  const std::uint32_t* near_start;
  const std::uint16_t* near_slots;
  const std::uint16_t* older_near;
  const uint4* recent_slots;
  std::uint64_t near_base;  // index of `near_slots` in the whole list (a whole unit)
  std::uint32_t first_step;  // the step of its stage 0
  std::uint32_t* slot_passes;  // its slots' pass counts (slot i: positions from i x staged_chunk_nodes)
};

__device__ __forceinline__ staged_graph_ref staged_graph_at(const staged_view& v, std::uint32_t j) {
  const twitter::detail::staged_graph record = v.graphs[j];
  const std::uint32_t t = record.graph;
  const std::uint64_t lo = v.pull.graph_offsets[t];
  return {t,
          static_cast<std::uint32_t>(v.pull.graph_offsets[t + 1] - lo),
          lo,
          record.num_stages,
          v.pull.nodes + lo + t,
          v.pull.levels + v.pull.graphs[t].level_base,
          v.stages + record.stage_base,
          v.near_start + lo + t,
          v.near_slots + record.near_base,
          v.older_near + lo + t,
          v.recent_slots + lo + t,
          record.near_base,
          record.first_step,
          v.slot_passes + record.slot_base};
}

/// What the copy of a stage needs before its bulk loads: its records and its near slots' range.
/// Read in the previous stage's tail, so the copy of a stage starts with the bulk loads instead
/// of two dependent trips to L2.
struct staged_bounds {
  twitter::detail::staged_stage cur, next;
  std::uint32_t near_first, near_count;
};

__device__ __forceinline__ staged_bounds stage_bounds(const staged_graph_ref& gr, std::uint32_t k) {
  const twitter::detail::staged_stage cur = gr.stages[k], next = gr.stages[k + 1];
  const std::uint32_t near_first = gr.near_start[cur.first_position];
  return {cur, next, near_first, gr.near_start[next.first_position] - near_first};
}

/// Asks L2 for the read-only data of the stage with bounds `s` (node records, near starts and
/// entries, level records), so staging it at its step waits on L2 rather than DRAM.
__device__ __forceinline__ void prefetch_stage(const staged_graph_ref& gr, const staged_bounds& s) {
  const std::uint32_t b = s.cur.first_position, c = s.next.first_position;
  prefetch_l2(reinterpret_cast<const char*>(gr.nodes + b), reinterpret_cast<const char*>(gr.nodes + c + 1));
  prefetch_l2(reinterpret_cast<const char*>(gr.near_start + b), reinterpret_cast<const char*>(gr.near_start + c + 1));
  prefetch_l2(reinterpret_cast<const char*>(gr.older_near + b), reinterpret_cast<const char*>(gr.older_near + c));
  prefetch_l2(reinterpret_cast<const char*>(gr.recent_slots + b), reinterpret_cast<const char*>(gr.recent_slots + c));
  prefetch_l2(reinterpret_cast<const char*>(gr.near_slots + s.near_first), reinterpret_cast<const char*>(gr.near_slots + s.near_first + s.near_count));
  prefetch_l2(reinterpret_cast<const char*>(gr.levels + s.cur.first_level),
              reinterpret_cast<const char*>(gr.levels + s.next.first_level + 1));
}

/// Named barriers between the chain warp and one level helper: it arrives, the other waits (64
/// threads each). Both order the shared-memory accesses before them, like __syncthreads.
__device__ __forceinline__ void named_barrier_sync(std::uint32_t id) { asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory"); }
__device__ __forceinline__ void named_barrier_arrive(std::uint32_t id) { asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory"); }


/// named_barrier_sync; with Timeline, adds the cycles the warp waited there to `waited`. bar.sync
/// blocks the warp only at its next memory access (SASS BAR.SYNC.DEFER_BLOCKING), so a clock read
/// right after it misses the wait (the tenth session's trace showed ~1% where the chain warp waits
/// ~22% of its levels' time): a shared load first, in the same asm as the clock read, takes it.
template <bool Timeline>
__device__ __forceinline__ void named_barrier_sync_timed(std::uint32_t id, const staged_shared& sm, std::uint64_t& waited) {
  if constexpr (!Timeline) {
    named_barrier_sync(id);
  } else {
    const std::uint64_t t0 = clock64();
    named_barrier_sync(id);
    std::uint64_t t1;
    asm volatile("{\n\t.reg .u32 probed;\n\tld.volatile.shared.u32 probed, [%1];\n\tmov.u64 %0, %%clock64;\n\t}"
                 : "=l"(t1)
                 : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(sm.window + staged_zero_slot)))
                 : "memory");
    waited += t1 - t0;
  }
}

/// The chain warps of a critical block: warp c solves levels c, c + 2, ... (each level's
/// independent loads and bookkeeping run while the other warp solves the level before), handing
/// each solved level to the other through barrier 1 + 2H + c.
inline constexpr std::uint32_t staged_chain_warps = 2;
/// Level helpers of a Block-thread critical block: warp h + 2 of Block / 32 - 2 takes levels h,
/// h + H, ... of the stage; barrier 1 + h says its level is ready (the chain may solve it),
/// barrier 1 + H + h that the chain has solved what its next level's older entries need. H is
/// even, so a helper's levels all go to one chain warp.
template <int Block>
inline constexpr std::uint32_t staged_level_helpers = Block / 32 - staged_chain_warps;
template <int Block>
__device__ __forceinline__ std::uint32_t level_ready_barrier(std::uint32_t l) {
  return 1 + l % staged_level_helpers<Block>;
}
template <int Block>
__device__ __forceinline__ std::uint32_t level_sources_barrier(std::uint32_t l) {
  return 1 + staged_level_helpers<Block> + l % staged_level_helpers<Block>;
}

/// A level helper's share of a stage: for each of its levels l, once the chain warps have solved
/// level l - staged_recent_levels - 1, it adds to every node of l the shares of its older near
/// entries (those below level l - staged_recent_levels): the node's older run of window slots,
/// whole 16-byte units padded with the zero slot's (g lanes a node, a unit a lane and round: eight
/// independent loads, a tree; then shuffles). No bound, no position to translate and no padding
/// to skip: an entry costs its share's load, its add and half an extraction (the positions as
/// first stored cost ~13 instructions an entry, and the helpers bound the levels).
template <int Block, bool Timeline>
__device__ void staged_level_helper(const staged_shared& sm, std::uint32_t b, std::uint32_t num_levels, std::uint64_t* stamps) {
  constexpr std::uint32_t D = staged_recent_levels, U = twitter::detail::staged_near_unit;
  constexpr std::uint32_t H = staged_level_helpers<Block>;
  static_assert(H >= D + 1, "a helper's barriers are reused only after the chain has passed them");
  static_assert(2 * H + staged_chain_warps + 1 <= 16, "named barriers 1 .. 2H + 2");
  static_assert(H % staged_chain_warps == 0, "a helper's levels go to one chain warp");
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t base = staged_base(sm);
  const std::uint32_t s_units = base + staged_units_offset;  // the stage's near slots
  std::uint64_t waited = 0;
  for (std::uint32_t l = threadIdx.x / 32 - staged_chain_warps; l < num_levels; l += H) {
    // The level's bounds and its lanes per node (the most, a power of two, that fit its nodes into
    // the warp at once) are structure: found before waiting for the chain.
    const std::uint32_t first = lds_u32(base + staged_level_first_at + 4 * (l + D));
    const std::uint32_t last = lds_u32(base + staged_level_first_at + 4 * (l + D + 1));
    const std::uint32_t nodes = last - first;
    const std::uint32_t shift = nodes == 0 ? 5u : nodes > 32 ? 0u : __clz(nodes - 1) - 27u;  // 5 - ceil(log2 nodes)
    const std::uint32_t g = 1u << shift, member = lane & (g - 1);
    if (l > D) {
      named_barrier_sync_timed<Timeline>(level_sources_barrier<Block>(l), sm, waited);
    }
    for (std::uint32_t round = first; round < last; round += 32u >> shift) {
      const std::uint32_t p = round + (lane >> shift);
      const bool active = p < last;
      const std::uint32_t i = active ? p - b : 0u;
      // Byte addresses of the node's older run: near_start and recent_start are whole units.
      const std::uint32_t older_end = active ? s_units + 2 * lds_u32(base + staged_recent_start_at + 4 * i) : 0u;
      double sum = 0.0;
      for (std::uint32_t at = s_units + 2 * lds_u32(base + staged_near_start_at + 4 * i) + 16 * member; at < older_end; at += 16 * g) {
        const uint4 unit = lds_v4(at);
        const std::uint32_t words[4] = {unit.x, unit.y, unit.z, unit.w};
        double part[U];
#pragma unroll
        for (std::uint32_t j = 0; j < U; ++j) part[j] = lds_f64(base + (j % 2 ? words[j / 2] >> 16 : words[j / 2] & 0xffffu));
        sum += tree_sum8(part);
      }
      for (std::uint32_t o = g / 2; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
      if (active && member == 0) sts_f64(base + staged_acc_at + 8 * i, lds_f64(base + staged_acc_at + 8 * i) + sum);
    }
    named_barrier_arrive(level_ready_barrier<Block>(l));
  }
  if (Timeline && stamps != nullptr && threadIdx.x == 32 * staged_chain_warps) stamps[staged_helper_wait_slot] = waited;
}

/// A chain warp's share of a stage: its levels in order (warp c: levels c, c + 2, ...), a lane per
/// node (rounds of 32): the node's value is its helper-summed base + far + older near value plus
/// the shares of its recent entries (its first window slots, from the layout: independent loads
/// and a tree; further entries, its further run of slots, one at a time), then the division by
/// the staged reciprocal (divide_by_degree: bit-equal). Its influence and share stay in shared
/// memory (the block stores them after the stage). A level's dependent chain is the other chain
/// warp's hand-over barrier, the window loads, the adds, the division and the stores: no block
/// barrier, no shuffle, no global store, no bounds check and no branch (the rare further entries
/// are behind a warp vote; an inactive lane stores to a scratch slot); the node's helper-summed
/// value is read with its recent shares. What does not depend on the level before (its bounds,
/// the node's records, the helper's barrier) runs while the other warp solves that level. (Solving a group of
/// consecutive levels of at most 32 nodes in one pass, a lane a node and a __syncwarp between the
/// levels, made a level slower on the H100: 427 against 352 ns; branch exp/staged-chain-groups.)
template <int Block, bool Timeline>
__device__ void staged_chain(const staged_shared& sm, std::uint32_t b, std::uint32_t num_levels, std::uint64_t* stamps) {
  constexpr std::uint32_t W = twitter::detail::staged_window, D = staged_recent_levels, H = staged_level_helpers<Block>;
  constexpr std::uint32_t C = staged_chain_warps;
  static_assert(C == 2, "the hand-over below pairs two chain warps");
  constexpr std::uint32_t scratch = 8 * (W + 1);  // where inactive lanes store: the window's scratch slot
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::uint32_t handed_in = 1 + 2 * H + (1 - warp), handed_out = 1 + 2 * H + warp;
  std::uint64_t waited = 0;
  const std::uint32_t base = staged_base(sm);
  const std::uint32_t s_units = base + staged_units_offset;  // the stage's near slots
  std::uint32_t first = lds_u32(base + staged_level_first_at + 4 * (warp + D));
  std::uint32_t last = lds_u32(base + staged_level_first_at + 4 * (warp + D + 1));
  std::uint32_t ready = warp, sources = (warp + D + 1) % H;  // l % H and (l + D + 1) % H, without a division
  for (std::uint32_t l = warp; l < num_levels; l += C) {
    const std::uint32_t next_first = lds_u32(base + staged_level_first_at + 4 * min(l + D + C, num_levels + D));
    const std::uint32_t next_last = lds_u32(base + staged_level_first_at + 4 * min(l + D + C + 1, num_levels + D));
    for (std::uint32_t round = first; round < last; round += 32) {
      const std::uint32_t p = round + lane;
      const bool active = p < last;
      const std::uint32_t i = active ? p - b : 0u;
      // What the helpers and the other chain warp do not write is read before waiting for them.
      const std::uint32_t end = active ? lds_u32(base + staged_near_start_at + 4 * (i + 1)) : 0u;
      const std::uint32_t tail = lds_u32(base + staged_recent_start_at + 4 * i);  // the further run
      const double degree = lds_u16(base + staged_degree_at + 2 * i);
      const double r = lds_f64(base + staged_rcp_at + 8 * i);
      const uint4 slots = lds_v4(base + staged_slots_at + 16 * i);
      if (round == first) {
        named_barrier_sync_timed<Timeline>(1 + ready, sm, waited);
        if (l > 0) named_barrier_sync(handed_in);  // level l - 1 is in the window
      }
      const double before = lds_f64(base + staged_acc_at + 8 * i);  // with the older entries now
      const std::uint32_t words[4] = {slots.x, slots.y, slots.z, slots.w};
      double part[staged_recent_slots];
#pragma unroll
      for (std::uint32_t j = 0; j < staged_recent_slots; ++j) {
        part[j] = lds_f64(base + (j % 2 ? words[j / 2] >> 16 : words[j / 2] & 0xffffu));
      }
      double sum = tree_sum8(part);
      if (__any_sync(0xffffffffu, tail < end)) {  // rare: more recent entries than slots
        for (std::uint32_t e = tail; e < end; ++e) sum += lds_f64(base + lds_u16(s_units + 2 * e));
      }
      // No branch: an inactive lane stores to the scratch slot.
      const double influence = before + sum;
      sts_f64(active ? base + staged_acc_at + 8 * i : base + scratch, influence);
      sts_f64(base + (active ? 8 * (p % W) : scratch), twitter::detail::divide_by_degree(influence, degree, r));
    }
    // Level l is in the window: the other chain warp may solve level l + 1, and the older entries
    // of level l + D + 1 are final (level l - 1 was, before this warp solved level l).
    if (l + 1 < num_levels) named_barrier_arrive(handed_out);
    if (l + D + 1 < num_levels) named_barrier_arrive(1 + H + sources);
    ready = ready + C >= H ? ready + C - H : ready + C;
    sources = sources + C >= H ? sources + C - H : sources + C;
    first = next_first;
    last = next_last;
  }
  if (Timeline && stamps != nullptr && lane == 0) atomicAdd(reinterpret_cast<unsigned long long*>(stamps + staged_chain_wait_slot), waited);
}

/// A stage's shape from its bounds, and whether it keeps within the limits the critical block's
/// shared memory was sized for (a layout bug otherwise; the same for every thread).
struct stage_shape {
  std::uint32_t b, count, num_levels;
  std::uint64_t near_index;
  bool fits;
};
__device__ __forceinline__ stage_shape shape_of(const staged_graph_ref& gr, const staged_bounds& bounds) {
  using namespace twitter::detail;
  const std::uint32_t b = bounds.cur.first_position, count = bounds.next.first_position - b;
  const std::uint32_t num_levels = bounds.next.first_level - bounds.cur.first_level;
  const std::uint64_t near_index = gr.near_base + bounds.near_first;
  const bool fits = count <= staged_max_stage_nodes && num_levels > 0 && num_levels <= staged_max_stage_levels &&
                    bounds.near_count <= staged_max_stage_near && bounds.next.first_position <= gr.n &&
                    (near_index | bounds.near_count) % staged_near_unit == 0;
  return {b, count, num_levels, near_index, fits};
}

/// Stage k of the block's staged graph into shared memory, all but its far sums: node records
/// (out-degree, reciprocal, base value as the value so far), near slots and their runs' starts,
/// recent slots and level bounds. None of it depends on the far sums, so the block copies it while
/// they are still being added, unless it adds far sums itself meanwhile (its sm.acc holds a
/// chunk's source shares then). Returns whether this thread found a layout bug.
template <int Block>
__device__ bool staged_stage_in(const staged_view& v, const staged_graph_ref& gr, const staged_shared& sm, const staged_bounds& bounds) {
  using namespace twitter::detail;
  const stage_shape shape = shape_of(gr, bounds);
  if (!shape.fits) return true;  // uniform; staged_critical reports it
  const std::uint64_t lo = gr.lo;
  const std::uint32_t n = gr.n, b = shape.b, count = shape.count, num_levels = shape.num_levels;
  const pull_node* nodes = gr.nodes;
  const pull_level* levels = gr.levels;
  const std::uint32_t* near_start = gr.near_start;
  const std::uint32_t near_first = bounds.near_first, near_count = bounds.near_count;
  const std::uint64_t near_index = shape.near_index;
  const staged_stage cur = bounds.cur;
  bool copy_bad = false;
  // Every load depends on no other: the near units, the level bounds, then each position's
  // records and base value (in position order), two positions a thread at a time: one trip to
  // memory (three before the twenty-first session: the base values by local id after the
  // records, and the near units past the first four a thread). The near slots, whole 16-byte units, go straight to shared
  // memory by asynchronous copies (cp.async), every unit of the stage at once, so they cost no
  // registers and no round of their own: with four units in flight per thread through registers,
  // the largest RSG graph's stages (~2,000 units) took a third trip after the base values, and
  // a 2-byte load per entry and round (the loop as first written) put ~64 dependent L2 round trips,
  // ~9 us, on every stage of its chain. The slots are not checked here: a 16-bit offset cannot
  // leave the block's shared memory (asserted above), the host sweep checks every slot against
  // the in-lists (tests), and checking each unit's eight here made the largest RSG graph's stage
  // copies ~50 us slower in all (H100).
  const std::uint32_t units = near_count / staged_near_unit;
  const uint4* source_units = reinterpret_cast<const uint4*>(v.near_slots) + near_index / staged_near_unit;
  for (std::uint32_t i = threadIdx.x; i < units; i += Block) __pipeline_memcpy_async(sm.near_units + i, source_units + i, sizeof(uint4));
  __pipeline_commit();
  const std::uint32_t level = cur.first_level + threadIdx.x;  // the graph's level + staged_recent_levels
  const bool bounds_mine = threadIdx.x <= num_levels + staged_recent_levels;
  const std::uint32_t level_first = bounds_mine && level >= staged_recent_levels ? levels[level - staged_recent_levels].first_position : 0u;
  static_assert(staged_max_stage_levels + staged_recent_levels < Block, "a thread per level bound");
  // Layout bugs (runs outside the stage's whole units, slots outside the window) set the error
  // bit; what is stored stays inside them.
  constexpr std::uint32_t whole = ~(staged_near_unit - 1);
  for (std::uint32_t first = threadIdx.x; first < count; first += 2 * Block) {
    pull_node node[2];
    std::uint32_t start[2], older[2];
    uint4 slots[2];
    double base[2];
#pragma unroll
    for (std::uint32_t q = 0; q < 2; ++q) {
      const std::uint32_t at = b + (first + q * Block < count ? first + q * Block : 0u);  // a position of the stage
      node[q] = nodes[at];
      start[q] = near_start[at] - near_first;
      older[q] = gr.older_near[at];
      slots[q] = __ldg(gr.recent_slots + at);
      base[q] = __ldg(v.base + lo + at);
    }
#pragma unroll
    for (std::uint32_t q = 0; q < 2; ++q) {
      const std::uint32_t i = first + q * Block;
      if (i >= count) break;
      copy_bad |= node[q].local_id >= n;  // a layout bug
      sm.degree[i] = node[q].out_degree;
      const std::uint32_t recent = start[q] + older[q];
      copy_bad |= recent > near_count || (start[q] | recent) % staged_near_unit != 0;
      sm.near_start[i] = min(start[q], near_count) & whole;
      sm.recent_start[i] = min(recent, near_count) & whole;
      copy_bad |= largest_half(slots[q]) > 8 * staged_zero_slot;
      sm.recent_slots[i] = slots[q];
      sm.rcp[i] = node[q].out_degree ? 1.0 / static_cast<double>(node[q].out_degree) : 0.0;
      sm.acc[i] = base[q];  // the far sum is added once complete (staged_critical)
    }
  }
  if (threadIdx.x == 0) sm.near_start[count] = near_count;
  if (bounds_mine) sm.level_first[threadIdx.x] = level_first;
  __pipeline_wait_prior(0);  // this thread's units are in shared memory before the block's next barrier
  return copy_bad;
}

/// Critical work of step k: stage k of the block's staged graph, by the whole block, its far sums
/// complete. Unless `staged_in` (staged_stage_in done, `copy_bad` its finding), it first stages the
/// rest of the stage. Returns with the block synchronised.
template <int Block, bool Timeline>
__device__ void staged_critical(const staged_view& v, const staged_graph_ref& gr, std::uint32_t k, const staged_shared& sm,
                                staged_bounds* s_bounds, std::uint64_t* stamps, bool staged_in, bool copy_bad) {
  using namespace twitter::detail;
  const std::uint32_t t = gr.t;
  const std::uint64_t lo = gr.lo;
  const std::uint32_t n = gr.n;
  const pull_node* nodes = gr.nodes;
  const staged_bounds bounds = *s_bounds;  // written in the previous stage's tail
  const stage_shape shape = shape_of(gr, bounds);
  const std::uint32_t b = shape.b, count = shape.count, num_levels = shape.num_levels;
  if (!shape.fits) {
    if (threadIdx.x == 0) atomicOr(v.pull.error, staged_error_bit);  // a layout bug; uniform exit
    return;
  }
  if (!staged_in) copy_bad |= staged_stage_in<Block>(v, gr, sm, bounds);
  if (k >= 2) {
    // base + far, as the host sweep adds them (stages 0 and 1 have no far entries); a thread adds
    // to the positions it staged (threadIdx.x + q Block, as in staged_stage_in).
    constexpr std::uint32_t per_thread = (staged_max_stage_nodes + Block - 1) / Block;
    double far[per_thread];
#pragma unroll
    for (std::uint32_t q = 0; q < per_thread; ++q) {
      const std::uint32_t i = threadIdx.x + q * Block;
      far[q] = i < count ? __ldcg(v.far + lo + b + i) : 0.0;
    }
#pragma unroll
    for (std::uint32_t q = 0; q < per_thread; ++q) {
      const std::uint32_t i = threadIdx.x + q * Block;
      if (i < count) sm.acc[i] += far[q];
    }
  }
  if (k == 0 && threadIdx.x == 0) v.pull.stalled[t] = v.pull.graphs[t].num_stalled;
  __syncthreads();
  if constexpr (Timeline) stamp_staged(stamps, num_levels);
  if (threadIdx.x >= 32 * staged_chain_warps) {
    staged_level_helper<Block, Timeline>(sm, b, num_levels, stamps);
  } else {
    staged_chain<Block, Timeline>(sm, b, num_levels, stamps);
  }
  if (copy_bad) atomicOr(v.pull.error, staged_error_bit);
  __syncthreads();
  // The stage's influences and shares, stored by the whole block (the shares, in position order,
  // are what the far sums of the next step read).
  for (std::uint32_t i = threadIdx.x; i < count; i += Block) {
    const std::uint32_t local_id = nodes[b + i].local_id;
    if (local_id < n) v.pull.influence[lo + local_id] = sm.acc[i];
    __stcg(v.pull.spill + lo + b + i, sm.window[(b + i) % staged_window]);
  }
  // The next stage's bounds (here rather than during the levels: they are two dependent loads).
  // They go to shared memory, not registers, which the helpers need.
  if (k + 1 >= gr.num_stages) return;
  if (threadIdx.x == 0) *s_bounds = stage_bounds(gr, k + 1);  // read after the block barrier before the next stage
}

/// Loads of the progress records, which other blocks change while this one runs (volatile: read
/// from L2 each time).
__device__ __forceinline__ std::uint32_t load_volatile(const std::uint32_t* p) { return *reinterpret_cast<const volatile std::uint32_t*>(p); }

/// Thread 0's claim of a chunk ticket: the next, or with Bounded the next below `limit` and `limit`
/// once none is (never one past it, which the block would then have to run).
template <bool Bounded>
__device__ __forceinline__ std::uint32_t claim_ticket(std::uint32_t* ticket, std::uint32_t limit) {
  if constexpr (!Bounded) {
    return atomicAdd(ticket, 1u);
  } else {
    for (std::uint32_t seen = load_volatile(ticket); seen < limit;) {
      const std::uint32_t was = atomicCAS(ticket, seen, seen + 1);
      if (was == seen) return seen;
      seen = was;
    }
    return limit;
  }
}

/// The fence of both sides of a progress record, by thread 0: a publisher's after the block
/// barrier that follows its threads' stores, before the record's update (release: cumulative over
/// the barrier, as cooperative groups' grid sync relies on); a waiter's after the load that saw
/// the update, before the block barrier and the reads (acquire). acq_rel at device scope is what
/// both need (fence.acq_rel.gpu), not __threadfence's sequentially consistent fence.sc.gpu.
__device__ __forceinline__ void progress_fence() { ::cuda::atomic_thread_fence(::cuda::memory_order_acq_rel, ::cuda::thread_scope_device); }

/// Far-sum chunks, taken by the one ticket in step order until none below `limit` is left or stop()
/// (thread 0's call, before each further ticket); a block that is not Pipelined never takes one
/// past `limit`. (Until the twenty-second session each step had a ticket of its own, and every
/// far-sum block paid a claim that came back empty at the end of each step, with a barrier: one
/// ticket took the Large category from 1.39 to 1.31 ms on the H100.) A chunk of pass p of its graph
/// waits until it may run (the graph's stage p - 1 is published and pass p - 1 is done on the
/// chunk's slot), then adds the shares of stage p - 1 (at most staged_max_stage_nodes, to shared
/// memory); a thread per target position adds the shares of its in-list entries of that stage, in
/// list order, to the position's far sum, reading them from the chunk's far runs (one contiguous
/// range a chunk, twitter/staged_layout.hpp; staged_helper_units 16-byte units at a time: a chunk's
/// run 5.88 -> 4.16-4.19 us on the H100 against reading them in the in-lists through per-position
/// cursors); the block then sets the slot's pass count. A chunk is two dependent trips to memory:
/// its run records, far sums and source shares, then the first units; the next ticket is taken and its record read meanwhile (the first version, which claimed,
/// read the record and the graph's record one after the other, took about 7 us a chunk). No block
/// waits in a cycle: a chunk of step k waits only for a stage or a chunk of step k - 1, and a stage
/// at step S starts once the chunks of its slots of steps up to S - 1 are done (taken by the
/// far-sum blocks that take part, which take every chunk in step order, or else by the critical
/// blocks, a block at step S taking them in step order up to the last of step S - 1). Only the
/// slots of its positions: the rest of a pass runs on while the stage does (a pass is needed whole
/// only by the graph's last stage).
template <int Block, bool Pipelined, bool Timeline, class Stop>
__device__ void staged_helpers(const staged_view& v, std::uint32_t limit, double* s_source, staged_chunk_ref* s_chunk, std::uint32_t* s_index,
                               std::uint64_t who, Stop stop) {
  constexpr std::uint32_t align = twitter::detail::pull_align;
  constexpr std::uint32_t batch = staged_helper_units;
  std::uint32_t* const ticket = v.counters + staged_ticket_counter;
  // Thread 0: a ticket (none once stop()) and its chunk's record into the slot.
  auto take = [&] { return stop() ? limit : claim_ticket<!Pipelined>(ticket, limit); };
  auto claim = [&](std::uint32_t slot) {
    const std::uint32_t idx = take();
    s_index[slot] = idx;
    if (idx < limit) s_chunk[slot] = v.chunks[idx];
  };
  __syncthreads();  // every thread has left the previous call's loop (its last test reads s_index)
  if (threadIdx.x == 0) claim(0);
  __syncthreads();
  for (std::uint32_t slot = 0;; slot ^= 1u) {
    if (s_index[slot] >= limit) break;  // the same for every thread of the block
    const staged_chunk_ref chunk = s_chunk[slot];
    std::uint64_t* const trace = Timeline ? v.chunk_trace + std::uint64_t{s_index[slot]} * staged_chunk_trace_slots : nullptr;
    if (threadIdx.x == 0) {
      if constexpr (Timeline) trace[0] = global_timer_ns();
      const std::uint32_t* const stages_solved = &v.progress[chunk.staged].stages_solved;
      while (load_volatile(v.slot_passes + chunk.slot) + 1 < chunk.pass || load_volatile(stages_solved) < chunk.pass) __nanosleep(64);
      progress_fence();  // the source shares and far sums read below come after the records that published them
      if constexpr (Timeline) trace[1] = global_timer_ns();
    }
    __syncthreads();
    std::uint32_t next = limit;
    if (Pipelined && threadIdx.x == 0) next = take();  // used only after this chunk's loads
    const std::uint32_t p = chunk.first + threadIdx.x;
    const bool mine = p < chunk.last;
    // The position's far run (units [unit, run_end) of far_entries) and, after the first pass, its
    // far sum so far.
    std::uint32_t unit = 0, run_end = 0;
    double before = 0.0;
    if (mine) {
      unit = v.far_runs[chunk.run_base + threadIdx.x];
      run_end = v.far_runs[chunk.run_base + threadIdx.x + 1];
      if (chunk.pass > 1) before = __ldcg(v.far + chunk.lo + p);
    }
    for (std::uint32_t i = threadIdx.x; i < static_cast<std::uint32_t>(chunk.source_end - chunk.source_first); i += Block) {
      s_source[i] = __ldcg(v.pull.spill + chunk.lo + chunk.source_first + i);
    }
    uint4 w[batch];
    // The batch of units from `unit`; those past the run read as padding.
    auto load_batch = [&] {
#pragma unroll
      for (std::uint32_t i = 0; i < batch; ++i) {
        w[i] = unit + i < run_end ? __ldcs(v.far_entries + unit + i) : make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
      }
    };
    load_batch();
    // The next chunk's record, read now and stored after the barrier, so the block does not wait
    // for the claim and the read.
    staged_chunk_ref upcoming{};
    if (threadIdx.x == 0 && next < limit) upcoming = v.chunks[next];
    __syncthreads();  // the source shares are in shared memory
    if (threadIdx.x == 0) {
      s_index[slot ^ 1u] = next;
      s_chunk[slot ^ 1u] = upcoming;
    }
    double part = 0.0;
    bool bad = false;
    for (bool more = unit < run_end; more;) {
      // Every entry of the run lies in the source stage (one outside it would be a layout bug);
      // padding (pull_pad) ends it.
#pragma unroll
      for (std::uint32_t i = 0; i < batch; ++i) {
        const std::uint32_t words[4] = {w[i].x, w[i].y, w[i].z, w[i].w};
#pragma unroll
        for (std::uint32_t h = 0; h < align; ++h) {
          const std::uint32_t u = (words[h / 2] >> (16 * (h % 2))) & 0xffffu;
          const bool in = u != twitter::detail::pull_pad;
          const bool ok = in && u >= chunk.source_first && u < chunk.source_end;
          const double share = s_source[ok ? u - chunk.source_first : 0u];
          part += ok ? share : 0.0;
          bad = bad || (in && !ok);
        }
      }
      unit += batch;
      more = unit < run_end;
      if (more) load_batch();
    }
    if (bad) atomicOr(v.pull.error, staged_error_bit);
    if (mine) __stcg(v.far + chunk.lo + p, before + part);
    __syncthreads();  // s_source is reused by the next chunk, whose record and index are visible
    if (threadIdx.x == 0) {
      // The block's far sums ahead of the count that publishes them: one fence after
      // the barrier (a fence by every thread before it made the Large category ~50 us slower on the
      // H100).
      progress_fence();
      atomicExch(v.slot_passes + chunk.slot, chunk.pass);
      if constexpr (Timeline) {
        trace[2] = global_timer_ns();
        trace[3] = who;
      }
      if (!Pipelined) claim(slot ^ 1u);  // a critical block takes a further chunk only while its own far sums are incomplete
    }
    if (!Pipelined) __syncthreads();
  }
}

/// The cooperative kernel: Block threads, dynamic shared memory staged_shared_bytes, a grid of
/// v.num_graphs blocks, all co-resident (cudaLaunchCooperativeKernel), so a block may wait for
/// another; with Timeline, it writes v.timeline. Block j solves staged graph j's stages in order
/// and publishes each; before its stage at step S, unless a far-sum block takes part, it takes
/// far-sum chunks, in step order up to the last of step S - 1, until its own far sums are complete.
/// It then takes the chunks left. No grid barrier: a stage waits only for its own graph's far sums
/// and for the reference graph to reach its step (the layout's balance of the far work between
/// steps). No wait is circular: a chunk of step k waits only for a stage or a chunk of step k - 1,
/// and chunks are claimed in step order by one ticket, by a far-sum block that takes part (it takes
/// every chunk) or else by the critical blocks, a block at step S none past step S - 1, so the grid
/// finishes whether or not a far-sum block takes part. (Waiting without taking chunks, once a
/// far-sum block takes part: the largest RSG graph's waits for far sums 263 -> 213 us traced, as a
/// chunk a block took was often still running when its far sums were complete.)
template <int Block, int MinBlocks, bool Timeline>
__global__ void __launch_bounds__(Block, MinBlocks) backward_staged(staged_view v) {
  extern __shared__ __align__(16) unsigned char staged_dynamic[];
  __shared__ staged_chunk_ref s_chunk[2];
  __shared__ std::uint32_t s_index[2];
  const staged_shared sm = carve_staged(staged_dynamic);
  std::uint64_t* const tail = Timeline ? timeline_tail(v) : nullptr;
  if (Timeline && blockIdx.x == 0 && threadIdx.x == 0) {
    tail[0] = static_cast<std::uint64_t>(clock64());
    tail[1] = global_timer_ns();
  }
  std::uint64_t* const span = Timeline ? block_span(v, blockIdx.x) : nullptr;
  stamp_block_span(span, false);
  if (threadIdx.x == 0) atomicAdd(v.counters + staged_started_counter, 1u);  // resident: a far-sum block may wait for this one
  const std::uint32_t j = blockIdx.x;
  if (span != nullptr && threadIdx.x == 0) span[3] = j;
  const staged_graph_ref gr = staged_graph_at(v, j);
  __shared__ staged_bounds s_bounds;
  if (gr.num_stages > 0 && threadIdx.x == 0) s_bounds = stage_bounds(gr, 0);
  if (threadIdx.x == 0) sm.window[staged_zero_slot] = 0.0;  // made visible by the first stage's barriers
  __shared__ bool s_help;  // thread 0's reading of whether a far-sum block takes part
  bool help = true;        // the same in every thread of the block
  for (std::uint32_t s = 0; s < gr.num_stages; ++s) {
    const std::uint32_t step = gr.first_step + s;
    // Stage s needs passes 1 .. s - 1 done on the slots of its positions (thread 0 reads s_bounds,
    // this stage's) and the reference at its step. Every load goes out at once: one trip to L2.
    auto ready = [&] {
      constexpr std::uint32_t slots = twitter::detail::staged_max_stage_nodes / twitter::detail::staged_chunk_nodes + 1;
      const std::uint32_t first = s_bounds.cur.first_position / twitter::detail::staged_chunk_nodes;
      const std::uint32_t last = (s_bounds.next.first_position - 1) / twitter::detail::staged_chunk_nodes;
      std::uint32_t least = ~0u;
#pragma unroll
      for (std::uint32_t i = 0; i < slots; ++i) least = min(least, load_volatile(gr.slot_passes + min(first + i, last)));
      return (load_volatile(&v.progress[v.reference].stages_solved) >= step) & (least + 1 >= s);
    };
    // A far-sum block that takes part takes every chunk: the wait then ends without
    // this block's help, which would hold the stage until the chunk it took is done. Once one takes
    // part, none leaves: the count is not read again.
    if (help) {
      if (threadIdx.x == 0) s_help = load_volatile(v.counters + staged_far_counter) == 0;
      __syncthreads();
      help = s_help;
    }
    std::uint64_t* const stamps = Timeline ? v.timeline + (std::uint64_t{j} * v.num_steps + step) * staged_timeline_slots : nullptr;
    // All of the stage but its far sums is staged while they are still being added (the largest
    // RSG graph waited ~0.25 ms in all for them), unless this block adds far sums meanwhile; the
    // test whether they are complete goes out first, its answer needed only after the staging.
    const bool staged_in = !help;
    const bool ready_early = staged_in && threadIdx.x == 0 && ready();
    const bool copy_bad = staged_in && staged_stage_in<Block>(v, gr, sm, s_bounds);
    if constexpr (Timeline) stamp_ns(stamps, staged_staged_ns_slot);
    if (step >= 1 && help) {
      prefetch_stage(gr, s_bounds);  // staged after helping: its read-only data into L2 meanwhile
      // Chunks up to the last of step - 1 (sm.acc is free between stages).
      staged_helpers<Block, false, Timeline>(v, static_cast<std::uint32_t>(v.chunk_offsets[step]), sm.acc, s_chunk, s_index, blockIdx.x, ready);
    }
    if (threadIdx.x == 0) {
      while (!ready_early && !ready()) {
      }
      progress_fence();  // the far sums read below come after the counts that published them
    }
    __syncthreads();
    stamp(stamps, 0);
    if constexpr (Timeline) stamp_ns(stamps, staged_ready_ns_slot);
    staged_critical<Block, Timeline>(v, gr, s, sm, &s_bounds, stamps, staged_in, copy_bad);
    stamp(stamps, 2);
    __syncthreads();
    if (threadIdx.x == 0) {
      progress_fence();  // the block's stage shares before the record that publishes them (as for a chunk)
      atomicExch(&v.progress[j].stages_solved, s + 1);
    }
    stamp(stamps, 3);
    if constexpr (Timeline) stamp_ns(stamps, staged_published_ns_slot);
  }
  staged_helpers<Block, true, Timeline>(v, v.num_chunks, sm.acc, s_chunk, s_index, blockIdx.x, [] { return false; });  // sm.acc is free after the last stage
  stamp_block_span(span, true);
  if (Timeline && blockIdx.x == 0 && threadIdx.x == 0) {
    tail[2] = static_cast<std::uint64_t>(clock64());
    tail[3] = global_timer_ns();
  }
}

/// Far sums beside the cooperative kernel (launched after it, on another stream): small blocks,
/// 8 KB of shared memory for a chunk's source shares against the critical blocks' 92.5 KB, which
/// take chunks like the critical blocks after their stages (two per SM brought the
/// Large category from 2.03 to 1.75 ms on the H100, seventeenth session: the critical blocks had
/// waited ~0.5 ms in all for far sums). A chunk may wait for a stage, so a block takes part only
/// once every cooperative block is resident (they stay until done); one that finds them not all
/// started within staged_far_start_ns leaves, so it never holds an SM the grid still needs.
/// Registers bounded for MinBlocks blocks an SM (twitter_backward.cu says why).
inline constexpr std::uint64_t staged_far_start_ns = 20000;
template <int Block, int MinBlocks, bool Timeline>
__global__ void __launch_bounds__(Block, MinBlocks) backward_staged_far(staged_view v) {
  __shared__ double s_source[twitter::detail::staged_max_stage_nodes];
  __shared__ staged_chunk_ref s_chunk[2];
  __shared__ std::uint32_t s_index[2];
  __shared__ bool s_go;
  std::uint64_t* const span = Timeline ? block_span(v, std::uint64_t{v.num_graphs} + blockIdx.x) : nullptr;
  stamp_block_span(span, false);
  if (threadIdx.x == 0) {
    const std::uint64_t deadline = global_timer_ns() + staged_far_start_ns;
    bool go = false;
    while (!(go = load_volatile(v.counters + staged_started_counter) >= v.num_graphs) && global_timer_ns() < deadline) __nanosleep(256);
    s_go = go;
    if (span != nullptr) span[3] = go ? 1 : 0;
  }
  __syncthreads();
  if (s_go) {
    if (threadIdx.x == 0) atomicAdd(v.counters + staged_far_counter, 1u);
    staged_helpers<Block, true, Timeline>(v, v.num_chunks, s_source, s_chunk, s_index, blockIdx.x | staged_trace_far_block, [] { return false; });
  }
  stamp_block_span(span, true);
}

}  // namespace wildfire::cuda::twitter_kernels
