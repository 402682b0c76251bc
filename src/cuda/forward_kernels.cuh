// Fused forward Monte-Carlo traversal (fused BPT, Neff et al., section 3, run forward as in the
// digest's section 3.6): 64 worlds of a group share one level-synchronous frontier over the
// out-CSR; each (group, vertex) slot holds a 64-bit colour mask. A world is marked visited at
// discovery by an atomicOr that returns the old bits, so a (vertex, world) is expanded once.
// Out-edge i of v (in-edge id j = out_edge_ids[i], into u) is live in world w exactly when the
// CPU simulator says so: IC asks ic_in_edge_live(key_w, u, j) (random/ic_block_rule.hpp: the
// per-edge hash, or whether j is among the live slots of its block when u draws its in-edges per
// block), LT whether u's draw falls in edge j's cumulative-weight interval. Included only by
// cuda_spread_simulator.cu.
#pragma once

#include <cstdint>

#include "cuda/warp_primitives.cuh"

#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::cuda::kernels {

inline constexpr unsigned forward_block_threads = 256;
inline constexpr unsigned forward_full_warp = 0xffffffffU;
/// Out-degree from which a frontier slot is expanded by a whole block.
inline constexpr std::uint64_t forward_heavy_degree = 512;
/// Worlds per group: one 64-bit colour word per (group, vertex).
inline constexpr std::uint32_t worlds_per_group = 64;

struct forward_args {
  std::uint32_t num_groups;
  const std::uint64_t* keys;          // per batch-local world, of the round being traversed
  const std::uint64_t* lt_before;     // LT: cumulative in-weight before each in-edge id
  unsigned long long* visited;        // slot g * n + v
  unsigned long long* current;        // colours to expand from the slot at this level
  unsigned long long* next;           // colours discovered at this level
  std::uint32_t* queue;               // light slots from the front, heavy from the back
  std::uint32_t* next_queue;
  std::uint64_t queue_capacity;       // num_groups * n
  unsigned* next_light;
  unsigned* next_heavy;
  unsigned long long* edges_examined;
  ic_block_view blocks;               // IC: the block plan of the graph (device pointers)
};

template <bool IsIc>
__device__ __forceinline__ bool forward_edge_live(const graph_view& g, const forward_args& a, std::uint64_t key,
                                                  std::uint64_t j, std::uint32_t threshold, std::uint32_t u) {
  if constexpr (IsIc) {
    (void)threshold;  // the rule reads the thresholds of u's in-edges itself
    return ic_in_edge_live(key, g, a.blocks, u, j);
  } else {
    const std::uint64_t draw = lt_vertex_draw(key, u);
    const std::uint64_t before = a.lt_before[j];
    return draw >= before && draw < before + threshold_weight(threshold);
  }
}

__device__ __forceinline__ void forward_discover(const graph_view& g, const forward_args& a, std::uint64_t slot,
                                                 std::uint32_t u, unsigned long long keep) {
  const unsigned long long old = atomicOr(a.visited + slot, keep);
  const unsigned long long fresh = keep & ~old;
  if (fresh != 0 && atomicOr(a.next + slot, fresh) == 0) {
    if (g.out_offsets[u + 1] - g.out_offsets[u] >= forward_heavy_degree) {
      a.next_queue[a.queue_capacity - 1 - atomicAdd(a.next_heavy, 1U)] = static_cast<std::uint32_t>(slot);
    } else {
      a.next_queue[atomicAdd(a.next_light, 1U)] = static_cast<std::uint32_t>(slot);
    }
  }
}

/// Out-edge i of a slot of group `group` whose frontier colours are `frontier`.
template <bool IsIc>
__device__ __forceinline__ void forward_edge(const graph_view& g, const forward_args& a, std::uint64_t group,
                                             std::uint64_t i, unsigned long long frontier) {
  const std::uint32_t u = g.out_targets[i];
  const std::uint64_t slot = group * g.num_vertices + u;
  unsigned long long candidates = frontier & ~__ldcg(a.visited + slot);
  if (candidates == 0) return;
  const std::uint64_t j = g.out_edge_ids[i];
  const std::uint32_t threshold = g.in_thresholds[j];
  const std::uint64_t* keys = a.keys + group * worlds_per_group;
  unsigned long long keep = 0;
  while (candidates != 0) {
    const unsigned c = static_cast<unsigned>(__ffsll(static_cast<long long>(candidates)) - 1);
    candidates &= candidates - 1;
    if (forward_edge_live<IsIc>(g, a, keys[c], j, threshold, u)) keep |= 1ULL << c;
  }
  if (keep != 0) forward_discover(g, a, slot, u, keep);
}

/// Round keys of the batch's worlds: round_sample_key(sample_key(seed, first + w), round).
__global__ void forward_keys(std::uint64_t seed, std::uint64_t first_world, std::uint32_t round, std::uint32_t count,
                             std::uint64_t* keys) {
  const std::uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w < count) keys[w] = round_sample_key(sample_key(seed, first_world + w), round);
}

/// Thread per (group, seed): every active world of the group starts at the seed.
__global__ void forward_seeds(graph_view g, forward_args a, const std::uint32_t* seeds, std::uint32_t num_seeds,
                              std::uint32_t worlds) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= static_cast<std::uint64_t>(a.num_groups) * num_seeds) return;
  const std::uint64_t group = t / num_seeds;
  const std::uint32_t s = seeds[t % num_seeds];
  const std::uint64_t first = group * worlds_per_group;
  const std::uint64_t active = worlds - first >= 64 ? 64 : worlds - first;
  const unsigned long long all = active == 64 ? ~0ULL : (1ULL << active) - 1ULL;
  forward_discover(g, a, group * g.num_vertices + s, s, all);
}

/// Light slots: a warp takes 32 slots and strides over the concatenation of their out-edges.
template <bool IsIc>
__global__ void __launch_bounds__(forward_block_threads) forward_light(graph_view g, forward_args a, unsigned num_light) {
  const unsigned lane = threadIdx.x & 31;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  std::uint64_t examined = 0;
  for (std::uint64_t first = ((static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * 32;
       first < num_light; first += warps * 32) {
    std::uint64_t begin = 0;
    std::uint64_t degree = 0;
    std::uint64_t group = 0;
    unsigned long long frontier = 0;
    if (first + lane < num_light) {
      const std::uint64_t slot = a.queue[first + lane];
      frontier = a.current[slot];
      a.current[slot] = 0;  // queued once per level; only this level reads it
      group = slot / g.num_vertices;
      const auto v = static_cast<std::uint32_t>(slot % g.num_vertices);
      begin = g.out_offsets[v];
      degree = g.out_offsets[v + 1] - begin;
      examined += degree;
    }
    warp_expand(degree, lane, [&](unsigned owner, std::uint64_t item, bool valid) {
      const std::uint64_t owner_begin = __shfl_sync(forward_full_warp, begin, owner);
      const std::uint64_t owner_group = __shfl_sync(forward_full_warp, group, owner);
      const unsigned long long owner_frontier = __shfl_sync(forward_full_warp, frontier, owner);
      if (valid) forward_edge<IsIc>(g, a, owner_group, owner_begin + item, owner_frontier);
    });
  }
  examined = warp_sum(examined);
  if (lane == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
}

/// Heavy slots (from the back of the queue): a block per slot.
template <bool IsIc>
__global__ void __launch_bounds__(forward_block_threads) forward_heavy(graph_view g, forward_args a, unsigned num_heavy) {
  __shared__ unsigned long long frontier;
  __shared__ std::uint64_t slot;
  for (std::uint64_t i = blockIdx.x; i < num_heavy; i += gridDim.x) {
    if (threadIdx.x == 0) {
      slot = a.queue[a.queue_capacity - 1 - i];
      frontier = a.current[slot];
      a.current[slot] = 0;
    }
    __syncthreads();
    const std::uint64_t group = slot / g.num_vertices;
    const auto v = static_cast<std::uint32_t>(slot % g.num_vertices);
    const unsigned long long colours = frontier;
    const std::uint64_t begin = g.out_offsets[v];
    const std::uint64_t end = g.out_offsets[v + 1];
    for (std::uint64_t i2 = begin + threadIdx.x; i2 < end; i2 += blockDim.x) forward_edge<IsIc>(g, a, group, i2, colours);
    if (threadIdx.x == 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(end - begin));
    __syncthreads();  // before thread 0 overwrites the shared slot
  }
}

/// Multi-round: ever |= visited, visited = 0, over every slot of the batch.
__global__ void forward_fold_round(unsigned long long* visited, unsigned long long* ever, std::uint64_t slots) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t s = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < slots; s += stride) {
    const unsigned long long bits = visited[s];
    if (bits != 0) {
      ever[s] |= bits;
      visited[s] = 0;
    }
  }
}

/// Spreads: blockIdx.y is the group; each block counts its vertices' colour bits in shared
/// memory and adds them to spreads[group * 64 + colour] (zeroed by the launcher).
__global__ void forward_count(const unsigned long long* marks, std::uint32_t n, std::uint32_t* spreads) {
  __shared__ std::uint32_t local[worlds_per_group];
  if (threadIdx.x < worlds_per_group) local[threadIdx.x] = 0;
  __syncthreads();
  const std::uint64_t group = blockIdx.y;
  const unsigned long long* row = marks + group * n;
  for (std::uint64_t v = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < n;
       v += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    for (unsigned long long bits = row[v]; bits != 0; bits &= bits - 1) {
      atomicAdd(local + (__ffsll(static_cast<long long>(bits)) - 1), 1U);
    }
  }
  __syncthreads();
  if (threadIdx.x < worlds_per_group && local[threadIdx.x] != 0) {
    atomicAdd(spreads + group * worlds_per_group + threadIdx.x, local[threadIdx.x]);
  }
}

}  // namespace wildfire::cuda::kernels
