// The graph on the GPU: both CSR directions and the thresholds, uploaded once per run
// (ARCHITECTURE.md section 2), and under IC the block plan of random/ic_block_rule.hpp (which
// vertices draw their in-edges per block, and the Binomial count tables), built from the host
// graph by make_ic_block_plan and uploaded with it. Kernels receive graph_view and ic_block_view
// by value. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_memory.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"

namespace wildfire::cuda {

class device_graph {
 public:
  /// Copies every array of `graph` to the device on `stream` and waits for the copies (the host
  /// arrays are pageable). With `ic_blocks`, also builds and uploads the IC block plan (IC
  /// samplers and simulators need it; LT ones do not). Throws resource_error if the graph does
  /// not fit `budget`, config_error if the plan cannot address the graph's edges.
  device_graph(const csr_graph& graph, memory_budget& budget, cudaStream_t stream, bool ic_blocks);

  /// Device pointers; valid while this object lives.
  graph_view view() const noexcept;
  /// The IC block plan on the device; its pointers are null unless built with `ic_blocks`.
  ic_block_view blocks() const noexcept { return {vertex_class_.data(), block_cdf_.data(), subsets_.data()}; }
  bool has_ic_blocks() const noexcept { return has_blocks_; }
  /// Share of in-edges that belong to block-rule vertices (0 without the plan).
  double block_edge_share() const noexcept { return block_edge_share_; }
  std::uint32_t num_vertices() const noexcept { return num_vertices_; }
  std::uint64_t num_edges() const noexcept { return num_edges_; }
  std::uint64_t bytes() const noexcept;
  /// Seconds of the upload, the host-side plan build included.
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
  device_buffer<std::uint32_t> vertex_class_;
  device_buffer<std::uint32_t> block_cdf_;
  device_buffer<small_block_subsets> subsets_;
  bool has_blocks_ = false;
  double block_edge_share_ = 0;
  double upload_seconds_ = 0;
};

}  // namespace wildfire::cuda
