// Backward phase on an RSG set of the thesis's shape (sec. 7.1.2, Tables 7.1-7.4): sequential
// CPU, OpenMP and the GPU variants, with the bytes the sweep must move against the measured copy
// bandwidth; for shared-pull also its layout preparation and the sequential sweep of the same
// layout (like with like), for staged its layout's shape. Usage: twitter_backward_bench [--scale S]
// [--seed N] [--reps R] [--variants a,b] [--profile 1|2] [--staged-starts balanced|together]
// (--profile: GPU runs only, one warm-up and one timed run per variant, for a profiler; 2: of the
// largest graph alone. --staged-starts: when the staged graphs start, twitter/staged_layout.hpp)
#include <fmt/core.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/influence.hpp"
#include "wildfire/twitter/rsg.hpp"
#include "wildfire/version.hpp"
#include "twitter/pull_layout.hpp"
#include "twitter/staged_layout.hpp"

#ifdef WF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/twitter_backward.hpp"
#endif

using namespace wildfire;
using namespace wildfire::twitter;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(a[i])));
  return worst;
}

/// Kahn levels of graph t (the longest source-to-sink path plus one): the number of dependent
/// steps any level-synchronous sweep of it needs.
std::uint64_t level_count(const spreading_graphs& g, std::uint64_t t) {
  const std::uint64_t lo = g.graph_offsets[t], n = g.graph_size(t);
  std::vector<std::uint32_t> indeg(n, 0), level(n, 0), queue;
  for (std::uint64_t j = g.row_offsets[lo]; j < g.row_offsets[lo + n]; ++j) ++indeg[g.edge_targets[j]];
  for (std::uint32_t v = 0; v < n; ++v) {
    if (indeg[v] == 0) queue.push_back(v);
  }
  std::uint64_t levels = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t u = queue[head];
    levels = std::max<std::uint64_t>(levels, level[u] + 1);
    for (std::uint64_t j = g.row_offsets[lo + u]; j < g.row_offsets[lo + u + 1]; ++j) {
      const std::uint32_t w = g.edge_targets[j];
      level[w] = std::max(level[w], level[u] + 1);
      if (--indeg[w] == 0) queue.push_back(w);
    }
  }
  return levels;
}

#ifdef WF_HAVE_CUDA
/// Where the staged kernel's time goes, from one run with the critical blocks' clock stamps: the
/// phases of the graph with the most levels (its stage copy once the far sums are complete, its
/// levels, the publication of the stage, the time up to the next stage's far sums: staging the
/// rest of the next stage and waiting, or helping with the far sums), by groups of ten steps, and
/// per step the slowest stage of any graph.
void print_staged_timeline(const char* what, const cuda::twitter_backward_session::staged_timeline& t) {
  if (t.blocks == 0 || t.steps == 0 || t.clock_hz <= 0.0) return;
  auto at = [&](std::uint32_t b, std::uint32_t k, std::uint32_t slot) { return static_cast<double>(t.at(b, k, slot)); };
  std::uint32_t critical = 0;
  double most = -1.0;
  for (std::uint32_t b = 0; b < t.blocks; ++b) {
    double levels = 0.0;
    for (std::uint32_t k = 0; k < t.steps; ++k) levels += at(b, k, 4);
    if (levels > most) most = levels, critical = b;
  }
  const double us = 1e6 / t.clock_hz;
  struct phases {
    double copy = 0, levels = 0, publish = 0, wait = 0, staging = 0, slowest = 0, count = 0, chain_wait = 0, helper_wait = 0;
  };
  auto add = [&](phases& p, std::uint32_t k) {
    const std::uint32_t c = critical;
    p.copy += at(c, k, 1) - at(c, k, 0);
    p.levels += at(c, k, 2) - at(c, k, 1);
    p.publish += at(c, k, 3) - at(c, k, 2);
    if (k + 1 < t.steps) {
      p.wait += at(c, k + 1, 0) - at(c, k, 3);
      p.staging += (at(c, k + 1, t.staged_ns_slot) - at(c, k, t.published_ns_slot)) * t.clock_hz * 1e-9;  // in SM cycles
    }
    p.count += at(c, k, 4);
    p.chain_wait += at(c, k, 5);
    p.helper_wait += at(c, k, 6);
    double slowest = 0.0;
    for (std::uint32_t b = 0; b < t.blocks; ++b) slowest = std::max(slowest, at(b, k, 2) - at(b, k, 0));
    p.slowest += slowest;
  };
  fmt::print("staged timeline ({}; one run, SM clock {:.2f} GHz from the global timer): the graph with the most levels "
             "(critical block {} of {}, {:.0f} levels), microseconds\n\n",
             what, t.clock_hz / 1e9, critical, t.blocks, most);
  fmt::print("| steps | its levels | stage copy after the wait (its far sums) | levels | ns per level | chain warps waiting for level "
             "helpers (added) | first level helper waiting for the chain | publishing the stage | staging the rest, waiting for far sums "
             "(or helping) | of that, up to thread 0's part staged | slowest stage of any graph (copy + levels) "
             "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  phases all;
  for (std::uint32_t first = 0; first < t.steps; first += 10) {
    phases p;
    for (std::uint32_t k = first; k < std::min(t.steps, first + 10); ++k) add(p, k), add(all, k);
    fmt::print("| {}-{} | {:.0f} | {:.1f} | {:.1f} | {:.0f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n", first,
               std::min(t.steps, first + 10) - 1, p.count, p.copy * us, p.levels * us,
               p.count > 0 ? p.levels * us * 1e3 / p.count : 0.0, p.chain_wait * us, p.helper_wait * us, p.publish * us,
               p.wait * us, p.staging * us, p.slowest * us);
  }
  fmt::print("| all | {:.0f} | {:.1f} | {:.1f} | {:.0f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n\n", all.count,
             all.copy * us, all.levels * us, all.count > 0 ? all.levels * us * 1e3 / all.count : 0.0, all.chain_wait * us,
             all.helper_wait * us, all.publish * us, all.wait * us, all.staging * us, all.slowest * us);
}

/// The far-sum chunks of the same traced run (global timer): how the far-sum blocks spend their
/// time, and, for the reference graph (the most stages, which sets the steps' pace), when each of
/// its passes could start, when its chunks were taken and when they were done.
void print_chunk_trace(const char* what, const cuda::twitter_backward_session::staged_timeline& t) {
  using chunk = cuda::twitter_backward_session::staged_timeline::chunk;
  if (t.chunks.empty() || t.steps == 0) return;
  auto us = [](double ns) { return ns / 1e3; };
  double waited[2] = {0, 0}, ran[2] = {0, 0}, count[2] = {0, 0};
  std::uint64_t first = ~std::uint64_t{0}, last = 0;
  std::vector<double> runs;
  std::set<std::uint32_t> far_blocks;
  for (const chunk& c : t.chunks) {
    const int f = c.far_block ? 1 : 0;
    waited[f] += static_cast<double>(c.ready_ns - c.turned_ns);
    ran[f] += static_cast<double>(c.done_ns - c.ready_ns);
    count[f] += 1;
    runs.push_back(static_cast<double>(c.done_ns - c.ready_ns));
    first = std::min(first, c.turned_ns);
    last = std::max(last, c.done_ns);
    if (c.far_block) far_blocks.insert(c.block);
  }
  std::sort(runs.begin(), runs.end());
  const double far_time = static_cast<double>(far_blocks.size()) * static_cast<double>(last - first);
  auto quantile = [&](double q) { return runs[static_cast<std::size_t>(q * static_cast<double>(runs.size() - 1))]; };
  fmt::print("far-sum chunks ({}; the same traced run, global timer): {} chunks over {:.1f} us; far-sum blocks ran {:.0f} "
             "of them (waiting for a chunk to become ready {:.2f} us a chunk, running it {:.2f} us; of their {} blocks' time over "
             "that span, {:.0f}% waiting and {:.0f}% running chunks), critical blocks {:.0f} "
             "({:.2f} and {:.2f} us); a chunk's run: median {:.2f} us, 90% {:.2f} us, 99% {:.2f} us\n\n",
             what, t.chunks.size(), us(static_cast<double>(last - first)), count[1], count[1] ? us(waited[1] / count[1]) : 0.0,
             count[1] ? us(ran[1] / count[1]) : 0.0, far_blocks.size(), far_time > 0 ? 100.0 * waited[1] / far_time : 0.0,
             far_time > 0 ? 100.0 * ran[1] / far_time : 0.0, count[0], count[0] ? us(waited[0] / count[0]) : 0.0,
             count[0] ? us(ran[0] / count[0]) : 0.0, us(quantile(0.5)), us(quantile(0.9)), us(quantile(0.99)));
  // The reference's pass p (at step p) may start once its stage p - 1 is published and its pass
  // p - 1 is done; per pass, from then: its last chunk taken, its last chunk done; and how long
  // chunks of step p - 1 (every graph's) were still being taken after it could start.
  const std::uint32_t ref = t.reference;
  std::vector<std::uint64_t> step_last_turned(t.steps, 0), pass_last_turned(t.steps, 0), pass_done(t.steps, 0);
  for (const chunk& c : t.chunks) {
    step_last_turned[c.step] = std::max(step_last_turned[c.step], c.turned_ns);
    if (c.staged != ref) continue;
    pass_last_turned[c.pass] = std::max(pass_last_turned[c.pass], c.turned_ns);
    pass_done[c.pass] = std::max(pass_done[c.pass], c.done_ns);
  }
  fmt::print("the reference graph's passes (staged graph {}; its pass p adds its stage p - 1 to the far sums of stages "
             "p + 1 on, at step p, and may start once stage p - 1 is published and pass p - 1 done; its stage p + 1 waits "
             "for it), microseconds summed over the passes:\n\n", ref);
  fmt::print("| passes | could start -> last chunk taken | could start -> last chunk done | chunks of the step before "
             "still taken after it could start | stage p published -> stage p + 1 may start |\n|---|---|---|---|---|\n");
  double all[4] = {0, 0, 0, 0};
  for (std::uint32_t from = 2; from + 1 < t.steps; from += 10) {
    double sum[4] = {0, 0, 0, 0};
    for (std::uint32_t p = from; p < std::min(t.steps - 1, from + 10); ++p) {
      if (pass_done[p] == 0) continue;
      const auto published = [&](std::uint32_t stage) { return static_cast<double>(t.at(ref, stage, t.published_ns_slot)); };
      const double could = std::max(published(p - 1), static_cast<double>(pass_done[p - 1]));
      const double part[4] = {std::max(0.0, static_cast<double>(pass_last_turned[p]) - could), static_cast<double>(pass_done[p]) - could,
                              std::max(0.0, static_cast<double>(step_last_turned[p - 1]) - could),
                              static_cast<double>(t.at(ref, p + 1, t.ready_ns_slot)) - published(p)};
      for (int i = 0; i < 4; ++i) sum[i] += part[i], all[i] += part[i];
    }
    fmt::print("| {}-{} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n", from, std::min(t.steps - 1, from + 10) - 1, us(sum[0]), us(sum[1]),
               us(sum[2]), us(sum[3]));
  }
  fmt::print("| all | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n\n", us(all[0]), us(all[1]), us(all[2]), us(all[3]));
}

/// Which graph ends the traced run and why (global timer): the run's event time against the span
/// of the critical blocks, when the far-sum blocks started, how the critical blocks share SMs
/// (and the pace of their levels on shared SMs), and the graphs whose last stage was published
/// last, with how far each stage of theirs lagged the reference's stage of the same step.
void print_block_spans(const char* what, const cuda::twitter_backward_session::staged_timeline& t) {
  using span = cuda::twitter_backward_session::staged_timeline::block_span;
  if (t.critical_spans.empty() || t.steps == 0 || t.clock_hz <= 0.0) return;
  const auto ns = [&](std::uint32_t b, std::uint32_t k, std::uint32_t slot) { return static_cast<double>(t.at(b, k, slot)); };
  std::uint64_t first = ~std::uint64_t{0}, last = 0;
  std::map<std::uint32_t, std::uint32_t> per_sm;
  for (const span& s : t.critical_spans) first = std::min(first, s.started_ns), last = std::max(last, s.left_ns), ++per_sm[s.sm];
  std::vector<double> far_starts;
  for (const span& s : t.far_spans) far_starts.push_back(static_cast<double>(s.started_ns) - static_cast<double>(first));
  std::sort(far_starts.begin(), far_starts.end());
  const auto far_at = [&](double q) { return far_starts.empty() ? 0.0 : far_starts[static_cast<std::size_t>(q * static_cast<double>(far_starts.size() - 1))] / 1e3; };
  std::uint32_t doubled = 0;
  for (const auto& [sm, count] : per_sm) doubled += count > 1 ? 1 : 0;
  // Per block: its steps, levels, SM cycles in levels and the publication of its last stage.
  struct graph_end {
    std::uint32_t block = 0, first_step = 0, last_step = 0;
    double levels = 0, level_cycles = 0, published = 0, worst_lag = 0, lag_sum = 0;
  };
  const std::uint32_t ref = t.reference;
  std::vector<graph_end> ends(t.critical_spans.size());
  double level_cycles[2] = {0, 0}, level_count[2] = {0, 0};
  for (std::uint32_t b = 0; b < ends.size(); ++b) {
    graph_end& e = ends[b];
    e.block = b;
    e.first_step = t.steps;
    for (std::uint32_t k = 0; k < t.steps; ++k) {
      if (t.at(b, k, t.published_ns_slot) == 0) continue;
      e.first_step = std::min(e.first_step, k), e.last_step = k;
      e.levels += ns(b, k, 4), e.level_cycles += ns(b, k, 2) - ns(b, k, 1);
      e.published = ns(b, k, t.published_ns_slot);
      const double lag = e.published - ns(ref, k, t.published_ns_slot);
      e.worst_lag = std::max(e.worst_lag, lag), e.lag_sum += std::max(0.0, lag);
    }
    const int shared = per_sm[t.critical_spans[b].sm] > 1 ? 1 : 0;
    level_cycles[shared] += e.level_cycles, level_count[shared] += e.levels;
  }
  const double ns_per_cycle = 1e9 / t.clock_hz;
  fmt::print("block spans ({}; the same kind of traced run, {:.3f} ms by events): critical blocks from the first start to the last "
             "leaving {:.1f} us; far-sum blocks started {:.1f} / {:.1f} / {:.1f} us (first / median / last) after the first "
             "critical block; {} critical blocks on {} SMs, {} of them holding two or more; a level {:.0f} ns on SMs with "
             "one critical block, {:.0f} ns on the others\n\n",
             what, t.seconds * 1e3, static_cast<double>(last - first) / 1e3, far_at(0.0), far_at(0.5), far_at(1.0),
             t.critical_spans.size(), per_sm.size(), doubled,
             level_count[0] > 0 ? level_cycles[0] * ns_per_cycle / level_count[0] : 0.0,
             level_count[1] > 0 ? level_cycles[1] * ns_per_cycle / level_count[1] : 0.0);
  // SMs by how many critical blocks they hold: how many far-sum blocks took part beside them.
  std::map<std::uint32_t, std::uint32_t> far_per_sm;
  for (const span& s : t.far_spans) far_per_sm[s.sm] += s.took_part ? 1 : 0;
  std::set<std::uint32_t> every_sm;
  for (const auto& [sm, count] : per_sm) every_sm.insert(sm);
  for (const auto& [sm, count] : far_per_sm) every_sm.insert(sm);
  fmt::print("| critical blocks on the SM | SMs | far-sum blocks taking part there: mean (min-max) |\n|---|---|---|\n");
  for (std::uint32_t c = 0; c <= 2; ++c) {
    std::uint32_t sms = 0, least = ~0u, most = 0;
    double sum = 0;
    for (const std::uint32_t sm : every_sm) {
      if (per_sm[sm] != c) continue;
      const std::uint32_t f = far_per_sm[sm];
      ++sms, sum += f, least = std::min(least, f), most = std::max(most, f);
    }
    if (sms > 0) fmt::print("| {} | {} | {:.2f} ({}-{}) |\n", c, sms, sum / sms, least, most);
  }
  fmt::print("\nthe reference's SM holds {} critical blocks and {} far-sum blocks that took part\n\n", per_sm[t.critical_spans[ref].sm],
             far_per_sm[t.critical_spans[ref].sm]);
  std::vector<graph_end> order = ends;
  std::sort(order.begin(), order.end(), [](const graph_end& a, const graph_end& b) { return a.published > b.published; });
  const double ref_end = ends[ref].published;
  std::uint32_t after = 0;
  for (const graph_end& e : ends) after += e.published > ref_end ? 1 : 0;
  fmt::print("{} graphs publish their last stage after the reference (staged graph {}, {:.1f} us after the first start); the "
             "latest, and the reference:\n\n",
             after, ref, (ref_end - static_cast<double>(first)) / 1e3);
  fmt::print("| staged graph | steps | levels | critical blocks on its SM | ns a level | last stage published after the reference's (us) | "
             "worst lag of a stage behind the reference's of its step (us) | lags summed (us) | block left (us after the first start) "
             "|\n|---|---|---|---|---|---|---|---|---|\n");
  auto row = [&](const graph_end& e) {
    fmt::print("| {} | {}-{} | {:.0f} | {} | {:.0f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} |\n", e.block, e.first_step, e.last_step, e.levels,
               per_sm[t.critical_spans[e.block].sm], e.levels > 0 ? e.level_cycles * ns_per_cycle / e.levels : 0.0,
               (e.published - ref_end) / 1e3, e.worst_lag / 1e3, e.lag_sum / 1e3,
               (static_cast<double>(t.critical_spans[e.block].left_ns) - static_cast<double>(first)) / 1e3);
  };
  for (std::size_t i = 0; i < std::min<std::size_t>(10, order.size()); ++i) row(order[i]);
  row(ends[ref]);
  fmt::print("\n");
}
#endif

/// The graphs of `g` that `keep(t)` selects, as a set of their own.
template <class Keep>
spreading_graphs subset(const spreading_graphs& g, Keep keep) {
  spreading_graphs part;
  part.user_ids = g.user_ids;
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
    if (!keep(t)) continue;
    const std::uint64_t lo = g.graph_offsets[t], hi = g.graph_offsets[t + 1];
    const std::uint64_t e_lo = g.row_offsets[lo];
    for (std::uint64_t i = lo; i < hi; ++i) {
      part.row_offsets.push_back(part.row_offsets.back() + g.out_degree(i));
      part.base.push_back(g.base[i]);
      part.node_user.push_back(g.node_user[i]);
    }
    part.edge_targets.insert(part.edge_targets.end(), g.edge_targets.begin() + static_cast<std::ptrdiff_t>(e_lo),
                             g.edge_targets.begin() + static_cast<std::ptrdiff_t>(g.row_offsets[hi]));
    part.graph_offsets.push_back(part.graph_offsets.back() + (hi - lo));
    part.tweet_ids.push_back(g.tweet_ids[t]);
  }
  return part;
}

}  // namespace

int main(int argc, char** argv) {
  double scale = 0.1;
  std::uint64_t seed = 1;
  int reps = 3;
  std::string variants = "shared-pull,staged,thesis,topological,queue,vertex-array";
  int profile = 0;  // 1: the whole set, 2: the largest graph alone
  std::string starts_name = "balanced";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--scale")) scale = std::stod(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) seed = std::stoull(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::stoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--variants")) variants = argv[i + 1];
    else if (!std::strcmp(argv[i], "--profile")) profile = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--staged-starts")) starts_name = argv[i + 1];
    else {
      fmt::print(stderr, "unknown option {}\n", argv[i]);
      return 2;
    }
  }
  if (profile < 0 || profile > 2) {
    fmt::print(stderr, "--profile takes 0, 1 or 2\n");
    return 2;
  }
  if (starts_name != "balanced" && starts_name != "together") {
    fmt::print(stderr, "--staged-starts takes balanced or together\n");
    return 2;
  }
  [[maybe_unused]] const auto starts =  // read only where CUDA is built
      starts_name == "balanced" ? detail::staged_start::balanced : detail::staged_start::together;
  try {
    rsg_params params;
    params.seed = seed;
    params.batches = thesis_rsg_batches(scale);
    auto t0 = std::chrono::steady_clock::now();
    const spreading_graphs g = generate_rsg(params);
    const double generate_seconds = seconds_since(t0);
    std::uint64_t categories[4] = {0, 0, 0, 0}, category_edges[4] = {0, 0, 0, 0}, max_n = 0, max_m = 0, largest = 0;
    for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
      const auto c = static_cast<int>(categorize(g.graph_size(t)));
      const std::uint64_t m = g.row_offsets[g.graph_offsets[t + 1]] - g.row_offsets[g.graph_offsets[t]];
      ++categories[c];
      category_edges[c] += m;
      max_n = std::max(max_n, g.graph_size(t));
      if (m > max_m) largest = t;
      max_m = std::max(max_m, m);
    }
    fmt::print("# twitter_backward_bench (wildfire {} commit {})\n", version_string, git_commit);
    fmt::print("RSG thesis batches scale {} seed {}: T = {}, N = {}, M = {}, max n = {}, max m = {}\n", scale, seed,
               g.num_graphs(), g.num_nodes(), g.num_edges(), max_n, max_m);
    fmt::print("categories (graphs / edges): empty {} / {}, small {} / {}, medium {} / {}, large {} / {}\n",
               categories[0], category_edges[0], categories[1], category_edges[1], categories[2], category_edges[2],
               categories[3], category_edges[3]);
    fmt::print("largest graph (by edges): {} levels (the dependent steps of a level-synchronous sweep)\n",
               g.num_graphs() > 0 ? level_count(g, largest) : 0);
    fmt::print("generated in {:.2f} s with {} threads; {} repetitions per backend (mean reported)\n\n", generate_seconds,
               omp_get_max_threads(), reps);
    std::vector<gpu_variant> gpu_variants;
    for (std::size_t pos = 0; pos <= variants.size();) {
      std::size_t end = variants.find(',', pos);
      if (end == std::string::npos) end = variants.size();
      gpu_variants.push_back(parse_gpu_variant(variants.substr(pos, end - pos)));
      pos = end + 1;
    }
#ifndef WF_HAVE_CUDA
    if (profile) throw error("--profile needs a CUDA build");
#else
    if (profile) {
      if (!gpu_available()) throw error("--profile needs a GPU");
      const spreading_graphs alone = profile == 2 ? subset(g, [&](std::uint64_t t) { return t == largest; }) : spreading_graphs{};
      cuda::twitter_backward_session session(profile == 2 ? alone : g, starts);
      for (const gpu_variant v : gpu_variants) {
        session.run(v);
        fmt::print("profile run: GPU {} {:.3f} ms\n", to_string(v), session.run(v) * 1e3);
      }
      return 0;
    }
#endif

    // Bytes the sweep must move at least with the input layout: read every edge target (4 B) and
    // row offset (8 B), read the base and write the influence (8 + 8 B per node).
    const double must_move_bytes = 4.0 * g.num_edges() + 8.0 * (g.num_nodes() + 1) + 16.0 * g.num_nodes();
    struct row {
      std::string backend;
      double seconds;
      double max_rel_diff;
      double bytes = 0.0;            // the minimum the sweep moves with its layout (GPU rows)
      double prepare_seconds = 0.0;  // layout preparation outside the timed sweep (shared-pull)
    };
    std::vector<row> rows;
    influence_result reference;
    double sequential_seconds = 0.0;
    for (int r = 0; r < reps; ++r) {
      reference = backward_sequential(g);
      sequential_seconds += reference.backward_seconds / reps;
    }
    rows.push_back({"CPU sequential (Alg. 2)", sequential_seconds, 0.0});
    double openmp_seconds = 0.0;
    influence_result omp_result;
    for (int r = 0; r < reps; ++r) {
      omp_result = backward_openmp(g);
      openmp_seconds += omp_result.backward_seconds / reps;
    }
    rows.push_back({fmt::format("CPU OpenMP ({} threads)", omp_get_max_threads()), openmp_seconds,
                    max_relative_difference(reference.influence, omp_result.influence)});
    // The sequential sweep of shared-pull's level-ordered layout: the like-with-like CPU time for
    // a GPU sweep that excludes its layout preparation (this one excludes it too).
    t0 = std::chrono::steady_clock::now();
    const detail::pull_layout layout = detail::build_pull_layout(g);
    const double layout_seconds = seconds_since(t0);
    double layout_sweep_seconds = 0.0;
    influence_result layout_result;
    for (int r = 0; r < reps; ++r) {
      layout_result = detail::sweep_pull_layout(g, layout);
      layout_sweep_seconds += layout_result.backward_seconds / reps;
    }
    rows.push_back({"CPU sequential, level-ordered layout (excl. its build)", layout_sweep_seconds,
                    max_relative_difference(reference.influence, layout_result.influence)});
    fmt::print("level-ordered layout (shared-pull): built on the host in {:.3f} s with {} threads; at most {} levels "
               "per graph; {} of {} nodes in the layout; its sweep moves at least {:.3f} GB (2 B per padded in-list "
               "entry, 8 B per node record, 8 B per level record, 8 + 8 B per node for base and influence)\n\n",
               layout_seconds, omp_get_max_threads(), layout.max_levels, layout.num_included_nodes, g.num_nodes(),
               static_cast<double>(detail::pull_bytes_moved(g, layout)) / 1e9);
    {
      // The staged layout's shape (every Large graph that fits; the GPU session may stage fewer,
      // as many as its cooperative grid has blocks, and prints its own count).
      std::vector<std::uint32_t> large;
      std::uint64_t large_entries = 0;
      for (std::uint64_t t = 0; t < g.num_graphs(); ++t) {
        if (categorize(g.graph_size(t)) != graph_category::large || !layout.included[t]) continue;
        large.push_back(static_cast<std::uint32_t>(t));
        large_entries += g.row_offsets[g.graph_offsets[t + 1]] - g.row_offsets[g.graph_offsets[t]];
      }
      t0 = std::chrono::steady_clock::now();
      const detail::staged_layout staged = detail::build_staged_layout(g, layout, large, 0xffffffffu);
      std::uint32_t largest_stages = 0;
      for (const auto& r : staged.graphs) {
        if (r.graph == largest) largest_stages = r.num_stages;
      }
      std::uint64_t visits = 0;
      for (const auto& c : staged.chunks) visits += c.last - c.first;
      fmt::print("staged layout (host, every Large graph that fits): {} of {} Large graphs, {} steps, "
                 "largest graph {} stages; {} levels on the critical path (per step the most of any graph); {} near "
                 "entries = {:.1f}% of the Large graphs' in-list entries (the rest are "
                 "far sums, spread over the GPU); {} far-sum chunks, {} position visits; built in {:.3f} s\n\n",
                 staged.graphs.size(), large.size(), staged.num_steps, largest_stages, detail::critical_levels(staged),
                 staged.num_near,
                 large_entries ? 100.0 * static_cast<double>(staged.num_near) / static_cast<double>(large_entries) : 0.0,
                 staged.chunks.size(), visits, seconds_since(t0));
      // How evenly the far work falls on the steps, with the graphs' balanced starts and with every
      // graph starting at step 0 (a step lasts at least its far work over the whole GPU).
      const detail::staged_layout together = detail::build_staged_layout(g, layout, large, 0xffffffffu, detail::staged_start::together);
      auto mb = [](auto first, auto last) { return static_cast<double>(std::accumulate(first, last, std::uint64_t{0})) / 1e6; };
      auto busiest_mb = [](const detail::staged_layout& s) {
        return s.step_bytes.empty() ? 0.0 : static_cast<double>(*std::max_element(s.step_bytes.begin(), s.step_bytes.end())) / 1e6;
      };
      auto first_ten_mb = [&](const detail::staged_layout& s) {
        return mb(s.step_bytes.begin(), s.step_bytes.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(10, s.step_bytes.size())));
      };
      const double total_mb = mb(staged.step_bytes.begin(), staged.step_bytes.end());
      fmt::print("far-sum work per step (layout model: 2 B an entry, 48 B a visit, 8 B a staged share): {:.0f} MB, "
                 "{:.1f} MB a step on average; busiest step {:.1f} MB with balanced starts, {:.1f} MB with every graph "
                 "starting at step 0; steps 0-9 carry {:.0f} MB and {:.0f} MB\n\n",
                 total_mb, staged.num_steps ? total_mb / staged.num_steps : 0.0, busiest_mb(staged), busiest_mb(together),
                 first_ten_mb(staged), first_ten_mb(together));
      // The host sweep of the staged layout in the device's data order (it checks every window
      // bound and cursor): the layout is right for this set, and its far sums are the device's.
      const influence_result emulated = detail::sweep_staged_layout(g, layout, staged);
      rows.push_back({"CPU sequential, staged layout in device order (checks; excl. its build)", emulated.backward_seconds,
                      max_relative_difference(reference.influence, emulated.influence)});
    }

    double copy_bandwidth = 0.0, peak_bandwidth = 0.0;
    std::string device = "none";
#ifdef WF_HAVE_CUDA
    if (gpu_available()) {
      cudaDeviceProp prop{};
      cudaGetDeviceProperties(&prop, 0);
      device = prop.name;
      copy_bandwidth = cuda::measure_copy_bandwidth(std::uint64_t{1} << 30);
      int clock_khz = 0, bus_bits = 0;
      if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
          cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess) {
        peak_bandwidth = 2.0 * clock_khz * 1e3 * bus_bits / 8.0;  // double data rate
      }
      t0 = std::chrono::steady_clock::now();
      cuda::twitter_backward_session session(g, starts);
      fmt::print("GPU session: upload and shared-pull layout in {:.3f} s (layout build + upload alone {:.3f} s)\n\n",
                 seconds_since(t0), session.shared_pull_prepare_seconds());
      fmt::print("GPU staged: {} Large graphs in the cooperative grid, {} steps, {} starts\n\n", session.staged_graph_count(),
                 session.staged_steps(), starts_name);
      for (const gpu_variant v : gpu_variants) {
        // A failing variant is reported and skipped, so the other rows still come out.
        try {
          // The warm-up is the session's first run: what a one-shot `wildfire twitter-influence` times.
          fmt::print("GPU {}: the session's first run (the warm-up) {:.3f} ms\n\n", to_string(v), session.run(v) * 1e3);
          double seconds = 0.0;
          for (int r = 0; r < reps; ++r) seconds += session.run(v) / reps;
          const influence_result res = session.result();
          if (res.num_stalled_nodes != reference.num_stalled_nodes || res.cyclic_graphs != reference.cyclic_graphs) {
            throw error("GPU stalled nodes differ from the CPU's");
          }
          const bool pull = v == gpu_variant::shared_pull || v == gpu_variant::automatic || v == gpu_variant::staged;
          const double bytes = v == gpu_variant::staged ? static_cast<double>(session.staged_bytes())
                               : pull                   ? static_cast<double>(session.shared_pull_bytes())
                                                        : must_move_bytes;
          rows.push_back({fmt::format("GPU {}", to_string(v)), seconds, max_relative_difference(reference.influence, res.influence),
                          bytes, pull ? session.shared_pull_prepare_seconds() : 0.0});
        } catch (const std::exception& e) {
          fmt::print("GPU {} FAILED: {}\n\n", to_string(v), e.what());
        }
      }
      // Per category for the pull variants (thesis Table 7.4 splits its times the same way):
      // Small + Medium together and Large alone (the two halves of a full run, which overlap on
      // separate streams), then each category, and the largest graph alone in a session of its
      // own (the critical path); the sequential sweep of the same graphs gives the CPU time.
      struct part_spec {
        const char* name;
        unsigned mask;
      };
      const part_spec parts[] = {{"small + medium", 0x7u}, {"large", 0x8u}, {"small", 0x2u}, {"medium", 0x4u}};
      double part_cpu[4] = {0, 0, 0, 0};
      std::uint64_t part_graphs[4] = {0, 0, 0, 0}, part_edges[4] = {0, 0, 0, 0};
      for (int i = 0; i < 4; ++i) {
        const spreading_graphs part =
            subset(g, [&](std::uint64_t t) { return ((parts[i].mask >> static_cast<int>(categorize(g.graph_size(t)))) & 1u) != 0; });
        for (int r = 0; r < reps; ++r) part_cpu[i] += backward_sequential(part).backward_seconds / reps;
        part_graphs[i] = part.num_graphs();
        part_edges[i] = part.num_edges();
      }
      const spreading_graphs alone = subset(g, [&](std::uint64_t t) { return t == largest; });
      double alone_cpu = 0.0;
      for (int r = 0; r < reps; ++r) alone_cpu += backward_sequential(alone).backward_seconds / reps;
      std::unique_ptr<cuda::twitter_backward_session> alone_session;
      if (alone.num_graphs() > 0) alone_session = std::make_unique<cuda::twitter_backward_session>(alone, starts);
      const std::uint64_t largest_levels = g.num_graphs() > 0 ? level_count(g, largest) : 0;
      for (const gpu_variant v : {gpu_variant::shared_pull, gpu_variant::staged}) {
        if (std::find(gpu_variants.begin(), gpu_variants.end(), v) == gpu_variants.end()) continue;
        try {
          fmt::print("per category (GPU {}, mean of {} runs; CPU sequential sweep of the same graphs):\n\n", to_string(v), reps);
          fmt::print("| categories | graphs | edges | CPU sequential (ms) | GPU {} (ms) | speedup | share of GPU total |\n"
                     "|---|---|---|---|---|---|---|\n",
                     to_string(v));
          double total = 0.0;
          session.run(v);
          for (int r = 0; r < reps; ++r) total += session.run(v) / reps;
          double large_gpu = 0.0;
          for (int i = 0; i < 4; ++i) {
            double gpu = 0.0;
            session.run(v, parts[i].mask);
            for (int r = 0; r < reps; ++r) gpu += session.run(v, parts[i].mask) / reps;
            if (parts[i].mask == 0x8u) large_gpu = gpu;
            fmt::print("| {} | {} | {} | {:.3f} | {:.3f} | {:.1f}x | {:.0f}% |\n", parts[i].name, part_graphs[i], part_edges[i],
                       part_cpu[i] * 1e3, gpu * 1e3, part_cpu[i] / gpu, 100.0 * gpu / total);
          }
          double alone_gpu = 0.0;
          if (alone_session) {
            alone_session->run(v);
            for (int r = 0; r < reps; ++r) alone_gpu += alone_session->run(v) / reps;
            fmt::print("| largest graph alone | 1 | {} | {:.3f} | {:.3f} | {:.1f}x | {:.0f}% |\n", alone.num_edges(),
                       alone_cpu * 1e3, alone_gpu * 1e3, alone_cpu / alone_gpu, 100.0 * alone_gpu / total);
          }
          fmt::print("| all (one run, categories overlapping) | {} | {} | {:.3f} | {:.3f} | {:.1f}x | 100% |\n\n",
                     g.num_graphs(), g.num_edges(), sequential_seconds * 1e3, total * 1e3, sequential_seconds / total);
          if (v == gpu_variant::staged) {
            const auto traced = session.profile_staged();
            print_staged_timeline("all Large graphs", traced);
            print_chunk_trace("all Large graphs", traced);
            print_block_spans("all Large graphs", traced);
            const auto every = session.profile_staged(cuda::twitter_backward_session::all_categories);
            print_block_spans("every category", every);
            fmt::print("kernel ends (every category, traced run {:.3f} ms): cooperative grid {:.3f} ms, far sums {:.3f} ms, "
                       "Large at two blocks an SM {:.3f} ms, Medium {:.3f} ms, Small {:.3f} ms\n\n",
                       every.seconds * 1e3, every.grid_end * 1e3, every.far_end * 1e3, every.large_two_end * 1e3,
                       every.medium_end * 1e3, every.small_end * 1e3);
            if (alone_session) print_staged_timeline("largest graph alone", alone_session->profile_staged());
          }
          if (largest_levels > 0) {
            fmt::print("{}: large category {:.3f} ms, largest graph alone {:.3f} ms over its {} levels = {:.2f} us per "
                       "level (that graph is the critical path)\n\n",
                       to_string(v), large_gpu * 1e3, alone_gpu * 1e3, largest_levels,
                       alone_gpu * 1e6 / static_cast<double>(largest_levels));
          }
        } catch (const std::exception& e) {
          fmt::print("GPU {} per category FAILED: {}\n\n", to_string(v), e.what());
        }
      }
      fmt::print("\n");
    }
#endif
    fmt::print("device: {}; measured device copy bandwidth {:.0f} GB/s (nominal peak {:.0f} GB/s); with the input "
               "layout the backward phase must move {:.3f} GB\n\n",
               device, copy_bandwidth / 1e9, peak_bandwidth / 1e9, must_move_bytes / 1e9);
    fmt::print("speedups are over the CPU sequential row (Alg. 2, whose timed region includes its in-degree count); "
               "shared-pull's sweep excludes its layout preparation, so its like-with-like CPU row is the level-ordered "
               "layout's, and the column 'incl. preparation' adds the host layout build and upload\n\n");
    fmt::print("| backend | backward phase (ms) | speedup vs sequential | vs sequential of same layout | speedup incl. "
               "preparation | bytes moved (GB) | GB/s | fraction of copy bandwidth | fraction of nominal peak | max rel. "
               "diff vs sequential |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
    for (const row& r : rows) {
      const bool gpu = r.backend.starts_with("GPU");
      const bool pull = r.prepare_seconds > 0.0;
      auto fraction = [&](double bandwidth) {
        return gpu && bandwidth > 0 ? fmt::format("{:.1f}%", 100.0 * r.bytes / r.seconds / bandwidth) : std::string("-");
      };
      fmt::print("| {} | {:.3f} | {:.1f}x | {} | {} | {} | {} | {} | {} | {:.1e} |\n", r.backend, r.seconds * 1e3,
                 sequential_seconds / r.seconds, pull ? fmt::format("{:.1f}x", layout_sweep_seconds / r.seconds) : "-",
                 pull ? fmt::format("{:.1f}x", sequential_seconds / (r.seconds + r.prepare_seconds)) : "-",
                 gpu ? fmt::format("{:.3f}", r.bytes / 1e9) : "-", gpu ? fmt::format("{:.0f}", r.bytes / r.seconds / 1e9) : "-",
                 fraction(copy_bandwidth), fraction(peak_bandwidth), r.max_rel_diff);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "twitter_backward_bench: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
