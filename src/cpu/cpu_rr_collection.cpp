// CPU rr_collection: block-parallel sampling into per-worker arenas, ordered parallel copy-out.
#include "cpu/cpu_rr_collection.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "wildfire/error.hpp"
#include "wildfire/selection/max_coverage.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cpu {
namespace {

/// Samples per block of the unfused path: enough to amortise scheduling and the ramp-down of
/// the interleaved lanes (ic_lane_sampler), small enough to balance.
constexpr std::uint32_t unfused_block = 256;
/// Automatic choice under IC: one traversal per sample while the sets so far average fewer members
/// than this, fused traversals beyond. soc-Epinions1 crosses over between 214 members (unfused
/// 7% faster) and 400 (even); docs/benchmarks/ris-cpu.md.
constexpr double fused_from_mean_size = 256;
/// The first sets of an automatic collection, sampled one by one to measure the mean set size.
constexpr std::uint64_t pilot_sets = 1024;

struct block_record {
  int worker;
  std::uint64_t first_set;  // index of the block's first set in the worker's arena
  std::uint32_t count;
};

}  // namespace

cpu_rr_collection::cpu_rr_collection(const backend_config& config, const csr_graph& graph,
                                     const sampling_params& params)
    : graph_(graph), params_(params), config_(config),
      threads_(config.num_threads > 0 ? config.num_threads : omp_get_max_threads()) {
  WF_EXPECTS(params.rounds >= 1, "--rounds", "rounds must be at least 1");
  WF_EXPECTS(std::uint64_t{graph.num_vertices} * params.rounds < (std::uint64_t{1} << 32), "--rounds",
             "rounds * n must stay below 2^32");
  WF_EXPECTS(params.mean_roots >= 1.0, "mean_roots", "a sample needs at least one root on average");
  WF_EXPECTS(config.colours >= 32 && config.colours <= 1024 && config.colours % 32 == 0, "--colours",
             "colours must be a multiple of 32 between 32 and 1024, got " + std::to_string(config.colours));
  WF_EXPECTS(config.traversal != traversal_kind::warp, "--sampler", "the warp sampler exists only on the GPU");
  // auto: under IC by the mean set size so far (fused_from_mean_size): interleaved single traversals
  // (ic_lane_sampler) beat 64 colours on small sets, where fused batches share few edges, and
  // lose on large overlapping ones; unfused for LT, whose walks are single paths.
  adaptive_ = config.traversal == traversal_kind::automatic && params.model == diffusion_model::ic;
  fused_ = config.traversal == traversal_kind::fused;
  stats_.representation = "flat";
  stats_.traversal = fused_ ? "fused" : "unfused";
  workers_.resize(static_cast<std::size_t>(threads_));
  tables_ = build_world_tables(graph, params.model);
}

void cpu_rr_collection::check_budget(std::uint64_t more_sets) const {
  if (config_.memory_budget_bytes == 0) return;
  const double mean_size = sets_.size() == 0 ? 1.0 : static_cast<double>(sets_.num_members()) / sets_.size();
  const auto wanted = static_cast<std::uint64_t>(
      static_cast<double>(sets_.size() + more_sets) * (mean_size * 2 * sizeof(std::uint32_t) + sizeof(std::uint64_t)));
  if (wanted > config_.memory_budget_bytes)
    throw resource_error("RR sets (and their index) exceed --memory-budget", wanted, config_.memory_budget_bytes);
}

void cpu_rr_collection::generate(std::uint64_t first_id, std::uint64_t count) {
  if (count == 0) return;
  if (adaptive_ && stats_.sets_generated == 0 && count > 4 * pilot_sets) {
    generate(first_id, pilot_sets);
    generate(first_id + pilot_sets, count - pilot_sets);
    return;
  }
  check_budget(count);
  stopwatch clock;
  const double mean_size = stats_.sets_generated == 0 ? 0.0
                                                      : static_cast<double>(stats_.members_generated) /
                                                            static_cast<double>(stats_.sets_generated);
  const bool fused = adaptive_ ? mean_size >= fused_from_mean_size : fused_;
  const std::uint32_t block = fused ? config_.colours : unfused_block;
  const std::uint64_t num_blocks = (count + block - 1) / block;
  std::vector<block_record> records(num_blocks);
  std::uint64_t edges = 0;

  // A handful of blocks does not pay for waking a team (OPIM-C starts with a few hundred sets).
  const int team = static_cast<int>(std::clamp<std::uint64_t>(num_blocks / 8, 1, static_cast<std::uint64_t>(threads_)));
#pragma omp parallel num_threads(team) reduction(+ : edges)
  {
    const int t = omp_get_thread_num();
    worker& me = workers_[static_cast<std::size_t>(t)];
    if (fused && !me.fused) me.fused = std::make_unique<fused_rr_sampler>(graph_, params_, config_.colours, &tables_);
    if (!fused && !me.unfused) me.unfused = std::make_unique<unfused_rr_sampler>(graph_, params_, &tables_);
    me.arena.clear();
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(num_blocks); ++b) {
      const std::uint64_t first = first_id + static_cast<std::uint64_t>(b) * block;
      const auto here = static_cast<std::uint32_t>(std::min<std::uint64_t>(block, first_id + count - first));
      records[static_cast<std::size_t>(b)] = {t, me.arena.size(), here};
      edges += fused ? me.fused->sample(first, here, me.arena) : me.unfused->sample(first, here, me.arena);
    }
  }

  // Ordered copy-out: block b's members land after those of blocks < b.
  std::vector<std::uint64_t> member_base(num_blocks + 1);
  std::vector<std::uint64_t> set_base(num_blocks + 1);
  member_base[0] = sets_.num_members();
  set_base[0] = sets_.size();
  for (std::uint64_t b = 0; b < num_blocks; ++b) {
    const auto& r = records[b];
    const auto& arena = workers_[static_cast<std::size_t>(r.worker)].arena;
    member_base[b + 1] = member_base[b] + arena.offsets[r.first_set + r.count] - arena.offsets[r.first_set];
    set_base[b + 1] = set_base[b] + r.count;
  }
  sets_.extend(set_base[num_blocks], member_base[num_blocks]);
  std::uint32_t* members = sets_.members_data();
  std::uint64_t* offsets = sets_.offsets_data();
#pragma omp parallel for num_threads(team) schedule(static)
  for (std::int64_t bi = 0; bi < static_cast<std::int64_t>(num_blocks); ++bi) {
    const auto b = static_cast<std::size_t>(bi);
    const auto& r = records[b];
    const auto& arena = workers_[static_cast<std::size_t>(r.worker)].arena;
    const std::uint64_t from = arena.offsets[r.first_set];
    const std::uint64_t to = arena.offsets[r.first_set + r.count];
    if (to > from) std::memcpy(members + member_base[b], arena.members.data() + from, (to - from) * sizeof(std::uint32_t));
    for (std::uint32_t i = 0; i < r.count; ++i)
      offsets[set_base[b] + i + 1] = member_base[b] + arena.offsets[r.first_set + i + 1] - from;
  }

  std::uint64_t scratch_bytes = tables_.memory_bytes();
  for (auto& w : workers_) {
    scratch_bytes += w.arena.memory_bytes();
    if (w.fused) scratch_bytes += w.fused->memory_bytes();
    if (w.unfused) scratch_bytes += w.unfused->memory_bytes();
  }
  (fused ? fused_sets_ : unfused_sets_) += count;
  stats_.traversal = fused_sets_ > unfused_sets_ ? "fused" : "unfused";  // the one that made most sets
  stats_.sets_generated += count;
  stats_.members_generated += member_base[num_blocks] - member_base[0];
  stats_.edges_examined += edges;
  stats_.sampling_seconds += clock.seconds();
  stats_.peak_bytes = std::max(stats_.peak_bytes, sets_.memory_bytes() + scratch_bytes);
}

void cpu_rr_collection::clear() {
  sets_.clear();  // keeps the memory: the next phase (IMM's fresh final sets) refills it
}

coverage_selection cpu_rr_collection::run_greedy(std::uint32_t k, std::uint32_t rounds, bool with_upper_bound) {
  stopwatch clock;
  max_coverage_options options;
  options.k = k;
  options.universe = graph_.num_vertices * rounds;
  options.rounds = rounds;
  options.num_threads = threads_;
  options.upper_bound = with_upper_bound;
  coverage_selection result = greedy_max_coverage(rr_sets_view{sets_.offsets(), sets_.members()}, options);
  stats_.selection_seconds += clock.seconds();
  // The inverted index and the counts live during selection beside the sets.
  stats_.peak_bytes = std::max(stats_.peak_bytes, sets_.memory_bytes() * 2 +
                                                      std::uint64_t{options.universe} * 16 + sets_.size());
  return result;
}

coverage_selection cpu_rr_collection::select(std::uint32_t k, bool with_upper_bound) {
  return run_greedy(k, 1, with_upper_bound);
}

coverage_selection cpu_rr_collection::select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                                       std::uint32_t rounds) {
  WF_EXPECTS(num_vertices == graph_.num_vertices, "num_vertices", "does not match the collection's graph");
  return run_greedy(k_per_round, rounds, false);
}

std::uint64_t cpu_rr_collection::coverage(std::span<const std::uint32_t> seeds) {
  return count_covered(rr_sets_view{sets_.offsets(), sets_.members()}, seeds, graph_.num_vertices * params_.rounds,
                       threads_);
}

rr_sets cpu_rr_collection::copy_sets(std::uint64_t first, std::uint64_t count) const {
  WF_EXPECTS(first + count <= sets_.size(), "count", "copy_sets asks for sets beyond those held");
  rr_sets out;
  const auto offsets = sets_.offsets();
  const auto members = sets_.members();
  const std::uint64_t from = offsets[first];
  const std::uint64_t to = offsets[first + count];
  out.members.assign(members.begin() + static_cast<std::ptrdiff_t>(from),
                     members.begin() + static_cast<std::ptrdiff_t>(to));
  out.offsets.resize(count + 1);
  for (std::uint64_t i = 0; i <= count; ++i) out.offsets[i] = offsets[first + i] - from;
  return out;
}

collection_stats cpu_rr_collection::stats() const { return stats_; }

}  // namespace wildfire::cpu
