// The vectorised IC liveness kernel equals ic_edge_live bit for bit, for every count 1..64,
// unaligned edge offsets, probability 0, 1 and everything between.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cpu/ic_live_scan.hpp"
#include "wildfire/random/live_edge_world.hpp"

namespace wildfire {
namespace {

TEST(IcLiveScan, EqualsScalarRule) {
  std::mt19937_64 rng(1);
  std::vector<std::uint32_t> thresholds(64);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t key = rng();
    const std::uint64_t first = rng() % (std::uint64_t{1} << 40);
    const auto count = static_cast<std::uint32_t>(1 + trial % 64);
    for (auto& t : thresholds) {
      const auto kind = rng() % 4;
      t = kind == 0 ? 0 : kind == 1 ? always_live_threshold : static_cast<std::uint32_t>(rng());
    }
    std::uint64_t expected = 0;
    for (std::uint32_t i = 0; i < count; ++i)
      if (ic_edge_live(key, first + i, thresholds[i])) expected |= std::uint64_t{1} << i;
    ASSERT_EQ(cpu::ic_live_mask(key, first, thresholds.data(), count), expected)
        << "trial " << trial << " kernel " << cpu::ic_live_mask_kernel();
  }
}

}  // namespace
}  // namespace wildfire

namespace wildfire {
namespace {

TEST(IcLiveScan, ColoursEqualScalarRule) {
  std::mt19937_64 rng(2);
  std::vector<std::uint64_t> keys(64);
  for (int trial = 0; trial < 4000; ++trial) {
    for (auto& k : keys) k = rng();
    const std::uint64_t edge = rng() % (std::uint64_t{1} << 40);
    const auto kind = trial % 5;
    const std::uint32_t threshold = kind == 0 ? 0 : kind == 1 ? always_live_threshold : static_cast<std::uint32_t>(rng());
    const std::uint64_t candidates = trial % 7 == 0 ? ~std::uint64_t{0} : rng() & rng();
    std::uint64_t expected = 0;
    for (int b = 0; b < 64; ++b)
      if ((candidates >> b & 1) && ic_edge_live(keys[static_cast<std::size_t>(b)], edge, threshold)) expected |= std::uint64_t{1} << b;
    ASSERT_EQ(cpu::ic_live_colours(keys.data(), edge, threshold, candidates), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace wildfire
