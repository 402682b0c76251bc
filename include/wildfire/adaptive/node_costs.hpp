// Node costs of minimum-cost seeding (MERIT digest sections 1.1 and 2.11): c(u) in (0, 1], from a
// file, from out-degree (0.01 + 0.01 * outdeg, the paper's setting) or uniform, each normalised by
// the largest cost (the paper's footnote 1).
#pragma once

#include <string>
#include <vector>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire::adaptive {

/// c(u) = 0.01 + 0.01 * out-degree(u), divided by the largest such cost. O(n).
std::vector<double> degree_costs(const csr_graph& graph);

/// c(u) = 1 for every vertex.
std::vector<double> uniform_costs(const csr_graph& graph);

/// Reads "original_id cost" lines ('#' or '%' starts a comment) and normalises by the largest cost.
/// Throws input_error (file:line) for a malformed line, a non-positive or non-finite cost, an id
/// not in the graph or a repeated id, and input_error naming the first vertex without a cost.
std::vector<double> read_costs(const csr_graph& graph, const std::string& path);

/// Divides by the largest cost; throws config_error("--cost") when a cost is not positive/finite.
void normalise_costs(std::vector<double>& costs);

/// "degree", "uniform" or "file" (then `path` is read); throws config_error("--cost") otherwise.
std::vector<double> make_costs(const csr_graph& graph, const std::string& kind, const std::string& path);

}  // namespace wildfire::adaptive
