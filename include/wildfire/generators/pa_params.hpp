// Parameters and result of the preferential-attachment generators (Barabasi-Albert and the copy
// model; cuPPA, Alam & Perumalla 2017, sections 2.3-2.4). docs/generators.md describes the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace wildfire {

/// Which preferential-attachment process to run. The copy model with p = 1/2 is Barabasi-Albert
/// (cuPPA Theorem 1); `barabasi_albert` names that case explicitly.
struct pa_params {
  std::uint32_t num_vertices = 0;    // n > out_degree
  std::uint32_t out_degree = 1;      // d: distinct earlier targets of every new vertex, 1..65535
  double copy_probability = 0.5;     // p: probability of a direct edge (1 - p: copy an edge)
  std::uint64_t seed = 0;
};

/// Throws config_error naming -n, -d or --copy-p when the parameters are out of range.
void validate_pa_params(const pa_params& params);

namespace detail {
/// Allocator whose value-initialisation leaves trivial types uninitialised, so a billion-slot
/// vector can be sized without a serial zero fill; the generators write every slot themselves.
template <class T>
struct default_init_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = default_init_allocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* ptr) noexcept {
    ::new (static_cast<void*>(ptr)) U;
  }
  template <class U, class... Args>
  void construct(U* ptr, Args&&... args) {
    ::new (static_cast<void*>(ptr)) U(std::forward<Args>(args)...);
  }
};
}  // namespace detail

/// A generated graph: vertices 0..d-1 are the seed vertices (no edges among them); every vertex
/// v >= d has exactly d out-edges v -> targets[(v - d) * d + l], l = 0..d-1, to distinct earlier
/// vertices. So num_edges() = (n - d) * d, with no self-loops and no parallel edges.
struct pa_graph {
  std::uint32_t num_vertices = 0;
  std::uint32_t out_degree = 0;
  std::vector<std::uint32_t, detail::default_init_allocator<std::uint32_t>> targets;

  std::uint64_t num_edges() const noexcept { return targets.size(); }
  /// The l-th target of vertex v (v >= out_degree, l < out_degree).
  std::uint32_t target(std::uint32_t v, std::uint32_t l) const noexcept {
    return targets[static_cast<std::size_t>(v - out_degree) * out_degree + l];
  }
};

/// Total degree (in + out) of every vertex. O(n + m), parallel.
std::vector<std::uint64_t> pa_total_degrees(const pa_graph& graph);

}  // namespace wildfire
