// Exact influence by enumerating every live-edge world of a tiny graph (Kempe et al. 2003): IC
// keeps each edge independently; LT lets each vertex pick at most one in-edge by its weight.
// Exponential in the graph size: for tests and verifiers on graphs of a few dozen worlds bits.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"

namespace wildfire::reference {

/// Calls visit(probability, live) for every live-edge world; live[j] says whether edge j (in-CSR
/// position) is live. Throws config_error when there are more than 2^24 worlds.
void for_each_live_edge_world(const csr_graph& g, diffusion_model model,
                              const std::function<void(double, const std::vector<bool>&)>& visit);

/// Vertices reachable from `sources` along live edges (forward), as a 0/1 vector.
std::vector<bool> live_reachable(const csr_graph& g, const std::vector<bool>& live,
                                 std::span<const std::uint32_t> sources);

/// Exact expected number of vertices activated by `seeds`.
double exact_spread(const csr_graph& g, diffusion_model model, std::span<const std::uint32_t> seeds);

/// p[u] = Pr[u is in the RR set of root `root`] = Pr[u reaches root in a live-edge world].
std::vector<double> exact_rr_inclusion(const csr_graph& g, diffusion_model model, std::uint32_t root);

/// p[u] = Pr[u is in a multi-root RR set] with roots drawn as root_draw.hpp draws them: floor or
/// ceil of `mean_roots` distinct uniform roots (MERIT digest section 1.6).
std::vector<double> exact_multi_root_inclusion(const csr_graph& g, diffusion_model model, double mean_roots);

}  // namespace wildfire::reference
