// The staged sweep divides by an out-degree through its reciprocal (twitter/degree_division.hpp);
// the result must be the IEEE quotient bit for bit, so GPU runs stay exact where shares are.
#include "twitter/degree_division.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace wildfire::twitter::detail {
namespace {

TEST(DegreeDivision, EqualsTheDivisionForEveryDegree) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-40, 60);
  std::uint64_t differ = 0;
  for (std::uint32_t d = 1; d <= 65535; ++d) {
    const double degree = d, r = 1.0 / degree;
    for (int t = 0; t < 8; ++t) {
      const double exact = degree * static_cast<double>(rng() % 1000000);  // integer shares stay integers
      const double count = static_cast<double>(rng() % 100000000);
      const double any = std::ldexp(mantissa(rng), exponent(rng));
      for (const double x : {exact, count, any}) differ += divide_by_degree(x, degree, r) != x / degree;
    }
  }
  EXPECT_EQ(differ, 0u);
}

TEST(DegreeDivision, ZeroDegreeGivesZero) {
  EXPECT_EQ(divide_by_degree(17.5, 0.0, 0.0), 0.0);
  EXPECT_EQ(divide_by_degree(0.0, 3.0, 1.0 / 3.0), 0.0);
}

}  // namespace
}  // namespace wildfire::twitter::detail
