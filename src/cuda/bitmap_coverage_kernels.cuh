// Kernels of the bitmap RR representation (see bitmap_coverage.hpp): filling from flat sets,
// per-vertex counts, the greedy step (argmax, cover, uncount), coverage of a seed set.
// Included only by bitmap_coverage.cu.
#pragma once

#include <cstdint>

#include "cuda/bitmap_coverage.hpp"
#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels::bitmap {

inline constexpr unsigned block_threads = 256;

/// Sum of `value` over the block's warps into *total (lane 0 of each warp adds).
__device__ __forceinline__ void add_warp_sum(unsigned long long value, unsigned long long* total) {
  const unsigned long long sum = warp_sum(value);
  if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(total, sum);
}

/// Warp per set: held set first_index + i gets bit (first_index + i) % 64 in its batch's word of
/// every member (atomicOr: the batch's other sets share the words).
__global__ void scatter_sets(bitmap_view bm, const std::uint64_t* offsets, const std::uint32_t* members,
                             std::uint64_t num_sets, std::uint64_t first_index) {
  const unsigned lane = threadIdx.x & 31;
  for (std::uint64_t i = grid_thread_id() >> 5; i < num_sets; i += grid_thread_count() >> 5) {
    const std::uint64_t index = first_index + i;
    unsigned long long* words = bm.batch(index / 64);
    const unsigned long long bit = 1ULL << (index % 64);
    for (std::uint64_t j = offsets[i] + lane; j < offsets[i + 1]; j += 32) atomicOr(words + members[j], bit);
  }
}

/// counts[v] = held sets holding v: popcounts over batches [0, batches), coalesced over v.
__global__ void count_sets(bitmap_view bm, std::uint64_t batches, std::uint32_t* counts) {
  for (std::uint64_t v = grid_thread_id(); v < bm.n; v += grid_thread_count()) {
    std::uint32_t count = 0;
    for (std::uint64_t first = 0; first < batches; first += bm.per_chunk) {
      const unsigned long long* chunk = bm.chunks[first / bm.per_chunk] + v;
      const std::uint64_t end = first + bm.per_chunk < batches ? bm.per_chunk : batches - first;
      for (std::uint64_t b = 0; b < end; ++b) count += static_cast<std::uint32_t>(__popcll(chunk[b * bm.n]));
    }
    counts[v] = count;
  }
}

/// best = max over unselected v of (counts[v] << 32 | ~v): the largest count, lowest id on ties;
/// stays 0 when every vertex is selected.
__global__ void argmax(const std::uint32_t* counts, const std::uint8_t* selected, std::uint32_t n,
                       unsigned long long* best) {
  unsigned long long mine = 0;
  for (std::uint64_t v = grid_thread_id(); v < n; v += grid_thread_count()) {
    if (selected[v] != 0) continue;
    const unsigned long long packed = argmax_key(counts[v], v);
    if (packed > mine) mine = packed;
  }
  mine = warp_max(mine);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicMax(best, mine);
}

/// Thread per batch: the step's seed (decoded from *best) covers its uncovered sets there; a
/// batch with new ones records them in fresh[b] and goes on the touched list. `gained` counts
/// the newly covered sets.
__global__ void cover(bitmap_view bm, std::uint64_t batches, const unsigned long long* best, std::uint8_t* selected,
                      unsigned long long* covered, unsigned long long* fresh, std::uint32_t* touched,
                      unsigned long long* num_touched, unsigned long long* gained) {
  const unsigned long long packed = *best;
  if (packed == 0) return;
  const std::uint32_t seed = argmax_key_vertex(packed);
  if (grid_thread_id() == 0) selected[seed] = 1;
  unsigned long long newly = 0;
  for (std::uint64_t b = grid_thread_id(); b < batches; b += grid_thread_count()) {
    const unsigned long long hit = bm.batch(b)[seed] & ~covered[b];
    if (hit == 0) continue;
    covered[b] |= hit;
    fresh[b] = hit;
    touched[atomicAdd(num_touched, 1ULL)] = static_cast<std::uint32_t>(b);
    newly += static_cast<unsigned long long>(__popcll(hit));
  }
  add_warp_sum(newly, gained);
}

/// Thread per vertex: counts[v] -= the newly covered sets holding v, over the touched batches.
__global__ void uncount(bitmap_view bm, const std::uint32_t* touched, const unsigned long long* num_touched,
                        const unsigned long long* fresh, std::uint32_t* counts) {
  const unsigned long long count = *num_touched;
  if (count == 0) return;
  for (std::uint64_t v = grid_thread_id(); v < bm.n; v += grid_thread_count()) {
    std::uint32_t drop = 0;
    for (unsigned long long i = 0; i < count; ++i) {
      const std::uint32_t b = touched[i];
      drop += static_cast<std::uint32_t>(__popcll(bm.batch(b)[v] & fresh[b]));
    }
    if (drop != 0) counts[v] -= drop;
  }
}

/// Thread per batch: counts the held sets holding at least one of the seeds.
__global__ void count_covered(bitmap_view bm, std::uint64_t batches, const std::uint32_t* seeds,
                              std::uint32_t num_seeds, unsigned long long* covered) {
  unsigned long long mine = 0;
  for (std::uint64_t b = grid_thread_id(); b < batches; b += grid_thread_count()) {
    const unsigned long long* words = bm.batch(b);
    unsigned long long hit = 0;
    for (std::uint32_t i = 0; i < num_seeds; ++i) hit |= words[seeds[i]];
    mine += static_cast<unsigned long long>(__popcll(hit));
  }
  add_warp_sum(mine, covered);
}

}  // namespace wildfire::cuda::kernels::bitmap
