// Kernels of the greedy's candidates (greedy_candidates.hpp): the candidates marked from the
// sorted counts, the lists of the listed ones, and the argmax over them. Included only by
// greedy_candidates.cu.
#pragma once

#include <cstdint>

#include "cuda/cover_policies.cuh"
#include "cuda/greedy_steps.hpp"
#include "cuda/grid_stride.cuh"
#include "cuda/warp_primitives.cuh"

namespace wildfire::cuda::kernels {

inline constexpr unsigned candidate_block_threads = 256;

/// The candidates are the vertices whose count exceeds *threshold, the (T + 1)-th largest count,
/// so at most T of them; the listed ones those whose count exceeds *list_threshold (at least
/// *threshold). Sets their bits (every word of `bits` and `listed` is written), list_sizes[v] = the
/// count of a listed vertex and 0 for the others, and appends the candidates to ids (in no
/// particular order), counting them in *num_ids (0 before). Whole warps walk the vertices, 32
/// consecutive ones per word. The candidates and the listed ones also enter their filters
/// (cover_policies.cuh; zeroed before).
__global__ void mark_candidates(const std::uint32_t* counts, std::uint32_t n, const std::uint32_t* threshold,
                                const std::uint32_t* list_threshold, std::uint32_t* bits, std::uint32_t* listed,
                                std::uint32_t* list_sizes, std::uint32_t* ids, std::uint32_t* num_ids,
                                std::uint32_t* filter, std::uint32_t* list_filter) {
  const std::uint32_t above = *threshold;
  const std::uint32_t list_above = *list_threshold;
  const unsigned lane = threadIdx.x & 31;
  // The grid's thread count is a multiple of 32, so `base` stays a multiple of 32.
  for (std::uint64_t base = grid_thread_id() - lane; base < n; base += grid_thread_count()) {
    const std::uint64_t v = base + lane;
    const std::uint32_t count = v < n ? counts[v] : 0;
    const bool candidate = v < n && count > above;
    const bool list = v < n && count > list_above;
    const unsigned mask = __ballot_sync(warp_full_mask, candidate);
    const unsigned list_mask = __ballot_sync(warp_full_mask, list);
    if (lane == 0) {
      bits[base >> 5] = mask;
      listed[base >> 5] = list_mask;
    }
    if (v < n) list_sizes[v] = list ? count : 0;
    if (candidate) add_to_vertex_filter(filter, static_cast<std::uint32_t>(v));
    if (list) add_to_vertex_filter(list_filter, static_cast<std::uint32_t>(v));
    if (mask == 0) continue;
    std::uint32_t first = 0;
    if (lane == 0) first = atomicAdd(num_ids, static_cast<std::uint32_t>(__popc(mask)));
    first = __shfl_sync(warp_full_mask, first, 0);
    if (candidate) ids[first + __popc(mask & ((1U << lane) - 1))] = static_cast<std::uint32_t>(v);
  }
}

/// Member positions a thread of fill_candidate_lists loads before it tests any: the loads overlap.
inline constexpr unsigned fill_unroll = 4;

/// Grid-stride over the member positions j of the store: a listed member joins its list,
/// lists[offsets[u] + cursor[u]++] = set_ids[j] (cursors 0 before). The lists come out in no
/// particular order.
__global__ void fill_candidate_lists(const std::uint32_t* members, const std::uint32_t* set_ids,
                                     std::uint64_t num_members, const std::uint32_t* listed,
                                     const std::uint32_t* list_filter, const std::uint64_t* offsets,
                                     std::uint32_t* cursors, std::uint32_t* lists) {
  __shared__ std::uint32_t filter[vertex_filter_words];
  load_vertex_filter(filter, list_filter);
  const std::uint64_t stride = grid_thread_count();
  for (std::uint64_t j = grid_thread_id(); j < num_members; j += fill_unroll * stride) {
    std::uint32_t u[fill_unroll];
#pragma unroll
    for (unsigned r = 0; r < fill_unroll; ++r) {
      const std::uint64_t at = j + r * stride;
      u[r] = at < num_members ? members[at] : 0;
    }
#pragma unroll
    for (unsigned r = 0; r < fill_unroll; ++r) {
      const std::uint64_t at = j + r * stride;
      if (at < num_members && may_hold(filter, u[r]) && is_candidate(listed, u[r])) {
        lists[offsets[u[r]] + atomicAdd(cursors + u[r], 1U)] = set_ids[at];
      }
    }
  }
}

/// best = max over unselected candidates of (counts[v] << 32 | ~v); stays 0 when none is left or
/// an earlier step failed (*failed != 0).
__global__ void argmax_candidates(const std::uint32_t* counts, const std::uint8_t* selected, const std::uint32_t* ids,
                                  const std::uint32_t* num_ids, const unsigned long long* failed,
                                  unsigned long long* best) {
  if (*failed != 0) return;
  const std::uint32_t listed = *num_ids;
  unsigned long long mine = 0;
  for (std::uint64_t i = grid_thread_id(); i < listed; i += grid_thread_count()) {
    const std::uint32_t v = ids[i];
    if (selected[v] == 0) {
      const unsigned long long key = argmax_key(counts[v], v);
      if (key > mine) mine = key;
    }
  }
  mine = warp_max(mine);
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicMax(best, mine);
}

}  // namespace wildfire::cuda::kernels
