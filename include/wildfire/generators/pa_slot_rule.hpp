// The copy-model step shared by the parallel CPU generator and the CUDA kernels (cuPPA,
// Algorithm 1 lines 4-21, with errata 3-4 of the digest fixed): every random decision is the
// counter hash of (seed, vertex, slot, attempt), so any schedule that completes vertex v from the
// final values of earlier vertices writes the same row.
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {

/// Marks a slot whose value is not known yet (the targets array starts filled with it).
inline constexpr std::uint32_t pa_unresolved = 0xffffffffU;

/// Per-run constants of the step.
struct pa_rule {
  std::uint64_t seed;
  std::uint32_t out_degree;      // d
  std::uint64_t direct_below;    // a slot attempt is direct iff its low 32 hash bits < this
};

/// round(p * 2^32) in [0, 2^32]: p = 1 gives 2^32 (always direct), p = 0 gives 0 (always copy).
inline std::uint64_t pa_direct_threshold(double p) noexcept {
  if (p >= 1.0) return 1ULL << 32;
  if (p <= 0.0) return 0;
  return static_cast<std::uint64_t>(p * 4294967296.0 + 0.5);
}

/// One attempt's draw for slot `slot` of vertex v: the uniform earlier vertex u in [0, v), whether
/// the edge is a copy, and which of u's slots a copy reads.
struct pa_draw {
  std::uint32_t vertex;
  std::uint32_t copied_slot;
  bool copy;
};

namespace detail {
// Element ids: domain misc, draw kind in bits 60-61, slot in bits 36-51, attempt in bits 16-35,
// low 16 bits left zero for bounded_draw's own rejection retries.
inline constexpr std::uint64_t pa_kind_vertex = 0ULL << 60;
inline constexpr std::uint64_t pa_kind_copied_slot = 1ULL << 60;

WF_HOST_DEVICE constexpr std::uint64_t pa_element(std::uint32_t slot, std::uint32_t attempt) noexcept {
  return element_domain::misc | (static_cast<std::uint64_t>(slot & 0xffffU) << 36) |
         (static_cast<std::uint64_t>(attempt & 0xfffffU) << 16);
}

/// bounded_draw(key, element, bound) with its first attempt taken from the already computed
/// `high32` (= element_hash32(key, element)); Lemire's test on the low product half skips the
/// division unless a rejection is possible.
WF_HOST_DEVICE constexpr std::uint32_t pa_bounded_from(std::uint32_t high32, std::uint64_t key,
                                                       std::uint64_t element, std::uint32_t bound) noexcept {
  const std::uint64_t product = static_cast<std::uint64_t>(high32) * bound;
  if (static_cast<std::uint32_t>(product) >= bound) return static_cast<std::uint32_t>(product >> 32);
  return bounded_draw(key, element, bound);  // rare: same first attempt, then its own retries
}
}  // namespace detail

/// Key of vertex v: one per vertex, hoisted out of the slot loop.
WF_HOST_DEVICE constexpr std::uint64_t pa_vertex_key(std::uint64_t seed, std::uint32_t v) noexcept {
  return sample_key(seed, v);
}

/// The draw of attempt `attempt` for slot `slot` of vertex v (v >= 1). Direct iff the low half
/// of the vertex draw's hash is below rule.direct_below; u is the unbiased bounded draw of the
/// high half.
WF_HOST_DEVICE constexpr pa_draw pa_attempt_draw(const pa_rule& rule, std::uint64_t key, std::uint32_t v,
                                                 std::uint32_t slot, std::uint32_t attempt) noexcept {
  const std::uint64_t element = detail::pa_element(slot, attempt);
  const std::uint64_t bits = element_hash(key, element | detail::pa_kind_vertex);
  pa_draw draw{};
  draw.vertex = detail::pa_bounded_from(static_cast<std::uint32_t>(bits >> 32), key,
                                        element | detail::pa_kind_vertex, v);
  draw.copy = (bits & 0xffffffffULL) >= rule.direct_below;
  draw.copied_slot = 0;
  if (draw.copy && rule.out_degree > 1) {
    const std::uint64_t slot_element = element | detail::pa_kind_copied_slot;
    draw.copied_slot = detail::pa_bounded_from(element_hash32(key, slot_element), key, slot_element,
                                               rule.out_degree);
  }
  return draw;
}

/// Where a vertex stopped: the slot being filled and the attempt reached on it.
struct pa_progress {
  std::uint32_t slot;
  std::uint32_t attempt;
};

/// Fills the slots of vertex v (v >= d) from `progress` on, in slot order, until all d are final
/// (returns true) or an attempt copies a slot that is not final yet (returns false; `progress`
/// then names that attempt, which is redrawn identically on the next call).
///   load(u, k): the value of slot k of vertex u < v, or pa_unresolved; u < d are the seed vertices
///               whose every slot holds u itself (digest section 7.1 option (a)).
///   row:        v's own slots; row[j] for j < progress.slot are final.
///   store(j, x): publishes slot j of v (a relaxed atomic store where others may read it).
/// A candidate equal to an earlier slot of v is a duplicate and is redrawn (cuPPA line 5), so the
/// result is d distinct targets in [0, v). O(d^2) comparisons per vertex.
template <class Load, class Store>
WF_HOST_DEVICE inline bool pa_resume_vertex(const pa_rule& rule, std::uint32_t v, const std::uint32_t* row,
                                            pa_progress& progress, Load&& load, Store&& store) {
  // Locals, not `progress`: stores to `row` could alias it and force reloads in the hot loop.
  const std::uint32_t d = rule.out_degree;
  const std::uint64_t key = pa_vertex_key(rule.seed, v);
  std::uint32_t attempt = progress.attempt;
  for (std::uint32_t slot = progress.slot; slot < d; ++slot, attempt = 0) {
    for (;; ++attempt) {
      const pa_draw draw = pa_attempt_draw(rule, key, v, slot, attempt);
      std::uint32_t candidate = draw.vertex;
      if (draw.copy && draw.vertex >= d) {
        candidate = load(draw.vertex, draw.copied_slot);
        if (candidate == pa_unresolved) [[unlikely]] {
          progress = pa_progress{slot, attempt};
          return false;
        }
      }
      bool duplicate = false;
      for (std::uint32_t j = 0; j < slot; ++j) duplicate |= (row[j] == candidate);
      if (!duplicate) {
        store(slot, candidate);
        break;
      }
    }
  }
  progress = pa_progress{d, 0};
  return true;
}

}  // namespace wildfire
