// The one source of randomness (ARCHITECTURE.md section 1): every random decision is a pure
// function of (run seed, sample id, element id), so every backend draws the same numbers.
// A sample key is derived once per sample; each element then costs one 64-bit finaliser.
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"

namespace wildfire {

/// Stafford's "Mix13" 64-bit finaliser (the SplitMix64 output function): a bijection with full
/// avalanche, so neighbouring inputs give independent-looking outputs.
WF_HOST_DEVICE constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// Key of sample `sample_id` in the run seeded with `seed`; hoisted out of per-element loops.
WF_HOST_DEVICE constexpr std::uint64_t sample_key(std::uint64_t seed, std::uint64_t sample_id) noexcept {
  return mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) + sample_id * 0x9e3779b97f4a7c15ULL);
}

/// What an element is mixed with the key as. Affine in the element (mod 2^64), so a loop over
/// evenly spaced elements steps the code by element_code_step instead of multiplying (64-bit
/// multiplies run at half rate on a GPU, where the edge-mask draw is bound by them).
WF_HOST_DEVICE constexpr std::uint64_t element_code(std::uint64_t element) noexcept {
  return element * 0xd1b54a32d192ed03ULL + 0x3c6ef372fe94f82bULL;
}

/// element_code(e + delta) - element_code(e).
WF_HOST_DEVICE constexpr std::uint64_t element_code_step(std::uint64_t delta) noexcept {
  return delta * 0xd1b54a32d192ed03ULL;
}

/// 64 random bits for the element whose code is `code`.
WF_HOST_DEVICE constexpr std::uint64_t coded_hash64(std::uint64_t key, std::uint64_t code) noexcept {
  return mix64(key ^ code);
}

/// 32 random bits (the high half, which has the best mixing) for the element whose code is `code`.
WF_HOST_DEVICE constexpr std::uint32_t coded_hash32(std::uint64_t key, std::uint64_t code) noexcept {
  return static_cast<std::uint32_t>(coded_hash64(key, code) >> 32);
}

/// 64 random bits for `element` within the sample whose key is `key`.
WF_HOST_DEVICE constexpr std::uint64_t element_hash(std::uint64_t key, std::uint64_t element) noexcept {
  return coded_hash64(key, element_code(element));
}

/// 32 random bits (the high half, which has the best mixing).
WF_HOST_DEVICE constexpr std::uint32_t element_hash32(std::uint64_t key, std::uint64_t element) noexcept {
  return coded_hash32(key, element_code(element));
}

/// Uniform double in [0, 1) with 53 random bits.
WF_HOST_DEVICE constexpr double element_uniform(std::uint64_t key, std::uint64_t element) noexcept {
  return static_cast<double>(element_hash(key, element) >> 11) * 0x1.0p-53;
}

/// Disjoint element domains: the top two bits say what kind of element is drawn for, so an edge,
/// a vertex and a root slot never share a random number within one sample.
namespace element_domain {
inline constexpr std::uint64_t edge = 0ULL << 62;         // IC liveness of edge e
inline constexpr std::uint64_t vertex = 1ULL << 62;       // LT in-edge choice of vertex v
inline constexpr std::uint64_t root = 2ULL << 62;         // root slot j, attempt a
inline constexpr std::uint64_t misc = 3ULL << 62;         // root counts, weights, other draws
}  // namespace element_domain

/// Lemire's test for a multiply-shift draw below `bound` whose product word * bound has the low
/// 32 bits `low`: true iff the draw (the product's high half) is exactly uniform, i.e. low is not
/// below 2^32 mod bound (only a low half below `bound` can be, so the modulo is rarely computed).
WF_HOST_DEVICE constexpr bool lemire_accepts(std::uint32_t low, std::uint32_t bound) noexcept {
  return low >= bound || low >= static_cast<std::uint32_t>(-bound) % bound;
}

/// One multiply-shift draw below `bound` from a single 32-bit word, without a retry: the draw and
/// whether Lemire's test finds it exactly uniform (the caller draws otherwise where it is not).
struct lemire_draw {
  std::uint32_t value;
  bool exact;
};
WF_HOST_DEVICE constexpr lemire_draw lemire_draw_once(std::uint32_t word, std::uint32_t bound) noexcept {
  const std::uint64_t product = static_cast<std::uint64_t>(word) * bound;
  return {static_cast<std::uint32_t>(product >> 32), lemire_accepts(static_cast<std::uint32_t>(product), bound)};
}

/// Unbiased uniform integer in [0, bound) for (key, element), bound >= 1 (Lemire's multiply-shift
/// with rejection), from the element's code (element_code). Each attempt consumes a fresh element
/// id `element + attempt` in the low bits: callers leave the low 16 bits of `element` zero.
WF_HOST_DEVICE constexpr std::uint32_t coded_bounded_draw(std::uint64_t key, std::uint64_t code,
                                                          std::uint32_t bound) noexcept {
  std::uint64_t product = static_cast<std::uint64_t>(coded_hash32(key, code)) * bound;
  // Only a low half below `bound` can fall below 2^32 mod bound: the first attempt nearly always
  // returns here, and the rejection loop stays off the common path.
  if (static_cast<std::uint32_t>(product) >= bound) return static_cast<std::uint32_t>(product >> 32);
  for (std::uint64_t attempt = 0;; ++attempt) {
    if (lemire_accepts(static_cast<std::uint32_t>(product), bound) || attempt >= 0xffffULL) {
      return static_cast<std::uint32_t>(product >> 32);
    }
    product = static_cast<std::uint64_t>(coded_hash32(key, code + element_code_step(attempt + 1))) * bound;
  }
}

/// coded_bounded_draw for the element itself.
WF_HOST_DEVICE constexpr std::uint32_t bounded_draw(std::uint64_t key, std::uint64_t element,
                                                    std::uint32_t bound) noexcept {
  return coded_bounded_draw(key, element_code(element), bound);
}

}  // namespace wildfire
