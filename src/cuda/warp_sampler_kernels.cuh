// Warp-per-sample RR traversal in the spirit of gIM (Shahrouz et al., TPDS 2021, section 3):
// persistent warps take sample ids from a counter; a set's members double as its BFS queue, the
// first members in shared memory and the rest in a per-warp global overflow area; a per-warp
// visited bitmap, set by atomicOr test-and-set, so no vertex is expanded twice. Unlike gIM, a
// warp expands up to 32 queued vertices at once (their in-edges flattened over the lanes), so
// low-degree vertices do not leave lanes idle. Under IC a vertex of the block rule
// (random/ic_block_rule.hpp) contributes its blocks, not its edges: a lane draws a block's live
// count and slots, and the live edges of all lanes are flattened over the warp in turn. Included
// only by warp_sampler.cu.
#pragma once

#include <cstdint>

#include "cuda/warp_primitives.cuh"

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::cuda::kernels {

inline constexpr unsigned full_warp = 0xffffffffU;
inline constexpr unsigned warp_sampler_block_threads = 256;
inline constexpr unsigned warp_sampler_warps_per_block = warp_sampler_block_threads / 32;
/// Members held in shared memory per warp before the global overflow area is used.
inline constexpr std::uint32_t shared_members_per_warp = 256;
/// A lane's live-edge slots in shared memory: block_cdf_length of them, padded to an odd stride
/// so that the 32 lanes writing slot i hit 32 different banks.
inline constexpr std::uint32_t lane_slot_stride = block_cdf_length + 1;

inline constexpr unsigned flag_stage_overflow = 1U;  // a set outgrew shared + per-warp global room
inline constexpr unsigned flag_arena_overflow = 2U;  // the batch arena was full

/// What expanding an IC vertex needs first, in one 16-byte load: its in-CSR range, its block size
/// (0: per-edge rule) and its block class. Replaces three reads (offsets, the first in-threshold
/// for the block size, the class) on every BFS step's critical path; the traversal is bound by
/// how many random sectors it reads, so the class rides in the top bits of the begin.
struct alignas(16) ic_vertex_record {
  std::uint64_t begin_class;  // in-CSR begin (low record_begin_bits) | block class (the rest)
  std::uint32_t degree;       // in-degree (< 2^32: sources are 32-bit vertex ids)
  std::uint32_t block;        // ic_block_size under the block rule, else 0
};

/// In-CSR positions below 2^40 (a trillion edges: more than any GPU holds); classes from
/// 2^24 - 1 up are read from the block plan instead (record_class_unpacked).
inline constexpr unsigned record_begin_bits = 40;
inline constexpr std::uint32_t record_class_unpacked = (1U << (64 - record_begin_bits)) - 1U;

__device__ __forceinline__ std::uint64_t record_begin(const ic_vertex_record& r) {
  return r.begin_class & ((std::uint64_t{1} << record_begin_bits) - 1U);
}

/// The block class of a block-rule vertex v (r.block != 0) with record r.
__device__ __forceinline__ std::uint32_t record_class(const ic_vertex_record& r, const ic_block_view& blocks,
                                                      std::uint32_t v) {
  const auto packed = static_cast<std::uint32_t>(r.begin_class >> record_begin_bits);
  return packed != record_class_unpacked ? packed : blocks.vertex_class[v];
}

/// records[v] for every vertex (IC; the class comes from the block plan).
__global__ void build_ic_vertex_records(graph_view g, ic_block_view blocks, ic_vertex_record* records) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t v = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < g.num_vertices;
       v += stride) {
    const std::uint64_t begin = g.in_offsets[v];
    const std::uint64_t degree = g.in_offsets[v + 1] - begin;
    const std::uint32_t cls = blocks.vertex_class[v];
    const std::uint32_t packed = cls < record_class_unpacked ? cls : record_class_unpacked;
    ic_vertex_record r;
    r.begin_class = begin | (std::uint64_t{packed} << record_begin_bits);
    r.degree = static_cast<std::uint32_t>(degree);
    r.block = cls == per_edge_class ? 0U
                                    : static_cast<std::uint32_t>(ic_block_size(degree, g.in_thresholds[begin]));  // <= degree
    records[v] = r;
  }
}

/// Everything a warp-sampler launch reads and writes; passed by value.
struct warp_sampler_args {
  std::uint64_t seed;
  double mean_roots;
  std::uint32_t rounds;                // diffusion rounds T; members are encoded round * n + vertex
  std::uint64_t first_id;              // sample id of batch-local index 0
  const std::uint32_t* item_list;      // batch-local indices to sample; nullptr: 0 .. num_items-1
  std::uint32_t num_items;
  const unsigned* num_items_at;        // if set, the item count on the device (another launch's deferred sets)
  unsigned* next_item;                 // work counter, starts at 0
  std::uint32_t* visited;              // words_per_warp words per warp, all zero between sets
  std::uint64_t words_per_warp;
  std::uint32_t* stage;                // stage_capacity members per warp
  std::uint64_t stage_capacity;
  std::uint32_t* arena;                // the batch's members, set after set
  std::uint64_t arena_capacity;
  unsigned long long* arena_tail;
  unsigned long long* lost_members;    // members of the sets that found the arena full (redone)
  unsigned long long* warp_members;    // members of the sets the warp kernel stored, and
  unsigned long long* warp_sets;       // their number (size the arena for the next deferred sets)
  std::uint64_t* set_start;            // per batch-local index
  std::uint64_t* set_size;             // 0 for a deferred set, so a layout of the batch is never out of bounds
  std::uint32_t* deferred;             // batch-local indices that must be sampled again
  unsigned* num_deferred;
  unsigned* flags;                     // flag_* bits
  unsigned long long* edges_examined;
  unsigned long long* expansions;      // IC: expansion rounds (one per up to 32 queued vertices)
  unsigned long long* expanded;        // IC: vertices expanded by those rounds
  ic_block_view blocks;                // IC: the block plan of the graph (device pointers)
  const ic_vertex_record* records;     // IC: per vertex
};

/// Member i of the set being built: shared memory first, then the warp's global overflow area.
__device__ __forceinline__ std::uint32_t* member_slot(std::uint32_t* shared, std::uint32_t* stage, std::uint64_t i) {
  return i < shared_members_per_warp ? shared + i : stage + (i - shared_members_per_warp);
}

// No register cap: capped builds measured slower on large graphs, also with the live slots in
// shared memory (5 blocks per SM, 48 registers: LJ-like IMM 251 ms against 225 uncapped at 4
// blocks and 50% occupancy, H100).
template <bool IsIc>
__global__ void __launch_bounds__(warp_sampler_block_threads) warp_rr_sets(graph_view g, warp_sampler_args a) {
  __shared__ std::uint32_t shared_members[warp_sampler_warps_per_block * shared_members_per_warp];
  __shared__ std::uint32_t shared_slots[IsIc ? warp_sampler_warps_per_block * 32 * lane_slot_stride : 1];
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp_in_block = threadIdx.x >> 5;
  const std::uint64_t warp_id = static_cast<std::uint64_t>(blockIdx.x) * warp_sampler_warps_per_block + warp_in_block;
  std::uint32_t* shared = shared_members + warp_in_block * shared_members_per_warp;
  std::uint32_t* warp_slots = shared_slots + (IsIc ? warp_in_block * 32 * lane_slot_stride : 0);
  std::uint32_t* stage = a.stage + warp_id * a.stage_capacity;
  std::uint32_t* visited = a.visited + warp_id * a.words_per_warp;
  const std::uint64_t capacity = shared_members_per_warp + a.stage_capacity;
  std::uint64_t examined = 0;
  std::uint64_t expansions = 0;
  std::uint64_t expanded = 0;
  std::uint64_t stored_members = 0;  // lane 0
  std::uint64_t stored_sets = 0;     // lane 0

  for (;;) {
    unsigned item = 0;
    if (lane == 0) item = atomicAdd(a.next_item, 1U);
    item = __shfl_sync(full_warp, item, 0);
    if (item >= (a.num_items_at != nullptr ? *a.num_items_at : a.num_items)) break;
    const std::uint32_t local = a.item_list != nullptr ? a.item_list[item] : item;
    const std::uint64_t sample = sample_key(a.seed, a.first_id + local);
    const std::uint32_t num_roots = root_count(sample, a.mean_roots, g.num_vertices);
    std::uint64_t size = 0;
    bool overflow = false;

    // Multi-round (gIM digest section 3.1): the same roots every round, round t traversed in the
    // world round_sample_key(sample, t) with members stored as t * n + vertex after the members
    // of the earlier rounds; the visited bitmap is cleared between rounds.
    for (std::uint32_t round = 0; round < a.rounds && !overflow; ++round) {
      const std::uint64_t key = round_sample_key(sample, round);
      const std::uint32_t offset = round * g.num_vertices;
      const std::uint64_t round_start = size;
      overflow = size + num_roots > capacity;
      // Roots, drawn by lane 0 exactly as the reference does (Floyd over the visited bitmap).
      if (lane == 0 && !overflow) {
        draw_distinct_roots(
            sample, g.num_vertices, num_roots,
            [&](std::uint32_t v) { return ((__ldcg(visited + (v >> 5)) >> (v & 31)) & 1U) != 0; },
            [&](std::uint32_t v) {
              atomicOr(visited + (v >> 5), 1U << (v & 31));
              *member_slot(shared, stage, size++) = v + offset;
            });
      }
      size = __shfl_sync(full_warp, size, 0);
      __syncwarp();

      std::uint64_t head = round_start;
      while (head < size && !overflow) {
        if constexpr (IsIc) {
          // Expand up to 32 queued vertices at once: lane i owns vertex head + i. Its work items
          // are its in-edges (per-edge rule) or its blocks of ic_block_size in-edges (block rule,
          // random/ic_block_rule.hpp); the lanes stride over the concatenation of the items.
          const std::uint64_t batch = size - head < 32 ? size - head : 32;
          std::uint64_t begin = 0;
          std::uint64_t degree = 0;
          std::uint64_t block = 0;  // 0: per-edge vertex
          std::uint64_t items = 0;
          std::uint32_t cls = per_edge_class;
          if (lane < batch) {
            const std::uint32_t v = *member_slot(shared, stage, head + lane) - offset;
            const ic_vertex_record r = a.records[v];
            begin = record_begin(r);
            if (r.block != 0) cls = record_class(r, a.blocks, v);
            degree = r.degree;
            block = r.block;
            // Block-rule vertices have degree >= 2 and block >= 1.
            items = block != 0 ? (r.degree - 1U) / r.block + 1U : degree;
          }
          examined += degree;  // edges examined: the whole in-degree, whichever rule draws it
          ++expansions;
          expanded += batch;
          head += batch;
          warp_expand(items, lane, [&](unsigned owner, std::uint64_t r, bool valid) {
            const std::uint64_t owner_begin = __shfl_sync(full_warp, begin, owner);
            const std::uint64_t owner_degree = __shfl_sync(full_warp, degree, owner);
            const std::uint64_t owner_block = __shfl_sync(full_warp, block, owner);
            const std::uint32_t owner_class = __shfl_sync(full_warp, cls, owner);
            // This lane's live in-edges: first + lane_slots[0 .. live), drawn into shared memory
            // (a register array indexed by a loop counter would live in local memory).
            std::uint32_t* lane_slots = warp_slots + lane * lane_slot_stride;
            std::uint32_t live = 0;
            std::uint64_t first = 0;
            __syncwarp();  // the previous round's slots have been read
            if (valid) {
              if (owner_block == 0) {
                // Liveness first: the thresholds stream in coalesced, and only live edges read
                // the source and the random-access bitmap.
                first = owner_begin + r;
                if (ic_edge_live(key, first, g.in_thresholds[first])) {
                  lane_slots[0] = 0;
                  live = 1;
                }
              } else {
                first = owner_begin + r * owner_block;
                live = ic_block_draw(key, a.blocks, owner_class, first, owner_begin + owner_degree, owner_block,
                                     lane_slots);
              }
            }
            __syncwarp();  // every lane's slots are visible to the warp
            // Push the live sources of all lanes, 32 at a time, so a lane with many live edges
            // does not hold the warp for a round each.
            warp_expand(live, lane, [&](unsigned holder, std::uint64_t i, bool live_edge) {
              const std::uint64_t holder_first = __shfl_sync(full_warp, first, holder);
              bool fresh = false;
              std::uint32_t u = 0;
              if (live_edge) {
                u = g.in_sources[holder_first + warp_slots[holder * lane_slot_stride + i]];
                const std::uint32_t bit = 1U << (u & 31);
                // One round trip: under weighted cascade most live sources are new to the set, so a
                // read before the atomic would usually add a second.
                fresh = (atomicOr(visited + (u >> 5), bit) & bit) == 0;
              }
              const unsigned fresh_lanes = __ballot_sync(full_warp, fresh);
              if (fresh_lanes == 0) return true;
              const std::uint64_t position = size + __popc(fresh_lanes & ((1U << lane) - 1U));
              const std::uint64_t new_size = size + __popc(fresh_lanes);
              if (fresh) {
                if (position < capacity) {
                  *member_slot(shared, stage, position) = u + offset;
                } else {
                  atomicAnd(visited + (u >> 5), ~(1U << (u & 31)));  // not recorded: leave no trace
                }
              }
              if (new_size > capacity) {
                overflow = true;
                size = capacity;
                return false;
              }
              size = new_size;
              return true;
            });
            return !overflow;
          });
        } else {
          // LT: the vertex picks at most one in-edge; a warp scan over its cumulative in-weights
          // finds the same edge as lt_chosen_in_edge.
          const std::uint32_t v = *member_slot(shared, stage, head) - offset;
          ++head;
          const std::uint64_t begin = g.in_offsets[v];
          const std::uint64_t end = g.in_offsets[v + 1];
          const std::uint64_t draw = lt_vertex_draw(key, v);
          std::uint64_t carry = 0;
          std::uint64_t chosen = no_edge;
          for (std::uint64_t chunk = begin; chunk < end; chunk += 32) {
            const std::uint64_t j = chunk + lane;
            const std::uint64_t weight = j < end ? threshold_weight(g.in_thresholds[j]) : 0;
            const std::uint64_t inclusive = carry + warp_inclusive_sum(weight, lane);
            const unsigned hit = __ballot_sync(full_warp, j < end && draw < inclusive);
            if (hit != 0) {
              chosen = chunk + static_cast<unsigned>(__ffs(static_cast<int>(hit)) - 1);
              break;
            }
            carry = __shfl_sync(full_warp, inclusive, 31);
          }
          if (lane == 0) examined += chosen == no_edge ? end - begin : chosen - begin + 1;
          if (chosen != no_edge) {
            const std::uint32_t u = g.in_sources[chosen];
            bool fresh = false;
            if (lane == 0) {
              const std::uint32_t bit = 1U << (u & 31);
              fresh = (atomicOr(visited + (u >> 5), bit) & bit) == 0;
              if (fresh && size >= capacity) {
                atomicAnd(visited + (u >> 5), ~bit);
                overflow = true;
              } else if (fresh) {
                *member_slot(shared, stage, size) = u + offset;
              }
            }
            fresh = __shfl_sync(full_warp, fresh, 0);
            overflow = __shfl_sync(full_warp, overflow, 0);
            if (fresh && !overflow) ++size;
          }
        }
        __syncwarp();  // members written by some lanes are read by others next round
      }
      // Reset the bitmap for the next round (or set): only words holding members have bits set.
      for (std::uint64_t i = round_start + lane; i < size; i += 32) {
        const std::uint32_t v = *member_slot(shared, stage, i) - offset;
        __stcg(visited + (v >> 5), 0U);
      }
      __syncwarp();
    }

    if (overflow) {
      if (lane == 0) {
        a.deferred[atomicAdd(a.num_deferred, 1U)] = local;
        a.set_size[local] = 0;
        atomicOr(a.flags, flag_stage_overflow);
      }
    } else {
      unsigned long long base = 0;
      if (lane == 0) base = atomicAdd(a.arena_tail, static_cast<unsigned long long>(size));
      base = __shfl_sync(full_warp, base, 0);
      if (base + size > a.arena_capacity) {
        if (lane == 0) {
          a.deferred[atomicAdd(a.num_deferred, 1U)] = local;
          a.set_size[local] = 0;
          atomicAdd(a.lost_members, static_cast<unsigned long long>(size));
          atomicOr(a.flags, flag_arena_overflow);
        }
      } else {
        for (std::uint64_t i = lane; i < size; i += 32) a.arena[base + i] = *member_slot(shared, stage, i);
        if (lane == 0) {
          a.set_start[local] = base;
          a.set_size[local] = size;
          stored_members += size;
          ++stored_sets;
        }
      }
    }
  }

  examined = warp_sum(examined);
  if (lane == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
  if (lane == 0 && expansions != 0) {
    atomicAdd(a.expansions, static_cast<unsigned long long>(expansions));
    atomicAdd(a.expanded, static_cast<unsigned long long>(expanded));
  }
  if (lane == 0 && stored_sets != 0) {
    atomicAdd(a.warp_members, static_cast<unsigned long long>(stored_members));
    atomicAdd(a.warp_sets, static_cast<unsigned long long>(stored_sets));
  }
}

}  // namespace wildfire::cuda::kernels
