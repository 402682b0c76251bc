// Diffusion probabilities for a loaded graph (-w/--weights): weighted cascade, uniform,
// trivalency, uniform random in [A, B], or the file's third column; and the LT normalisation.
// Random choices come from the counter hash keyed by the weight seed and the edge id (the
// in-CSR position), so they are the same on every machine and thread count (ARCHITECTURE.md §1).
#pragma once

#include <cstdint>
#include <string>

#include "wildfire/graph/csr_graph.hpp"

namespace wildfire {

enum class weight_kind { automatic, weighted_cascade, uniform, trivalency, random_uniform, file };

struct weight_spec {
  weight_kind kind = weight_kind::automatic;
  double probability = 0.0;  // uniform:P
  double low = 0.0;          // random:A:B
  double high = 0.0;
  std::string text = "auto";  // as given
};

/// Parses "auto", "wc", "uniform:P", "trivalency", "random:A:B" or "file"; throws
/// config_error("--weights") for anything else or a probability outside [0, 1] (or A > B).
weight_spec parse_weight_spec(const std::string& text);

/// Overwrites graph.in_thresholds with the model's probabilities and records it in
/// graph.provenance.weight_model. Precondition: spec.kind is not automatic or file.
/// wc: 1/indeg(v) (parallel edges counted); trivalency: 0.1, 0.01 or 0.001 chosen by the counter
/// hash of (seed, edge id); random:A:B: A + (B - A) * uniform(seed, edge id). O(m), parallel.
void assign_model_weights(csr_graph& graph, const weight_spec& spec, std::uint64_t seed);

/// Scales the in-weights of every vertex whose in-weights sum above 1 so they sum to at most 1
/// (rounded down, so the LT model can use them exactly). O(m), parallel.
void normalize_lt_weights(csr_graph& graph);

/// The trivalency probability (0.1, 0.01 or 0.001) of edge `edge_id` under `seed`.
double trivalency_probability(std::uint64_t seed, std::uint64_t edge_id) noexcept;

/// The random:A:B probability of edge `edge_id` under `seed`.
double random_uniform_probability(std::uint64_t seed, std::uint64_t edge_id, double low, double high) noexcept;

}  // namespace wildfire
