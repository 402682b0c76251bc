// Backward phase on the CPU: the sequential reference (thesis Algorithm 2, corrected) and the
// OpenMP version over tweets. Each graph is swept by one thread, so both give identical bits.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "twitter/backward_sweep.hpp"
#include "wildfire/error.hpp"
#include "wildfire/twitter/influence.hpp"

namespace wildfire::twitter {

namespace detail {

std::uint64_t sweep_graph(const spreading_graphs& g, std::uint64_t t, double* influence, sweep_scratch& s) {
  const std::uint64_t lo = g.graph_offsets[t];
  const std::uint32_t n = static_cast<std::uint32_t>(g.graph_offsets[t + 1] - lo);
  const std::uint64_t* rows = g.row_offsets.data() + lo;
  const std::uint32_t* targets = g.edge_targets.data();
  s.indegree.assign(n, 0);
  if (s.queue.size() < n) s.queue.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    influence[lo + v] = g.base[lo + v];  // Alg. 2 lines 2-4: I(v) = n_v
    for (std::uint64_t j = rows[v]; j < rows[v + 1]; ++j) ++s.indegree[targets[j]];
  }
  // Sources: in-degree 0 and at least one out-edge (the thesis's GPU rule, sec. 6.3.4). The
  // printed rule "v in L and deg-(v) = 0" also enqueues isolated retweeters; both give the same
  // values, and this one never divides by a zero out-degree.
  std::uint32_t head = 0, tail = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (s.indegree[v] == 0 && rows[v + 1] > rows[v]) s.queue[tail++] = v;
  }
  while (head < tail) {
    const std::uint32_t u = s.queue[head++];
    // Alg. 2 line 14 divides by deg+(u) while line 15 deletes u's edges; the divisor is the
    // ORIGINAL out-degree (the worked example halves e's value for both neighbours), so edges are
    // "removed" only by decrementing the target's in-degree.
    const double share = influence[lo + u] / static_cast<double>(rows[u + 1] - rows[u]);
    for (std::uint64_t j = rows[u]; j < rows[u + 1]; ++j) {
      const std::uint32_t v = targets[j];
      influence[lo + v] += share;
      if (--s.indegree[v] == 0 && rows[v + 1] > rows[v]) s.queue[tail++] = v;
    }
  }
  std::uint64_t stalled = 0;
  for (std::uint32_t v = 0; v < n; ++v) stalled += s.indegree[v] != 0;
  return stalled;
}

}  // namespace detail

influence_result backward_sequential(const spreading_graphs& g) {
  influence_result r;
  r.influence.assign(g.num_nodes(), 0.0);
  std::vector<std::uint64_t> stalled(g.num_graphs(), 0);
  detail::sweep_scratch scratch;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < g.num_graphs(); ++t) stalled[t] = detail::sweep_graph(g, t, r.influence.data(), scratch);
  r.backward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  detail::collect_cycles(stalled, r);
  return r;
}

influence_result backward_openmp(const spreading_graphs& g, int num_threads) {
  WF_EXPECTS(num_threads >= 0, "-p", "thread count must be >= 0");
  influence_result r;
  r.influence.assign(g.num_nodes(), 0.0);
  const std::uint64_t num_graphs = g.num_graphs();
  std::vector<std::uint64_t> stalled(num_graphs, 0);
  // Largest graphs (by edges) first, so the long sweeps start early and small ones fill the gaps.
  std::vector<std::uint64_t> order(num_graphs);
  std::iota(order.begin(), order.end(), 0);
  auto edges_of = [&](std::uint64_t t) {
    return g.row_offsets[g.graph_offsets[t + 1]] - g.row_offsets[g.graph_offsets[t]];
  };
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return edges_of(a) > edges_of(b); });
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
  {
    detail::sweep_scratch scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(num_graphs); ++k) {
      const std::uint64_t t = order[static_cast<std::uint64_t>(k)];
      stalled[t] = detail::sweep_graph(g, t, r.influence.data(), scratch);
    }
  }
  r.backward_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  detail::collect_cycles(stalled, r);
  return r;
}

}  // namespace wildfire::twitter
