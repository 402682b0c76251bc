// What defines a family of random RR sets: the model, the run seed and the number of roots.
// Sample s of a family is the same set on every backend (ARCHITECTURE.md section 1).
#pragma once

#include <cstdint>

#include "wildfire/diffusion_model.hpp"

namespace wildfire {

struct sampling_params {
  diffusion_model model = diffusion_model::ic;
  std::uint64_t seed = 0;
  /// Mean number of distinct roots per set (1 for IMM; n_i / eta_i for MERIT's mRR-sets).
  double mean_roots = 1.0;
};

}  // namespace wildfire
