// Input readers: TU collections (0- and 1-based), propagation trees from a folder and from a
// .tar.gz, follower counts, follower graphs and retweet logs; malformed lines name file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "wildfire/error.hpp"
#include "wildfire/twitter/combine.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/readers.hpp"
#include "wildfire/twitter/rsg.hpp"

namespace wildfire::twitter {
namespace {

const std::string data_dir = std::string(WF_TEST_DATA_DIR) + "/twitter/";

/// A scratch folder removed at the end of the test.
struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("wf_twitter_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
  }
};

/// Runs fn and returns the input_error it throws (fails the test if none).
template <class Fn>
input_error expect_input_error(Fn&& fn) {
  try {
    fn();
  } catch (const input_error& e) {
    return e;
  }
  ADD_FAILURE() << "no input_error thrown";
  return input_error("", 0, "");
}

TEST(TwitterReaders, TuZeroBasedWorkedExample) {
  const spreading_graphs g = read_tu_dataset(data_dir + "example");
  validate_spreading_graphs(g, "tu");
  ASSERT_EQ(g.num_graphs(), 2u);
  EXPECT_EQ(g.tweet_ids, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(g.user_ids.size(), 6u);
  EXPECT_EQ(backward_sequential(g).influence, (std::vector<double>{5.25, 21, 8.5, 4, 11, 6, 1, 3}));
}

TEST(TwitterReaders, TuOneBasedDetectedAndForced) {
  const spreading_graphs a = read_tu_dataset(data_dir + "example");
  const spreading_graphs b = read_tu_dataset(data_dir + "example1");
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.edge_targets, b.edge_targets);
  EXPECT_EQ(read_tu_dataset(data_dir + "example1", 1).edge_targets, a.edge_targets);
  // Forcing base 0 on 1-based files: the first graph id 1 is rejected with its line.
  const input_error e = expect_input_error([&] { read_tu_dataset(data_dir + "example1", 0); });
  EXPECT_EQ(e.line(), 1u);
}

TEST(TwitterReaders, TuRoundTripOfAnRsgSet) {
  scratch_dir dir("tu");
  rsg_params p;
  p.seed = 3;
  p.batches = {{4, 1, 1, 0.0}, {20, 2, 60, 8.0}};
  const spreading_graphs g = generate_rsg(p, 2);
  write_tu_dataset(g, (dir.path / "rsg").string());
  const spreading_graphs h = read_tu_dataset((dir.path / "rsg").string());
  EXPECT_EQ(g.graph_offsets, h.graph_offsets);
  EXPECT_EQ(g.row_offsets, h.row_offsets);
  EXPECT_EQ(g.edge_targets, h.edge_targets);
  EXPECT_EQ(g.base, h.base);
}

TEST(TwitterReaders, TuMalformedLinesNameFileAndLine) {
  scratch_dir dir("tubad");
  const std::string prefix = (dir.path / "bad").string();
  dir.write("bad_graph_indicator.txt", "0\n0\n1\n1\n");
  dir.write("bad_node_labels.txt", "a, 1\nb, 2\nc, 3\nd, 4\n");
  dir.write("bad_A.txt", "1, 0\n# comment\n2, x\n");
  input_error e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_EQ(e.line(), 3u);
  EXPECT_NE(std::string(e.what()).find("bad_A.txt:3"), std::string::npos) << e.what();
  dir.write("bad_A.txt", "1, 0\n1, 2\n");
  e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_NE(std::string(e.what()).find("joins graphs"), std::string::npos) << e.what();
  dir.write("bad_A.txt", "1, 9\n");
  e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  dir.write("bad_A.txt", "1, 0\n");
  dir.write("bad_node_labels.txt", "a, 1\nb, -2\nc, 3\nd, 4\n");
  e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_EQ(e.line(), 2u);
  dir.write("bad_node_labels.txt", "a, 1\nb, 2\nc, 3\n");
  e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_NE(std::string(e.what()).find("3 node labels for 4 nodes"), std::string::npos) << e.what();
  dir.write("bad_node_labels.txt", "a, 1\nb, 2\nc, 3\nd, 4\n");
  dir.write("bad_graph_indicator.txt", "0\n0\n2\n2\n");
  e = expect_input_error([&] { read_tu_dataset(prefix); });
  EXPECT_EQ(e.line(), 3u);
  e = expect_input_error([&] { read_tu_dataset((dir.path / "missing").string()); });
  EXPECT_EQ(e.line(), 0u);
}

TEST(TwitterReaders, TreesFromFolderAndArchiveAgree) {
  read_stats folder_stats, archive_stats;
  const spreading_graphs a = read_propagation_trees(data_dir + "trees", &folder_stats);
  const spreading_graphs b = read_propagation_trees(data_dir + "trees.tar.gz", &archive_stats);
  validate_spreading_graphs(a, "trees");
  EXPECT_EQ(a.tweet_ids, (std::vector<std::string>{"100", "200"}));
  EXPECT_EQ(a.tweet_ids, b.tweet_ids);
  EXPECT_EQ(a.row_offsets, b.row_offsets);
  EXPECT_EQ(a.edge_targets, b.edge_targets);
  EXPECT_EQ(a.user_ids, b.user_ids);
  EXPECT_EQ(folder_stats.self_loops_dropped, 1u);
  EXPECT_EQ(folder_stats.late_parent_edges_dropped, 1u);
  EXPECT_EQ(folder_stats.repeated_edges_dropped, 1u);
  EXPECT_EQ(archive_stats.late_parent_edges_dropped, 1u);
  // Tree 100 in time order u1 u2 u3 u4; u4 splits its 1 over u2 and u3. Tree 200: u5 u1.
  EXPECT_EQ(backward_sequential(a).influence, (std::vector<double>{4, 1.5, 1.5, 1, 2, 1}));
}

TEST(TwitterReaders, FollowerCountsOverrideTheDefaultOfOne) {
  spreading_graphs g = read_propagation_trees(data_dir + "trees");
  EXPECT_EQ(apply_follower_counts(g, data_dir + "trees_followers.txt"), 3u);  // u1 twice, u5 once
  EXPECT_EQ(backward_sequential(g).influence, (std::vector<double>{13, 1.5, 1.5, 1, 13, 10}));
  scratch_dir dir("counts");
  const std::string bad = dir.write("counts.txt", "u1 10\nu2\n");
  const input_error e = expect_input_error([&] { apply_follower_counts(g, bad); });
  EXPECT_EQ(e.line(), 2u);
}

TEST(TwitterReaders, MalformedTreeLinesNameFileAndLine) {
  scratch_dir dir("treebad");
  dir.write("tree/1.txt", "['ROOT', 'ROOT', '0.0']->['u1', '1', '0.0']\n['u1', '1', '0.0']['u2', '1', '1.0']\n");
  input_error e = expect_input_error([&] { read_propagation_trees(dir.path.string()); });
  EXPECT_EQ(e.line(), 2u);
  EXPECT_NE(std::string(e.what()).find("1.txt:2"), std::string::npos) << e.what();
  dir.write("tree/1.txt", "['ROOT', 'ROOT', '0.0']->['u1', '1', '0.0']\n['u1', '1', '0.0']->['u2', '1', 'soon']\n");
  e = expect_input_error([&] { read_propagation_trees(dir.path.string()); });
  EXPECT_EQ(e.line(), 2u);
  dir.write("tree/1.txt", "['u1', '1', '0.0']->['u2', '1', '1.0']\n");
  e = expect_input_error([&] { read_propagation_trees(dir.path.string()); });
  EXPECT_NE(std::string(e.what()).find("no ROOT"), std::string::npos) << e.what();
}

TEST(TwitterReaders, CorruptArchivesAreRejected) {
  scratch_dir dir("tar");
  std::string block(1024, '\0');
  block.replace(0, 12, "tree/1.txt\0\0");
  block.replace(124, 11, "00000000777");  // size 511, checksum left wrong
  const std::string path = dir.write("bad.tar", block);
  const input_error e = expect_input_error([&] { read_propagation_trees(path); });
  EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
}

TEST(TwitterReaders, FollowerGraphAndRetweetLogDriveTheForwardPhase) {
  user_table users;
  const follower_graph f = read_follower_graph(data_dir + "example_followers.txt", users);
  read_stats stats;
  const retweet_log log = read_retweet_log(data_dir + "example_retweets.txt", users, &stats);
  std::vector<double> followers(users.size());
  for (std::uint32_t u = 0; u < users.size(); ++u) followers[u] = static_cast<double>(f.num_followers(u));
  const std::vector<double> counts = read_follower_counts(data_dir + "example_counts.txt", users, followers);
  const spreading_graphs g = forward_sequential(f, log, counts, users.ids());
  const user_scores s = combine_by_user(g, backward_sequential(g).influence);
  EXPECT_EQ(s.total[users.find("b")], 38);
  EXPECT_EQ(s.total[users.find("a")], 6.25);
  EXPECT_EQ(s.mean[users.find("c")], 5.75);
  scratch_dir dir("log");
  const std::string bad = dir.write("log.txt", "t b 0\nt a\n");
  const input_error e = expect_input_error([&] { read_retweet_log(bad, users); });
  EXPECT_EQ(e.line(), 2u);
}

TEST(TwitterReaders, Twitter15ArchiveFromSharedData) {
  const std::string path = std::string(WF_SHARED_DATA_DIR) + "/twitter15.tar.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  read_stats stats;
  const spreading_graphs g = read_propagation_trees(path, &stats);
  EXPECT_EQ(g.num_graphs(), 1490u);
  const influence_result r = backward_openmp(g, 2);
  EXPECT_EQ(r.num_stalled_nodes, 0u);  // time order keeps every tree acyclic
  EXPECT_TRUE(verify_influence(g, r).ok);
  EXPECT_GT(stats.self_loops_dropped, 0u);
}

}  // namespace
}  // namespace wildfire::twitter
