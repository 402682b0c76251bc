// Hot vertices of greedy maximum coverage (docs/gpu.md, "Coverage and greedy"): RR sets under
// weighted cascade share a few hubs, so per-member atomics on the coverage counts (counting,
// index scatter, greedy decrements) pile onto the same addresses and serialise in L2. The
// vertices with the largest counts (up to hot_capacity) get a slot; a block sums its updates of
// a hot vertex in shared memory and applies them with one global atomic. Which vertices are hot
// only changes speed, never a result. Included only by max_coverage.cu.
#pragma once

#include <cstdint>

namespace wildfire::cuda::kernels {

inline constexpr unsigned hot_capacity = 2048;
inline constexpr std::uint16_t no_hot_slot = 0xffff;
/// Words of a hot-set choice: [0, 33) histogram of count bit widths, [33] the number of hot vertices.
inline constexpr unsigned hot_meta_words = 34;
inline constexpr unsigned hot_block_threads = 256;

__device__ __forceinline__ unsigned count_width(std::uint32_t count) {
  return 32U - static_cast<unsigned>(__clz(static_cast<int>(count)));
}

/// Adds the bit widths of counts[0 .. n) to meta[0 .. 33): a warp per 32 vertices (warp-uniform
/// strides, so every lane meets the match), increments aggregated per warp, then per block in
/// `table` (33 shared words, zeroed by the caller and synchronised).
__device__ __forceinline__ void add_width_histogram(const std::uint32_t* counts, std::uint32_t n, std::uint64_t warp,
                                                    std::uint64_t warps, unsigned* table, unsigned* meta) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t base = warp * 32; base < n; base += warps * 32) {
    const std::uint64_t v = base + lane;
    const unsigned width = v < n ? count_width(__ldcg(counts + v)) : 33U;
    const unsigned peers = __match_any_sync(0xffffffffU, width);
    if (width < 33 && lane == static_cast<unsigned>(__ffs(static_cast<int>(peers)) - 1)) {
      atomicAdd(table + width, static_cast<unsigned>(__popc(peers)));
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < 33; i += blockDim.x)
    if (table[i] != 0) atomicAdd(meta + i, table[i]);
}

/// Gives a slot to every vertex whose count has bit width >= w0, the smallest w0 >= 1 for which
/// at most hot_capacity counts do (meta holds the complete histogram); the others get none.
__device__ __forceinline__ void assign_hot_slots(const std::uint32_t* counts, std::uint32_t n, std::uint64_t thread,
                                                 std::uint64_t threads, unsigned* meta, std::uint16_t* hot_slot,
                                                 std::uint32_t* hot_vertex) {
  unsigned min_width = 33;
  for (unsigned w = 32, above = 0; w >= 1; --w) {
    above += __ldcg(meta + w);
    if (above > hot_capacity) break;
    min_width = w;
  }
  for (std::uint64_t v = thread; v < n; v += threads) {
    std::uint16_t slot = no_hot_slot;
    if (count_width(__ldcg(counts + v)) >= min_width) {
      const unsigned s = atomicAdd(meta + 33, 1U);
      hot_vertex[s] = static_cast<std::uint32_t>(v);
      slot = static_cast<std::uint16_t>(s);
    }
    hot_slot[v] = slot;
  }
}

/// The two halves of a hot-set choice as kernels (meta zeroed before the first).
__global__ void __launch_bounds__(hot_block_threads) hot_histogram(const std::uint32_t* counts, std::uint32_t n,
                                                                   unsigned* meta) {
  __shared__ unsigned table[33];
  for (unsigned i = threadIdx.x; i < 33; i += blockDim.x) table[i] = 0;
  __syncthreads();
  const std::uint64_t thread = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  add_width_histogram(counts, n, thread >> 5, (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5, table, meta);
}
__global__ void hot_assign(const std::uint32_t* counts, std::uint32_t n, unsigned* meta, std::uint16_t* hot_slot,
                           std::uint32_t* hot_vertex) {
  assign_hot_slots(counts, n, static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                   static_cast<std::uint64_t>(gridDim.x) * blockDim.x, meta, hot_slot, hot_vertex);
}

/// [begin, end) of this block's share of `total` items, in contiguous ranges (the same block
/// sees the same items in both passes of scatter_index_hot).
__device__ __forceinline__ void block_range(std::uint64_t total, std::uint64_t& begin, std::uint64_t& end) {
  const std::uint64_t per_block = (total + gridDim.x - 1) / gridDim.x;
  begin = per_block * blockIdx.x;
  end = begin + per_block < total ? begin + per_block : total;
  if (begin > end) begin = end;
}

/// counts[v] += 1 for every member, hot vertices summed per block first.
__global__ void __launch_bounds__(hot_block_threads) count_members_hot(const std::uint32_t* members,
                                                                       std::uint64_t num_members,
                                                                       const std::uint16_t* hot_slot,
                                                                       const std::uint32_t* hot_vertex,
                                                                       const unsigned* meta, std::uint32_t* counts) {
  __shared__ unsigned table[hot_capacity];
  const unsigned hot = __ldcg(meta + 33);
  for (unsigned i = threadIdx.x; i < hot; i += blockDim.x) table[i] = 0;
  __syncthreads();
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  block_range(num_members, begin, end);
  for (std::uint64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const std::uint32_t v = members[i];
    const std::uint16_t slot = hot_slot[v];
    if (slot != no_hot_slot) {
      atomicAdd(table + slot, 1U);
    } else {
      atomicAdd(counts + v, 1U);
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < hot; i += blockDim.x)
    if (table[i] != 0) atomicAdd(counts + hot_vertex[i], table[i]);
}

/// scatter_index (max_coverage_kernels.cuh) with hot vertices: a block takes a contiguous range of
/// the sets; it first counts its occurrences of each hot vertex and reserves that many entries of
/// the vertex's list with one atomic, then hands them out from shared memory.
__global__ void __launch_bounds__(hot_block_threads) scatter_index_hot(
    const std::uint64_t* offsets, const std::uint32_t* members, std::uint64_t first_set, std::uint64_t num_sets,
    const std::uint64_t* index_offsets, std::uint32_t* cursor, std::uint32_t* index_sets,
    const std::uint16_t* hot_slot, const std::uint32_t* hot_vertex, const unsigned* meta) {
  __shared__ unsigned long long next[hot_capacity];  // counts, then the next free entry
  const unsigned hot = __ldcg(meta + 33);
  const unsigned lane = threadIdx.x & 31;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = blockDim.x >> 5;
  for (unsigned i = threadIdx.x; i < hot; i += blockDim.x) next[i] = 0;
  __syncthreads();
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  block_range(num_sets, begin, end);
  for (std::uint64_t i = begin + warp; i < end; i += warps) {
    const std::uint64_t s = first_set + i;
    for (std::uint64_t j = offsets[s] + lane; j < offsets[s + 1]; j += 32) {
      const std::uint16_t slot = hot_slot[members[j]];
      if (slot != no_hot_slot) atomicAdd(next + slot, 1ULL);
    }
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < hot; i += blockDim.x) {
    if (next[i] != 0) {
      const std::uint32_t v = hot_vertex[i];
      next[i] = index_offsets[v] + atomicAdd(cursor + v, static_cast<unsigned>(next[i]));
    }
  }
  __syncthreads();
  for (std::uint64_t i = begin + warp; i < end; i += warps) {
    const std::uint64_t s = first_set + i;
    for (std::uint64_t j = offsets[s] + lane; j < offsets[s + 1]; j += 32) {
      const std::uint32_t v = members[j];
      const std::uint16_t slot = hot_slot[v];
      const std::uint64_t at =
          slot != no_hot_slot ? atomicAdd(next + slot, 1ULL) : index_offsets[v] + atomicAdd(cursor + v, 1U);
      index_sets[at] = static_cast<std::uint32_t>(s);
    }
  }
}

}  // namespace wildfire::cuda::kernels
