// The random rules of MERIT's mRR-sets on a residual graph, shared by the CPU and CUDA backends so
// both build identical sets (ARCHITECTURE.md section 1; MERIT digest sections 1.6, 2.7, 4.2).
// A fresh set s draws its roots exactly as reference::rr_roots does over the pool of remaining
// vertices; a retained set keeps its live-edge world (key of s) and tops its roots up in round i
// with draws keyed by fill_key(key, i).
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire::adaptive {

/// Members are stored as vertex | root_bit for roots, so the roots of a set are known at the next
/// update without keeping them first (the paper's "first k_i entries are roots", Alg. 5 line 19).
/// This caps MERIT at 2^31 - 1 vertices.
inline constexpr std::uint32_t root_bit = 0x80000000U;
inline constexpr std::uint32_t vertex_mask = 0x7fffffffU;
inline constexpr std::uint32_t max_vertices = 0x7fffffffU;

WF_HOST_DEVICE constexpr std::uint32_t member_vertex(std::uint32_t member) noexcept { return member & vertex_mask; }
WF_HOST_DEVICE constexpr bool member_is_root(std::uint32_t member) noexcept { return (member & root_bit) != 0; }

/// Key of the draws that top up the roots of the set whose key is `set_key` in round `round`.
WF_HOST_DEVICE constexpr std::uint64_t fill_key(std::uint64_t set_key, std::uint32_t round) noexcept {
  return element_hash(set_key, element_domain::misc | (0x100ULL + round));
}

/// Attempt number `attempt` of a fill: a uniform index into the pool of `pool_size` remaining
/// vertices. A fill rejects vertices that are already roots, so accepted draws form a uniform
/// subset of the non-roots (sampling without replacement by rejection).
WF_HOST_DEVICE constexpr std::uint32_t fill_attempt(std::uint64_t key, std::uint64_t attempt,
                                                    std::uint32_t pool_size) noexcept {
  return bounded_draw(key, element_domain::root | ((attempt & 0x3fffffffffffULL) << 16), pool_size);
}

/// Key of the mRR-sets used under realization `realization` of a run seeded with `seed`, so
/// realizations do not share sets; ASTI also mixes in the round (it regenerates every round).
WF_HOST_DEVICE constexpr std::uint64_t realization_sampling_seed(std::uint64_t seed, std::uint64_t realization,
                                                                 std::uint64_t round = 0) noexcept {
  return mix64(mix64(seed + 0x243f6a8885a308d3ULL * (realization + 1)) + 0x13198a2e03707344ULL * round);
}

}  // namespace wildfire::adaptive
