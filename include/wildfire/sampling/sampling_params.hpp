// What defines a family of random RR sets: the model, the run seed, the number of roots and the
// number of diffusion rounds. Sample s of a family is the same set on every backend
// (ARCHITECTURE.md section 1).
#pragma once

#include <cstdint>

#include "wildfire/diffusion_model.hpp"

namespace wildfire {

struct sampling_params {
  diffusion_model model = diffusion_model::ic;
  std::uint64_t seed = 0;
  /// Mean number of distinct roots per set (1 for IMM; n_i / eta_i for MERIT's mRR-sets).
  double mean_roots = 1.0;
  /// Diffusion rounds T of multi-round IM (gIM digest section 3.1): sample s holds the pairs
  /// (vertex, round) reached in T independent worlds from the same roots, encoded as
  /// round * n + vertex (see sampling/multi_round.hpp). 1 = ordinary RR sets.
  std::uint32_t rounds = 1;
};

}  // namespace wildfire
