// The device greedy's per-step results, shared by the flat (max_coverage.cu) and bitmap
// (bitmap_coverage.cu) selections and the streamed argmax: a step's choice is one 64-bit key,
// (count << 32 | ~v), so that one atomicMax picks the largest count and the lowest id on ties;
// the host reads the steps back and assembles the coverage_selection.
#pragma once

#include <cstdint>
#include <span>

#include "wildfire/host_device.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire::cuda {

/// The argmax key of vertex v with `count` uncovered sets; never 0 for v < 2^32 - 1.
WF_HOST_DEVICE constexpr unsigned long long argmax_key(std::uint32_t count, std::uint64_t v) noexcept {
  return (static_cast<unsigned long long>(count) << 32) | (0xffffffffULL - static_cast<unsigned long long>(v));
}

/// The vertex of an argmax key (0 stands for "none": it decodes to 2^32 - 1).
WF_HOST_DEVICE constexpr std::uint32_t argmax_key_vertex(unsigned long long key) noexcept {
  return static_cast<std::uint32_t>(0xffffffffULL - (key & 0xffffffffULL));
}

/// The selection from `steps`, three arrays of wanted + 1 entries: the argmax key of each step (0
/// once no vertex is eligible), its newly covered sets, and the top-k marginal sum before it (the
/// last one after the final step). With `bound`, the OPIM-C bound is the minimum over steps of
/// covered-so-far + top-k sum; it is capped by `num_sets` either way.
coverage_selection assemble_selection(std::span<const unsigned long long> steps, std::uint64_t wanted, bool bound,
                                      std::uint64_t num_sets);

}  // namespace wildfire::cuda
