// load_graph: dispatches on the input (binary .wfg, text edge list), then turns parsed edges into a
// csr_graph: dense relabelling, self-loops dropped, --undirected, parallel edges counted or merged,
// probabilities from the file or a weight model, --lt-normalize (docs/formats.md).
#include "wildfire/graph/graph_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <parallel/algorithm>

#include "id_relabel.hpp"
#include "wildfire/error.hpp"
#include "wildfire/generators/pa_output.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/edge_list_parser.hpp"
#include "wildfire/graph/edge_threshold.hpp"
#include "wildfire/graph/edge_weights.hpp"
#include "wildfire/util/file_reader.hpp"
#include "parallel_grain.hpp"

namespace wildfire {
namespace {

/// Repeated (source, target) pairs in the built graph: edges beyond the first of each pair. Each
/// thread marks the sources seen for the current target in its own array of n stamps: O(n + m).
std::uint64_t count_parallel_edges(const csr_graph& g) {
  std::uint64_t parallel = 0;
  const std::int64_t n = g.num_vertices;
#pragma omp parallel reduction(+ : parallel) if (g.num_edges > static_cast<std::uint64_t>(detail::min_parallel_elements))
  {
    std::vector<std::uint32_t> stamp(static_cast<std::size_t>(n), 0);  // v + 1 of the last target
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t v = 0; v < n; ++v) {
      const auto mark = static_cast<std::uint32_t>(v + 1);
      for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
        std::uint32_t& seen = stamp[g.in_sources[j]];
        parallel += seen == mark ? 1 : 0;
        seen = mark;
      }
    }
  }
  return parallel;
}

/// Merges edges with the same (source, target) into one with probability 1 - prod(1 - p_i).
/// Output is sorted by (target, source). Returns the number of edges merged away.
std::uint64_t merge_parallel_edges(std::vector<weighted_edge>& edges, std::vector<double>& probabilities) {
  struct keyed {
    std::uint64_t key;
    std::uint64_t index;
    bool operator<(const keyed& o) const noexcept { return key < o.key || (key == o.key && index < o.index); }
  };
  std::vector<keyed> order(edges.size());
#pragma omp parallel for schedule(static) if (edges.size() > static_cast<std::size_t>(detail::min_parallel_elements))
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(edges.size()); ++i) {
    order[i] = {(std::uint64_t{edges[i].target} << 32) | edges[i].source, static_cast<std::uint64_t>(i)};
  }
  __gnu_parallel::sort(order.begin(), order.end());
  std::vector<weighted_edge> merged;
  std::vector<double> merged_probabilities;
  merged.reserve(edges.size());
  const bool with_probabilities = !probabilities.empty();
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    double keep = 1.0;  // prod(1 - p) over the run
    for (; j < order.size() && order[j].key == order[i].key; ++j) {
      if (with_probabilities) keep *= 1.0 - probabilities[order[j].index];
    }
    merged.push_back(edges[order[i].index]);
    if (with_probabilities) merged_probabilities.push_back(1.0 - keep);
    i = j;
  }
  const std::uint64_t removed = edges.size() - merged.size();
  edges = std::move(merged);
  probabilities = std::move(merged_probabilities);
  return removed;
}

csr_graph graph_from_text(const graph_load_options& options, const weight_spec& weights) {
  edge_list_parse_options parse_options;
  parse_options.format = parse_text_format(options.format);
  parse_options.skip_invalid_lines = options.skip_invalid_lines;
  parse_options.file_name = options.path;
  parsed_edge_list parsed;
  {
    const std::string text = read_file_bytes(options.path);
    parsed = parse_edge_list(text, parse_options);
  }
  if (weights.kind == weight_kind::file && !parsed.has_probabilities()) {
    throw config_error("--weights", "\"file\" needs a third (probability) column, which " + options.path + " lacks");
  }
  const bool use_file_probabilities =
      parsed.has_probabilities() && (weights.kind == weight_kind::file || weights.kind == weight_kind::automatic);

  // Dense ids: 0..n-1 as declared by a `n m` line, else ascending original ids.
  std::vector<std::uint64_t> original_ids;
  std::vector<std::uint32_t> sources, targets;
  if (parsed.has_counts_header) {
    original_ids.resize(parsed.declared_vertices);
    std::iota(original_ids.begin(), original_ids.end(), std::uint64_t{0});
    sources.assign(parsed.sources.begin(), parsed.sources.end());  // ids < n <= 2^32-1, checked
    targets.assign(parsed.targets.begin(), parsed.targets.end());
    std::vector<std::uint64_t>().swap(parsed.sources);
    std::vector<std::uint64_t>().swap(parsed.targets);
  } else {
    auto relabelled = detail::relabel_ids(std::move(parsed.sources), std::move(parsed.targets), parsed.max_id, options.path);
    original_ids = std::move(relabelled.original_ids);
    sources = std::move(relabelled.sources);
    targets = std::move(relabelled.targets);
  }
  const auto n = static_cast<std::uint32_t>(original_ids.size());

  // Self-loops dropped (counted); both directions when --undirected. A two-pass parallel
  // compaction over fixed blocks keeps the file order.
  const std::size_t m_in = sources.size();
  constexpr std::size_t block = 1 << 16;
  const std::size_t num_blocks = (m_in + block - 1) / block;
  std::vector<std::size_t> kept_before(num_blocks + 1, 0);
#pragma omp parallel for schedule(static) if (num_blocks > 1)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(num_blocks); ++b) {
    std::size_t kept = 0;
    for (std::size_t i = static_cast<std::size_t>(b) * block; i < std::min(m_in, (static_cast<std::size_t>(b) + 1) * block); ++i) {
      kept += sources[i] != targets[i] ? 1 : 0;
    }
    kept_before[b + 1] = kept;
  }
  std::inclusive_scan(kept_before.begin(), kept_before.end(), kept_before.begin());
  const std::size_t kept = kept_before.back();
  const std::uint64_t self_loops = m_in - kept;
  const std::size_t copies = options.undirected ? 2 : 1;
  std::vector<weighted_edge> edges(kept * copies);
  std::vector<double> probabilities(use_file_probabilities ? kept * copies : 0);
#pragma omp parallel for schedule(static) if (num_blocks > 1)
  for (std::int64_t b = 0; b < static_cast<std::int64_t>(num_blocks); ++b) {
    std::size_t out = kept_before[b] * copies;
    for (std::size_t i = static_cast<std::size_t>(b) * block; i < std::min(m_in, (static_cast<std::size_t>(b) + 1) * block); ++i) {
      if (sources[i] == targets[i]) continue;
      const double p = use_file_probabilities ? parsed.probabilities[i] : 0.0;
      const std::uint32_t t = use_file_probabilities ? threshold_from_probability(p) : 0;
      edges[out] = {sources[i], targets[i], t};
      if (use_file_probabilities) probabilities[out] = p;
      ++out;
      if (options.undirected) {
        edges[out] = {targets[i], sources[i], t};
        if (use_file_probabilities) probabilities[out] = p;
        ++out;
      }
    }
  }
  std::vector<std::uint32_t>().swap(sources);
  std::vector<std::uint32_t>().swap(targets);
  std::vector<double>().swap(parsed.probabilities);

  graph_provenance provenance;
  provenance.undirected_input = options.undirected;
  provenance.self_loops_dropped = self_loops;
  provenance.invalid_lines_skipped = parsed.invalid_lines_skipped;
  if (options.merge_parallel) {
    provenance.parallel_edges = provenance.parallel_edges_merged = merge_parallel_edges(edges, probabilities);
    if (use_file_probabilities) {
      for (std::size_t i = 0; i < edges.size(); ++i) edges[i].threshold = threshold_from_probability(probabilities[i]);
    }
  }
  std::vector<double>().swap(probabilities);

  csr_graph g = build_csr_graph(n, edges, std::move(original_ids));
  std::vector<weighted_edge>().swap(edges);
  if (!options.merge_parallel) provenance.parallel_edges = count_parallel_edges(g);
  g.provenance = std::move(provenance);
  if (use_file_probabilities) {
    g.provenance.weight_model = "file";
  } else {
    weight_spec model = weights;
    if (model.kind == weight_kind::automatic) model = parse_weight_spec("wc");
    assign_model_weights(g, model, options.weight_seed);
  }
  return g;
}

csr_graph graph_from_binary(const graph_load_options& options, const weight_spec& weights) {
  if (options.undirected) throw config_error("--undirected", "applies to text input only; " + options.path + " is a binary graph");
  if (options.merge_parallel) {
    throw config_error("--merge-parallel", "applies to text input only; " + options.path + " is a binary graph");
  }
  csr_graph g = read_binary_graph(options.path);
  // The stored thresholds are kept unless a model is named explicitly.
  if (weights.kind != weight_kind::automatic && weights.kind != weight_kind::file) {
    assign_model_weights(g, weights, options.weight_seed);
  }
  return g;
}

}  // namespace

csr_graph load_graph(const graph_load_options& options) {
  if (options.path.empty()) throw config_error("-i", "no input graph given");
  const weight_spec weights = parse_weight_spec(options.weights);
  static const char* const formats[] = {"auto", "snap", "weighted", "nm-header", "csv", "binary"};
  if (std::find(std::begin(formats), std::end(formats), options.format) == std::end(formats)) {
    throw config_error("--format", "unknown format \"" + options.format +
                                       "\", expected auto, snap, weighted, nm-header, csv or binary");
  }

  // Dispatch on the kind of input. New input kinds (e.g. generator specs such as
  // `gen:pa:n=...,d=...`) add a branch here, before the file-based ones.
  csr_graph g;
  const bool generated = is_pa_spec(options.path);
  // Only regular files are probed for the magic: reading it from a pipe would consume it.
  std::error_code not_regular;
  const bool binary = !generated && (options.format == "binary" ||
                                     (options.format == "auto" &&
                                      std::filesystem::is_regular_file(options.path, not_regular) &&
                                      is_binary_graph_file(options.path)));
  if (generated) {
    // `gen:pa:n=...,d=...,p=...,seed=...`: a preferential-attachment graph (docs/generators.md).
    if (options.merge_parallel || weights.kind == weight_kind::file) {
      throw config_error(options.merge_parallel ? "--merge-parallel" : "--weights",
                         "does not apply to a generated graph (no parallel edges, no probability column)");
    }
    g = generate_pa_input(options.path, options.undirected);
    assign_model_weights(g, weights.kind == weight_kind::automatic ? parse_weight_spec("wc") : weights,
                         options.weight_seed);
  } else if (binary) {
    g = graph_from_binary(options, weights);
  } else {
    g = graph_from_text(options, weights);
  }
  if (options.lt_normalize) normalize_lt_weights(g);
  return g;
}

void validate_lt_weights(const csr_graph& graph, const std::string& file) {
  const std::int64_t n = graph.num_vertices;
  std::int64_t first_bad = n;
  std::uint64_t bad_sum = 0;
#pragma omp parallel for schedule(dynamic, 4096) if (graph.num_edges > static_cast<std::uint64_t>(detail::min_parallel_elements))
  for (std::int64_t v = 0; v < n; ++v) {
    const std::uint64_t begin = graph.in_offsets[v], end = graph.in_offsets[v + 1];
    std::uint64_t sum = 0;
    for (std::uint64_t j = begin; j < end; ++j) sum += threshold_weight(graph.in_thresholds[j]);
    // Each stored threshold is within half a unit of its probability: allow one unit per edge.
    if (sum > (std::uint64_t{1} << 32) + (end - begin)) {
#pragma omp critical(wf_lt_validate)
      if (v < first_bad) {
        first_bad = v;
        bad_sum = sum;
      }
    }
  }
  if (first_bad < n) {
    throw input_error(file, 0,
                      "LT in-weights of vertex " + std::to_string(graph.original_ids[first_bad]) + " sum to " +
                          std::to_string(static_cast<double>(bad_sum) / 4294967296.0) +
                          ", above 1 (use --lt-normalize to scale them)");
  }
}

}  // namespace wildfire
