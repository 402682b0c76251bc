// A trivially copyable view of a csr_graph: raw pointers and counts, usable on host and device
// (the pointers are device pointers in a view made by the CUDA backend).
#pragma once

#include <cstdint>

#include "wildfire/host_device.hpp"

namespace wildfire {

struct graph_view {
  std::uint32_t num_vertices;
  std::uint64_t num_edges;
  const std::uint64_t* in_offsets;
  const std::uint32_t* in_sources;
  const std::uint32_t* in_thresholds;
  const std::uint64_t* out_offsets;
  const std::uint32_t* out_targets;
  const std::uint64_t* out_edge_ids;

  WF_HOST_DEVICE std::uint64_t in_begin(std::uint32_t v) const noexcept { return in_offsets[v]; }
  WF_HOST_DEVICE std::uint64_t in_end(std::uint32_t v) const noexcept { return in_offsets[v + 1]; }
  WF_HOST_DEVICE std::uint64_t in_degree(std::uint32_t v) const noexcept { return in_offsets[v + 1] - in_offsets[v]; }
  WF_HOST_DEVICE std::uint64_t out_begin(std::uint32_t v) const noexcept { return out_offsets[v]; }
  WF_HOST_DEVICE std::uint64_t out_end(std::uint32_t v) const noexcept { return out_offsets[v + 1]; }
};

}  // namespace wildfire
