// The verifier of generated preferential-attachment graphs (STYLE.md "Verification built in").
#pragma once

#include <string>

#include "wildfire/generators/pa_params.hpp"

namespace wildfire {

struct pa_verification {
  bool ok = true;
  std::string first_mismatch;
};

/// Checks the invariants of the model (cuPPA digest, testable statement 1): the graph has the
/// parameters' n and d and (n - d) d slots; every vertex v >= d has d targets in [0, v) (no
/// self-loop, no pending slot) that are pairwise distinct (no parallel edge). O(m d) worst case
/// (sorting each row), parallel.
pa_verification verify_pa_graph(const pa_graph& graph, const pa_params& params);

}  // namespace wildfire
