// The .wfg binary format: exact round trips, detection by magic, and every corruption it must
// refuse (truncation, flipped bytes, wrong version, bad magic, trailing bytes).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "graph_test_util.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/edge_weights.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/random/counter_hash.hpp"

namespace wildfire {
namespace {

std::string data(const std::string& name) { return std::string(WF_TEST_DATA_DIR) + "/" + name; }

csr_graph load_path(const std::string& path, const std::string& weights = "auto") {
  graph_load_options options;
  options.path = path;
  options.weights = weights;
  return load_graph(options);
}

void expect_same_graph(const csr_graph& a, const csr_graph& b) {
  EXPECT_EQ(a.num_vertices, b.num_vertices);
  EXPECT_EQ(a.num_edges, b.num_edges);
  EXPECT_EQ(a.in_offsets, b.in_offsets);
  EXPECT_EQ(a.in_sources, b.in_sources);
  EXPECT_EQ(a.in_thresholds, b.in_thresholds);
  EXPECT_EQ(a.out_offsets, b.out_offsets);
  EXPECT_EQ(a.out_targets, b.out_targets);
  EXPECT_EQ(a.out_edge_ids, b.out_edge_ids);
  EXPECT_EQ(a.original_ids, b.original_ids);
  EXPECT_EQ(a.provenance.undirected_input, b.provenance.undirected_input);
  EXPECT_EQ(a.provenance.self_loops_dropped, b.provenance.self_loops_dropped);
  EXPECT_EQ(a.provenance.parallel_edges, b.provenance.parallel_edges);
  EXPECT_EQ(a.provenance.parallel_edges_merged, b.provenance.parallel_edges_merged);
  EXPECT_EQ(a.provenance.invalid_lines_skipped, b.provenance.invalid_lines_skipped);
  EXPECT_EQ(a.provenance.weight_model, b.provenance.weight_model);
}

/// The message of the input_error that reading `path` throws ("" when none is thrown).
std::string read_error(const std::string& path) {
  try {
    read_binary_graph(path);
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), path);
    return e.what();
  }
  return "";
}

class BinaryFormat : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_load_options options;
    options.path = data("tiny_nm.txt");
    options.undirected = true;
    original_ = load_graph(options);
    path_ = dir_.write("g.wfg", "");
    write_binary_graph(original_, path_);
    bytes_ = test::read_all(path_);
  }
  test::temp_dir dir_;
  csr_graph original_;
  std::string path_;
  std::string bytes_;
};

TEST_F(BinaryFormat, RoundTripIsExact) {
  expect_same_graph(original_, read_binary_graph(path_));
  EXPECT_TRUE(is_binary_graph_file(path_));
  EXPECT_FALSE(is_binary_graph_file(data("tiny_nm.txt")));
}

TEST_F(BinaryFormat, LoadGraphDetectsTheMagic) {
  expect_same_graph(original_, load_path(path_));
  graph_load_options explicit_binary;
  explicit_binary.path = path_;
  explicit_binary.format = "binary";
  expect_same_graph(original_, load_graph(explicit_binary));
}

TEST_F(BinaryFormat, SparseOriginalIdsRoundTrip) {
  const csr_graph g = load_path(data("tiny_snap.txt.gz"));
  const std::string path = dir_.path("sparse.wfg");
  write_binary_graph(g, path);
  const csr_graph back = load_path(path);
  expect_same_graph(g, back);
  EXPECT_EQ(back.original_ids.back(), 1000000000000ULL);
}

TEST_F(BinaryFormat, EmptyGraphRoundTrips) {
  const csr_graph g = load_path(dir_.write("e.txt", "3 0\n"));
  const std::string path = dir_.path("empty.wfg");
  write_binary_graph(g, path);
  expect_same_graph(g, read_binary_graph(path));
}

TEST_F(BinaryFormat, ExplicitWeightModelRecomputesThresholds) {
  const csr_graph g = load_path(path_, "uniform:0.3");
  for (const std::uint32_t t : g.in_thresholds) EXPECT_EQ(t, threshold_from_probability(0.3));
  EXPECT_EQ(g.provenance.weight_model, "uniform:0.3");
}

TEST_F(BinaryFormat, TextOnlyOptionsAreRefused) {
  graph_load_options options;
  options.path = path_;
  options.undirected = true;
  EXPECT_THROW(load_graph(options), config_error);
}

TEST_F(BinaryFormat, TruncationIsDetectedAtEveryLength) {
  for (std::size_t keep : {std::size_t{4}, std::size_t{50}, std::size_t{96}, bytes_.size() / 2, bytes_.size() - 1}) {
    const std::string path = dir_.write("cut.wfg", bytes_.substr(0, keep));
    const std::string message = read_error(path);
    EXPECT_FALSE(message.empty()) << keep;
    if (keep >= 96) {
      EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    }
  }
}

TEST_F(BinaryFormat, TrailingBytesAreDetected) {
  EXPECT_NE(read_error(dir_.write("long.wfg", bytes_ + "x")).find("trailing"), std::string::npos);
}

TEST_F(BinaryFormat, FlippedPayloadBytesAreDetected) {
  // Every third byte after the header (arrays, padding), then every byte of checksum and trailer.
  for (std::size_t at = 96; at < bytes_.size(); at += at + 8 < bytes_.size() ? 3 : 1) {
    std::string bad = bytes_;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    const std::string message = read_error(dir_.write("flip.wfg", bad));
    ASSERT_FALSE(message.empty()) << "flip at byte " << at << " not detected";
  }
  std::string bad = bytes_;
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x10);
  EXPECT_NE(read_error(dir_.write("flip.wfg", bad)).find("checksum"), std::string::npos);
}

TEST_F(BinaryFormat, FlippedHeaderBytesAreDetected) {
  for (std::size_t at = 8; at < 96; ++at) {
    std::string bad = bytes_;
    bad[at] = static_cast<char>(bad[at] ^ 0x04);
    EXPECT_FALSE(read_error(dir_.write("flip.wfg", bad)).empty()) << "flip at header byte " << at;
  }
}

TEST_F(BinaryFormat, WrongVersionIsNamed) {
  std::string bad = bytes_;
  const std::uint32_t version = binary_graph_version + 1;
  std::memcpy(bad.data() + 8, &version, 4);
  const std::string message = read_error(dir_.write("v2.wfg", bad));
  EXPECT_NE(message.find("unsupported binary graph version 2"), std::string::npos) << message;
}

TEST_F(BinaryFormat, BadMagicWhenBinaryIsForced) {
  graph_load_options options;
  options.path = data("tiny_snap.txt");
  options.format = "binary";
  try {
    load_graph(options);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a wildfire binary graph"), std::string::npos);
  }
}

TEST_F(BinaryFormat, UnwritablePathIsAnError) {
  EXPECT_THROW(write_binary_graph(original_, "/nonexistent/dir/g.wfg"), input_error);
}

TEST_F(BinaryFormat, LoadedArraysViewTheFile) {
  const csr_graph g = read_binary_graph(path_);
  EXPECT_TRUE(g.in_offsets.is_mapped());
  EXPECT_TRUE(g.in_sources.is_mapped());
  EXPECT_TRUE(g.in_thresholds.is_mapped());
  EXPECT_TRUE(g.out_offsets.is_mapped());
  EXPECT_TRUE(g.out_targets.is_mapped());
  EXPECT_TRUE(g.out_edge_ids.is_mapped());
  EXPECT_TRUE(g.original_ids.is_mapped());
  const csr_graph copy = g;  // copies own their arrays
  EXPECT_FALSE(copy.in_sources.is_mapped());
  expect_same_graph(copy, original_);
}

TEST_F(BinaryFormat, WritesIntoALoadedGraphNeverReachTheFile) {
  csr_graph g = read_binary_graph(path_);
  assign_model_weights(g, parse_weight_spec("uniform:0.3"), 1);
  g.in_sources[0] = g.in_sources[1];
  g.original_ids.push_back(99);  // a size change copies the array out of the mapping
  for (const std::uint32_t t : g.in_thresholds) EXPECT_EQ(t, threshold_from_probability(0.3));
  EXPECT_EQ(test::read_all(path_), bytes_);
  expect_same_graph(read_binary_graph(path_), original_);
}

TEST_F(BinaryFormat, RewritingTheFileKeepsGraphsLoadedFromIt) {
  csr_graph g = read_binary_graph(path_);
  // Convert in place: the loaded graph is written back over the file it views.
  assign_model_weights(g, parse_weight_spec("uniform:0.5"), 1);
  write_binary_graph(g, path_);
  const csr_graph reread = read_binary_graph(path_);
  for (const std::uint32_t t : reread.in_thresholds) EXPECT_EQ(t, threshold_from_probability(0.5));
  // A graph loaded before a rewrite keeps its bytes (the file is replaced, not truncated).
  const csr_graph before = read_binary_graph(path_);
  write_binary_graph(original_, path_);
  expect_same_graph(before, reread);
  expect_same_graph(read_binary_graph(path_), original_);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp." + std::to_string(::getpid())));
}

TEST_F(BinaryFormat, WritingThroughASymlinkReplacesItsTarget) {
  const std::string link = dir_.path("link.wfg");
  std::filesystem::create_symlink(path_, link);
  const csr_graph loaded = read_binary_graph(link);
  csr_graph changed = loaded;
  assign_model_weights(changed, parse_weight_spec("uniform:0.25"), 1);
  write_binary_graph(changed, link);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  expect_same_graph(read_binary_graph(path_), changed);
  expect_same_graph(loaded, original_);  // loaded before the rewrite: keeps its bytes
}

TEST_F(BinaryFormat, LoadedGraphOutlivesItsFile) {
  const csr_graph g = read_binary_graph(path_);
  std::filesystem::remove(path_);
  expect_same_graph(g, original_);
}

/// A graph whose arrays span several 4 MiB checksum pieces and 64 KiB check blocks, so the parallel
/// piece tasks and the checks across block and piece boundaries run.
class LargeBinaryGraph : public ::testing::Test {
 protected:
  static constexpr std::uint32_t n = 20000;
  static constexpr std::uint64_t m = 600000;  // out_edge_ids: 4.8 MB, two pieces

  void SetUp() override {
    std::vector<weighted_edge> edges(m);
    for (std::uint64_t e = 0; e < m; ++e) {
      const auto u = static_cast<std::uint32_t>(element_hash(7, 2 * e) % n);
      auto v = static_cast<std::uint32_t>(element_hash(7, 2 * e + 1) % n);
      if (v == u) v = (v + 1) % n;
      edges[e] = {u, v, static_cast<std::uint32_t>(element_hash(8, e))};
    }
    graph_ = build_csr_graph(n, edges);
    path_ = dir_.path("large.wfg");
  }
  std::string error_of(const csr_graph& g) {
    write_binary_graph(g, path_);  // a correct checksum over whatever the arrays hold
    try {
      read_binary_graph(path_);
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }
  test::temp_dir dir_;
  csr_graph graph_;
  std::string path_;
};

TEST_F(LargeBinaryGraph, RoundTripIsExact) {
  write_binary_graph(graph_, path_);
  expect_same_graph(graph_, read_binary_graph(path_));
}

TEST_F(LargeBinaryGraph, FlipInALaterPieceIsDetected) {
  write_binary_graph(graph_, path_);
  std::string bytes = test::read_all(path_);
  const std::size_t at = bytes.size() - 16 - 8 * n - 100;  // inside out_edge_ids' second piece
  bytes[at] = static_cast<char>(bytes[at] ^ 0x20);
  const std::string bad = dir_.write("flipped.wfg", bytes);
  try {
    read_binary_graph(bad);
    FAIL() << "flip not detected";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
  }
}

TEST_F(LargeBinaryGraph, CraftedArraysWithAValidChecksumAreRefused) {
  const std::string invalid = "arrays do not form a valid CSR";
  {
    csr_graph g = graph_;  // decreasing offset at the first element of the second 64 KiB block
    ASSERT_GT(g.in_offsets[8191], 0U);
    g.in_offsets[8192] = g.in_offsets[8191] - 1;
    EXPECT_NE(error_of(g).find(invalid), std::string::npos);
  }
  {
    csr_graph g = graph_;
    g.in_sources[m - 1] = n;
    EXPECT_NE(error_of(g).find(invalid), std::string::npos);
  }
  {
    csr_graph g = graph_;
    g.out_targets[300000] = n + 5;
    EXPECT_NE(error_of(g).find(invalid), std::string::npos);
  }
  {
    csr_graph g = graph_;
    g.out_edge_ids[m - 3] = m;  // in the second 4 MiB piece
    EXPECT_NE(error_of(g).find(invalid), std::string::npos);
  }
  {
    csr_graph g = graph_;
    g.out_offsets[n] = m - 1;  // the last offset must be m
    EXPECT_NE(error_of(g).find(invalid), std::string::npos);
  }
  EXPECT_EQ(error_of(graph_), "");
}

}  // namespace
}  // namespace wildfire
