// Which in-edges of a vertex are live in one IC world, many edges per instruction: the hash of
// ARCHITECTURE section 1 (ic_edge_live) evaluated 8 lanes at a time with AVX-512 where the CPU has
// it (runtime dispatch), else by the scalar loop. Bit-for-bit the same answer as ic_edge_live.
#pragma once

#include <cstdint>

namespace wildfire::cpu {

/// Bit i of the result is set iff edge `first_edge + i` is live in the world with key `key`
/// (ic_edge_live(key, first_edge + i, thresholds[i])), for i < count <= 64.
std::uint64_t ic_live_mask(std::uint64_t key, std::uint64_t first_edge, const std::uint32_t* thresholds,
                           std::uint32_t count) noexcept;

/// Bit b of the result is set iff bit b of `candidates` is set and edge `edge` is live in the
/// world with key keys[b] (one edge, up to 64 colours: the fused traversal's per-edge draw).
std::uint64_t ic_live_colours(const std::uint64_t* keys, std::uint64_t edge, std::uint32_t threshold,
                              std::uint64_t candidates) noexcept;

/// "avx512" or "scalar": the kernel ic_live_mask dispatches to on this CPU.
const char* ic_live_mask_kernel() noexcept;

}  // namespace wildfire::cpu
