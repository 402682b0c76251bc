// The host mRR-set store: one vector per set, OpenMP over sets (dynamic schedule, one scratch per
// thread), coverage counts kept exact with relaxed atomics. Backs MERIT on the CPU and ASTI/PASTI.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <limits>

#include "adaptive/mrr_set_builder.hpp"
#include "adaptive/selection_order.hpp"
#include "wildfire/adaptive/mrr_store.hpp"
#include "wildfire/error.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::adaptive {

namespace {

class cpu_mrr_store final : public mrr_store {
 public:
  cpu_mrr_store(const csr_graph& graph, diffusion_model model, std::span<const double> costs, std::uint64_t seed,
                int threads, const ic_block_plan* ic_plan)
      : graph_(&graph), model_(model), costs_(costs), seed_(seed),
        threads_(threads > 0 ? threads : omp_get_max_threads()), ic_plan_(ic_plan), cnt_(graph.num_vertices, 0) {
    WF_EXPECTS(costs.size() == graph.num_vertices, "--cost", "need one cost per vertex");
    if (ic_plan_ == nullptr) {
      if (model == diffusion_model::ic) own_plan_ = make_ic_block_plan(graph.view());
      ic_plan_ = &own_plan_;  // LT: empty, unused
    }
  }

  void begin_round(const residual_graph& residual, double mean_roots, std::uint32_t round) override {
    WF_EXPECTS(&residual.graph() == graph_, "residual", "residual graph of another graph");
    residual_ = &residual;
    mean_roots_ = mean_roots;
    round_ = round;
  }

  void update() override {
    const residual_view r = view();
    const ic_block_view blocks = ic_plan_->view();
    ensure_scratch();
    std::uint64_t reused = 0, repaired = 0, written = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) reduction(+ : reused, repaired, written)
    for (std::uint64_t s = 0; s < sets_.size(); ++s) {
      auto& scratch = scratch_[omp_get_thread_num()];
      const std::uint64_t key = sample_key(seed_, s);
      auto add = [&](std::uint32_t v) { std::atomic_ref<std::uint32_t>(cnt_[v]).fetch_add(1, std::memory_order_relaxed); };
      if (flags_[s] == 0) {
        written += detail::extend_clean_set(r, blocks, model_, key, mean_roots_, round_, sets_[s], scratch, add);
        ++reused;
      } else {
        detail::repair_polluted_set(r, blocks, model_, key, mean_roots_, round_, sets_[s], scratch, add);
        written += sets_[s].size();
        ++repaired;
        flags_[s] = 0;
      }
    }
    stats_.sets_reused += reused;
    stats_.sets_repaired += repaired;
    stats_.members_written += written;
    recount_members();
  }

  void generate(std::uint64_t count) override {
    const residual_view r = view();
    const ic_block_view blocks = ic_plan_->view();
    ensure_scratch();
    const std::uint64_t first = sets_.size();
    sets_.resize(first + count);
    flags_.resize(first + count, 0);
    std::uint64_t written = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) reduction(+ : written)
    for (std::uint64_t s = first; s < first + count; ++s) {
      detail::generate_set(r, blocks, model_, sample_key(seed_, s), mean_roots_, sets_[s], scratch_[omp_get_thread_num()],
                           [&](std::uint32_t v) {
                             std::atomic_ref<std::uint32_t>(cnt_[v]).fetch_add(1, std::memory_order_relaxed);
                           });
      written += sets_[s].size();
    }
    stats_.sets_generated += count;
    stats_.members_written += written;
    recount_members();
  }

  std::uint64_t size() const override { return sets_.size(); }
  std::uint64_t num_members() const override { return members_; }

  batch_selection select(std::uint32_t batch) override {
    const residual_view r = view();
    scratch_cnt_ = cnt_;
    scratch_flags_ = flags_;
    batch_selection result;
    for (std::uint32_t i = 0; i < batch; ++i) {
      const std::uint32_t u = argmax(r, result.seeds);
      if (u == no_vertex) break;
      result.seeds.push_back(u);
      result.coverage += scratch_cnt_[u];
      discover_into(std::span<const std::uint32_t>(&u, 1), scratch_cnt_, scratch_flags_);
    }
    return result;
  }

  void commit_selection() override {
    cnt_.swap(scratch_cnt_);
    flags_.swap(scratch_flags_);
  }

  void discover(std::span<const std::uint32_t> activated) override { discover_into(activated, cnt_, flags_); }

  void truncate(std::uint64_t count) override {
    if (count >= sets_.size()) return;
    for (std::uint64_t s = count; s < sets_.size(); ++s) {
      if (flags_[s] != 0) continue;
      for (const std::uint32_t m : sets_[s]) --cnt_[member_vertex(m)];
    }
    stats_.sets_dropped += sets_.size() - count;
    sets_.resize(count);
    flags_.resize(count);
    recount_members();
  }

  void reset(std::uint64_t seed) override {
    sets_.clear();
    flags_.clear();
    std::fill(cnt_.begin(), cnt_.end(), 0U);
    seed_ = seed;
    members_ = 0;
  }

  mrr_snapshot snapshot() const override {
    mrr_snapshot out;
    for (const auto& set : sets_) out.append_set(set);
    out.flags = flags_;
    return out;
  }

  std::vector<std::uint32_t> coverage_counts() const override { return cnt_; }
  mrr_store_stats stats() const override { return stats_; }
  std::string device() const override { return "cpu"; }
  std::uint64_t default_budget_bytes() const override {
    const std::uint64_t available = available_memory_bytes();
    return available > 0 ? available / 2 : std::uint64_t{8} << 30;
  }

 private:
  static constexpr std::uint32_t no_vertex = std::numeric_limits<std::uint32_t>::max();

  residual_view view() const {
    WF_EXPECTS(residual_ != nullptr, "mrr_store", "begin_round must come first");
    return residual_->view();
  }

  void ensure_scratch() {
    if (scratch_.size() != static_cast<std::size_t>(threads_)) {
      scratch_.clear();
      for (int t = 0; t < threads_; ++t) scratch_.emplace_back(graph_->num_vertices);
    }
  }

  void recount_members() {
    std::uint64_t total = 0;
#pragma omp parallel for num_threads(threads_) reduction(+ : total)
    for (std::uint64_t s = 0; s < sets_.size(); ++s) total += sets_[s].size();
    members_ = total;
    stats_.peak_bytes = std::max(stats_.peak_bytes, members_ * sizeof(std::uint32_t) +
                                                        sets_.size() * (sizeof(std::vector<std::uint32_t>) + 1));
  }

  /// Best remaining vertex not in `taken` under selection_order (parallel reduction).
  std::uint32_t argmax(const residual_view& r, const std::vector<std::uint32_t>& taken) const {
    std::uint32_t best = no_vertex;
#pragma omp parallel num_threads(threads_)
    {
      std::uint32_t local = no_vertex;
#pragma omp for schedule(static) nowait
      for (std::uint32_t t = 0; t < r.num_remaining; ++t) {
        const std::uint32_t v = r.remaining[t];
        if (local != no_vertex &&
            !selection_before(scratch_cnt_[v], costs_[v], v, scratch_cnt_[local], costs_[local], local)) {
          continue;
        }
        if (std::find(taken.begin(), taken.end(), v) == taken.end()) local = v;  // the few taken: tested last
      }
#pragma omp critical
      if (local != no_vertex &&
          (best == no_vertex || selection_before(scratch_cnt_[local], costs_[local], local, scratch_cnt_[best], costs_[best], best))) {
        best = local;
      }
    }
    return best;
  }

  /// Discover (Alg. 3): flags the unflagged sets holding any of `vertices` and takes their
  /// members out of `cnt`.
  void discover_into(std::span<const std::uint32_t> vertices, std::vector<std::uint32_t>& cnt,
                     std::vector<std::uint8_t>& flags) {
    std::vector<std::uint8_t> in_batch;
    const bool use_mark = vertices.size() > 8;
    if (use_mark) {
      in_batch.assign(graph_->num_vertices, 0);
      for (const std::uint32_t v : vertices) in_batch[v] = 1;
    }
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_)
    for (std::uint64_t s = 0; s < sets_.size(); ++s) {
      if (flags[s] != 0) continue;
      const auto& set = sets_[s];
      const bool hit =
          vertices.size() == 1
              ? std::any_of(set.begin(), set.end(), [&](std::uint32_t m) { return member_vertex(m) == vertices[0]; })
              : std::any_of(set.begin(), set.end(), [&](std::uint32_t m) {
                  const std::uint32_t v = member_vertex(m);
                  return use_mark ? in_batch[v] != 0 : std::find(vertices.begin(), vertices.end(), v) != vertices.end();
                });
      if (!hit) continue;
      flags[s] = 1;
      for (const std::uint32_t m : set) {
        std::atomic_ref<std::uint32_t>(cnt[member_vertex(m)]).fetch_sub(1, std::memory_order_relaxed);
      }
    }
  }

  const csr_graph* graph_;
  diffusion_model model_;
  std::span<const double> costs_;
  std::uint64_t seed_;
  int threads_;
  const ic_block_plan* ic_plan_;  // IC: the graph's live-edge rule; the residual graph only hides sources
  ic_block_plan own_plan_;        // when none was shared
  const residual_graph* residual_ = nullptr;
  double mean_roots_ = 1;
  std::uint32_t round_ = 1;
  std::vector<std::vector<std::uint32_t>> sets_;
  std::vector<std::uint8_t> flags_, scratch_flags_;
  std::vector<std::uint32_t> cnt_, scratch_cnt_;
  std::vector<detail::set_scratch> scratch_;
  std::uint64_t members_ = 0;
  mrr_store_stats stats_;
};

}  // namespace

std::unique_ptr<mrr_store> make_cpu_mrr_store(const csr_graph& graph, diffusion_model model,
                                              std::span<const double> costs, std::uint64_t seed, int threads,
                                              const ic_block_plan* ic_plan) {
  WF_EXPECTS(graph.num_vertices <= max_vertices, "-i", "MERIT's mRR-sets hold at most 2^31 - 1 vertices");
  return std::make_unique<cpu_mrr_store>(graph, model, costs, seed, threads, ic_plan);
}

}  // namespace wildfire::adaptive
