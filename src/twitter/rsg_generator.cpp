// RSG (thesis sec. 7.1.2, Algorithm 10) generated in two parallel passes over rows (count, then
// fill), every draw keyed by (seed, graph, row, k) so the output ignores the thread count.
// Edges are drawn by geometric skipping: the same distribution as Algorithm 10's per-pair coin
// flips in O(edges) instead of O(n^2).
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "wildfire/error.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "wildfire/twitter/rsg.hpp"

namespace wildfire::twitter {

namespace {

struct graph_spec {
  std::uint32_t n;
  double p;
};

/// Calls emit(v) for row u of a graph with n nodes, in ascending v, including the sink fix-up
/// (Algorithm 10 lines 15-19: a row left empty gets the edge to the sink n - 1).
template <class Emit>
void generate_row(std::uint64_t key, std::uint32_t n, double p, double outlier_probability, std::uint32_t u, Emit&& emit) {
  if (u + 1 >= n) return;  // the sink has no out-edges
  bool any = false;
  if (element_uniform(key, element_domain::vertex | u) < outlier_probability) {
    for (std::uint32_t v = u + 1; v < n; ++v) emit(v);  // Algorithm 10 line 8 (line 6's "V - 2" is n - 2)
    return;
  }
  if (p >= 1.0) {
    for (std::uint32_t v = u + 1; v < n; ++v) emit(v);
    return;
  }
  if (p > 0.0) {
    const double log_q = std::log1p(-p);
    std::uint64_t v = u;
    for (std::uint64_t k = 0;; ++k) {
      const double r = element_uniform(key, element_domain::edge | (static_cast<std::uint64_t>(u) << 32) | k);
      const double skip = std::floor(std::log1p(-r) / log_q);
      if (skip >= static_cast<double>(n)) break;
      v += static_cast<std::uint64_t>(skip) + 1;
      if (v >= n) break;
      emit(static_cast<std::uint32_t>(v));
      any = true;
    }
  }
  if (!any) emit(n - 1);
}

}  // namespace

std::vector<rsg_batch> parse_rsg_batches(const std::string& text) {
  std::vector<rsg_batch> batches;
  std::size_t pos = 0;
  auto bad = [&](const std::string& part) {
    throw config_error("--batches", "expected COUNTxMIN-MAX@PERCENT[,...], got \"" + part + "\"");
  };
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(pos, end - pos);
    rsg_batch b;
    const std::size_t x = part.find('x'), dash = part.find('-'), at = part.find('@');
    if (x == std::string::npos || dash == std::string::npos || at == std::string::npos || !(x < dash && dash < at)) bad(part);
    auto number = [&](std::size_t from, std::size_t to, auto& out) {
      const auto [ptr, ec] = std::from_chars(part.data() + from, part.data() + to, out);
      if (ec != std::errc{} || ptr != part.data() + to) bad(part);
    };
    number(0, x, b.count);
    number(x + 1, dash, b.min_nodes);
    number(dash + 1, at, b.max_nodes);
    number(at + 1, part.size(), b.percent);
    if (b.min_nodes < 1 || b.max_nodes < b.min_nodes || !(b.percent >= 0.0 && b.percent <= 100.0)) bad(part);
    batches.push_back(b);
    pos = end + 1;
  }
  return batches;
}

std::vector<rsg_batch> thesis_rsg_batches(double scale) {
  WF_EXPECTS(scale > 0.0 && scale <= 1.0, "--scale", "scale must be in (0, 1]");
  // Counts from Table 7.3 (Empty 170, Small 5250, Medium 9845, Large 170). The Medium and Large
  // splits are our calibration to Table 7.1: about 2.9M nodes, 450M edges, median n near 74, a
  // largest graph of 29.7K nodes and about 39M edges (percent 4: density 0.05 + 0.95 * 0.04).
  const rsg_batch full[] = {{170, 1, 1, 0.0},          {5250, 2, 32, 5.0},      {6000, 33, 150, 4.0},
                            {3845, 151, 435, 4.0},     {169, 1025, 12000, 4.0}, {1, 29700, 29700, 4.0}};
  std::vector<rsg_batch> batches;
  for (const rsg_batch& b : full) {
    rsg_batch s = b;
    s.count = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(b.count) * scale)));
    s.min_nodes = std::max<std::uint32_t>(b.min_nodes > 1 ? 2 : 1, static_cast<std::uint32_t>(std::lround(b.min_nodes * scale)));
    s.max_nodes = std::max(s.min_nodes, static_cast<std::uint32_t>(std::lround(b.max_nodes * scale)));
    batches.push_back(s);
  }
  return batches;
}

spreading_graphs generate_rsg(const rsg_params& params, int num_threads) {
  WF_EXPECTS(params.outlier_probability >= 0.0 && params.outlier_probability <= 1.0, "--outliers",
             "outlier probability must be in [0, 1]");
  WF_EXPECTS(params.max_followers >= 1, "--max-followers", "must be >= 1");
  std::vector<graph_spec> specs;
  std::uint64_t graph_id = 0;
  std::vector<std::uint64_t> graph_offsets{0};
  for (const rsg_batch& b : params.batches) {
    WF_EXPECTS(b.min_nodes >= 1 && b.max_nodes >= b.min_nodes, "--batches", "need 1 <= min <= max nodes");
    for (std::uint64_t k = 0; k < b.count; ++k, ++graph_id) {
      const std::uint64_t key = sample_key(params.seed, graph_id);
      const std::uint32_t n = b.min_nodes + bounded_draw(key, element_domain::misc, b.max_nodes - b.min_nodes + 1);
      specs.push_back({n, b.percent / 100.0});
      graph_offsets.push_back(graph_offsets.back() + n);
    }
  }
  const std::uint64_t num_nodes = graph_offsets.back();
  spreading_graphs g;
  g.graph_offsets = graph_offsets;
  g.row_offsets.assign(num_nodes + 1, 0);
  g.base.resize(num_nodes);
  g.node_user.resize(num_nodes);
  std::uint32_t max_n = 0;
  for (const auto& s : specs) max_n = std::max(max_n, s.n);
  g.user_ids.resize(max_n);
  for (std::uint32_t u = 0; u < max_n; ++u) g.user_ids[u] = std::to_string(u);
  g.tweet_ids.resize(specs.size());
  for (std::uint64_t t = 0; t < specs.size(); ++t) g.tweet_ids[t] = std::to_string(t);

  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  // Node -> graph lookup for the row loops: graph ids per node would cost 4 bytes per node; a
  // binary search over graph offsets per row is cheap next to the row itself.
  auto graph_of = [&](std::uint64_t node) {
    return static_cast<std::uint64_t>(std::upper_bound(graph_offsets.begin(), graph_offsets.end(), node) -
                                      graph_offsets.begin()) - 1;
  };
  const double log_max = std::log(static_cast<double>(params.max_followers) + 1.0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(num_nodes); ++i) {
    const std::uint64_t node = static_cast<std::uint64_t>(i), t = graph_of(node);
    const std::uint64_t key = sample_key(params.seed, t);
    const auto u = static_cast<std::uint32_t>(node - graph_offsets[t]);
    std::uint64_t degree = 0;
    generate_row(key, specs[t].n, specs[t].p, params.outlier_probability, u, [&](std::uint32_t) { ++degree; });
    g.row_offsets[node + 1] = degree;
    const double r = element_uniform(key, element_domain::misc | (static_cast<std::uint64_t>(u + 1) << 16));
    g.base[node] = std::clamp(std::floor(std::exp(r * log_max)), 1.0, static_cast<double>(params.max_followers));
    g.node_user[node] = u;
  }
  for (std::uint64_t i = 0; i < num_nodes; ++i) g.row_offsets[i + 1] += g.row_offsets[i];
  g.edge_targets.resize(g.row_offsets.back());
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(num_nodes); ++i) {
    const std::uint64_t node = static_cast<std::uint64_t>(i), t = graph_of(node);
    std::uint32_t* out = g.edge_targets.data() + g.row_offsets[node];
    generate_row(sample_key(params.seed, t), specs[t].n, specs[t].p, params.outlier_probability,
                 static_cast<std::uint32_t>(node - graph_offsets[t]), [&](std::uint32_t v) { *out++ = v; });
  }
  return g;
}

}  // namespace wildfire::twitter
