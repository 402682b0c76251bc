// Every real data set in ../shared/data loads with the counts its README gives (skipped when the
// folder is absent). Counts after loading: self-loops dropped, so m = edge lines - self-loops.
#include <gtest/gtest.h>

#include <filesystem>

#include "wildfire/error.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/graph/graph_statistics.hpp"

namespace wildfire {
namespace {

std::string shared(const std::string& name) {
  const std::string path = std::string(WF_SHARED_DATA_DIR) + "/" + name;
  return std::filesystem::exists(path) ? path : "";
}

#define WF_REQUIRE_SHARED(path) \
  if ((path).empty()) GTEST_SKIP() << "shared data not present"

csr_graph load(const std::string& path, bool skip = false) {
  graph_load_options options;
  options.path = path;
  options.skip_invalid_lines = skip;
  return load_graph(options);
}

TEST(SharedData, SocEpinions1) {
  const std::string path = shared("soc-Epinions1.txt.gz");
  WF_REQUIRE_SHARED(path);
  const csr_graph g = load(path);
  EXPECT_EQ(g.num_vertices, 75879U);
  EXPECT_EQ(g.num_edges, 508837U);
  EXPECT_EQ(g.original_ids.back(), 75887U);  // ids 0..75,887 with gaps
  EXPECT_EQ(g.provenance.self_loops_dropped, 0U);
  EXPECT_EQ(g.provenance.weight_model, "wc");
  // SNAP lists the largest weakly connected component at 75,877 vertices.
  EXPECT_EQ(compute_graph_statistics(g).largest_weak_component, 75877U);
}

TEST(SharedData, WikiVote) {
  const std::string path = shared("wiki-Vote.txt.gz");
  WF_REQUIRE_SHARED(path);
  const csr_graph g = load(path);
  EXPECT_EQ(g.num_vertices, 7115U);
  EXPECT_EQ(g.num_edges, 103689U);
  EXPECT_EQ(g.original_ids.back(), 8297U);
  EXPECT_EQ(compute_graph_statistics(g).largest_weak_component, 7066U);
}

TEST(SharedData, CaGrQcUrlLineIsAnErrorOnLineOne) {
  const std::string path = shared("ca-GrQc.txt.gz");
  WF_REQUIRE_SHARED(path);
  try {
    load(path);
    FAIL() << "the URL line was accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.line(), 1U);
    EXPECT_EQ(e.file(), path);
  }
}

TEST(SharedData, CaGrQcWithSkipInvalidLines) {
  const std::string path = shared("ca-GrQc.txt.gz");
  WF_REQUIRE_SHARED(path);
  const csr_graph g = load(path, true);
  EXPECT_EQ(g.num_vertices, 5242U);
  EXPECT_EQ(g.provenance.invalid_lines_skipped, 1U);
  EXPECT_EQ(g.provenance.self_loops_dropped, 12U);
  EXPECT_EQ(g.num_edges, 28980U - 12U);  // 28,980 edge lines, 12 of them self-loops
  EXPECT_EQ(compute_graph_statistics(g).largest_weak_component, 4158U);
}

TEST(SharedData, NetHeptCountsHeaderAndParallelEdges) {
  const std::string path = shared("NetHEPT.txt.gz");
  WF_REQUIRE_SHARED(path);
  const csr_graph g = load(path);
  EXPECT_EQ(g.num_vertices, 15233U);
  EXPECT_EQ(g.provenance.self_loops_dropped, 39U);
  EXPECT_EQ(g.num_edges, 58891U - 39U);
  EXPECT_EQ(g.provenance.parallel_edges, 26639U);  // repeated (u, v) pairs, kept
  EXPECT_EQ(g.provenance.weight_model, "file");
  graph_load_options merged;
  merged.path = path;
  merged.merge_parallel = true;
  const csr_graph m = load_graph(merged);
  EXPECT_EQ(m.num_edges, 58852U - 26639U);
  EXPECT_EQ(m.provenance.parallel_edges_merged, 26639U);
}

}  // namespace
}  // namespace wildfire
