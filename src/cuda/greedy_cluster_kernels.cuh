// The whole greedy of a small universe in one thread-block cluster (compute capability 9.0 and
// later): the coverage counts live in the blocks' shared memory, one slice per block, and the
// steps are separated by the cluster's hardware barrier instead of a grid barrier. Included only
// by max_coverage.cu.
//
// Why: on soc-Epinions1 (n = 75,879) IMM's 200 greedy steps took about 10 us each in
// greedy_persistent, for a few microseconds of work: each step scans n counts in L2, passes two
// grid barriers over every multiprocessor and lowers counts by L2 atomics. Here a step scans its
// slice in shared memory, lowers counts by distributed-shared-memory atomics (the owner of u is
// block u / slice) and passes two cluster barriers.
#pragma once

#include <cstdint>

#include <cooperative_groups.h>

#include "cuda/greedy_steps.hpp"
#include "cuda/max_coverage_kernels.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels {

inline constexpr unsigned cluster_greedy_threads = 1024;
/// Blocks of the cluster at most (16 needs the non-portable cluster size; 8 is portable).
inline constexpr unsigned max_cluster_blocks = 16;
/// A selected vertex's slot: never eligible again, and never lowered (every set holding it is
/// covered, and a step skips its own vertex).
inline constexpr std::uint32_t cluster_selected_count = 0xffffffffU;

struct cluster_greedy_args {
  std::uint64_t wanted;  // steps
  std::uint32_t n;
  std::uint32_t slice;  // vertices per block: block r holds the counts of [r * slice, (r + 1) * slice)
  index_segments index;
  const std::uint64_t* offsets;   // the store's
  const std::uint32_t* members;   // the store's
  std::uint8_t* covered;          // per set, zero at the start
  const std::uint32_t* counts;    // the initial counts (not changed)
  const std::uint8_t* selected;   // preselected vertices (never chosen)
  unsigned long long* best;       // per step: the argmax key (0: none eligible)
  unsigned long long* gained;     // per step: newly covered sets, zero at the start
};

/// One cluster of `slice`-sized blocks (dynamic shared memory: slice counts). Step after step:
/// every block finds the largest (count << 32 | ~v) of its slice, pushes it to every block of the
/// cluster, and after a barrier each block knows the step's key; then the cluster's warps walk the
/// chosen vertex's lists as cover_chosen does (list entries dealt W apart over the W warps), mark
/// newly covered sets and lower the counts of their other members in their owners' slices; a
/// barrier closes the step. No block reads another's shared memory after a barrier it could be
/// the last to pass, so a block may leave as soon as it sees no eligible vertex.
__global__ void __launch_bounds__(cluster_greedy_threads, 1) greedy_cluster(cluster_greedy_args a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  const cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ std::uint32_t slice_counts[];
  __shared__ unsigned long long partial[max_cluster_blocks];  // each block's best, pushed by that block
  __shared__ unsigned long long warp_best[cluster_greedy_threads / 32];
  __shared__ std::uint64_t list_begin[max_segments];
  __shared__ std::uint64_t list_size[max_segments];
  const unsigned rank = cluster.block_rank();
  const unsigned blocks = cluster.num_blocks();
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps_per_block = blockDim.x >> 5;
  const std::uint64_t warps = std::uint64_t{blocks} * warps_per_block;
  const std::uint64_t cluster_warp = std::uint64_t{rank} * warps_per_block + warp;
  const std::uint32_t first = rank * a.slice;
  const std::uint32_t owned = first < a.n ? min(a.slice, a.n - first) : 0;
  for (std::uint32_t i = threadIdx.x; i < owned; i += blockDim.x) {
    slice_counts[i] = a.selected[first + i] != 0 ? cluster_selected_count : a.counts[first + i];
  }
  cluster.sync();  // every slice is loaded before any block lowers a count in another's

  for (std::uint64_t step = 0; step < a.wanted; ++step) {
    unsigned long long mine = 0;
    for (std::uint32_t i = threadIdx.x; i < owned; i += blockDim.x) {
      const std::uint32_t count = slice_counts[i];
      if (count != cluster_selected_count) mine = max(mine, argmax_key(count, first + i));
    }
    mine = warp_max(mine);
    if (lane == 0) warp_best[warp] = mine;
    __syncthreads();
    if (warp == 0) {
      unsigned long long block_best = warp_max(lane < warps_per_block ? warp_best[lane] : 0);
      block_best = __shfl_sync(warp_full_mask, block_best, 0);
      if (lane < blocks) *cluster.map_shared_rank(partial + rank, lane) = block_best;
    }
    cluster.sync();
    unsigned long long key = 0;
    for (unsigned b = 0; b < blocks; ++b) key = max(key, partial[b]);
    if (key == 0) return;  // the same key on every thread of the cluster, and no remote access is left
    const std::uint32_t v = argmax_key_vertex(key);
    if (threadIdx.x == 0) {
      if (rank == 0) a.best[step] = key;
      if (v - first < owned) slice_counts[v - first] = cluster_selected_count;
    }
    if (threadIdx.x < a.index.count) {
      const std::uint64_t begin = a.index.offsets[threadIdx.x][v];
      list_begin[threadIdx.x] = begin;
      list_size[threadIdx.x] = a.index.offsets[threadIdx.x][v + 1] - begin;
    }
    __syncthreads();
    std::uint64_t total = 0;
    for (unsigned seg = 0; seg < a.index.count; ++seg) total += list_size[seg];

    unsigned long long newly = 0;
    for (std::uint64_t i = cluster_warp; i < total; i += 32 * warps) {
      const std::uint64_t entry = i + lane * warps;
      std::uint64_t from = 0;
      std::uint64_t size = 0;  // members [from, from + size) of this lane's newly covered set
      if (entry < total) {
        std::uint64_t rest = entry;
        unsigned seg = 0;
        while (rest >= list_size[seg]) rest -= list_size[seg++];
        const std::uint32_t s = a.index.sets[seg][list_begin[seg] + rest];
        // A set occurs once in v's lists; earlier steps may have covered it on other blocks.
        if (__ldcg(a.covered + s) == 0) {
          a.covered[s] = 1;
          ++newly;
          from = a.offsets[s];
          size = a.offsets[s + 1] - from;
        }
      }
      warp_expand(size, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
        const std::uint64_t owner_from = __shfl_sync(warp_full_mask, from, owner);
        if (!valid) return;
        const std::uint32_t u = a.members[owner_from + item];
        if (u != v) atomicSub(cluster.map_shared_rank(slice_counts + u % a.slice, u / a.slice), 1U);
      });
    }
    newly = warp_sum(newly);
    if (lane == 0 && newly != 0) atomicAdd(a.gained + step, newly);
    cluster.sync();  // counts lowered and sets covered before the next step's scan
  }
#else
  __trap();  // launched only on devices of compute capability 9.0 and later
#endif
}

}  // namespace wildfire::cuda::kernels
