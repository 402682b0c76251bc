// Every greedy step of one select in a single cooperative launch (docs/gpu.md, "Coverage and
// greedy"): the two-launch step (argmax, cover) costs about 15 µs on a small universe, mostly
// launch gaps, and its cover step leaves two contention and balance problems on hub-heavy sets:
// every covered set decrements the same hub counters (same-address atomics serialise in L2), and
// a set of 10^5 members is walked by one warp. Here:
// - a step is argmax (block reduce, one atomicMax per block), grid sync, cover, grid sync;
// - the hottest vertices (up to hot_capacity, by their count at the start of the select) get a
//   slot in a per-block shared-memory table: a block sums its decrements of a hot vertex there
//   and applies them with one global atomic per step;
// - a covered set's first cover_chunk members are decremented by the warp that covers it; the
//   rest go to a work list of (set, chunk) items that all warps share after another grid sync.
// The marginal of step i is the chosen count (the uncovered sets holding it), so the last step
// needs no cover. Results equal the two-launch path's. Included only by max_coverage.cu.
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

#include "cuda/max_coverage_hot_kernels.cuh"
#include "cuda/max_coverage_kernels.cuh"

namespace wildfire::cuda::kernels {

/// Large blocks: a grid sync costs about one atomic per block, and a block's shared table
/// aggregates more sets. Two blocks of 1024 fill an SM at 32 registers.
inline constexpr unsigned persistent_threads = 1024;
inline constexpr unsigned persistent_blocks_per_sm = 2;
/// Members of a covered set decremented by the warp that covers it; the rest go out in chunks.
inline constexpr std::uint64_t cover_chunk = 256;

struct persistent_greedy_args {
  const std::uint64_t* offsets;   // the store's
  const std::uint32_t* members;
  index_segments index;
  std::uint8_t* covered;          // per set, zero at launch
  std::uint32_t* counts;          // n, the base counts at launch
  std::uint8_t* selected;         // n
  std::uint32_t* round_used;      // rounds
  std::uint32_t n;
  std::uint32_t per_round;
  std::uint32_t k;
  std::uint64_t steps;
  unsigned long long* best;       // steps, zero at launch
  unsigned long long* gained;     // steps
  std::uint16_t* hot_slot;        // n
  std::uint32_t* hot_vertex;      // hot_capacity
  unsigned* meta;                 // zero at launch: [0, hot_meta_words) the hot-set choice, then two chunk counters
  unsigned long long* chunks;     // (set << 32 | chunk) items, at least members / cover_chunk + 1
};

inline constexpr unsigned meta_words = hot_meta_words + 2;

/// Decrements the counts of members[begin, end) (a warp, lane-strided): in the block's table for
/// hot vertices, else in global memory. Four members per lane at a time, their ids and slots
/// loaded before any atomic, so the random slot reads overlap instead of queueing one by one.
__device__ __forceinline__ void drop_counts(const std::uint32_t* members, std::uint64_t begin, std::uint64_t end,
                                            const std::uint16_t* hot_slot, unsigned* table, std::uint32_t* counts) {
  constexpr unsigned batch = 4;
  for (std::uint64_t base = begin + (threadIdx.x & 31); base < end; base += 32 * batch) {
    std::uint32_t u[batch];
    std::uint16_t slot[batch];
#pragma unroll
    for (unsigned t = 0; t < batch; ++t) u[t] = base + 32 * t < end ? __ldg(members + base + 32 * t) : 0U;
    // The slots were written by this launch: read through L2.
#pragma unroll
    for (unsigned t = 0; t < batch; ++t) slot[t] = base + 32 * t < end ? __ldcg(hot_slot + u[t]) : no_hot_slot;
#pragma unroll
    for (unsigned t = 0; t < batch; ++t) {
      if (base + 32 * t >= end) break;
      if (slot[t] != no_hot_slot) {
        atomicAdd(table + slot[t], 1U);
      } else {
        atomicSub(counts + u[t], 1U);
      }
    }
  }
}

__global__ void __launch_bounds__(persistent_threads, persistent_blocks_per_sm)
    persistent_greedy(persistent_greedy_args a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned table[hot_capacity];
  __shared__ unsigned long long scratch[persistent_threads / 32];
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t threads = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t warp = thread >> 5;
  const std::uint64_t warps = threads >> 5;
  const unsigned lane = threadIdx.x & 31;

  // The hot vertices (max_coverage_hot_kernels.cuh), by their counts at launch.
  for (unsigned i = threadIdx.x; i < 33; i += blockDim.x) table[i] = 0;
  __syncthreads();
  add_width_histogram(a.counts, a.n, warp, warps, table, a.meta);
  grid.sync();
  assign_hot_slots(a.counts, a.n, thread, threads, a.meta, a.hot_slot, a.hot_vertex);
  grid.sync();
  const unsigned hot = __ldcg(a.meta + 33);

  for (std::uint64_t step = 0; step < a.steps; ++step) {
    // Argmax over (count << 32 | ~v), eligible vertices only; ties go to the lowest id.
    unsigned long long mine = 0;
    for (std::uint64_t v = thread; v < a.n; v += threads) {
      if (__ldcg(a.selected + v) == 0 && __ldcg(a.round_used + static_cast<std::uint32_t>(v) / a.per_round) < a.k) {
        const unsigned long long packed = (static_cast<unsigned long long>(__ldcg(a.counts + v)) << 32) |
                                          (0xffffffffULL - static_cast<unsigned long long>(v));
        if (packed > mine) mine = packed;
      }
    }
    mine = block_max(mine, scratch);
    if (threadIdx.x == 0 && mine != 0) atomicMax(a.best + step, mine);
    grid.sync();
    const unsigned long long packed = __ldcg(a.best + step);
    std::uint32_t v = 0;
    if (!decode_best(packed, v)) break;  // the same value in every block: all leave together
    if (thread == 0) a.gained[step] = packed >> 32;  // the uncovered sets holding v
    if (step + 1 == a.steps) break;
    if (thread == 0) {
      a.selected[v] = 1;
      ++a.round_used[v / a.per_round];
    }
    for (unsigned i = threadIdx.x; i < hot; i += blockDim.x) table[i] = 0;
    __syncthreads();
    // Cover: a warp per set in v's lists; a fresh set is marked and its first cover_chunk
    // members' counts drop; its further chunks are listed for everyone.
    unsigned* num_chunks = a.meta + hot_meta_words + (step & 1);
    for (unsigned seg = 0; seg < a.index.count && seg < max_segments; ++seg) {
      const std::uint64_t begin = a.index.offsets[seg][v];
      const std::uint64_t end = a.index.offsets[seg][v + 1];
      const std::uint32_t* sets = a.index.sets[seg];
      for (std::uint64_t i = begin + warp; i < end; i += warps) {
        const std::uint32_t s = sets[i];
        // A set occurs once in v's lists (segments hold disjoint sets): only this warp touches it.
        if (__ldcg(a.covered + s) != 0) continue;  // warp-uniform
        const std::uint64_t first = a.offsets[s];
        const std::uint64_t size = a.offsets[s + 1] - first;
        const std::uint64_t head = size < cover_chunk ? size : cover_chunk;
        drop_counts(a.members, first, first + head, a.hot_slot, table, a.counts);
        const std::uint64_t more = (size - head + cover_chunk - 1) / cover_chunk;
        unsigned at = 0;
        if (lane == 0) {
          a.covered[s] = 1;
          if (more != 0) at = atomicAdd(num_chunks, static_cast<unsigned>(more));
        }
        at = __shfl_sync(0xffffffffU, at, 0);
        for (std::uint64_t c = lane; c < more; c += 32) {
          a.chunks[at + c] = (static_cast<unsigned long long>(s) << 32) | (c + 1);
        }
      }
    }
    grid.sync();
    const unsigned listed = __ldcg(num_chunks);
    if (listed != 0) {
      for (std::uint64_t i = warp; i < listed; i += warps) {
        const unsigned long long item = __ldcg(a.chunks + i);
        const std::uint32_t s = static_cast<std::uint32_t>(item >> 32);
        const std::uint64_t first = a.offsets[s] + (item & 0xffffffffULL) * cover_chunk;
        const std::uint64_t end = a.offsets[s + 1];
        const std::uint64_t stop = end - first < cover_chunk ? end : first + cover_chunk;
        drop_counts(a.members, first, stop, a.hot_slot, table, a.counts);
      }
    }
    // The next step's chunk counter, last read two grid syncs ago.
    if (thread == 0) a.meta[hot_meta_words + ((step + 1) & 1)] = 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < hot; i += blockDim.x) {
      if (table[i] != 0) atomicSub(a.counts + a.hot_vertex[i], table[i]);
    }
    grid.sync();
  }
}

}  // namespace wildfire::cuda::kernels
