// The backend_config of the CUDA tests' GPU collections and simulators.
#pragma once

#include <cstdint>

#include "wildfire/backend.hpp"

namespace wildfire::test {

/// Device gpu with `traversal` and `colours`; everything else the defaults.
inline backend_config gpu_config(traversal_kind traversal = traversal_kind::automatic,
                                 std::uint32_t colours = backend_config{}.colours) {
  backend_config config;
  config.device = device_kind::gpu;
  config.traversal = traversal;
  config.colours = colours;
  return config;
}

}  // namespace wildfire::test
