// Kernels of greedy maximum coverage over the device store (IMM NodeSelection, gIM digest
// section 2.9): coverage counts, the vertex-to-sets index by a counting sort (counts, CUB scan,
// scatter; large segments take a radix sort of (member, set) pairs instead), argmax with ties to the lowest id, and the incremental decrement of the counts of
// the members of newly covered sets. Included only by max_coverage.cu.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cooperative_groups.h>

#include "cuda/cover_policies.cuh"
#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels {

inline constexpr unsigned cover_block_threads = 256;

/// counts[v] += 1 for every member (each set holds a vertex at most once).
__global__ void count_members(const std::uint32_t* members, std::uint64_t num_members, std::uint32_t* counts) {
  for (std::uint64_t i = grid_thread_id(); i < num_members; i += grid_thread_count()) atomicAdd(counts + members[i], 1U);
}

/// Warp per set of sets[first_set, first_set + num_sets) of the store: appends the set's id to
/// the segment's list of each member. `offsets` is the store's (absolute member positions).
__global__ void scatter_index(const std::uint64_t* offsets, const std::uint32_t* members, std::uint64_t first_set,
                              std::uint64_t num_sets, const std::uint64_t* index_offsets, std::uint32_t* cursor,
                              std::uint32_t* index_sets) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = grid_thread_id() >> 5; i < num_sets; i += grid_thread_count() >> 5) {
    const std::uint64_t s = first_set + i;
    for (std::uint64_t j = offsets[s] + lane; j < offsets[s + 1]; j += 32) {
      const std::uint32_t v = members[j];
      index_sets[index_offsets[v] + atomicAdd(cursor + v, 1U)] = static_cast<std::uint32_t>(s);
    }
  }
}

/// Warp per set of sets[first_set, first_set + num_sets): set_ids[j - first_member] = s for each
/// of the set's member positions j, the values of the index's radix sort by member.
__global__ void label_members(const std::uint64_t* offsets, std::uint64_t first_set, std::uint64_t num_sets,
                              std::uint64_t first_member, std::uint32_t* set_ids) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = grid_thread_id() >> 5; i < num_sets; i += grid_thread_count() >> 5) {
    const std::uint64_t s = first_set + i;
    for (std::uint64_t j = offsets[s] + lane; j < offsets[s + 1]; j += 32) {
      set_ids[j - first_member] = static_cast<std::uint32_t>(s);
    }
  }
}

/// index_offsets[n] = index_offsets[n - 1] + counts[n - 1] (n >= 1): closes an exclusive scan on
/// the device, so no host round trip is needed for the total. One thread.
__global__ void close_offsets(const std::uint32_t* counts, std::uint32_t n, std::uint64_t* index_offsets) {
  if (threadIdx.x == 0 && blockIdx.x == 0) index_offsets[n] = index_offsets[n - 1] + counts[n - 1];
}

/// total[v] += part[v].
__global__ void add_counts(const std::uint32_t* part, std::uint32_t n, std::uint32_t* total) {
  for (std::uint64_t v = grid_thread_id(); v < n; v += grid_thread_count()) total[v] += part[v];
}

/// The segments of the vertex-to-sets index, passed by value to each cover step.
inline constexpr unsigned max_segments = 8;
struct index_segments {
  const std::uint64_t* offsets[max_segments];
  const std::uint32_t* sets[max_segments];
  unsigned count;
};

/// Maximum of `mine` over the block (valid in thread 0); `scratch` holds blockDim.x / 32 entries.
__device__ __forceinline__ unsigned long long block_max(unsigned long long mine, unsigned long long* scratch) {
  mine = warp_max(mine);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < blockDim.x / 32; ++w)
      if (scratch[w] > mine) mine = scratch[w];
  }
  __syncthreads();  // scratch is reused
  return mine;
}

/// This thread's part of argmax_count: the largest (counts[v] << 32 | ~v) over the eligible v
/// (unselected, its round's budget not spent) of its grid-stride share, 0 if none. The mutable
/// arrays are read through L2 (__ldcg): greedy_persistent reads them again after other
/// multiprocessors have changed them.
__device__ __forceinline__ unsigned long long argmax_partial(const std::uint32_t* counts, const std::uint8_t* selected,
                                                             std::uint32_t n, const std::uint32_t* round_used,
                                                             std::uint32_t per_round, std::uint32_t k) {
  unsigned long long mine = 0;
  // One round (per_round == n) cannot spend its budget within the steps asked for: no read of it
  // on each step's dependent chain.
  const bool budgets = per_round < n;
  auto consider = [&](std::uint32_t v, std::uint32_t count, std::uint8_t is_selected) {
    if (is_selected == 0 && (!budgets || __ldcg(round_used + v / per_round) < k)) {
      const unsigned long long packed = argmax_key(count, v);
      if (packed > mine) mine = packed;
    }
  };
  // Four vertices per load (the buffers are 256-byte aligned): a quarter of the load
  // instructions of a vertex per thread.
  const std::uint32_t quads = n / 4;
  const auto* counts4 = reinterpret_cast<const uint4*>(counts);
  const auto* selected4 = reinterpret_cast<const uchar4*>(selected);
  for (std::uint64_t q = grid_thread_id(); q < quads; q += grid_thread_count()) {
    const uint4 c = __ldcg(counts4 + q);
    const uchar4 f = __ldcg(selected4 + q);
    const auto v = static_cast<std::uint32_t>(4 * q);
    consider(v, c.x, f.x);
    consider(v + 1, c.y, f.y);
    consider(v + 2, c.z, f.z);
    consider(v + 3, c.w, f.w);
  }
  for (std::uint64_t v = 4ULL * quads + grid_thread_id(); v < n; v += grid_thread_count()) {
    consider(static_cast<std::uint32_t>(v), __ldcg(counts + v), __ldcg(selected + v));
  }
  return mine;
}

/// best = max over eligible v of (counts[v] << 32 | ~v) (argmax_partial): the largest count,
/// lowest id on ties; stays 0 when no element is eligible.
__global__ void argmax_count(const std::uint32_t* counts, const std::uint8_t* selected, std::uint32_t n,
                             const std::uint32_t* round_used, std::uint32_t per_round, std::uint32_t k,
                             unsigned long long* best) {
  // One atomic per block: a per-warp atomicMax on one address serialises in L2 (tens of
  // thousands per step on a universe of millions).
  __shared__ unsigned long long scratch[cover_block_threads / 32];
  const unsigned long long mine = block_max(argmax_partial(counts, selected, n, round_used, per_round, k), scratch);
  if (threadIdx.x == 0 && mine != 0) atomicMax(best, mine);
}

/// With chunks, newly covered sets of more than this many members are not lowered by the warp that
/// finds them but split into chunks of cover_chunk members for the whole grid (lower_chunked_counts).
inline constexpr unsigned cover_small_set = 32;
inline constexpr unsigned cover_chunk = 256;
/// Collections whose mean set holds fewer members than this take no chunks: their cover steps are
/// one launch, not two (soc-Epinions1: 5 members a set, 200 steps of about 10 microseconds;
/// LJ-like: 101, and sets of thousands that hold its hubs).
inline constexpr std::uint64_t chunked_mean_set = 16;

/// A chunk of a newly covered set: members [first, first + length) of the store, length in
/// [1, cover_chunk], packed as first << 8 | (length - 1).
__device__ __forceinline__ unsigned long long pack_chunk(std::uint64_t first, unsigned length) {
  return (static_cast<unsigned long long>(first) << 8) | (length - 1);
}

/// Chunks a cover step may deal at most: every newly covered set of a step is one of the store's
/// sets, and their members are the store's members.
inline std::uint64_t max_cover_chunks(std::uint64_t num_sets, std::uint64_t num_members) {
  return num_members / cover_chunk + num_sets + 1;
}

/// The work of cover_sets for the step's key (admitted by `policy`), by every thread of the grid.
template <class Policy>
__device__ __forceinline__ void cover_chosen(unsigned long long key, index_segments index, const std::uint64_t* offsets,
                                             const std::uint32_t* members, std::uint8_t* covered,
                                             std::uint32_t* counts, std::uint8_t* selected, std::uint32_t* round_used,
                                             std::uint32_t per_round, unsigned long long* gained,
                                             std::uint64_t small_limit, unsigned long long* chunks,
                                             unsigned long long* chunk_count, Policy policy) {
  const std::uint32_t v = argmax_key_vertex(key);
  if (grid_thread_id() == 0) {
    selected[v] = 1;
    atomicAdd(round_used + v / per_round, 1U);  // in L2: greedy_persistent reads it on every multiprocessor
    // Every set holding v is covered after this step, so v's count ends at 0. It is set here, not
    // decremented once per newly covered set: those atomics all hit one address (one per set of
    // the step), which serialises them in L2.
    counts[v] = 0;
  }
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warp = grid_thread_id() >> 5;
  const std::uint64_t warps = grid_thread_count() >> 5;
  unsigned long long newly = 0;
  // v's lists in all segments as one sequence, so that a step walks them in one pass rather than
  // one dependent pass per segment (each segment's bounds loaded up front, all in registers).
  std::uint64_t list_begin[max_segments];
  std::uint64_t list_size[max_segments];
  std::uint64_t total = 0;
#pragma unroll
  for (unsigned seg = 0; seg < max_segments; ++seg) {
    list_begin[seg] = 0;
    list_size[seg] = 0;
    if (seg < index.count) {
      list_begin[seg] = index.offsets[seg][v];
      list_size[seg] = index.offsets[seg][v + 1] - list_begin[seg];
      total += list_size[seg];
    }
  }
  for (std::uint64_t i = warp; i < total; i += 32 * warps) {
    const std::uint64_t entry = i + lane * warps;
    std::uint64_t first = 0;
    std::uint64_t size = 0;  // members [first, first + size) of this lane's newly covered set
    if (entry < total) {
      std::uint64_t rest = entry;  // position in the lists from the current segment on
      std::uint32_t s = 0;
      bool found = false;
#pragma unroll
      for (unsigned seg = 0; seg < max_segments; ++seg) {
        if (!found && rest < list_size[seg]) {
          s = index.sets[seg][list_begin[seg] + rest];
          found = true;
        } else if (!found) {
          rest -= list_size[seg];
        }
      }
      // A set occurs once in v's lists (segments hold disjoint sets), so no other lane of this
      // step touches covered[s]; earlier steps may have, on other multiprocessors (__ldcg).
      if (__ldcg(covered + s) == 0) {
        covered[s] = 1;
        ++newly;
        first = offsets[s];
        size = offsets[s + 1] - first;
      }
    }
    const bool small = size <= small_limit;
    warp_expand(small ? size : 0, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
      const std::uint64_t from = __shfl_sync(warp_full_mask, first, owner);
      if (!valid) return;
      const std::uint32_t u = members[from + item];
      if (u != v && policy.counted(u)) atomicSub(counts + u, 1U);
    });
    const std::uint64_t pieces = small ? 0 : (size + cover_chunk - 1) / cover_chunk;
    const std::uint64_t inclusive = warp_inclusive_sum(pieces, lane);
    const std::uint64_t all_pieces = __shfl_sync(warp_full_mask, inclusive, 31);
    if (all_pieces == 0) continue;
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(chunk_count, static_cast<unsigned long long>(all_pieces));
    at = __shfl_sync(warp_full_mask, at, 0) + inclusive - pieces;
    for (std::uint64_t c = 0; c < pieces; ++c) {
      const std::uint64_t done = c * cover_chunk;
      chunks[at + c] = pack_chunk(first + done, static_cast<unsigned>(std::min<std::uint64_t>(cover_chunk, size - done)));
    }
  }
  newly = warp_sum(newly);
  if (lane == 0 && newly != 0) atomicAdd(gained, newly);
}

/// First kernel of a greedy step. The chosen vertex's index lists (one per segment, walked as one
/// sequence; a pass per segment made the final select of soc-Epinions1's IMM four dependent
/// passes): warp w takes
/// list entries w, w + W, w + 2W, ... (W warps), 32 of them at a time, one per lane; each lane looks
/// up its entry's set, and a set not yet covered becomes covered. The members of the warp's newly
/// covered sets of up to `small_limit` members (cover_small_set, or all of them without chunks)
/// are spread over its lanes (warp_expand) and their counts lowered by one; larger sets are cut
/// into chunks of cover_chunk members, appended to `chunks` (*chunk_count of them), for
/// lower_chunked_counts. `gained` counts the newly covered sets. The order in which sets are
/// visited does not change the counts or the gain. The lookups (list entry, flag, offsets) run
/// for 32 sets at once, and entries are dealt W apart so that a short list still spreads over
/// every warp. Before the chunks, a warp lowered the members of its
/// newly covered sets itself, set after set: on LJ-like's IMM sets the busiest warp of a step then
/// had 6.5 times the average warp's work (the sets holding a hub hold thousands of members), and
/// each 32 members waited on their load. (A lane per set all the way, with uncoalesced member
/// reads, measured slower, as did 32 consecutive entries per warp, which leaves most warps idle on
/// a short list: LJ-like greedy 33 -> 94 ms, H100.) `policy` (cover_policies.cuh) says whether the
/// step may cover at all and whose counts it lowers.
template <class Policy>
__global__ void cover_sets(const unsigned long long* best, index_segments index, const std::uint64_t* offsets,
                           const std::uint32_t* members, std::uint8_t* covered, std::uint32_t* counts,
                           std::uint8_t* selected, std::uint32_t* round_used, std::uint32_t per_round,
                           unsigned long long* gained, std::uint64_t small_limit, unsigned long long* chunks,
                           unsigned long long* chunk_count, Policy policy) {
  const unsigned long long key = *best;
  if (!policy.admits(key)) return;
  cover_chosen(key, index, offsets, members, covered, counts, selected, round_used, per_round, gained, small_limit,
               chunks, chunk_count, policy);
}

/// A whole greedy in one cooperative launch, when every count is kept and sets are lowered in the
/// warp (no chunks, no OPIM-C bound): step after step, argmax_count's work and then cover_sets',
/// a grid barrier after each. On soc-Epinions1 a step's two launches took about 11 us of GPU time
/// and 5 us of launch gaps for about 2 us of work; IMM makes 200 such steps. Steps after one that
/// finds no eligible vertex choose nothing (best stays 0), as with the two kernels.
__global__ void __launch_bounds__(cover_block_threads)
    greedy_persistent(std::uint64_t wanted, std::uint32_t n, std::uint32_t k, index_segments index,
                      const std::uint64_t* offsets, const std::uint32_t* members, std::uint8_t* covered,
                      std::uint32_t* counts, std::uint8_t* selected, std::uint32_t* round_used, std::uint32_t per_round,
                      unsigned long long* best, unsigned long long* gained) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  __shared__ unsigned long long scratch[cover_block_threads / 32];
  for (std::uint64_t step = 0; step < wanted; ++step) {
    const unsigned long long mine =
        block_max(argmax_partial(counts, selected, n, round_used, per_round, k), scratch);
    if (threadIdx.x == 0 && mine != 0) atomicMax(best + step, mine);
    grid.sync();
    const unsigned long long key = __ldcg(best + step);
    if (key == 0) return;  // every thread reads the same key: no barrier is left waiting
    cover_chosen(key, index, offsets, members, covered, counts, selected, round_used, per_round, gained + step, ~0ULL,
                 nullptr, nullptr, lower_every_count{});
    grid.sync();
  }
}

/// Second kernel of a greedy step: warp per chunk of cover_sets, grid-stride over the *chunk_count
/// chunks. A lane loads its up to cover_chunk / 32 members before it lowers any count, so that
/// their loads overlap; whose counts it lowers goes through the block's filter of the policy.
template <class Policy>
__global__ void lower_chunked_counts(const unsigned long long* best, const unsigned long long* chunks,
                                     const unsigned long long* chunk_count, const std::uint32_t* members,
                                     std::uint32_t* counts, Policy policy) {
  const unsigned long long total = *chunk_count;
  if (total == 0) return;
  __shared__ std::uint32_t filter[vertex_filter_words];
  policy.load_filter(filter);
  const std::uint32_t v = argmax_key_vertex(*best);
  const unsigned lane = threadIdx.x & 31;
  constexpr unsigned per_lane = cover_chunk / 32;
  for (std::uint64_t c = grid_thread_id() >> 5; c < total; c += grid_thread_count() >> 5) {
    const unsigned long long chunk = chunks[c];
    const std::uint64_t first = chunk >> 8;
    const unsigned length = static_cast<unsigned>(chunk & 255U) + 1;
    std::uint32_t u[per_lane];
#pragma unroll
    for (unsigned r = 0; r < per_lane; ++r) {
      const unsigned at = r * 32 + lane;
      u[r] = at < length ? members[first + at] : v;
    }
#pragma unroll
    for (unsigned r = 0; r < per_lane; ++r) {
      if (u[r] != v && policy.counted(filter, u[r])) atomicSub(counts + u[r], 1U);
    }
  }
}

/// Threads of top_k_sum_small (one block).
inline constexpr unsigned top_k_threads = 1024;
/// Universes up to this size take top_k_sum_small; larger ones a CUB radix sort (one block's
/// passes over n counts would cost more than the sort's few device-wide kernels).
inline constexpr std::uint32_t top_k_small_limit = 1U << 17;

/// *sum = the sum of the k largest of counts[0 .. n) (1 <= k <= n, every count < 2^bits), in one
/// block: a radix select over 8-bit digits from the top narrows the k-th largest value T (a
/// shared histogram per digit, its increments aggregated per warp by __match_any_sync); a last
/// pass adds the counts above T and T once for each of the top k that equal it. Replaces a full
/// sort per greedy step for the OPIM-C bound on small universes.
__global__ void __launch_bounds__(top_k_threads) top_k_sum_small(const std::uint32_t* counts, std::uint32_t n,
                                                                 std::uint32_t k, int bits, unsigned long long* sum) {
  __shared__ unsigned histogram[256];
  __shared__ std::uint32_t chosen_digit;
  __shared__ std::uint32_t remaining;  // of the top k, those not yet known to lie above the prefix
  __shared__ unsigned long long partial[top_k_threads / 32];
  const unsigned lane = threadIdx.x & 31;
  const std::uint32_t warp_base = threadIdx.x - lane;  // warp-uniform: __match_any_sync needs every lane
  if (threadIdx.x == 0) remaining = k;
  std::uint32_t prefix = 0;  // the digits of T fixed so far
  std::uint32_t mask = 0;
  for (int shift = (bits + 7) / 8 * 8 - 8; shift >= 0; shift -= 8) {
    for (unsigned d = threadIdx.x; d < 256; d += blockDim.x) histogram[d] = 0;
    __syncthreads();
    for (std::uint32_t base = warp_base; base < n; base += blockDim.x) {
      const std::uint32_t i = base + lane;
      unsigned digit = 256;  // outside the range still narrowed
      if (i < n) {
        const std::uint32_t x = counts[i];
        if ((x & mask) == prefix) digit = (x >> shift) & 255U;
      }
      const unsigned peers = __match_any_sync(0xffffffffU, digit);
      if (digit < 256 && lane == static_cast<unsigned>(__ffs(static_cast<int>(peers)) - 1)) {
        atomicAdd(histogram + digit, static_cast<unsigned>(__popc(peers)));
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      // The counts in range number at least `remaining`: walk down to the digit holding T.
      std::uint32_t left = remaining;
      unsigned d = 255;
      while (d > 0 && histogram[d] < left) {
        left -= histogram[d];
        --d;
      }
      remaining = left;
      chosen_digit = d;
    }
    __syncthreads();
    prefix |= chosen_digit << shift;
    mask |= 255U << shift;
    __syncthreads();  // every thread has read chosen_digit before thread 0 writes it again
  }
  // prefix == T, and `remaining` of the top k equal T; the others are the counts above T.
  unsigned long long mine = 0;
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const std::uint32_t x = counts[i];
    if (x > prefix) mine += x;
  }
  mine = warp_sum(mine);
  if (lane == 0) partial[threadIdx.x >> 5] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long total = static_cast<unsigned long long>(remaining) * prefix;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += partial[w];
    *sum = total;
  }
}

/// Warp per set: counts the sets holding at least one marked vertex.
__global__ void count_covered_sets(const std::uint64_t* offsets, const std::uint32_t* members, std::uint64_t num_sets,
                                   const std::uint8_t* is_seed, unsigned long long* covered) {
  const unsigned lane = threadIdx.x & 31;
  unsigned long long mine = 0;
  for (std::uint64_t s = grid_thread_id() >> 5; s < num_sets; s += grid_thread_count() >> 5) {
    bool hit = false;
    const std::uint64_t end = offsets[s + 1];
    for (std::uint64_t base = offsets[s]; base < end && !hit; base += 32) {
      const bool mine_hit = base + lane < end && is_seed[members[base + lane]] != 0;
      hit = __any_sync(0xffffffffU, mine_hit);
    }
    if (lane == 0 && hit) ++mine;
  }
  if (lane == 0 && mine != 0) atomicAdd(covered, mine);
}

}  // namespace wildfire::cuda::kernels
