// End-to-end: `wildfire imm`, `opim` and `simulate` on a small edge-list file print the documented
// JSON keys with original ids, pass --verify, and fail with one clear line on bad parameters.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace {

struct run_result {
  int status;
  std::string out;
};

run_result run(const std::string& args) {
  const std::string command = std::string(WF_CLI_PATH) + " " + args + " 2>&1";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("wf_cli_test_" + std::to_string(::getpid()) + ".txt");
    std::ofstream file(path_);
    // Original ids 100..111 in a ring with chords; vertex 100 reaches everything.
    for (int v = 0; v < 12; ++v) file << 100 + v << "\t" << 100 + (v + 1) % 12 << "\n";
    for (int v = 0; v < 12; v += 3) file << 100 << "\t" << 100 + v + 1 << "\n";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string graph() const { return "-i " + path_.string() + " -w uniform:0.3"; }
  std::filesystem::path path_;
};

nlohmann::json json_part(const std::string& out) { return nlohmann::json::parse(out.substr(0, out.rfind('}') + 1)); }

TEST_F(Cli, ImmPrintsDocumentedKeysAndVerifies) {
  const auto r = run("imm " + graph() + " -k 2 -e 0.3 -p 2 --seed 5 --verify 2000");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("verification: PASS"), std::string::npos) << r.out;
  const auto j = json_part(r.out);
  for (const char* key : {"Seeds", "Theta", "DiffusionModel", "Input", "Total", "NumThreads", "EstimatedSpread", "Times",
                          "RRSetsGenerated", "RRSetMembersGenerated", "EdgesExamined", "PeakMemoryBytes", "Seed", "Version",
                          "Commit", "Device"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["Seeds"].size(), 2u);
  EXPECT_EQ(j["Seeds"][0], 100);  // the hub, as its original id
  EXPECT_EQ(j["NumThreads"], 2);
  EXPECT_EQ(j["Seed"], 5);
  // Same seed, same seeds.
  EXPECT_EQ(json_part(run("imm " + graph() + " -k 2 -e 0.3 -p 1 --seed 5").out)["Seeds"], j["Seeds"]);
}

TEST_F(Cli, OpimReportsCertifiedRatio) {
  const auto r = run("opim " + graph() + " -k 2 -e 0.2 --verify 2000");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = json_part(r.out);
  EXPECT_GT(j["ApproximationRatio"].get<double>(), 0.0);
  EXPECT_LE(j["ApproximationRatio"].get<double>(), 1.0);
  EXPECT_NE(r.out.find("verification: PASS"), std::string::npos);
}

TEST_F(Cli, SimulateTakesOriginalIds) {
  const auto r = run("simulate " + graph() + " -s 100,105 -R 500");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = json_part(r.out);
  EXPECT_EQ(j["Seeds"], nlohmann::json::array({100, 105}));
  EXPECT_GE(j["Spread"].get<double>(), 2.0);
  EXPECT_LE(j["CI95"][0].get<double>(), j["Spread"].get<double>());
}

TEST_F(Cli, BadParametersFailWithOneLine) {
  for (const std::string& args : {"imm " + graph() + " -k 0", "imm " + graph() + " -k 13", "imm " + graph() + " -e 1",
                                 "opim " + graph() + " -e 0", "simulate " + graph() + " -s 99",
                                 "imm " + graph() + " --colours 48"}) {
    const auto r = run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(r.out.rfind("wildfire: error: ", 0), 0u) << args << ": " << r.out;
  }
  // LT on weights that violate it: 0.3 per in-edge, vertex 101 has in-degree 2 -> fine; 0.6 is not.
  const auto lt = run("imm -i " + path_.string() + " -w uniform:0.6 -d LT -k 1");
  EXPECT_NE(lt.status, 0);
  EXPECT_NE(lt.out.find("LT"), std::string::npos) << lt.out;
}

}  // namespace
