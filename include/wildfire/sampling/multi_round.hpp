// Multi-round RR sets (Sun et al. KDD'18, gIM digest section 3.1): T independent diffusion rounds
// on one graph. Sample s draws its roots once (from the round-0 key) and traverses round t in the
// world keyed by round_sample_key(key, t); round 0 is exactly the ordinary sample s.
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {

/// Key of round `round` of the sample whose (round-0) key is `key`. Round 0 returns `key`, so a
/// one-round family equals the ordinary family bit for bit.
WF_HOST_DEVICE constexpr std::uint64_t round_sample_key(std::uint64_t key, std::uint32_t round) noexcept {
  return round == 0 ? key : mix64(key + std::uint64_t{round} * 0xa0761d6478bd642fULL);
}

/// Member encoding of the pair (vertex, round) in a multi-round set: round * n + vertex. Sets
/// stay sorted ascending, so the pairs of round 0 come first. Precondition: rounds * n < 2^32.
WF_HOST_DEVICE constexpr std::uint32_t encode_round_member(std::uint32_t vertex, std::uint32_t round,
                                                           std::uint32_t num_vertices) noexcept {
  return round * num_vertices + vertex;
}
WF_HOST_DEVICE constexpr std::uint32_t member_vertex(std::uint32_t member, std::uint32_t num_vertices) noexcept {
  return member % num_vertices;
}
WF_HOST_DEVICE constexpr std::uint32_t member_round(std::uint32_t member, std::uint32_t num_vertices) noexcept {
  return member / num_vertices;
}

}  // namespace wildfire
