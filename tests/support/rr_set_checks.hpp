// Exact equality of two RR-set families, naming the first differing sample so a failure says
// where to look (backend-equality tests, ARCHITECTURE section 1).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire::test {

inline void expect_same_sets(const rr_sets& expected, const rr_sets& actual, const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (std::uint64_t s = 0; s < expected.size(); ++s) {
    const auto a = expected[s], b = actual[s];
    ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << what << ": first mismatch at set " << s;
  }
  EXPECT_EQ(expected.offsets, actual.offsets) << what;
  EXPECT_EQ(expected.members, actual.members) << what;
}

}  // namespace wildfire::test
