// Below this many elements a graph loop runs on the calling thread: starting an OpenMP team costs
// more than the work, and much more on a machine whose cores are shared.
#pragma once

#include <cstdint>

namespace wildfire::detail {

inline constexpr std::int64_t min_parallel_elements = 1 << 15;

}  // namespace wildfire::detail
