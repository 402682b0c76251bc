// Monte-Carlo forward simulation on the CPU. World w is the live-edge world of
// sample_key(seed, w) (round t: round_sample_key), read on the out-CSR through out_edge_ids: under
// IC an out-edge asks its target's rule (ic_in_edge_live), so forward world w equals RR world w.
#include "cpu/cpu_spread_simulator.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>

#include "cpu/epoch_marker.hpp"
#include "wildfire/error.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/sampling/multi_round.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cpu {
namespace {

/// Is out-edge position `i` (edge id j, into u) live in the world with key `key`?
struct forward_edge_rule {
  graph_view view;
  diffusion_model model;
  const std::uint64_t* lt_before;
  ic_block_view blocks;

  bool live(std::uint64_t key, std::uint64_t i, std::uint32_t u) const noexcept {
    const std::uint64_t j = view.out_edge_ids[i];
    if (model == diffusion_model::ic) return ic_in_edge_live(key, view, blocks, u, j);
    const std::uint32_t threshold = view.in_thresholds[j];
    const std::uint64_t draw = lt_vertex_draw(key, u);
    return draw >= lt_before[j] && draw < lt_before[j] + threshold_weight(threshold);
  }
};

/// Fused forward traversals of up to `colours` worlds (fused-BPT digest section 3.6, forward).
class fused_forward_worker {
 public:
  fused_forward_worker(std::uint32_t n, std::uint32_t colours)
      : words_((colours + 63) / 64), visited_(std::size_t{n} * words_, 0), next_(visited_.size(), 0),
        ever_(visited_.size(), 0), touched_flag_(n, 0), ever_flag_(n, 0), next_flag_(n, 0), keys_(colours) {}

  /// Spreads of worlds [first, first + count) into out[0 .. count). Returns out-edges read.
  std::uint64_t run(const forward_edge_rule& rule, std::uint64_t seed, std::uint32_t rounds,
                    const std::vector<std::vector<std::uint32_t>>& seeds_by_round, std::uint64_t first,
                    std::uint32_t count, std::uint32_t* out) {
    std::uint64_t edges = 0;
    std::vector<std::uint64_t> all(words_, 0);
    for (std::uint32_t c = 0; c < count; ++c) all[c / 64] |= std::uint64_t{1} << (c % 64);
    for (std::uint32_t round = 0; round < rounds; ++round) {
      for (std::uint32_t c = 0; c < count; ++c) keys_[c] = round_sample_key(sample_key(seed, first + c), round);
      for (const std::uint32_t s : seeds_by_round[round])
        for (std::uint32_t w = 0; w < words_; ++w) discover(s, w, all[w] & ~visited_[std::size_t{s} * words_ + w]);
      while (!next_list_.empty()) {
        frontier_.swap(next_list_);
        next_list_.clear();
        masks_.resize(frontier_.size() * words_);
        for (std::size_t f = 0; f < frontier_.size(); ++f) {
          const std::size_t at = std::size_t{frontier_[f]} * words_;
          for (std::uint32_t w = 0; w < words_; ++w) {
            masks_[f * words_ + w] = next_[at + w];
            next_[at + w] = 0;
          }
          next_flag_[frontier_[f]] = 0;
        }
        for (std::size_t f = 0; f < frontier_.size(); ++f) {
          const std::uint32_t v = frontier_[f];
          const std::uint64_t begin = rule.view.out_begin(v), end = rule.view.out_end(v);
          edges += end - begin;
          for (std::uint64_t i = begin; i < end; ++i) {
            const std::uint32_t u = rule.view.out_targets[i];
            for (std::uint32_t w = 0; w < words_; ++w) {
              std::uint64_t candidates = masks_[f * words_ + w] & ~visited_[std::size_t{u} * words_ + w];
              std::uint64_t keep = 0;
              for (; candidates != 0; candidates &= candidates - 1) {
                const int b = std::countr_zero(candidates);
                if (rule.live(keys_[w * 64 + static_cast<std::uint32_t>(b)], i, u)) keep |= std::uint64_t{1} << b;
              }
              if (keep != 0) discover(u, w, keep);
            }
          }
        }
      }
      // Fold this round into the union over rounds, then reset the round's visited marks.
      for (const std::uint32_t v : touched_) {
        for (std::uint32_t w = 0; w < words_; ++w) {
          ever_[std::size_t{v} * words_ + w] |= visited_[std::size_t{v} * words_ + w];
          visited_[std::size_t{v} * words_ + w] = 0;
        }
        touched_flag_[v] = 0;
        if (!ever_flag_[v]) {
          ever_flag_[v] = 1;
          ever_list_.push_back(v);
        }
      }
      touched_.clear();
    }
    std::fill(out, out + count, 0U);
    for (const std::uint32_t v : ever_list_) {
      for (std::uint32_t w = 0; w < words_; ++w) {
        std::uint64_t& word = ever_[std::size_t{v} * words_ + w];
        for (std::uint64_t bits = word; bits != 0; bits &= bits - 1)
          ++out[w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits))];
        word = 0;
      }
      ever_flag_[v] = 0;
    }
    ever_list_.clear();
    return edges;
  }

 private:
  void discover(std::uint32_t u, std::uint32_t w, std::uint64_t bits) {
    if (bits == 0) return;
    const std::size_t at = std::size_t{u} * words_ + w;
    visited_[at] |= bits;
    next_[at] |= bits;
    if (!touched_flag_[u]) {
      touched_flag_[u] = 1;
      touched_.push_back(u);
    }
    if (!next_flag_[u]) {
      next_flag_[u] = 1;
      next_list_.push_back(u);
    }
  }

  std::uint32_t words_;
  std::vector<std::uint64_t> visited_, next_, ever_, masks_;
  std::vector<std::uint8_t> touched_flag_, ever_flag_, next_flag_;
  std::vector<std::uint32_t> touched_, ever_list_, next_list_, frontier_;
  std::vector<std::uint64_t> keys_;
};

/// One world at a time: breadth-first over live out-edges with epoch-stamped visited marks.
class unfused_forward_worker {
 public:
  explicit unfused_forward_worker(std::uint32_t n) : visited_(n), ever_(n) {}

  std::uint64_t run(const forward_edge_rule& rule, std::uint64_t seed, std::uint32_t rounds,
                    const std::vector<std::vector<std::uint32_t>>& seeds_by_round, std::uint64_t first,
                    std::uint32_t count, std::uint32_t* out) {
    std::uint64_t edges = 0;
    for (std::uint32_t c = 0; c < count; ++c) {
      ever_.clear();
      std::uint32_t spread = 0;
      for (std::uint32_t round = 0; round < rounds; ++round) {
        const std::uint64_t key = round_sample_key(sample_key(seed, first + c), round);
        visited_.clear();
        queue_.clear();
        for (const std::uint32_t s : seeds_by_round[round])
          if (visited_.test_and_set(s)) queue_.push_back(s);
        for (std::size_t head = 0; head < queue_.size(); ++head) {
          const std::uint32_t v = queue_[head];
          const std::uint64_t begin = rule.view.out_begin(v), end = rule.view.out_end(v);
          edges += end - begin;
          for (std::uint64_t i = begin; i < end; ++i) {
            const std::uint32_t u = rule.view.out_targets[i];
            if (!visited_.test(u) && rule.live(key, i, u)) {
              visited_.set(u);
              queue_.push_back(u);
            }
          }
        }
        for (const std::uint32_t v : queue_) spread += ever_.test_and_set(v) ? 1 : 0;
      }
      out[c] = spread;
    }
    return edges;
  }

 private:
  epoch_marker visited_, ever_;
  std::vector<std::uint32_t> queue_;
};

}  // namespace

cpu_spread_simulator::cpu_spread_simulator(const backend_config& config, const csr_graph& graph,
                                           const sampling_params& params)
    : graph_(graph), params_(params), threads_(config.num_threads > 0 ? config.num_threads : omp_get_max_threads()),
      fused_(config.traversal != traversal_kind::unfused), colours_(config.colours) {
  WF_EXPECTS(params.rounds >= 1, "--rounds", "rounds must be at least 1");
  WF_EXPECTS(std::uint64_t{graph.num_vertices} * params.rounds < (std::uint64_t{1} << 32), "--rounds",
             "rounds * n must stay below 2^32");
  WF_EXPECTS(colours_ >= 32 && colours_ <= 1024 && colours_ % 32 == 0, "--colours",
             "colours must be a multiple of 32 between 32 and 1024, got " + std::to_string(colours_));
  WF_EXPECTS(config.traversal != traversal_kind::warp, "--sampler", "the warp traversal exists only on the GPU");
  if (params.model == diffusion_model::ic) ic_plan_ = make_ic_block_plan(graph.view());
  if (params.model == diffusion_model::lt) {
    lt_before_.resize(graph.num_edges);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 4096)
    for (std::int64_t v = 0; v < static_cast<std::int64_t>(graph.num_vertices); ++v) {
      std::uint64_t cumulative = 0;
      for (std::uint64_t j = graph.in_offsets[static_cast<std::size_t>(v)]; j < graph.in_offsets[static_cast<std::size_t>(v) + 1]; ++j) {
        lt_before_[j] = cumulative;
        cumulative += threshold_weight(graph.in_thresholds[j]);
      }
    }
  }
}

std::vector<std::uint32_t> cpu_spread_simulator::simulate(std::span<const std::uint32_t> seeds,
                                                          std::uint64_t first_world, std::uint64_t count) {
  const std::uint32_t n = graph_.num_vertices;
  const std::vector<std::vector<std::uint32_t>> round_seeds = seeds_by_round(seeds, n, params_.rounds);
  std::vector<std::uint32_t> spreads(count, 0);
  if (count == 0 || n == 0) return spreads;
  const forward_edge_rule rule{graph_.view(), params_.model, lt_before_.data(), ic_plan_.view()};
  const std::uint32_t block = fused_ ? colours_ : 64;
  const std::uint64_t num_blocks = (count + block - 1) / block;
  std::uint64_t edges = 0;
#pragma omp parallel num_threads(threads_) reduction(+ : edges)
  {
    std::unique_ptr<fused_forward_worker> fused;
    std::unique_ptr<unfused_forward_worker> unfused;
    if (fused_) fused = std::make_unique<fused_forward_worker>(n, colours_);
    else unfused = std::make_unique<unfused_forward_worker>(n);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(num_blocks); ++b) {
      const std::uint64_t offset = static_cast<std::uint64_t>(b) * block;
      const auto here = static_cast<std::uint32_t>(std::min<std::uint64_t>(block, count - offset));
      std::uint32_t* out = spreads.data() + offset;
      edges += fused ? fused->run(rule, params_.seed, params_.rounds, round_seeds, first_world + offset, here, out)
                     : unfused->run(rule, params_.seed, params_.rounds, round_seeds, first_world + offset, here, out);
    }
  }
  edges_examined_ += edges;
  return spreads;
}

spread_estimate cpu_spread_simulator::estimate(std::span<const std::uint32_t> seeds, std::uint64_t first_world,
                                               std::uint64_t count) {
  stopwatch clock;
  const std::uint64_t before = edges_examined_;
  const auto spreads = simulate(seeds, first_world, count);
  spread_estimate result = summarize_spreads(spreads);
  result.edges_examined = edges_examined_ - before;
  result.seconds = clock.seconds();
  return result;
}

}  // namespace wildfire::cpu
