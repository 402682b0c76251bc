// load_graph: relabelling and original ids, self-loops, --undirected, parallel edges, every weight
// model, --lt-normalize and LT validation, gzip, and the file-level errors.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sys/stat.h>
#include <thread>

#include "graph_test_util.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/edge_weights.hpp"
#include "wildfire/graph/graph_loader.hpp"

namespace wildfire {
namespace {

using test::original_edge;
using test::original_edges;

csr_graph load(const std::string& path, const std::string& weights = "auto", bool undirected = false,
               bool merge = false) {
  graph_load_options options;
  options.path = path;
  options.weights = weights;
  options.undirected = undirected;
  options.merge_parallel = merge;
  return load_graph(options);
}

std::string data(const std::string& name) { return std::string(WF_TEST_DATA_DIR) + "/" + name; }

constexpr double unit = 1.0 / 4294967296.0;  // one threshold step

TEST(GraphLoader, SnapFileKeepsOriginalIdsInAscendingOrder) {
  const csr_graph g = load(data("tiny_snap.txt"));
  EXPECT_EQ(g.num_vertices, 4U);
  EXPECT_EQ(g.num_edges, 5U);
  EXPECT_EQ(g.original_ids, (std::vector<std::uint64_t>{10, 20, 30, 1000000000000ULL}));
  EXPECT_EQ(g.provenance.self_loops_dropped, 1U);
  EXPECT_EQ(g.provenance.parallel_edges, 0U);
  EXPECT_EQ(g.provenance.weight_model, "wc");
  // In-edges in file order; wc probability 1/indeg(target).
  const std::vector<original_edge> expected = {
      {30, 10, 0.5}, {1000000000000ULL, 10, 0.5}, {10, 20, 1.0}, {10, 30, 0.5}, {20, 30, 0.5}};
  EXPECT_EQ(original_edges(g), expected);
}

TEST(GraphLoader, OutCsrMirrorsInCsr) {
  const csr_graph g = load(data("tiny_snap.txt"));
  for (std::uint32_t u = 0; u < g.num_vertices; ++u) {
    for (std::uint64_t k = g.out_offsets[u]; k < g.out_offsets[u + 1]; ++k) {
      const std::uint64_t j = g.out_edge_ids[k];
      EXPECT_EQ(g.in_sources[j], u);
      EXPECT_GE(j, g.in_offsets[g.out_targets[k]]);
      EXPECT_LT(j, g.in_offsets[g.out_targets[k] + 1]);
    }
  }
}

TEST(GraphLoader, GzipEqualsPlain) {
  const csr_graph plain = load(data("tiny_snap.txt"));
  const csr_graph gz = load(data("tiny_snap.txt.gz"));
  EXPECT_EQ(original_edges(plain), original_edges(gz));
  EXPECT_EQ(plain.original_ids, gz.original_ids);
}

TEST(GraphLoader, CorruptGzipIsAnError) {
  test::temp_dir dir;
  std::string bytes = test::read_all(data("tiny_snap.txt.gz"));
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  const std::string flipped = dir.write("flipped.txt.gz", bytes);
  try {
    load(flipped);
    FAIL() << "corrupt gzip accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), flipped);
    EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
  }
  const std::string truncated = dir.write("truncated.txt.gz", test::read_all(data("tiny_snap.txt.gz")).substr(0, 40));
  EXPECT_THROW(load(truncated), input_error);
}

TEST(GraphLoader, MissingFileNamesTheFile) {
  try {
    load("/nonexistent/graph.txt");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), "/nonexistent/graph.txt");
    EXPECT_EQ(e.line(), 0U);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

TEST(GraphLoader, DirectoryIsAnError) {
  test::temp_dir dir;
  try {
    load(dir.path(""));
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(GraphLoader, ReadsGzipFromAPipe) {
  // A FIFO cannot be probed for magic bytes without consuming them: it is streamed through zlib.
  test::temp_dir dir;
  const std::string fifo = dir.path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string bytes = test::read_all(data("tiny_snap.txt.gz"));
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
  const csr_graph g = load(fifo);
  writer.join();
  EXPECT_EQ(original_edges(g), original_edges(load(data("tiny_snap.txt"))));
}

TEST(GraphLoader, EmptyFileIsAnError) {
  test::temp_dir dir;
  EXPECT_THROW(load(dir.write("empty.txt", "")), input_error);
}

TEST(GraphLoader, CountsHeaderFileKeepsDeclaredVerticesAndParallelEdges) {
  const csr_graph g = load(data("tiny_nm.txt"));
  EXPECT_EQ(g.num_vertices, 4U);
  EXPECT_EQ(g.num_edges, 5U);  // 6 lines, one self-loop
  EXPECT_EQ(g.provenance.self_loops_dropped, 1U);
  EXPECT_EQ(g.provenance.parallel_edges, 1U);
  EXPECT_EQ(g.provenance.weight_model, "file");
  const std::vector<original_edge> expected = {{3, 0, 0.125}, {0, 1, 0.5}, {0, 1, 0.5}, {1, 2, 0.25}, {2, 3, 1.0}};
  EXPECT_EQ(original_edges(g), expected);
}

TEST(GraphLoader, CountsHeaderKeepsIsolatedDeclaredVertices) {
  test::temp_dir dir;
  const csr_graph g = load(dir.write("g.txt", "6 2\n0 1 0.5\n1 2 0.5\n"));
  EXPECT_EQ(g.num_vertices, 6U);
  EXPECT_EQ(g.original_ids.back(), 5U);
}

TEST(GraphLoader, MergeParallelCombinesIcProbabilities) {
  const csr_graph g = load(data("tiny_nm.txt"), "auto", false, true);
  EXPECT_EQ(g.num_edges, 4U);
  EXPECT_EQ(g.provenance.parallel_edges, 1U);
  EXPECT_EQ(g.provenance.parallel_edges_merged, 1U);
  const auto edges = original_edges(g);
  const auto it = std::find_if(edges.begin(), edges.end(), [](const auto& e) { return e.source == 0 && e.target == 1; });
  ASSERT_NE(it, edges.end());
  EXPECT_NEAR(it->probability, 1.0 - 0.5 * 0.5, unit);
}

TEST(GraphLoader, MergeParallelThreeCopies) {
  test::temp_dir dir;
  const csr_graph g = load(dir.write("g.txt", "1 2 0.1\n1 2 0.2\n2 1 0.3\n1 2 0.5\n"), "auto", false, true);
  EXPECT_EQ(g.num_edges, 2U);
  EXPECT_EQ(g.provenance.parallel_edges_merged, 2U);
  const auto edges = original_edges(g);
  const auto it = std::find_if(edges.begin(), edges.end(), [](const auto& e) { return e.source == 1; });
  EXPECT_NEAR(it->probability, 1.0 - 0.9 * 0.8 * 0.5, unit);
}

TEST(GraphLoader, UndirectedAddsBothDirections) {
  test::temp_dir dir;
  const csr_graph g = load(dir.write("g.txt", "1 2\n2 3\n3 3\n"), "uniform:0.25", true);
  EXPECT_TRUE(g.provenance.undirected_input);
  EXPECT_EQ(g.num_edges, 4U);
  EXPECT_EQ(g.provenance.self_loops_dropped, 1U);
  std::set<std::pair<std::uint64_t, std::uint64_t>> pairs;
  for (const auto& e : original_edges(g)) {
    pairs.insert({e.source, e.target});
    EXPECT_NEAR(e.probability, 0.25, unit);
  }
  EXPECT_EQ(pairs, (std::set<std::pair<std::uint64_t, std::uint64_t>>{{1, 2}, {2, 1}, {2, 3}, {3, 2}}));
}

TEST(GraphLoader, CsvWithHeader) {
  const csr_graph g = load(data("tiny_edges.csv"));
  EXPECT_EQ(g.original_ids, (std::vector<std::uint64_t>{5, 7, 9}));
  EXPECT_EQ(g.num_edges, 4U);
}

TEST(GraphLoader, WeightedCascadeIsOneOverInDegree) {
  const csr_graph g = load(data("tiny_weighted.txt"), "wc");
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
      EXPECT_EQ(g.in_thresholds[j], threshold_from_probability(1.0 / static_cast<double>(g.in_degree(v))));
    }
  }
  EXPECT_EQ(g.provenance.weight_model, "wc");
}

TEST(GraphLoader, FileWeightsAndAutoPickTheThirdColumn) {
  const csr_graph file = load(data("tiny_weighted.txt"), "file");
  const csr_graph automatic = load(data("tiny_weighted.txt"));
  EXPECT_EQ(file.in_thresholds, automatic.in_thresholds);
  const auto edges = original_edges(file);
  const auto it = std::find_if(edges.begin(), edges.end(), [](const auto& e) { return e.source == 3 && e.target == 1; });
  EXPECT_EQ(file.in_thresholds[static_cast<std::size_t>(it - edges.begin())], threshold_from_probability(0.9));
}

TEST(GraphLoader, FileWeightsNeedAThirdColumn) {
  try {
    load(data("tiny_snap.txt"), "file");
    FAIL();
  } catch (const config_error& e) {
    EXPECT_EQ(e.parameter(), "--weights");
  }
}

TEST(GraphLoader, TrivalencyDrawsFromThreeValuesDeterministically) {
  test::temp_dir dir;
  std::string text;
  for (int i = 0; i < 3000; ++i) text += std::to_string(i) + " " + std::to_string((i * 37 + 1) % 3000) + "\n";
  const std::string path = dir.write("g.txt", text);
  graph_load_options options;
  options.path = path;
  options.weights = "trivalency";
  options.weight_seed = 7;
  const csr_graph a = load_graph(options);
  const csr_graph b = load_graph(options);
  options.weight_seed = 8;
  const csr_graph c = load_graph(options);
  EXPECT_EQ(a.in_thresholds, b.in_thresholds);
  EXPECT_NE(a.in_thresholds, c.in_thresholds);
  std::array<int, 3> counts{};
  const std::array<std::uint32_t, 3> values = {threshold_from_probability(0.1), threshold_from_probability(0.01),
                                               threshold_from_probability(0.001)};
  for (std::size_t j = 0; j < a.num_edges; ++j) {
    const auto it = std::find(values.begin(), values.end(), a.in_thresholds[j]);
    ASSERT_NE(it, values.end());
    ++counts[static_cast<std::size_t>(it - values.begin())];
    EXPECT_EQ(a.in_thresholds[j], threshold_from_probability(trivalency_probability(7, j)));
  }
  // Each value with probability 1/3: 5 sigma of Binomial(3000, 1/3) is about 129.
  for (int count : counts) EXPECT_NEAR(count, 1000, 129);
  EXPECT_EQ(a.provenance.weight_model, "trivalency (seed 7)");
}

TEST(GraphLoader, RandomWeightsStayInTheirRange) {
  test::temp_dir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += std::to_string(i) + " " + std::to_string((i + 1) % 2000) + "\n";
  const csr_graph g = load(dir.write("g.txt", text), "random:0.2:0.4");
  double sum = 0;
  for (const std::uint32_t t : g.in_thresholds) {
    const double p = probability_from_threshold(t);
    EXPECT_GE(p, 0.2 - unit);
    EXPECT_LE(p, 0.4 + unit);
    sum += p;
  }
  // Uniform on [0.2, 0.4]: sd 0.0577 per edge; 5 sigma of the mean of 2000 is 0.0065.
  EXPECT_NEAR(sum / 2000.0, 0.3, 0.0065);
}

TEST(GraphLoader, BadWeightSpecsAreConfigErrors) {
  for (const char* spec : {"uniform:1.5", "uniform:", "random:0.5:0.2", "random:0.1", "magic", "uniform:-0.1"}) {
    try {
      load(data("tiny_snap.txt"), spec);
      ADD_FAILURE() << spec;
    } catch (const config_error& e) {
      EXPECT_EQ(e.parameter(), "--weights") << spec;
    }
  }
}

TEST(GraphLoader, UnknownFormatIsAConfigError) {
  graph_load_options options;
  options.path = data("tiny_snap.txt");
  options.format = "tsv";
  EXPECT_THROW(load_graph(options), config_error);
}

TEST(GraphLoader, ExplicitFormatOverridesDetection) {
  // As snap, a 2-field first line is always an edge.
  graph_load_options options;
  options.path = data("tiny_nm.txt");
  options.format = "snap";
  EXPECT_THROW(load_graph(options), input_error);  // line 2 has three fields, line 1 two
  test::temp_dir dir;
  options.path = dir.write("g.txt", "3 2\n0 1\n1 2\n");
  EXPECT_EQ(load_graph(options).num_edges, 3U);
  options.format = "auto";
  EXPECT_EQ(load_graph(options).num_edges, 2U);
}

TEST(GraphLoader, LtValidationNamesTheOriginalVertex) {
  test::temp_dir dir;
  const std::string path = dir.write("g.txt", "100 700 0.6\n200 700 0.6\n100 200 0.5\n");
  const csr_graph g = load(path);
  try {
    validate_lt_weights(g, path);
    FAIL() << "sum 1.2 accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("vertex 700 "), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), path);
  }
  EXPECT_NO_THROW(validate_lt_weights(load(path, "wc")));
}

TEST(GraphLoader, LtNormalizeScalesOnlyOverfullVertices) {
  test::temp_dir dir;
  graph_load_options options;
  options.path = dir.write("g.txt", "100 700 0.6\n200 700 0.6\n100 200 0.5\n");
  options.lt_normalize = true;
  const csr_graph g = load_graph(options);
  EXPECT_NO_THROW(validate_lt_weights(g));
  const auto v700 = test::dense_id(g, 700), v200 = test::dense_id(g, 200);
  std::uint64_t sum = 0;
  for (std::uint64_t j = g.in_offsets[v700]; j < g.in_offsets[v700 + 1]; ++j) {
    sum += threshold_weight(g.in_thresholds[j]);
    EXPECT_NEAR(probability_from_threshold(g.in_thresholds[j]), 0.5, 2 * unit);
  }
  EXPECT_LE(sum, std::uint64_t{1} << 32);
  EXPECT_EQ(g.in_thresholds[g.in_offsets[v200]], threshold_from_probability(0.5));  // untouched
}

TEST(GraphLoader, ManyParallelAlwaysLiveEdgesNormalizeBelowOne) {
  test::temp_dir dir;
  graph_load_options options;
  options.path = dir.write("g.txt", "1 2 1\n3 2 1\n4 2 1\n");
  options.lt_normalize = true;
  const csr_graph g = load_graph(options);
  std::uint64_t sum = 0;
  for (const std::uint32_t t : g.in_thresholds) sum += threshold_weight(t);
  EXPECT_LE(sum, std::uint64_t{1} << 32);
  EXPECT_GE(sum, (std::uint64_t{1} << 32) - 3);
}

}  // namespace
}  // namespace wildfire
