// Upload of the CSR graph and its IC block plan to the GPU (see device_graph.hpp).
#include "cuda/device_graph.hpp"

#include <chrono>
#include <span>
#include <type_traits>
#include <vector>

#include "wildfire/sampling/ic_block_plan.hpp"

namespace wildfire::cuda {
namespace {

/// Any contiguous host array with data() and size() (std::vector, the graph's mapped arrays).
template <class Array>
auto upload(const Array& host, memory_budget& budget, cudaStream_t stream, const char* what) {
  using T = std::remove_cv_t<std::remove_pointer_t<decltype(host.data())>>;
  device_buffer<T> buffer(budget, host.size(), what);
  if (!host.empty()) {
    WF_CUDA_CHECK(cudaMemcpyAsync(buffer.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  return buffer;
}

}  // namespace

device_graph::device_graph(const csr_graph& graph, memory_budget& budget, cudaStream_t stream, bool ic_blocks)
    : num_vertices_(graph.num_vertices), num_edges_(graph.num_edges) {
  const auto start = std::chrono::steady_clock::now();
  // Built before anything is uploaded: the host arrays must outlive the asynchronous copies.
  ic_block_plan plan;
  if (ic_blocks) plan = make_ic_block_plan(graph.view());
  const std::uint64_t needed =
      (graph.in_offsets.size() + graph.out_offsets.size() + graph.out_edge_ids.size()) * sizeof(std::uint64_t) +
      (graph.in_sources.size() + graph.in_thresholds.size() + graph.out_targets.size()) * sizeof(std::uint32_t) +
      plan.memory_bytes() + (ic_blocks ? sizeof(small_block_subsets) : 0);
  if (!budget.fits(needed)) throw resource_error("GPU memory for the graph", needed, budget.available_bytes());
  in_offsets_ = upload(graph.in_offsets, budget, stream, "graph in-offsets");
  in_sources_ = upload(graph.in_sources, budget, stream, "graph in-sources");
  in_thresholds_ = upload(graph.in_thresholds, budget, stream, "graph thresholds");
  out_offsets_ = upload(graph.out_offsets, budget, stream, "graph out-offsets");
  out_targets_ = upload(graph.out_targets, budget, stream, "graph out-targets");
  out_edge_ids_ = upload(graph.out_edge_ids, budget, stream, "graph out-edge ids");
  if (ic_blocks) {
    vertex_class_ = upload(plan.vertex_class, budget, stream, "IC block plan vertex classes");
    block_cdf_ = upload(plan.cdf, budget, stream, "IC block plan count tables");
    subsets_ = upload(std::span(&small_block_subset_table, 1), budget, stream, "IC small-block subset table");
    has_blocks_ = true;
    std::uint64_t block_edges = 0;
    for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
      if (plan.vertex_class[v] != per_edge_class) block_edges += graph.in_degree(v);
    }
    block_edge_share_ =
        graph.num_edges == 0 ? 0.0 : static_cast<double>(block_edges) / static_cast<double>(graph.num_edges);
  }
  WF_CUDA_CHECK(cudaStreamSynchronize(stream));  // before `plan` (pageable) goes
  upload_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

graph_view device_graph::view() const noexcept {
  return graph_view{num_vertices_,        num_edges_,          in_offsets_.data(),
                    in_sources_.data(),   in_thresholds_.data(), out_offsets_.data(),
                    out_targets_.data(),  out_edge_ids_.data()};
}

std::uint64_t device_graph::bytes() const noexcept {
  return in_offsets_.bytes() + in_sources_.bytes() + in_thresholds_.bytes() + out_offsets_.bytes() +
         out_targets_.bytes() + out_edge_ids_.bytes() + vertex_class_.bytes() + block_cdf_.bytes() +
         subsets_.bytes();
}

}  // namespace wildfire::cuda
