// The graph on the GPU: both CSR directions and the thresholds, uploaded once per run
// (ARCHITECTURE.md section 2). Kernels receive its graph_view by value. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_memory.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/graph_view.hpp"

namespace wildfire::cuda {

class device_graph {
 public:
  /// Copies every array of `graph` to the device on `stream` and waits for the copies (the host
  /// arrays are pageable). Throws resource_error if the graph does not fit `budget`.
  device_graph(const csr_graph& graph, memory_budget& budget, cudaStream_t stream);

  /// Device pointers; valid while this object lives.
  graph_view view() const noexcept;
  std::uint32_t num_vertices() const noexcept { return num_vertices_; }
  std::uint64_t num_edges() const noexcept { return num_edges_; }
  std::uint64_t bytes() const noexcept;
  double upload_seconds() const noexcept { return upload_seconds_; }

 private:
  std::uint32_t num_vertices_ = 0;
  std::uint64_t num_edges_ = 0;
  device_buffer<std::uint64_t> in_offsets_;
  device_buffer<std::uint32_t> in_sources_;
  device_buffer<std::uint32_t> in_thresholds_;
  device_buffer<std::uint64_t> out_offsets_;
  device_buffer<std::uint32_t> out_targets_;
  device_buffer<std::uint64_t> out_edge_ids_;
  double upload_seconds_ = 0;
};

}  // namespace wildfire::cuda
