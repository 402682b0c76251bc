// The shared graph-input flags; their meaning is documented in docs/formats.md.
#include "graph_options.hpp"

namespace wildfire::cli {

void add_graph_input_options(CLI::App& cmd, graph_load_options& options) {
  cmd.add_option("-i,--input", options.path,
                 "Graph file: edge list (plain or .gz), CSV, `n m` list, or binary .wfg")
      ->required();
  cmd.add_option("--format", options.format,
                 "Input format: auto, snap, weighted, nm-header, csv or binary")
      ->check(CLI::IsMember({"auto", "snap", "weighted", "nm-header", "csv", "binary"}))
      ->capture_default_str();
  cmd.add_flag("--undirected", options.undirected, "Add both directions of every edge");
  cmd.add_flag("--merge-parallel", options.merge_parallel,
               "Merge repeated edges into one (IC probability 1 - prod(1 - p))");
  cmd.add_flag("--skip-invalid-lines", options.skip_invalid_lines,
               "Skip malformed lines (and count them) instead of failing");
  cmd.add_option("-w,--weights", options.weights,
                 "Edge probabilities: auto, wc, uniform:P, trivalency, random:A:B or file")
      ->capture_default_str();
  cmd.add_option("--weight-seed", options.weight_seed, "Seed for trivalency and random:A:B weights")
      ->capture_default_str();
  cmd.add_flag("--lt-normalize", options.lt_normalize,
               "Scale each vertex's in-weights to sum to 1 where they exceed 1 (LT model)");
}

}  // namespace wildfire::cli
