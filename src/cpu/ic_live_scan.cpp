// Vectorised IC liveness: mix64 (counter_hash.hpp) on 8 64-bit lanes with vpmullq; dispatched once
// at run time, so the build needs no -march flag and runs on any x86-64 (or other) CPU.
#include "cpu/ic_live_scan.hpp"

#include "wildfire/random/live_edge_world.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12 warns inside its own intrinsic headers (_mm512_undefined_* "may be used uninitialized").
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define WF_HAVE_AVX512_KERNEL 1
#endif

namespace wildfire::cpu {
namespace {

std::uint64_t live_mask_scalar(std::uint64_t key, std::uint64_t first_edge, const std::uint32_t* thresholds,
                               std::uint32_t count) noexcept {
  std::uint64_t mask = 0;
  for (std::uint32_t i = 0; i < count; ++i)
    if (ic_edge_live(key, first_edge + i, thresholds[i])) mask |= std::uint64_t{1} << i;
  return mask;
}

std::uint64_t live_colours_scalar(const std::uint64_t* keys, std::uint64_t edge, std::uint32_t threshold,
                                  std::uint64_t candidates) noexcept {
  std::uint64_t keep = 0;
  for (; candidates != 0; candidates &= candidates - 1) {
    const int b = __builtin_ctzll(candidates);
    if (ic_edge_live(keys[b], edge, threshold)) keep |= std::uint64_t{1} << b;
  }
  return keep;
}

#ifdef WF_HAVE_AVX512_KERNEL
__attribute__((target("avx512f,avx512dq"))) std::uint64_t live_colours_avx512(const std::uint64_t* keys,
                                                                              std::uint64_t edge, std::uint32_t threshold,
                                                                              std::uint64_t candidates) noexcept {
  // Eight colours at a time: the keys differ, the element (the edge) is shared.
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(0xbf58476d1ce4e5b9ULL));
  const __m512i m2 = _mm512_set1_epi64(static_cast<long long>(0x94d049bb133111ebULL));
  const __m512i mixed_edge =
      _mm512_set1_epi64(static_cast<long long>((element_domain::edge | edge) * 0xd1b54a32d192ed03ULL + 0x3c6ef372fe94f82bULL));
  const __m512i limit = _mm512_set1_epi64(threshold);
  std::uint64_t keep = 0;
  for (int group = 0; group < 64; group += 8) {
    const auto active = static_cast<__mmask8>(candidates >> group);
    if (active == 0) continue;
    __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi64(active, keys + group), mixed_edge);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
    x = _mm512_mullo_epi64(x, m1);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 27));
    x = _mm512_mullo_epi64(x, m2);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
    const __mmask8 live = _mm512_mask_cmplt_epu64_mask(active, _mm512_srli_epi64(x, 32), limit);
    keep |= static_cast<std::uint64_t>(live) << group;
  }
  return keep;
}

__attribute__((target("avx512f,avx512dq"))) std::uint64_t live_mask_avx512(std::uint64_t key, std::uint64_t first_edge,
                                                                           const std::uint32_t* thresholds,
                                                                           std::uint32_t count) noexcept {
  // element_hash(key, e) = mix64(key ^ (e * c1 + c2)); edges are in element_domain::edge (= 0).
  static_assert(element_domain::edge == 0);
  const __m512i c1 = _mm512_set1_epi64(static_cast<long long>(0xd1b54a32d192ed03ULL));
  const __m512i c2 = _mm512_set1_epi64(static_cast<long long>(0x3c6ef372fe94f82bULL));
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(0xbf58476d1ce4e5b9ULL));
  const __m512i m2 = _mm512_set1_epi64(static_cast<long long>(0x94d049bb133111ebULL));
  const __m512i vkey = _mm512_set1_epi64(static_cast<long long>(key));
  const __m512i always = _mm512_set1_epi64(always_live_threshold);
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  std::uint64_t mask = 0;
  for (std::uint32_t i = 0; i < count; i += 8) {
    const std::uint32_t lanes = count - i < 8 ? count - i : 8;
    const __mmask8 active = static_cast<__mmask8>((1U << lanes) - 1);
    const __m512i e = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(first_edge + i)), lane);
    __m512i x = _mm512_xor_si512(vkey, _mm512_add_epi64(_mm512_mullo_epi64(e, c1), c2));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
    x = _mm512_mullo_epi64(x, m1);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 27));
    x = _mm512_mullo_epi64(x, m2);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
    const __m512i h32 = _mm512_srli_epi64(x, 32);
    const __m512i t = _mm512_cvtepu32_epi64(
        _mm512_castsi512_si256(_mm512_maskz_loadu_epi32(static_cast<__mmask16>(active), thresholds + i)));
    const __mmask8 live = static_cast<__mmask8>(_mm512_mask_cmplt_epu64_mask(active, h32, t) |
                                                _mm512_mask_cmpeq_epu64_mask(active, t, always));
    mask |= static_cast<std::uint64_t>(live) << i;
  }
  return mask;
}

using kernel = std::uint64_t (*)(std::uint64_t, std::uint64_t, const std::uint32_t*, std::uint32_t) noexcept;
using colour_kernel = std::uint64_t (*)(const std::uint64_t*, std::uint64_t, std::uint32_t, std::uint64_t) noexcept;

bool has_avx512() noexcept {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

const kernel chosen = has_avx512() ? &live_mask_avx512 : &live_mask_scalar;
const colour_kernel chosen_colours = has_avx512() ? &live_colours_avx512 : &live_colours_scalar;
#endif

}  // namespace

std::uint64_t ic_live_mask(std::uint64_t key, std::uint64_t first_edge, const std::uint32_t* thresholds,
                           std::uint32_t count) noexcept {
#ifdef WF_HAVE_AVX512_KERNEL
  return chosen(key, first_edge, thresholds, count);
#else
  return live_mask_scalar(key, first_edge, thresholds, count);
#endif
}

std::uint64_t ic_live_colours(const std::uint64_t* keys, std::uint64_t edge, std::uint32_t threshold,
                              std::uint64_t candidates) noexcept {
  if (threshold == always_live_threshold) return candidates;
#ifdef WF_HAVE_AVX512_KERNEL
  return chosen_colours(keys, edge, threshold, candidates);
#else
  return live_colours_scalar(keys, edge, threshold, candidates);
#endif
}

const char* ic_live_mask_kernel() noexcept {
#ifdef WF_HAVE_AVX512_KERNEL
  return chosen == &live_mask_avx512 ? "avx512" : "scalar";
#else
  return "scalar";
#endif
}

}  // namespace wildfire::cpu
