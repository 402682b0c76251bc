// The adaptive process of AMCSS, written once for MERIT, ASTI and the degree baseline (MERIT
// Alg. 1 with the digest's corrected loop control, section 2.2): per round, Update (MERIT), then
// Generate/Select trials with doubling until the batch verifies or theta_max sets are held, then
// diffusion in the realization, removal of the activated vertices and Discover.
#include "wildfire/adaptive/amcss.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "wildfire/adaptive/mrr_rules.hpp"
#include "wildfire/adaptive/mrr_store.hpp"
#include "wildfire/adaptive/realization.hpp"
#include "wildfire/adaptive/residual_graph.hpp"
#include "wildfire/adaptive/round_bounds.hpp"
#include "wildfire/error.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::adaptive {

amcss_algorithm parse_amcss_algorithm(const std::string& text) {
  if (text == "merit") return amcss_algorithm::merit;
  if (text == "asti") return amcss_algorithm::asti;
  if (text == "degree") return amcss_algorithm::degree;
  throw config_error("--algorithm", "unknown algorithm \"" + text + "\", expected merit, asti or degree");
}

std::string to_string(amcss_algorithm a) {
  switch (a) {
    case amcss_algorithm::merit: return "merit";
    case amcss_algorithm::asti: return "asti";
    default: return "degree";
  }
}

namespace {

/// The end of a run (digest 4.2 item 17): with eta_i <= b left, any eta_i remaining vertices reach
/// eta for certain, so the round takes the eta_i cheapest (ties: lower id). ASTI's code takes a
/// random batch here; cheapest is its cost-aware form, used by every algorithm alike.
std::vector<std::uint32_t> cheapest_batch(const residual_graph& residual, std::span<const double> costs,
                                          std::uint64_t count) {
  std::vector<std::uint32_t> pool(residual.remaining().begin(), residual.remaining().end());
  const auto order = [&](std::uint32_t a, std::uint32_t b) { return costs[a] != costs[b] ? costs[a] < costs[b] : a < b; };
  const std::size_t take = std::min<std::size_t>(count, pool.size());
  std::partial_sort(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(take), pool.end(), order);
  pool.resize(take);
  return pool;
}

/// Baseline: the b remaining vertices with the largest out-degree / cost (ties: lower id).
std::vector<std::uint32_t> degree_batch(const residual_graph& residual, std::span<const double> costs,
                                        std::uint32_t batch) {
  const csr_graph& g = residual.graph();
  std::vector<std::uint32_t> pool(residual.remaining().begin(), residual.remaining().end());
  const auto order = [&](std::uint32_t a, std::uint32_t b) {
    const double ra = static_cast<double>(g.out_degree(a)) / costs[a];
    const double rb = static_cast<double>(g.out_degree(b)) / costs[b];
    return ra != rb ? ra > rb : a < b;
  };
  const std::size_t take = std::min<std::size_t>(batch, pool.size());
  std::partial_sort(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(take), pool.end(), order);
  pool.resize(take);
  return pool;
}

void check_options(const csr_graph& graph, std::span<const double> costs, const amcss_options& o) {
  WF_EXPECTS(graph.num_vertices > 0, "-i", "the graph has no vertices");
  WF_EXPECTS(graph.num_vertices <= max_vertices, "-i", "MERIT's mRR-sets hold at most 2^31 - 1 vertices");
  WF_EXPECTS(o.eta >= 1 && o.eta <= graph.num_vertices, "--eta", "eta must be in [1, n]");
  WF_EXPECTS(o.batch >= 1, "--batch", "the batch size must be at least 1");
  WF_EXPECTS(o.epsilon > 0 && o.epsilon < 1, "--epsilon", "epsilon must be in (0, 1)");
  WF_EXPECTS(o.realizations >= 1, "--realizations", "need at least one realization");
  WF_EXPECTS(costs.size() == graph.num_vertices, "--cost", "need one cost per vertex");
}

bool out_of_time(const amcss_options& o, const stopwatch& clock) {
  return o.time_limit_seconds > 0 && clock.seconds() > o.time_limit_seconds;
}

class stage_timer {
 public:
  explicit stage_timer(double& sink) : sink_(sink) {}
  ~stage_timer() { sink_ += watch_.seconds(); }
  stage_timer(const stage_timer&) = delete;
  stage_timer& operator=(const stage_timer&) = delete;

 private:
  double& sink_;
  stopwatch watch_;
};

/// One round of MERIT or ASTI on the store: Update (MERIT), theta_0 sets, then Select trials with
/// doubling; a batch is accepted when it verifies or theta_max sets are held (the proof's first
/// stop case; digest 2.2: the printed loop exits with S_i empty there, which is wrong).
/// Past the time limit (if any) it returns no batch and marks `out` unfinished.
std::vector<std::uint32_t> sampled_batch(mrr_store& store, const residual_graph& residual, std::uint64_t eta_left,
                                         const amcss_options& o, std::uint32_t round, double previous_mean_roots,
                                         std::uint64_t budget_bytes, const stopwatch& clock, realization_result& out,
                                         round_record& log) {
  const std::uint32_t n_i = residual.num_remaining();
  const double mean_roots = static_cast<double>(n_i) / static_cast<double>(eta_left);
  const round_bounds bounds = compute_round_bounds(n_i, o.batch, o.epsilon);
  const auto theta0 = static_cast<std::uint64_t>(std::ceil(bounds.theta0));
  const auto theta_max = static_cast<std::uint64_t>(std::ceil(bounds.theta_max));

  store.begin_round(residual, mean_roots, round);
  if (store.size() > 0) {
    // Memory growth of retained sets (digest 4.2 item 4): every retained set grows to about
    // n_i / eta_i roots. If the projected size passes the budget, drop whole sets by id, which
    // is independent of their content, so the kept ones stay unbiased.
    const double growth = std::max(1.0, mean_roots / std::max(previous_mean_roots, 1.0));
    const double projected_bytes = static_cast<double>(store.num_members()) * growth * sizeof(std::uint32_t);
    if (projected_bytes > static_cast<double>(budget_bytes)) {
      const auto keep = static_cast<std::uint64_t>(static_cast<double>(store.size()) *
                                                   (static_cast<double>(budget_bytes) / projected_bytes));
      store.truncate(std::max<std::uint64_t>(keep, 1));
    }
    stage_timer t(out.seconds.update);
    store.update();
  }
  if (store.size() < theta0) {
    stage_timer t(out.seconds.generate);
    store.generate(theta0 - store.size());
  }
  for (;;) {
    batch_selection selection;
    {
      stage_timer t(out.seconds.select);
      selection = store.select(o.batch);
    }
    ++out.trials;
    out.max_sets = std::max(out.max_sets, store.size());
    const bool at_max = store.size() >= theta_max;
    if (at_max || batch_verified(selection.coverage, bounds)) {
      if (at_max && !batch_verified(selection.coverage, bounds)) ++out.accepted_at_theta_max;
      store.commit_selection();
      log.sets = store.size();
      log.coverage = selection.coverage;
      return selection.seeds;
    }
    if (out_of_time(o, clock)) {
      out.finished = false;
      return {};
    }
    const std::uint64_t target = std::min(2 * store.size(), theta_max);
    stage_timer t(out.seconds.generate);
    store.generate(target - store.size());
  }
}

realization_result run_realization(const csr_graph& graph, const ic_block_plan* ic_plan, std::span<const double> costs,
                                   const amcss_options& o, std::uint32_t r) {
  stopwatch total;
  realization_result out;
  out.realization = r;
  realization_diffusion world(graph, o.model, o.realization_seed, r, ic_plan);
  residual_graph residual(graph);
  std::unique_ptr<mrr_store> store;
  const std::uint64_t sampling_seed = realization_sampling_seed(o.seed, r);
  if (o.algorithm == amcss_algorithm::merit) {
    store = make_mrr_store(o.backend, graph, o.model, costs, sampling_seed, ic_plan);
  } else if (o.algorithm == amcss_algorithm::asti) {
    store = make_cpu_mrr_store(graph, o.model, costs, sampling_seed, o.backend.num_threads, ic_plan);
  }
  const std::uint64_t budget =
      store ? (o.memory_budget_bytes > 0 ? o.memory_budget_bytes : store->default_budget_bytes()) : 0;
  double previous_mean_roots = 1;

  while (world.num_active() < o.eta) {
    if (out_of_time(o, total)) {
      out.finished = false;
      break;
    }
    const std::uint32_t round = ++out.rounds;
    const std::uint64_t eta_left = o.eta - world.num_active();
    std::vector<std::uint32_t> batch;
    round_record log;
    log.eta_left = eta_left;
    log.remaining = residual.num_remaining();
    if (eta_left <= o.batch) {
      batch = cheapest_batch(residual, costs, eta_left);
    } else if (o.algorithm == amcss_algorithm::degree) {
      batch = degree_batch(residual, costs, o.batch);
    } else {
      if (o.algorithm == amcss_algorithm::asti) store->reset(realization_sampling_seed(o.seed, r, round));
      batch = sampled_batch(*store, residual, eta_left, o, round, previous_mean_roots, budget, total, out, log);
      if (!out.finished) {
        --out.rounds;
        break;
      }
      previous_mean_roots = static_cast<double>(residual.num_remaining()) / static_cast<double>(eta_left);
    }
    WF_EXPECTS(!batch.empty(), "--eta", "no vertex left to seed");  // unreachable: eta <= n

    std::vector<std::uint32_t> activated;
    {
      stage_timer t(out.seconds.diffuse);
      for (const std::uint32_t seed : batch) {
        const std::vector<std::uint32_t> reached = world.activate(seed);
        out.seeds.push_back(seed_record{seed, round, costs[seed], reached.size()});
        out.total_cost += costs[seed];
        activated.insert(activated.end(), reached.begin(), reached.end());
      }
      residual.remove(activated);
    }
    log.activated = activated.size();
    for (const std::uint32_t seed : batch) log.cost += costs[seed];
    out.round_log.push_back(log);
    if (o.algorithm == amcss_algorithm::merit) {
      stage_timer t(out.seconds.update);
      store->discover(activated);
    }
  }
  out.activated = world.num_active();
  if (store) {
    const mrr_store_stats s = store->stats();
    out.sets_generated = s.sets_generated;
    out.sets_reused = s.sets_reused;
    out.sets_repaired = s.sets_repaired;
    out.sets_dropped = s.sets_dropped;
    out.storage_regrowths = s.storage_regrowths;
    out.peak_bytes = s.peak_bytes;
  }
  out.seconds.total = total.seconds();
  return out;
}

}  // namespace

amcss_result run_amcss(const csr_graph& graph, std::span<const double> costs, const amcss_options& options) {
  check_options(graph, costs, options);
  amcss_result result;
  result.device = options.algorithm == amcss_algorithm::merit
                      ? to_string(resolve_device(options.backend.device))
                      : "cpu";
  // One IC plan for every realization's diffusion (each store builds its own for its samplers).
  const ic_block_plan ic_plan = options.model == diffusion_model::ic ? make_ic_block_plan(graph.view()) : ic_block_plan{};
  for (std::uint32_t i = 0; i < options.realizations; ++i) {
    result.runs.push_back(run_realization(graph, &ic_plan, costs, options, options.first_realization + i));
    const realization_result& run = result.runs.back();
    // AMCSS must reach eta in every realization (Def. 2.1); the loop guarantees it.
    if (run.finished && run.activated < options.eta) throw error("internal error: a realization ended below eta");
  }
  const double count = static_cast<double>(result.runs.size());
  for (const auto& run : result.runs) {
    result.mean_total_cost += run.total_cost / count;
    result.mean_rounds += run.rounds / count;
    result.mean_activated += static_cast<double>(run.activated) / count;
    result.mean_seconds.generate += run.seconds.generate / count;
    result.mean_seconds.select += run.seconds.select / count;
    result.mean_seconds.update += run.seconds.update / count;
    result.mean_seconds.diffuse += run.seconds.diffuse / count;
    result.mean_seconds.total += run.seconds.total / count;
  }
  return result;
}

amcss_verification verify_amcss_realization(const csr_graph& graph, std::span<const double> costs,
                                            const amcss_options& options, const realization_result& run) {
  amcss_verification v;
  const auto fail = [&](std::string what) {
    if (v.ok) v.first_mismatch = std::move(what);
    v.ok = false;
  };
  realization_diffusion world(graph, options.model, options.realization_seed, run.realization);
  std::vector<std::uint8_t> seen(graph.num_vertices, 0);
  double cost = 0;
  std::uint32_t expected_round = 1;
  std::size_t i = 0;
  while (i < run.seeds.size()) {
    const std::uint32_t round = run.seeds[i].round;
    if (round != expected_round) fail("round " + std::to_string(round) + " follows round " + std::to_string(expected_round - 1));
    if (world.num_active() >= options.eta) fail("round " + std::to_string(round) + " started after eta was reached");
    std::uint32_t in_round = 0;
    for (; i < run.seeds.size() && run.seeds[i].round == round; ++i, ++in_round) {
      const seed_record& s = run.seeds[i];
      if (s.vertex >= graph.num_vertices || seen[s.vertex] != 0) {
        fail("seed " + std::to_string(i) + " is out of range or repeated");
        continue;
      }
      seen[s.vertex] = 1;
      if (s.cost != costs[s.vertex]) fail("seed " + std::to_string(i) + " reports a wrong cost");
      cost += costs[s.vertex];
      if (world.activate(s.vertex).size() != s.activations) fail("seed " + std::to_string(i) + " activation count differs on replay");
    }
    if (in_round > options.batch) fail("round " + std::to_string(round) + " has more than b seeds");
    ++expected_round;
  }
  if (run.rounds != expected_round - 1) fail("the round count differs from the seeds' rounds");
  if (world.num_active() < options.eta) fail("the seeds do not reach eta");
  if (world.num_active() != run.activated) fail("the activation count differs on replay");
  if (std::abs(cost - run.total_cost) > 1e-9 * std::max(1.0, cost)) fail("the total cost is not the sum of seed costs");
  return v;
}

}  // namespace wildfire::adaptive
