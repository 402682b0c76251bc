// Weight models for -w/--weights and the LT normalisation (--lt-normalize).
#include "wildfire/graph/edge_weights.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "wildfire/error.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "parallel_grain.hpp"

namespace wildfire {
namespace {

/// Sample id reserved for weight draws, far from any RR sample id a run would use.
constexpr std::uint64_t weight_stream = 0x7765696768747321ULL;  // "weights!"

double parse_probability(std::string_view text, const std::string& spec) {
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw config_error("--weights", "\"" + std::string(text) + "\" in \"" + spec + "\" is not a number");
  }
  if (!(value >= 0.0 && value <= 1.0)) {
    throw config_error("--weights", "probability " + std::string(text) + " in \"" + spec + "\" is outside [0, 1]");
  }
  return value;
}

}  // namespace

weight_spec parse_weight_spec(const std::string& text) {
  weight_spec spec;
  spec.text = text;
  if (text == "auto") return spec;
  if (text == "wc") {
    spec.kind = weight_kind::weighted_cascade;
  } else if (text == "trivalency") {
    spec.kind = weight_kind::trivalency;
  } else if (text == "file") {
    spec.kind = weight_kind::file;
  } else if (text.rfind("uniform:", 0) == 0) {
    spec.kind = weight_kind::uniform;
    spec.probability = parse_probability(std::string_view(text).substr(8), text);
  } else if (text.rfind("random:", 0) == 0) {
    spec.kind = weight_kind::random_uniform;
    const std::string_view rest = std::string_view(text).substr(7);
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) {
      throw config_error("--weights", "expected random:A:B, got \"" + text + "\"");
    }
    spec.low = parse_probability(rest.substr(0, colon), text);
    spec.high = parse_probability(rest.substr(colon + 1), text);
    if (spec.low > spec.high) throw config_error("--weights", "random:A:B needs A <= B, got \"" + text + "\"");
  } else {
    throw config_error("--weights", "unknown weight model \"" + text +
                                        "\", expected auto, wc, uniform:P, trivalency, random:A:B or file");
  }
  return spec;
}

double trivalency_probability(std::uint64_t seed, std::uint64_t edge_id) noexcept {
  static constexpr double values[3] = {0.1, 0.01, 0.001};
  const std::uint64_t key = sample_key(seed, weight_stream);
  return values[bounded_draw(key, element_domain::misc | (edge_id << 16), 3)];
}

double random_uniform_probability(std::uint64_t seed, std::uint64_t edge_id, double low, double high) noexcept {
  const std::uint64_t key = sample_key(seed, weight_stream);
  return low + (high - low) * element_uniform(key, element_domain::misc | (edge_id << 16));
}

void assign_model_weights(csr_graph& graph, const weight_spec& spec, std::uint64_t seed) {
  if (spec.kind == weight_kind::automatic || spec.kind == weight_kind::file) {
    throw config_error("--weights", "\"" + spec.text + "\" is not a model that computes weights");
  }
  const std::int64_t n = graph.num_vertices;
  auto* thresholds = graph.in_thresholds.data();
  const auto* offsets = graph.in_offsets.data();
  const std::uint32_t uniform_threshold = threshold_from_probability(spec.probability);
#pragma omp parallel for schedule(dynamic, 4096) if (graph.num_edges > static_cast<std::uint64_t>(detail::min_parallel_elements))
  for (std::int64_t v = 0; v < n; ++v) {
    const std::uint64_t begin = offsets[v], end = offsets[v + 1];
    const std::uint32_t wc = end > begin ? threshold_from_probability(1.0 / static_cast<double>(end - begin)) : 0;
    for (std::uint64_t j = begin; j < end; ++j) {
      switch (spec.kind) {
        case weight_kind::weighted_cascade: thresholds[j] = wc; break;
        case weight_kind::uniform: thresholds[j] = uniform_threshold; break;
        case weight_kind::trivalency: thresholds[j] = threshold_from_probability(trivalency_probability(seed, j)); break;
        default:
          thresholds[j] = threshold_from_probability(random_uniform_probability(seed, j, spec.low, spec.high));
          break;
      }
    }
  }
  graph.provenance.weight_model = spec.text;
  if (spec.kind == weight_kind::trivalency || spec.kind == weight_kind::random_uniform) {
    graph.provenance.weight_model += " (seed " + std::to_string(seed) + ")";
  }
}

void normalize_lt_weights(csr_graph& graph) {
  const std::int64_t n = graph.num_vertices;
  auto* thresholds = graph.in_thresholds.data();
  const auto* offsets = graph.in_offsets.data();
#pragma omp parallel for schedule(dynamic, 4096) if (graph.num_edges > static_cast<std::uint64_t>(detail::min_parallel_elements))
  for (std::int64_t v = 0; v < n; ++v) {
    const std::uint64_t begin = offsets[v], end = offsets[v + 1];
    std::uint64_t sum = 0;
    for (std::uint64_t j = begin; j < end; ++j) sum += threshold_weight(thresholds[j]);
    if (sum <= (std::uint64_t{1} << 32)) continue;
    // Rounded down so the scaled weights sum to at most 2^32 exactly.
    const long double scale = 4294967296.0L / static_cast<long double>(sum);
    for (std::uint64_t j = begin; j < end; ++j) {
      const auto scaled = static_cast<std::uint64_t>(std::floor(static_cast<long double>(threshold_weight(thresholds[j])) * scale));
      // Each scaled weight is below 2^32; 0xffffffff would read as "always live" (2^32).
      thresholds[j] = static_cast<std::uint32_t>(std::min<std::uint64_t>(scaled, always_live_threshold - 1));
    }
  }
  graph.provenance.weight_model += " lt-normalized";
}

}  // namespace wildfire
