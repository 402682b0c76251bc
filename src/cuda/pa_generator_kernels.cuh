// CUDA kernels of the copy-model generator (cuPPA, sections 3.1-3.6): a first pass over a
// segment's vertices and resolve passes over the queued ones. Slots of other threads are read
// with relaxed device-scope atomics; seeing pa_unresolved only queues the vertex, so no thread
// waits on another block (the digest's deadlock and memory-ordering notes).
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "wildfire/generators/pa_slot_rule.hpp"

namespace wildfire::cuda {

/// A vertex set aside with the slot and attempt it stopped at.
struct pa_pending_vertex {
  std::uint32_t vertex;
  std::uint32_t slot;
  std::uint32_t attempt;
};

/// Completes vertex v from `progress`; false if it had to stop again.
__device__ inline bool pa_complete_vertex(const pa_rule& rule, std::uint32_t* targets, std::uint32_t v,
                                          pa_progress& progress) {
  const std::uint32_t d = rule.out_degree;
  std::uint32_t* row = targets + static_cast<std::uint64_t>(v - d) * d;
  const auto load = [targets, d](std::uint32_t u, std::uint32_t k) -> std::uint32_t {
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> slot(
        targets[static_cast<std::uint64_t>(u - d) * d + k]);
    return slot.load(::cuda::memory_order_relaxed);
  };
  const auto store = [row](std::uint32_t j, std::uint32_t x) {
    ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> slot(row[j]);
    slot.store(x, ::cuda::memory_order_relaxed);
  };
  return pa_resume_vertex(rule, v, row, progress, load, store);
}

/// Appends `item` to a queue; sets *overflow instead of writing past `capacity` (which the
/// launcher sizes so that it cannot happen: a vertex is queued at most once per pass).
__device__ inline void pa_enqueue(pa_pending_vertex item, pa_pending_vertex* queue, std::uint32_t* count,
                                  std::uint32_t capacity, std::uint32_t* overflow) {
  const std::uint32_t index = atomicAdd(count, 1U);
  if (index < capacity) {
    queue[index] = item;
  } else {
    atomicExch(overflow, 1U);
  }
}

/// First pass of a round: vertices [first, last) dealt round-robin to the threads.
__global__ void pa_first_pass_kernel(pa_rule rule, std::uint32_t* targets, std::uint32_t first, std::uint32_t last,
                                     pa_pending_vertex* queue, std::uint32_t* count, std::uint32_t capacity,
                                     std::uint32_t* overflow) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t v = first + static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < last;
       v += stride) {
    pa_progress progress{0, 0};
    if (!pa_complete_vertex(rule, targets, static_cast<std::uint32_t>(v), progress)) {
      pa_enqueue({static_cast<std::uint32_t>(v), progress.slot, progress.attempt}, queue, count, capacity,
                 overflow);
    }
  }
}

/// One resolve pass: resumes the *in_count queued vertices; those still blocked go to `out`.
/// Every slot written by earlier launches is final and visible, so each pass completes at least
/// the smallest queued vertex (its blocking slot belongs to a complete vertex).
__global__ void pa_resolve_kernel(pa_rule rule, std::uint32_t* targets, const pa_pending_vertex* in,
                                  const std::uint32_t* in_count, pa_pending_vertex* out, std::uint32_t* out_count,
                                  std::uint32_t capacity, std::uint32_t* overflow) {
  const std::uint64_t count = min(*in_count, capacity);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const pa_pending_vertex item = in[i];
    pa_progress progress{item.slot, item.attempt};
    if (!pa_complete_vertex(rule, targets, item.vertex, progress)) {
      pa_enqueue({item.vertex, progress.slot, progress.attempt}, out, out_count, capacity, overflow);
    }
  }
}

}  // namespace wildfire::cuda
