// End-to-end runs of `wildfire twitter-influence` and `wildfire generate rsg`: the output users,
// the CSV form, --verify, and one-line errors with file:line and a non-zero exit code.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace {

struct run_result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

run_result run_cli(const std::string& args) {
  const std::string command = std::string(WF_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

const std::string data_dir = std::string(WF_TEST_DATA_DIR) + "/twitter/";

TEST(TwitterCli, CsvOfTheWorkedExample) {
  const run_result r = run_cli("twitter-influence -i " + data_dir + "example --csv --top 0 -p 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Graph 0 is the worked example; graph 1 adds a -> b once more (a 1, b 3).
  EXPECT_EQ(r.output, "user_id,total,mean,tweets\n"
                      "b,24,12,2\n"
                      "e,11,11,1\n"
                      "c,8.5,8.5,1\n"
                      "a,6.25,3.125,2\n"
                      "f,6,6,1\n"
                      "d,4,4,1\n");
}

TEST(TwitterCli, ForwardPhaseJsonWithVerify) {
  const run_result r = run_cli("twitter-influence --follower-graph " + data_dir + "example_followers.txt --retweets " +
                               data_dir + "example_retweets.txt --followers " + data_dir +
                               "example_counts.txt --verify --rank-by mean --top 2 -o -");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verification: PASS"), std::string::npos) << r.output;
  const auto json = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(json["Tweets"], 2);
  EXPECT_EQ(json["Edges"], 11);
  EXPECT_EQ(json["TopUsers"][0]["Id"], "b");
  EXPECT_EQ(json["TopUsers"][0]["Mean"], 19.0);
  EXPECT_EQ(json["TopUsers"][1]["Id"], "e");
}

TEST(TwitterCli, MalformedInputIsOneLineWithFileAndLine) {
  const auto dir = std::filesystem::temp_directory_path() / ("wf_twitter_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad_graph_indicator.txt") << "0\n0\n";
  std::ofstream(dir / "bad_node_labels.txt") << "a, 1\nb, 2\n";
  std::ofstream(dir / "bad_A.txt") << "0, 1\n1, zero\n";
  const run_result r = run_cli("twitter-influence -i " + (dir / "bad").string());
  std::filesystem::remove_all(dir);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("wildfire: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("bad_A.txt:2"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST(TwitterCli, GeneratedRsgReadsBackAndVerifies) {
  const auto dir = std::filesystem::temp_directory_path() / ("wf_twitter_rsg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "rsg").string();
  const run_result gen = run_cli("generate rsg --batches 5x1-1@0,30x2-40@5,4x33-200@4 --seed 3 -o " + prefix);
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  EXPECT_EQ(nlohmann::json::parse(gen.output)["Graphs"], 39);
  const run_result r = run_cli("twitter-influence -i " + prefix + " --verify --on-cycle error --top 1");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verification: PASS"), std::string::npos);
  const run_result bad = run_cli("generate rsg --batches 5x9-1@0 -o " + prefix);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--batches"), std::string::npos) << bad.output;
}

}  // namespace

namespace {

TEST(TwitterCli, CyclesAreReportedOrRejected) {
  const auto dir = std::filesystem::temp_directory_path() / ("wf_twitter_cyc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "c_graph_indicator.txt") << "0\n0\n0\n";
  std::ofstream(dir / "c_node_labels.txt") << "p, 1\nx, 2\ny, 3\n";
  std::ofstream(dir / "c_A.txt") << "1, 2\n2, 1\n";  // x <-> y: neither ever settles
  const std::string prefix = (dir / "c").string();
  const run_result report = run_cli("twitter-influence -i " + prefix);
  const run_result reject = run_cli("twitter-influence -i " + prefix + " --on-cycle error");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const auto json = nlohmann::json::parse(report.output);
  EXPECT_EQ(json["StalledNodes"], 2);
  EXPECT_EQ(json["GraphsWithCycles"], 1);
  EXPECT_NE(reject.exit_code, 0);
  EXPECT_NE(reject.output.find("have cycles"), std::string::npos) << reject.output;
}

}  // namespace
