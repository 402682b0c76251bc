// Plain sequential preferential-attachment generators, independent of the parallel code and of
// the counter hash (std::mt19937_64): the distributional reference for the tests (cuPPA
// section 2.3, Batagelj-Brandes; section 2.4, the copy model). Same model and seed graph as
// generate_pa_cpu, different random stream, so only the distributions agree.
#pragma once

#include <cstdint>

#include "wildfire/generators/pa_params.hpp"

namespace wildfire::reference {

/// Barabasi-Albert by the Batagelj-Brandes endpoint array: every slot of every earlier vertex
/// contributes its owner and its target, a target is a uniform entry, duplicates are redrawn.
/// The seed vertices 0..d-1 count as holding d slots that point to themselves, which makes this
/// exactly the copy model with p = 1/2 (cuPPA Theorem 1). O(n d) time, 8 n d bytes.
pa_graph barabasi_albert(std::uint32_t num_vertices, std::uint32_t out_degree, std::uint64_t seed);

/// The sequential copy model (SCM): for each slot, u uniform in [0, v); with probability p the
/// target is u, else a uniform slot of u is copied; duplicates are redrawn. O(n d) expected.
pa_graph copy_model(const pa_params& params);

}  // namespace wildfire::reference
