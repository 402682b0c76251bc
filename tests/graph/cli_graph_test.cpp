// End-to-end runs of `wildfire info` and `wildfire convert` (WF_CLI_PATH): exit codes, JSON
// contents, the binary round trip through the CLI, and the one-line error format.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "graph_test_util.hpp"

namespace wildfire {
namespace {

struct cli_result {
  int exit_code;
  std::string out;
  std::string err;
};

cli_result run_cli(const test::temp_dir& dir, const std::string& args) {
  const std::string out = dir.path("stdout.txt"), err = dir.path("stderr.txt");
  const std::string command = std::string("'") + WF_CLI_PATH + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::read_all(out), test::read_all(err)};
}

std::string data(const std::string& name) { return std::string(WF_TEST_DATA_DIR) + "/" + name; }

void expect_one_line_error(const cli_result& r, const std::string& contains) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err.rfind("wildfire: error: ", 0), 0U) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
}

TEST(CliGraph, InfoJsonReportsTheGraph) {
  test::temp_dir dir;
  const auto r = run_cli(dir, "info -i '" + data("tiny_snap.txt") + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["Vertices"], 4);
  EXPECT_EQ(j["Edges"], 5);
  EXPECT_EQ(j["SelfLoopsDropped"], 1);
  EXPECT_EQ(j["Directed"], true);
  EXPECT_EQ(j["WeakComponents"], 1);
  EXPECT_EQ(j["TopOutDegree"][0]["Id"], 10);  // original ids
  EXPECT_EQ(j["TopOutDegree"][0]["OutDegree"], 2);
  EXPECT_EQ(j["InDegree"]["Max"], 2);
  EXPECT_EQ(j["Probabilities"]["Model"], "wc");
  EXPECT_TRUE(j.contains("LoadSeconds"));
  EXPECT_TRUE(j.contains("PeakMemoryBytes"));
  EXPECT_TRUE(j.contains("Commit"));
}

TEST(CliGraph, InfoTextAndOutputFile) {
  test::temp_dir dir;
  const auto text = run_cli(dir, "info -i '" + data("tiny_nm.txt") + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("parallel edges        1 (0 merged)"), std::string::npos) << text.out;
  const std::string report = dir.path("report.json");
  const auto to_file = run_cli(dir, "info -i '" + data("tiny_nm.txt") + "' --json -o '" + report + "'");
  ASSERT_EQ(to_file.exit_code, 0);
  EXPECT_TRUE(to_file.out.empty());
  EXPECT_EQ(nlohmann::json::parse(test::read_all(report))["ParallelEdges"], 1);
}

TEST(CliGraph, ConvertThenInfoOnTheBinaryAgrees) {
  test::temp_dir dir;
  const std::string wfg = dir.path("g.wfg");
  const auto convert = run_cli(dir, "convert -i '" + data("tiny_snap.txt.gz") + "' -o '" + wfg + "' -w uniform:0.2");
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  const auto from_text = run_cli(dir, "info -i '" + data("tiny_snap.txt.gz") + "' -w uniform:0.2 --json");
  const auto from_binary = run_cli(dir, "info -i '" + wfg + "' --json");
  ASSERT_EQ(from_binary.exit_code, 0) << from_binary.err;
  auto a = nlohmann::json::parse(from_text.out), b = nlohmann::json::parse(from_binary.out);
  for (const char* key : {"Vertices", "Edges", "TopOutDegree", "InDegree", "OutDegree", "WeakComponents",
                          "Probabilities", "SelfLoopsDropped"}) {
    EXPECT_EQ(a[key], b[key]) << key;
  }
}

TEST(CliGraph, MalformedLineIsOneLineNamingFileAndLine) {
  test::temp_dir dir;
  const auto r = run_cli(dir, "info -i '" + data("bad_token.txt") + "'");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_line_error(r, "non-numeric vertex id \"three\"");
  std::string where = data("bad_token.txt");
  where.insert(0, 1, '(').append(":3)");
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
}

TEST(CliGraph, MissingFileAndBadFlags) {
  test::temp_dir dir;
  expect_one_line_error(run_cli(dir, "info -i /nonexistent/g.txt"), "(/nonexistent/g.txt)");
  expect_one_line_error(run_cli(dir, "info -i '" + data("tiny_snap.txt") + "' -w uniform:2"), "(--weights)");
  expect_one_line_error(run_cli(dir, "info -i '" + data("tiny_snap.txt") + "' --format tsv"), "--format");
  expect_one_line_error(run_cli(dir, "convert -i '" + data("tiny_snap.txt") + "' -o /nonexistent/dir/g.wfg"),
                        "/nonexistent/dir/g.wfg");
  const auto no_input = run_cli(dir, "info");
  EXPECT_NE(no_input.exit_code, 0);
  EXPECT_NE(no_input.err.find("--input"), std::string::npos) << no_input.err;
}

TEST(CliGraph, CorruptBinaryIsOneLine) {
  test::temp_dir dir;
  const std::string wfg = dir.path("g.wfg");
  ASSERT_EQ(run_cli(dir, "convert -i '" + data("tiny_nm.txt") + "' -o '" + wfg + "'").exit_code, 0);
  std::string bytes = test::read_all(wfg);
  bytes.resize(bytes.size() - 10);
  dir.write("g.wfg", bytes);
  expect_one_line_error(run_cli(dir, "info -i '" + wfg + "'"), "truncated binary graph");
}

TEST(CliGraph, SkipInvalidLinesIsReported) {
  test::temp_dir dir;
  const std::string path = dir.write("g.txt", "http://example.org/graph\n1 2\n2 3\n");
  expect_one_line_error(run_cli(dir, "info -i '" + path + "'"), ":1)");
  const auto r = run_cli(dir, "info -i '" + path + "' --skip-invalid-lines --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["InvalidLinesSkipped"], 1);
}

}  // namespace
}  // namespace wildfire
