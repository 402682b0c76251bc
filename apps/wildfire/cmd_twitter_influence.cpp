// `wildfire twitter-influence`: influence of every user over a set of tweets (thesis "Computing
// Twitter Influence with a GPU", sec. 2.3): read spreading graphs (TU collection or Twitter15/16
// trees) or build them (forward phase), sweep them (backward phase), combine per user.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>

#include "cli_output.hpp"
#include "command_registry.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/combine.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/readers.hpp"

namespace wildfire::cli {
namespace {

using namespace wildfire::twitter;

struct options {
  std::string input, format = "auto", follower_graph, retweets, followers, tu_base = "auto";
  bool follower_first = false;
  std::string device = "auto", gpu_variant_name = "auto", on_cycle = "report", rank_by = "total", output;
  int threads = 0;
  std::uint64_t top = 20;
  bool csv = false, verify = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run(const options& o) {
  const device_kind device = resolve_device(parse_device_kind(o.device));
  const gpu_variant variant = parse_gpu_variant(o.gpu_variant_name);
  WF_EXPECTS(o.on_cycle == "report" || o.on_cycle == "error", "--on-cycle", "expected report or error");
  WF_EXPECTS(o.rank_by == "total" || o.rank_by == "mean", "--rank-by", "expected total or mean");
  WF_EXPECTS(o.threads >= 0, "-p", "thread count must be >= 0");
  const bool forward = !o.follower_graph.empty() || !o.retweets.empty();
  WF_EXPECTS(forward != !o.input.empty(), "-i", "give either -i INPUT or --follower-graph and --retweets");
  WF_EXPECTS(!forward || (!o.follower_graph.empty() && !o.retweets.empty()), "--retweets",
             "the forward phase needs both --follower-graph and --retweets");

  nlohmann::json result;
  read_stats stats;
  forward_stats fstats;
  const auto read_start = std::chrono::steady_clock::now();
  spreading_graphs graphs;
  std::string format = o.format;
  double forward_seconds = 0.0;
  if (forward) {
    format = "forward";
    user_table users;
    const follower_graph f = read_follower_graph(o.follower_graph, users, o.follower_first);
    const retweet_log log = read_retweet_log(o.retweets, users, &stats);
    std::vector<double> counts(users.size());
    for (std::uint32_t u = 0; u < users.size(); ++u) counts[u] = static_cast<double>(f.num_followers(u));
    if (!o.followers.empty()) counts = read_follower_counts(o.followers, users, std::move(counts));
    result["ReadSeconds"] = seconds_since(read_start);
    if (device == device_kind::gpu) graphs = forward_gpu(f, log, counts, users.ids(), &fstats);
    else if (o.threads == 1) graphs = forward_sequential(f, log, counts, users.ids(), &fstats);
    else graphs = forward_openmp(f, log, counts, users.ids(), &fstats, o.threads);
    forward_seconds = fstats.forward_seconds;
    result["Input"] = {{"FollowerGraph", o.follower_graph}, {"Retweets", o.retweets}};
  } else {
    if (format == "auto") {
      const std::filesystem::path p(o.input);
      const std::string name = p.filename().string();
      format = std::filesystem::is_directory(p) || name.ends_with(".tar.gz") || name.ends_with(".tgz") ||
                       name.ends_with(".tar")
                   ? "trees"
                   : "tu";
    }
    if (format == "trees") {
      graphs = read_propagation_trees(o.input, &stats);
    } else if (format == "tu") {
      const int base = o.tu_base == "auto" ? -1 : o.tu_base == "0" ? 0 : o.tu_base == "1" ? 1 : -2;
      WF_EXPECTS(base != -2, "--tu-base", "expected auto, 0 or 1");
      graphs = read_tu_dataset(o.input, base, &stats);
    } else {
      throw config_error("--format", "unknown format \"" + format + "\", expected auto, tu or trees");
    }
    if (!o.followers.empty()) apply_follower_counts(graphs, o.followers);
    result["Input"] = o.input;
    result["ReadSeconds"] = seconds_since(read_start);
  }

  influence_result r;
  std::string backend;
  if (device == device_kind::gpu) {
    r = backward_gpu(graphs, variant);
    backend = std::string("gpu-") + to_string(variant);
  } else if (o.threads == 1) {
    r = backward_sequential(graphs);
    backend = "cpu-sequential";
  } else {
    r = backward_openmp(graphs, o.threads);
    backend = "cpu-openmp";
  }
  if (o.on_cycle == "error" && r.num_graphs_with_cycles > 0) {
    throw input_error(o.input.empty() ? o.retweets : o.input, 0,
                      fmt::format("{} graphs have cycles ({} nodes never settle); first: tweet {}",
                                  r.num_graphs_with_cycles, r.num_stalled_nodes,
                                  graphs.tweet_ids[r.cyclic_graphs.front()]));
  }
  bool verified = true;
  if (o.verify) {
    const verify_result v = verify_influence(graphs, r);
    verified = v.ok;
    fmt::print(stderr, "verification: {}{}\n", v.ok ? "PASS" : "FAIL", v.ok ? "" : " (" + v.first_mismatch + ")");
    result["Verification"] = v.ok ? "PASS" : "FAIL";
  }
  const auto combine_start = std::chrono::steady_clock::now();
  const user_scores scores = combine_by_user(graphs, r.influence);
  const std::vector<std::uint32_t> top = top_users(scores, o.rank_by == "mean" ? rank_key::mean : rank_key::total, o.top);
  const double combine_seconds = seconds_since(combine_start);

  if (o.csv) {
    std::string text = "user_id,total,mean,tweets\n";
    for (std::uint32_t u : top) {
      text += fmt::format("{},{:.17g},{:.17g},{}\n", graphs.user_ids[u], scores.total[u], scores.mean[u], scores.tweets[u]);
    }
    write_text(text, o.output);
  } else {
    result["Format"] = format;
    result["Tweets"] = graphs.num_graphs();
    result["Nodes"] = graphs.num_nodes();
    result["Edges"] = graphs.num_edges();
    result["Users"] = graphs.user_ids.size();
    result["Backend"] = backend;
    result["StalledNodes"] = r.num_stalled_nodes;
    result["GraphsWithCycles"] = r.num_graphs_with_cycles;
    result["UnreachableRetweeters"] = fstats.unreachable_retweeters;
    result["Dropped"] = {{"SelfLoops", stats.self_loops_dropped},
                         {"RepeatedEdges", stats.repeated_edges_dropped},
                         {"LateParentEdges", stats.late_parent_edges_dropped},
                         {"RepeatedRecords", stats.repeated_records_dropped}};
    result["ForwardSeconds"] = forward_seconds;
    result["BackwardSeconds"] = r.backward_seconds;
    result["CombineSeconds"] = combine_seconds;
    result["RankBy"] = o.rank_by;
    auto users = nlohmann::json::array();
    for (std::uint32_t u : top) {
      users.push_back({{"Id", graphs.user_ids[u]}, {"Total", scores.total[u]}, {"Mean", scores.mean[u]},
                       {"Tweets", scores.tweets[u]}});
    }
    result["TopUsers"] = users;
    result.update(run_metadata());
    write_json(result, o.output);
  }
  if (!verified) throw CLI::RuntimeError("verification failed", 1);
}

void setup(CLI::App& parent) {
  auto opts = std::make_shared<options>();
  CLI::App* cmd = parent.add_subcommand("twitter-influence",
                                        "Influence of users over retweet cascades (forward and backward phases)");
  cmd->add_option("-i,--input", opts->input, "TU collection prefix, or Twitter15/16 archive (.tar.gz) or folder");
  cmd->add_option("--format", opts->format, "auto | tu | trees")->capture_default_str();
  cmd->add_option("--follower-graph", opts->follower_graph, "follower edge list \"u v\" (v follows u): forward phase");
  cmd->add_option("--retweets", opts->retweets, "retweet log \"tweet_id user_id time\": forward phase");
  cmd->add_flag("--follower-first", opts->follower_first, "follower graph lines are \"follower followee\"");
  cmd->add_option("--followers", opts->followers, "follower counts \"user_id count\" (the base influence)");
  cmd->add_option("--tu-base", opts->tu_base, "index base of TU files: auto | 0 | 1")->capture_default_str();
  cmd->add_option("--device", opts->device, "cpu | gpu | auto")->capture_default_str();
  cmd->add_option("-p,--threads", opts->threads, "CPU threads (0: all; 1: the sequential reference)")->capture_default_str();
  cmd->add_option("--gpu-variant", opts->gpu_variant_name, "auto (= staged) | shared-pull | staged | thesis | topological | queue | vertex-array | edge-array")->capture_default_str();
  cmd->add_option("--on-cycle", opts->on_cycle, "report (nodes on cycles keep partial values) | error")->capture_default_str();
  cmd->add_option("--top", opts->top, "users to list (0: all)")->capture_default_str();
  cmd->add_option("--rank-by", opts->rank_by, "total | mean")->capture_default_str();
  cmd->add_flag("--csv", opts->csv, "write CSV (user_id,total,mean,tweets) instead of JSON");
  cmd->add_flag("--verify", opts->verify, "check against the sequential reference; exit non-zero on FAIL");
  cmd->add_option("-o,--output", opts->output, "output file (default stdout)");
  cmd->callback([opts] { run(*opts); });
}

static const bool registered = register_command("twitter-influence", &setup);

}  // namespace
}  // namespace wildfire::cli
