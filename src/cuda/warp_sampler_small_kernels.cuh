// Thread-per-sample IC traversal for small RR sets, the first pass of the warp sampler
// (docs/gpu.md, "Kernels"). Under weighted cascade most RR sets have a handful of members
// (soc-Epinions1: about 5): a warp per sample then spends most of its time on warp-wide scans and
// shuffles for one or two queued vertices. Here each lane samples its own set: its queue of up to
// small_queue members sits in shared memory and doubles as the visited set (a vertex is looked
// up by scanning the queue, unless the lane's 64-bit filter shows it absent). A set that outgrows
// the queue, or meets a vertex with more than small_max_items work items, is handed to the warp
// kernel whole (the deferred list): a set is a pure function of (seed, sample), so the partial
// work is simply dropped. The lanes of a warp advance in step: each round every busy lane expands
// one vertex, lanes that finished reserve arena room with one atomic per warp, and idle lanes take
// new samples from a warp pool of ids. Single-round IC only. Included only by warp_sampler.cu.
#pragma once

#include <cstdint>

#include "cuda/warp_sampler_kernels.cuh"

namespace wildfire::cuda::kernels {

inline constexpr unsigned small_block_threads = 128;
/// Members per lane; a larger set goes to the warp kernel.
inline constexpr std::uint32_t small_queue = 32;
/// In-edges (per-edge rule) or blocks (block rule) of one vertex a lane draws by itself.
inline constexpr std::uint64_t small_max_items = 32;
inline constexpr unsigned flag_small_overflow = 4U;  // a set was handed to the warp kernel

/// A lane's 64-bit filter of its queue: bit small_filter_bit(v) is set for every queued v, so a
/// vertex whose bit is clear is not queued and needs no scan of the queue. The scans (up to 32
/// members per live edge, lanes of a warp at different lengths) ran with few lanes active: ncu on
/// soc-Epinions1's IMM launches measured 5.4 active lanes per instruction in this kernel.
__device__ __forceinline__ std::uint64_t small_filter_bit(std::uint32_t v) {
  return 1ULL << ((v * 2654435761U) >> 26);
}

// 8 blocks per SM at least: left to itself, ptxas took 40 registers and spilled the filter
// (soc-Epinions1 IMM, H100: 6.56-6.69 ms; at 56 registers 6.32-6.54).
__global__ void __launch_bounds__(small_block_threads, 8) small_rr_sets(graph_view g, warp_sampler_args a) {
  __shared__ std::uint32_t queues[small_queue * small_block_threads];
  std::uint32_t* queue = queues + threadIdx.x;  // member i at queue[i * small_block_threads]: no bank conflicts
  const unsigned lane = threadIdx.x & 31;
  const unsigned below = (1U << lane) - 1U;
  bool active = false;     // a sample is being traversed
  bool exhausted = false;  // no samples left for this lane
  unsigned pool_next = 0;  // the warp's unclaimed sample ids: [pool_next, pool_end)
  unsigned pool_end = 0;
  std::uint32_t local = 0;
  std::uint64_t key = 0;
  std::uint32_t size = 0;
  std::uint32_t head = 0;
  std::uint64_t queued = 0;  // small_filter_bit of every queued vertex
  std::uint64_t set_examined = 0;
  std::uint64_t examined = 0;

  for (;;) {
    // Idle lanes take the next samples from the warp's pool of ids, refilled 32 at a time (one
    // atomic per 32 samples). Ids are handed out in increasing order, so a lane that gets one past
    // the end leaves none behind.
    const unsigned need = __ballot_sync(full_warp, !active && !exhausted);
    bool overflow = false;
    if (need != 0) {
      const unsigned wanted = static_cast<unsigned>(__popc(need));
      const unsigned left = pool_end - pool_next;
      unsigned refill = 0;
      if (wanted > left) {
        if (lane == 0) refill = atomicAdd(a.next_item, 32U);
        refill = __shfl_sync(full_warp, refill, 0);
      }
      if (!active && !exhausted) {
        const unsigned rank = static_cast<unsigned>(__popc(need & below));
        const unsigned item = rank < left ? pool_next + rank : refill + (rank - left);
        if (item >= a.num_items) {
          exhausted = true;
        } else {
          local = a.item_list != nullptr ? a.item_list[item] : item;
          key = sample_key(a.seed, a.first_id + local);
          const std::uint32_t num_roots = root_count(key, a.mean_roots, g.num_vertices);
          active = true;
          size = 0;
          head = 0;
          queued = 0;
          set_examined = 0;
          if (num_roots > small_queue) {
            overflow = true;
          } else {
            // Roots as the reference draws them (Floyd), the queue serving as `contains`.
            draw_distinct_roots(
                key, g.num_vertices, num_roots,
                [&](std::uint32_t v) {
                  if ((queued & small_filter_bit(v)) == 0) return false;
                  for (std::uint32_t i = 0; i < size; ++i)
                    if (queue[i * small_block_threads] == v) return true;
                  return false;
                },
                [&](std::uint32_t v) {
                  queued |= small_filter_bit(v);
                  queue[size++ * small_block_threads] = v;
                });
          }
        }
      }
      if (wanted > left) {
        pool_next = refill + (wanted - left);
        pool_end = refill + 32U;
      } else {
        pool_next += wanted;
      }
    }
    if (__all_sync(full_warp, exhausted)) break;

    // Busy lanes expand one queued vertex.
    if (active && !overflow && head < size) {
      const std::uint32_t v = queue[head++ * small_block_threads];
      const ic_vertex_record r = a.records[v];
      const std::uint64_t begin = record_begin(r);
      const std::uint64_t degree = r.degree;
      const std::uint64_t end = begin + degree;
      set_examined += degree;  // the whole in-degree, whichever rule draws it (as the warp path)
      // Appends u unless the set holds it already; false when the queue is full.
      auto push = [&](std::uint32_t u) {
        const std::uint64_t bit = small_filter_bit(u);
        if ((queued & bit) != 0) {
          for (std::uint32_t i = 0; i < size; ++i)
            if (queue[i * small_block_threads] == u) return true;
        }
        if (size == small_queue) return false;
        queued |= bit;
        queue[size++ * small_block_threads] = u;
        return true;
      };
      if (r.block == 0) {
        if (degree > small_max_items) {
          overflow = true;
        } else {
          for (std::uint64_t j = begin; j < end && !overflow; ++j) {
            if (ic_edge_live(key, j, g.in_thresholds[j])) overflow = !push(g.in_sources[j]);
          }
        }
      } else {
        const std::uint64_t block = r.block;
        const std::uint32_t cls = record_class(r, a.blocks, v);
        if ((r.degree - 1U) / r.block + 1U > small_max_items) {
          overflow = true;
        } else {
          for (std::uint64_t first = begin; first < end && !overflow; first += block) {
            std::uint32_t slots[block_cdf_length];
            const std::uint32_t live = ic_block_draw(key, a.blocks, cls, first, end, block, slots);
            for (std::uint32_t i = 0; i < live && !overflow; ++i) overflow = !push(g.in_sources[first + slots[i]]);
          }
        }
      }
    }
    const bool done = active && !overflow && head == size;

    // Sets too large for a lane go to the warp kernel whole.
    const unsigned overflowed = __ballot_sync(full_warp, overflow);
    if (overflowed != 0) {
      const unsigned leader = static_cast<unsigned>(__ffs(static_cast<int>(overflowed)) - 1);
      unsigned base = 0;
      if (lane == leader) {
        base = atomicAdd(a.num_deferred, static_cast<unsigned>(__popc(overflowed)));
        atomicOr(a.flags, flag_small_overflow);
      }
      base = __shfl_sync(full_warp, base, leader);
      if (overflow) {
        a.deferred[base + static_cast<unsigned>(__popc(overflowed & below))] = local;
        a.set_size[local] = 0;
        active = false;
      }
    }

    // Finished sets: arena room for all of the warp's with one atomic, then each lane copies its own.
    const unsigned finished = __ballot_sync(full_warp, done);
    if (finished != 0) {
      const std::uint32_t mine = done ? size : 0;
      std::uint32_t inclusive = mine;
      for (unsigned delta = 1; delta < 32; delta <<= 1) {
        const std::uint32_t other = __shfl_up_sync(full_warp, inclusive, delta);
        if (lane >= delta) inclusive += other;
      }
      const std::uint32_t total = __shfl_sync(full_warp, inclusive, 31);
      unsigned long long base = 0;
      if (lane == 31) base = atomicAdd(a.arena_tail, static_cast<unsigned long long>(total));
      base = __shfl_sync(full_warp, base, 31);
      if (done) {
        const std::uint64_t start = base + (inclusive - mine);
        if (start + size > a.arena_capacity) {
          a.deferred[atomicAdd(a.num_deferred, 1U)] = local;
          a.set_size[local] = 0;
          atomicAdd(a.lost_members, static_cast<unsigned long long>(size));
          atomicOr(a.flags, flag_arena_overflow);
        } else {
          for (std::uint32_t i = 0; i < size; ++i) a.arena[start + i] = queue[i * small_block_threads];
          a.set_start[local] = start;
          a.set_size[local] = size;
          examined += set_examined;
        }
        active = false;
      }
    }
  }

  examined = warp_sum(examined);
  if (lane == 0 && examined != 0) atomicAdd(a.edges_examined, static_cast<unsigned long long>(examined));
}

}  // namespace wildfire::cuda::kernels
