// Unfused RR sampling: one traversal per (sample, round), members sorted after the traversal.
#include "cpu/unfused_rr_sampler.hpp"

#include <algorithm>
#include <bit>

#include "cpu/ic_live_scan.hpp"
#include "cpu/insertion_sort.hpp"
#include "sampling/sample_roots.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/multi_round.hpp"

namespace wildfire::cpu {

unfused_rr_sampler::unfused_rr_sampler(const csr_graph& graph, const sampling_params& params,
                                       const world_tables* tables)
    : view_(graph.view()), params_(params), visited_(graph.num_vertices) {
  if (tables == nullptr) {
    own_tables_ = build_world_tables(graph, params.model);
    tables = &own_tables_;
  }
  lt_cumulative_ = tables->lt_cumulative.data();
  blocks_ = tables->ic_plan.view();
  if (!tables->ic_records.empty()) records_ = tables->ic_records.data();
  if (params.model == diffusion_model::ic && records_ != nullptr && params.mean_roots == 1.0 && params.rounds == 1)
    lanes_ = std::make_unique<ic_lane_sampler>(view_, blocks_, records_, params.seed);
}

std::uint64_t unfused_rr_sampler::memory_bytes() const noexcept {
  return visited_.memory_bytes() + (roots_.capacity() + queue_.capacity()) * sizeof(std::uint32_t) +
         own_tables_.memory_bytes() + (lanes_ ? lanes_->memory_bytes() : 0);
}

namespace {

/// Sets of up to this many vertices test membership by scanning the queue, which sits in L1,
/// instead of the stamp array, which costs a cache miss per discovered vertex once the graph
/// outgrows L2. Most weighted-cascade sets stay below it; larger ones switch to the stamps.
constexpr std::size_t scan_limit = 16;

}  // namespace

std::uint64_t unfused_rr_sampler::traverse_ic_records(std::uint64_t world_key) {
  // The marker holds the roots on entry; while scanning, later vertices go to the queue only.
  bool scanning = queue_.size() <= scan_limit;
  auto visit = [&](std::uint32_t u) {
    if (scanning) {
      for (const std::uint32_t q : queue_)
        if (q == u) return;
      queue_.push_back(u);
      __builtin_prefetch(records_ + u);
      if (queue_.size() > scan_limit) {
        scanning = false;
        for (const std::uint32_t q : queue_) visited_.set(q);
      }
      return;
    }
    if (visited_.test_and_set(u)) {
      queue_.push_back(u);
      __builtin_prefetch(records_ + u);
    }
  };
  std::uint64_t edges = 0;
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const ic_vertex_record r = records_[queue_[head]];
    edges += r.degree;  // every in-edge's liveness is decided, whichever rule decides it
    if (r.cls != per_edge_class) {
      for_each_live_block_edge(world_key, r, blocks_, [&](std::uint64_t j) { visit(view_.in_sources[j]); });
      continue;
    }
    const std::uint64_t end = std::uint64_t{r.begin} + r.degree;
    for (std::uint64_t chunk = r.begin; chunk < end; chunk += 64) {
      const auto count = static_cast<std::uint32_t>(end - chunk < 64 ? end - chunk : 64);
      for (std::uint64_t live = ic_live_mask(world_key, chunk, view_.in_thresholds + chunk, count); live != 0;
           live &= live - 1)
        visit(view_.in_sources[chunk + static_cast<std::uint64_t>(std::countr_zero(live))]);
    }
  }
  return edges;
}

std::uint64_t unfused_rr_sampler::traverse(std::uint64_t world_key) {
  if (params_.model == diffusion_model::ic && records_ != nullptr) return traverse_ic_records(world_key);
  std::uint64_t edges = 0;
  if (params_.model == diffusion_model::ic) {
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t v = queue_[head];
      const std::uint64_t begin = view_.in_begin(v), end = view_.in_end(v);
      edges += end - begin;  // every in-edge's liveness is decided, whichever rule decides it
      if (blocks_.vertex_class[v] != per_edge_class) {
        for_each_live_in_edge(world_key, view_, blocks_, v, [&](std::uint64_t j) {
          const std::uint32_t u = view_.in_sources[j];
          if (visited_.test_and_set(u)) queue_.push_back(u);
        });
        continue;
      }
      // Hash first, 64 edges at a time (vectorised), then touch only the live edges' sources:
      // under weighted cascade about one in-edge per vertex is live.
      for (std::uint64_t chunk = begin; chunk < end; chunk += 64) {
        const auto count = static_cast<std::uint32_t>(end - chunk < 64 ? end - chunk : 64);
        for (std::uint64_t live = ic_live_mask(world_key, chunk, view_.in_thresholds + chunk, count); live != 0;
             live &= live - 1) {
          const std::uint32_t u = view_.in_sources[chunk + static_cast<std::uint64_t>(std::countr_zero(live))];
          if (visited_.test_and_set(u)) queue_.push_back(u);
        }
      }
    }
  } else {
    // Each root walks back along its chosen in-edges until it meets a visited vertex; the union of
    // the walks does not depend on the order of the roots.
    const std::size_t num_roots = queue_.size();
    for (std::size_t i = 0; i < num_roots; ++i) {
      std::uint32_t v = queue_[i];
      for (;;) {
        const std::uint64_t j = lt_chosen_by_search(world_key, view_, lt_cumulative_, v, edges);
        if (j == no_edge) break;
        const std::uint32_t u = view_.in_sources[j];
        if (!visited_.test_and_set(u)) break;
        queue_.push_back(u);
        v = u;
      }
    }
  }
  return edges;
}

std::uint64_t unfused_rr_sampler::sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out) {
  if (lanes_) return lanes_->sample(first_id, count, out);
  std::uint64_t edges = 0;
  const std::uint32_t n = view_.num_vertices;
  for (std::uint64_t s = first_id; s < first_id + count; ++s) {
    const std::uint64_t key = sample_key(params_.seed, s);
    visited_.clear();
    roots_.clear();
    append_sample_roots(key, params_.mean_roots, n, visited_, roots_);
    for (std::uint32_t round = 0; round < params_.rounds; ++round) {
      if (round > 0) {
        visited_.clear();
        for (const std::uint32_t r : roots_) visited_.set(r);
      }
      queue_.assign(roots_.begin(), roots_.end());
      edges += traverse(round_sample_key(key, round));
      if (queue_.size() <= 24) {
        // Most weighted-cascade sets are a handful of vertices: insertion sort beats introsort.
        insertion_sort(queue_.data(), queue_.data() + queue_.size());
      } else {
        std::sort(queue_.begin(), queue_.end());
      }
      const std::uint32_t base = round * n;
      if (base == 0) {
        out.members.insert(out.members.end(), queue_.begin(), queue_.end());
      } else {
        for (const std::uint32_t v : queue_) out.members.push_back(base + v);
      }
    }
    out.offsets.push_back(out.members.size());
  }
  return edges;
}

}  // namespace wildfire::cpu
