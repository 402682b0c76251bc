// Replays every saved fuzzer finding (tests/fuzz/regressions/) through the readers in the ordinary
// and sanitizer builds: each must be rejected with wildfire::error or parse consistently.
#include <gtest/gtest.h>

#include <filesystem>

#include "graph_test_util.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/edge_list_parser.hpp"

namespace wildfire {
namespace {

const std::filesystem::path regressions = std::filesystem::path(WF_TEST_DATA_DIR) / ".." / "fuzz" / "regressions";

std::vector<std::filesystem::path> inputs(const std::string& fuzzer) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(regressions / fuzzer)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(regressions / fuzzer)) files.push_back(entry.path());
  return files;
}

TEST(FuzzRegressions, EdgeListParserInputs) {
  const auto files = inputs("edge_list_parser");
  if (files.empty()) GTEST_SKIP() << "no saved edge_list_parser findings";
  for (const auto& file : files) {
    const std::string bytes = test::read_all(file.string());
    if (bytes.empty()) continue;
    // As in the fuzzer: the first byte picks the options.
    edge_list_parse_options options;
    options.format = static_cast<text_format>(static_cast<unsigned char>(bytes[0]) % 5);
    options.skip_invalid_lines = (bytes[0] & 8) != 0;
    try {
      const auto p = parse_edge_list(std::string_view(bytes).substr(1), options);
      EXPECT_EQ(p.sources.size(), p.targets.size()) << file;
    } catch (const error&) {
    }
  }
}

TEST(FuzzRegressions, BinaryGraphInputs) {
  const auto files = inputs("binary_graph");
  if (files.empty()) GTEST_SKIP() << "no saved binary_graph findings";
  for (const auto& file : files) {
    try {
      read_binary_graph(file.string());
    } catch (const error&) {
    }
  }
}

TEST(BinaryFormatStability, CommittedVersionOneFileStillLoads) {
  // tests/data/tiny_nm.wfg was written by `wildfire convert -i tests/data/tiny_nm.txt`: version 1
  // files must keep loading, with the same graph as parsing the text.
  const csr_graph binary = read_binary_graph(std::string(WF_TEST_DATA_DIR) + "/tiny_nm.wfg");
  EXPECT_EQ(binary.num_vertices, 4U);
  EXPECT_EQ(binary.num_edges, 5U);
  EXPECT_EQ(binary.provenance.parallel_edges, 1U);
  EXPECT_EQ(binary.provenance.self_loops_dropped, 1U);
  EXPECT_EQ(binary.provenance.weight_model, "file");
  const std::vector<test::original_edge> expected = {{3, 0, 0.125}, {0, 1, 0.5}, {0, 1, 0.5}, {1, 2, 0.25}, {2, 3, 1.0}};
  EXPECT_EQ(test::original_edges(binary), expected);
}

}  // namespace
}  // namespace wildfire
