// The .wfg binary format: exact round trips, detection by magic, and every corruption it must
// refuse (truncation, flipped bytes, wrong version, bad magic, trailing bytes).
#include <gtest/gtest.h>

#include <cstring>

#include "graph_test_util.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/graph_loader.hpp"

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

}  // namespace
}  // namespace wildfire
