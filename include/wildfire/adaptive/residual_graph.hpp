// The residual graph G_i of the adaptive process (MERIT digest section 1.3): the input graph minus
// every vertex activated in earlier rounds, kept as a removed-bitmap over the original CSR plus the
// ascending list of remaining vertices (the root pool; digest section 4.2 item 12).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/host_device.hpp"

namespace wildfire::adaptive {

/// Trivially copyable view for samplers on host and device (pointers are device pointers in a view
/// made by the CUDA backend). `remaining[t]` is the t-th remaining vertex in ascending id order.
struct residual_view {
  graph_view graph;
  const std::uint8_t* removed;      // n entries, 1 = activated in an earlier round
  const std::uint32_t* remaining;   // num_remaining entries, ascending
  std::uint32_t num_remaining;

  WF_HOST_DEVICE bool is_removed(std::uint32_t v) const noexcept { return removed[v] != 0; }
};

class residual_graph {
 public:
  /// The whole graph: nothing removed. The graph must outlive this object.
  explicit residual_graph(const csr_graph& graph);

  /// Removes `vertices` (each must be present; duplicates are an error). O(n) for the pool rebuild.
  /// Throws config_error if a vertex is out of range or already removed.
  void remove(std::span<const std::uint32_t> vertices);

  std::uint32_t num_remaining() const noexcept { return static_cast<std::uint32_t>(remaining_.size()); }
  bool is_removed(std::uint32_t v) const noexcept { return removed_[v] != 0; }
  std::span<const std::uint8_t> removed() const noexcept { return removed_; }
  std::span<const std::uint32_t> remaining() const noexcept { return remaining_; }
  const csr_graph& graph() const noexcept { return *graph_; }

  /// Host view; valid until the next remove().
  residual_view view() const noexcept {
    return residual_view{graph_->view(), removed_.data(), remaining_.data(), num_remaining()};
  }

 private:
  const csr_graph* graph_;
  std::vector<std::uint8_t> removed_;
  std::vector<std::uint32_t> remaining_;
};

}  // namespace wildfire::adaptive
