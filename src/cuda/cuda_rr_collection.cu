// The CUDA rr_collection: graph uploaded once, sets sampled by the warp or the fused traversal
// into the device store, greedy and coverage on the device (see cuda_rr_collection.hpp).
// Automatic traversal choice: LT walks have frontiers of at most the roots, so the warp path;
// under IC a pilot of warp-sampled sets measures the mean set size, and sets of at least
// fused_min_mean_size members (whose frontiers overlap enough to share edge reads) go fused,
// unless most in-edges belong to vertices of the IC block rule and the sets are smaller than
// fused_large_set_share of the vertices: those draw per (block, colour) on both paths, and only
// sets that large repay the fused traversal's edge masks (every block drawn once per colour).
// Sets too dense to keep flat (bitmap, streamed) go fused from that same share, whatever the
// block rule: its visited words are the bitmap's columns (no member lists, sort or scatter).
#include "cuda/cuda_rr_collection.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "cuda/bitmap_coverage.hpp"
#include "cuda/device_graph.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/fused_sampler.hpp"
#include "cuda/max_coverage.hpp"
#include "cuda/rr_batch.hpp"
#include "cuda/streamed_coverage.hpp"
#include "cuda/warp_sampler.hpp"

namespace wildfire::cuda {
namespace {

/// Sets staged per warp-sampler batch: each launch ends on its longest sets, and a quarter of the
/// launches spends a quarter of those tails (LJ-like IMM, H100: traversal 120.7 -> 116.5 ms
/// against batches of 2^20).
constexpr std::uint64_t warp_batch_samples = 1ULL << 22;
/// Requests of more sets than this reserve the store's room for all of them at once.
constexpr std::uint64_t reserve_ahead_min_sets = 1ULL << 20;
/// Most sets in one regenerated chunk of the streamed and bitmap representations.
constexpr std::uint64_t chunk_max_sets = 1ULL << 20;

class stream_owner {
 public:
  stream_owner() { WF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~stream_owner() { (void)cudaStreamDestroy(stream_); }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// n * T, the universe of (vertex, round) pairs, checked to fit 32-bit member ids.
std::uint32_t checked_universe(const csr_graph& graph, const sampling_params& params) {
  WF_EXPECTS(params.rounds >= 1, "--rounds", "rounds must be at least 1");
  const std::uint64_t universe = std::uint64_t{graph.num_vertices} * params.rounds;
  WF_EXPECTS(universe < (std::uint64_t{1} << 32), "--rounds", "rounds * n must stay below 2^32");
  return static_cast<std::uint32_t>(universe);
}

int select_device(int gpu_id) {
  int count = 0;
  WF_CUDA_CHECK(cudaGetDeviceCount(&count));
  WF_EXPECTS(gpu_id >= 0 && gpu_id < count, "--gpu", "no CUDA device with id " + std::to_string(gpu_id));
  WF_CUDA_CHECK(cudaSetDevice(gpu_id));
  return gpu_id;
}

class cuda_rr_collection final : public rr_collection {
 public:
  cuda_rr_collection(const backend_config& config, const csr_graph& graph, const sampling_params& params,
                     rr_representation representation)
      : device_(select_device(config.gpu_id)),
        params_(params),
        requested_(config.traversal),
        colours_(config.colours),
        budget_(config.memory_budget_bytes, stream_.get()),
        graph_(graph, budget_, stream_.get(), params.model == diffusion_model::ic),
        store_(budget_, set_order::as_sampled),
        selector_(checked_universe(graph, params), budget_, stream_.get()),
        representation_(representation),
        chunk_(budget_, set_order::sorted),
        residual_(budget_, set_order::sorted) {
    WF_EXPECTS(params.mean_roots >= 1.0, "mean_roots", "the mean number of roots must be at least 1");
    WF_EXPECTS(requested_ != traversal_kind::unfused, "--sampler",
               "the GPU traversals are warp and fused (unfused is the CPU's)");
    WF_EXPECTS(params.rounds == 1 || requested_ != traversal_kind::fused, "--sampler",
               "the fused GPU traversal samples single-round sets; multi-round families use --sampler warp or auto");
    if (requested_ == traversal_kind::fused) use_fused_ = true;
    if (requested_ == traversal_kind::warp) use_fused_ = false;
    // LT walks have frontiers of at most the roots; multi-round sets take the warp path.
    if (requested_ == traversal_kind::automatic && (params.model == diffusion_model::lt || params.rounds > 1)) {
      use_fused_ = false;
    }
    // Sampling is deferred to the next read (generate), so a bad colour count would otherwise
    // surface far from where it was given: check it here whenever the fused traversal may run
    // (forced, or still to be chosen by the pilot), as the CPU backend does in its constructor.
    WF_EXPECTS(!use_fused_.value_or(true) || fused_colours_supported(colours_), "--colours",
               "colours must be 8, 16 or a multiple of 32 between 32 and 1024, got " + std::to_string(colours_));
    WF_EXPECTS(params.rounds == 1 || representation_ == rr_representation::flat ||
                   representation_ == rr_representation::automatic,
               "representation", "the streamed and bitmap representations hold single-round sets");
    if (params.rounds > 1) representation_ = rr_representation::flat;
    if (representation_ == rr_representation::streamed) start_streaming();
    if (representation_ == rr_representation::bitmap) start_bitmap(dense_feed());
    const char* profile = std::getenv("WF_CUDA_PROFILE");
    print_profile_ = profile != nullptr && std::string(profile) == "1";
    set_profiling(print_profile_);
  }

  ~cuda_rr_collection() override {
    if (!print_profile_) return;
    try {
      print_profile();
    } catch (...) {  // a destructor reports nothing more
    }
  }
  cuda_rr_collection(const cuda_rr_collection&) = delete;
  cuda_rr_collection& operator=(const cuda_rr_collection&) = delete;

  void generate(std::uint64_t first_id, std::uint64_t count) override {
    ++profile_.generate_calls;
    if (count == 0) return;
    // Recorded now, sampled by the next call that reads the sets (flush).
    for (auto* list : {&ranges_, &pending_}) {
      if (!list->empty() && list->back().first + list->back().second == first_id) {
        list->back().second += count;
      } else {
        list->emplace_back(first_id, count);
      }
    }
    pending_sets_ += count;
  }

  std::uint64_t size() const override { return held_sets() + pending_sets_; }
  std::uint64_t num_members() const override {
    flush_const();
    if (held_ == rr_representation::bitmap) return bitmap_->num_members();
    return held_ == rr_representation::streamed ? stream_members_ : store_.num_members();
  }

  void clear() override {
    flush();  // the counters count every requested set
    selector_.drop_index();
    store_.clear();
    ranges_.clear();
    if (bitmap_) bitmap_->clear();
    if (held_ == rr_representation::streamed) {
      stream_sets_ = 0;
      stream_members_ = 0;
      WF_CUDA_CHECK(cudaMemsetAsync(stream_counts_.data(), 0, stream_counts_.bytes(), stream_.get()));
    }
    ++store_epoch_;
  }

  coverage_selection select(std::uint32_t k, bool with_upper_bound) override {
    flush();
    const auto start = std::chrono::steady_clock::now();
    ++profile_.select_calls;
    const double index_before = selector_.index_seconds();
    coverage_selection result;
    if (held_ == rr_representation::bitmap) {
      result = bitmap_->select(k, with_upper_bound);
    } else if (held_ == rr_representation::streamed) {
      result = streamed_select(k, with_upper_bound);
    } else {
      result = selector_.select(store_, store_epoch_, k, 1, with_upper_bound);
    }
    account_selection(start, index_before);
    return result;
  }

  coverage_selection select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                      std::uint32_t rounds) override {
    WF_EXPECTS(num_vertices == graph_.num_vertices(), "num_vertices", "does not match the collection's graph");
    WF_EXPECTS(rounds == params_.rounds, "--rounds",
               "the collection holds " + std::to_string(params_.rounds) + "-round sets, not " + std::to_string(rounds));
    flush();
    // Streamed and bitmap sets are single-round: equal to select (see rr_collection.hpp).
    if (held_ != rr_representation::flat) return select(k_per_round, false);
    const auto start = std::chrono::steady_clock::now();
    ++profile_.select_calls;
    const double index_before = selector_.index_seconds();
    coverage_selection result = selector_.select(store_, store_epoch_, k_per_round, rounds);
    account_selection(start, index_before);
    return result;
  }

  std::uint64_t coverage(std::span<const std::uint32_t> seeds) override {
    flush();
    if (held_ == rr_representation::bitmap) return bitmap_->coverage(seeds);
    if (held_ == rr_representation::flat) return selector_.coverage(store_, seeds);
    std::uint64_t covered = 0;
    for_each_chunk(0, stream_sets_, [&] { covered += selector_.coverage(chunk_, seeds); });
    chunk_.release();
    return covered;
  }

  rr_sets copy_sets(std::uint64_t first, std::uint64_t count) const override {
    flush_const();
    WF_EXPECTS(first + count <= size(), "count", "copy_sets asks for sets beyond those held");
    if (held_ == rr_representation::bitmap) return bitmap_->copy_sets(first, count);
    if (held_ == rr_representation::streamed) {
      // Regeneration writes only scratch storage: the held sets, as observed, do not change.
      return const_cast<cuda_rr_collection*>(this)->regenerate_copy(first, count);
    }
    rr_sets out;
    out.offsets.resize(count + 1);
    WF_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), store_.offsets() + first, (count + 1) * sizeof(std::uint64_t),
                                  cudaMemcpyDeviceToHost, stream_.get()));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    const std::uint64_t base = out.offsets.front();
    out.members.resize(out.offsets.back() - base);
    if (!out.members.empty()) {
      WF_CUDA_CHECK(cudaMemcpyAsync(out.members.data(), store_.members() + base, out.members.size() * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream_.get()));
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    }
    for (auto& o : out.offsets) o -= base;
    // The canonical form every backend compares in (the flat store keeps the sampler's order).
    std::uint32_t* members = out.members.data();
    for (std::uint64_t s = 0; s < count; ++s) std::sort(members + out.offsets[s], members + out.offsets[s + 1]);
    return out;
  }

  collection_stats stats() const override {
    flush_const();
    collection_stats s;
    s.sets_generated = sets_generated();
    s.members_generated = members_generated_;
    s.edges_examined = (warp_ ? warp_->edges_examined() : 0) + (fused_ ? fused_->edges_examined() : 0);
    s.sampling_seconds = sampling_seconds_;
    s.selection_seconds = selection_seconds_;
    s.peak_bytes = budget_.peak_bytes();
    s.representation = representation_name(held_);
    if (warp_ && fused_) {
      s.traversal = "warp+fused";
    } else if (fused_) {
      s.traversal = "fused";
    } else {
      s.traversal = "warp";
    }
    return s;
  }

 public:
  cuda_collection_profile profile() const {
    cuda_collection_profile p = profile_;
    p.index_segments = selector_.segments_built();
    p.index_rebuilds = selector_.full_rebuilds();
    p.members_indexed = selector_.members_indexed();
    p.candidate_selects = selector_.candidate_selects();
    p.candidate_fallbacks = selector_.candidate_fallbacks();
    p.small_sets = warp_ ? warp_->small_sets() : 0;
    p.small_deferred = warp_ ? warp_->small_deferred() : 0;
    p.warp_expansions = warp_ ? warp_->expansions() : 0;
    p.warp_expanded = warp_ ? warp_->expanded() : 0;
    p.warp_retries = warp_ ? warp_->retries() : 0;
    p.index_seconds = selector_.index_seconds();
    p.fused_levels = fused_ ? fused_->profile().levels : 0;
    p.fused_batches = fused_ ? fused_->profile().traversals : 0;
    p.fused_mask_batches = fused_ ? fused_->profile().mask_batches : 0;
    p.fused_chunked_batches = fused_ ? fused_->profile().chunked_batches : 0;
    p.fused_drawn_ahead_batches = fused_ ? fused_->profile().drawn_ahead_batches : 0;
    p.fused_early_slots = fused_ ? fused_->profile().early_slots : 0;
    p.fused_pulled_levels = fused_ ? fused_->profile().pulled_levels : 0;
    p.fused_touched_levels = fused_ ? fused_->profile().touched_levels : 0;
    p.profiling = profiling_;
    return p;
  }
  void set_profiling(bool on) {
    profiling_ = on;
    selector_.set_profiling(on);
    if (fused_) fused_->set_profiling(on);
  }

 private:
  /// Samples the requested ids not sampled yet, range by range in request order.
  void flush() {
    if (pending_.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    ++profile_.sample_flushes;
    const auto work = std::move(pending_);
    pending_.clear();
    pending_sets_ = 0;
    for (const auto& [first_id, count] : work) sample_range(first_id, count);
    sampling_seconds_ += seconds_since(start);
    if (print_profile_) print_profile("wf-cuda-profile (so far):");  // a killed run still shows it
  }
  /// flush() for the const readers: sampling what was requested does not change the held sets
  /// as observed through the interface (size() already counts them).
  void flush_const() const { const_cast<cuda_rr_collection*>(this)->flush(); }

  void sample_range(std::uint64_t first_id, std::uint64_t count) {
    if (held_ == rr_representation::flat) {
      // A pilot of warp-sampled sets, kept, decides the traversal (sample_into) and, under the
      // automatic representation, gives the mean set size the choice below needs.
      const bool choose = representation_ == rr_representation::automatic && sets_generated_ == 0;
      if ((!use_fused_.has_value() || choose) && count > 0) {
        const std::uint64_t pilot = std::min(count, pilot_samples);
        sample_into(store_, first_id, pilot);
        first_id += pilot;
        count -= pilot;
      }
      if (representation_ == rr_representation::automatic && count > 0) leave_flat_if_needed(count);
    }
    // The bitmap, chosen on the sets so far, may not hold a later request (IMM's theta grows by
    // phases: topcats-like at p = 0.05 needs 110 GB of bitmap, more than an H100 has): the held
    // sets then go over to the streamed representation.
    if (held_ == rr_representation::bitmap && representation_ == rr_representation::automatic && count > 0 &&
        !budget_.fits(bitmap_->bytes_to_reserve(count))) {
      start_streaming_from_bitmap();
    }
    switch (held_) {
      case rr_representation::streamed:
        stream_generate(first_id, count);
        break;
      case rr_representation::bitmap:
        bitmap_generate(first_id, count);
        break;
      default:
        sample_into(store_, first_id, count);
    }
  }

  std::uint64_t held_sets() const noexcept {
    switch (held_) {
      case rr_representation::streamed:
        return stream_sets_;
      case rr_representation::bitmap:
        return bitmap_->num_sets();
      default:
        return store_.num_sets();
    }
  }

  static const char* representation_name(rr_representation r) noexcept {
    switch (r) {
      case rr_representation::streamed:
        return "streamed";
      case rr_representation::bitmap:
        return "bitmap";
      default:
        return "flat";
    }
  }

  /// Automatic representation, before `count` more sets: the bitmap once the mean set holds at
  /// least n / 64 vertices (8n bytes per 64 sets against 8 bytes per member for the flat store and
  /// its index) or flat would not fit, provided the bitmap of every set fits; streamed when flat
  /// would not fit and the bitmap would not either.
  void leave_flat_if_needed(std::uint64_t count) {
    const bool overflow = flat_would_overflow(count);
    const bool dense = mean_set_size() * 64.0 >= static_cast<double>(graph_.num_vertices());
    if (!overflow && !dense) return;
    const std::optional<bool> fused_feed = dense_feed();  // its memory first: the bitmap takes what is left
    // The held sets move over while the store still holds them; the store's room then frees.
    const std::uint32_t n = graph_.num_vertices();
    if (rr_bitmap::bytes_for(n, store_.num_sets()) <= budget_.available_bytes() &&
        rr_bitmap::bytes_for(n, store_.num_sets() + count) <= budget_.available_bytes() + store_.bytes()) {
      start_bitmap(fused_feed);
      return;
    }
    if (!overflow) {
      if (!use_fused_.value_or(false)) fused_.reset();  // made for the bitmap only
      return;
    }
    settle_dense_feed(fused_feed);
    start_streaming();
  }

  /// Whether the fused traversal (made here) feeds dense sets (bitmap, streamed chunks): when it
  /// is forced; under the automatic choice with IC, when the mean set so far reaches
  /// fused_large_set_share of the vertices and its sampler fits the budget (nullopt before any
  /// set: bitmap_generate settles it after a pilot).
  std::optional<bool> dense_feed() {
    if (requested_ == traversal_kind::fused) {
      ensure_fused();
      return true;
    }
    if (requested_ != traversal_kind::automatic || params_.model != diffusion_model::ic) return false;
    if (sets_generated_ == 0) return std::nullopt;
    if (mean_set_size() < fused_large_set_share * static_cast<double>(graph_.num_vertices())) return false;
    try {
      ensure_fused();
    } catch (const resource_error&) {
      return false;  // the warp path feeds them instead
    }
    return true;
  }

  /// The traversal of the dense sets from here on; a fused sampler they do not use frees its memory.
  void settle_dense_feed(std::optional<bool> fused_feed) {
    use_fused_ = fused_feed;
    if (!fused_feed.value_or(true)) fused_.reset();
  }

  void ensure_fused() {
    if (!fused_) {
      fused_ = std::make_unique<fused_sampler>(graph_.view(), graph_.blocks(), params_, colours_, budget_, stream_.get());
      fused_->set_profiling(profiling_);
    }
  }

  /// WF_CUDA_PROFILE=1: where sampling and selection went, to stderr, every line starting with
  /// `prefix` for scripts to grep ("wf-cuda-profile:" at the end, "(so far)" after each flush).
  void print_profile(const char* prefix = "wf-cuda-profile:") const {
    const cuda_collection_profile p = profile();
    std::fprintf(stderr, "%s sampling %.3f s (%llu flushes), selection %.3f s (greedy %.3f, index %.3f), "
                 "representation %s, peak %.2f GB\n",
                 prefix, sampling_seconds_, static_cast<unsigned long long>(p.sample_flushes), selection_seconds_,
                 p.greedy_seconds, p.index_seconds, representation_name(held_),
                 static_cast<double>(budget_.peak_bytes()) / 1e9);
    std::fprintf(stderr, "%s warp path %llu sets, %.3f s; fused path %llu sets, %.3f s; store %.3f s\n", prefix,
                 static_cast<unsigned long long>(p.warp_sets), p.warp_seconds,
                 static_cast<unsigned long long>(p.fused_sets), p.fused_seconds, p.store_seconds);
    if (!fused_) return;
    const fused_profile& f = fused_->profile();
    const double slots = static_cast<double>(f.light_slots + f.heavy_slots);
    std::fprintf(stderr, "%s fused %u colours x %u groups per batch, %llu batches, %llu levels with work, %llu "
                 "pulled, %llu settled by touched regions (deepest batch %llu; %llu launched, %llu polls)\n",
                 prefix, colours_, fused_->max_groups(), static_cast<unsigned long long>(f.traversals),
                 static_cast<unsigned long long>(f.levels), static_cast<unsigned long long>(f.pulled_levels),
                 static_cast<unsigned long long>(f.touched_levels),
                 static_cast<unsigned long long>(f.max_levels),
                 static_cast<unsigned long long>(f.levels_launched), static_cast<unsigned long long>(f.polls));
    std::fprintf(stderr, "%s fused slots expanded light %.4g heavy %.4g (%.4g took colours early), items %.4g, "
                 "edges examined %.4g, colours per expanded slot %.2f, items per slot %.2f\n",
                 prefix, static_cast<double>(f.light_slots), static_cast<double>(f.heavy_slots),
                 static_cast<double>(f.early_slots),
                 static_cast<double>(f.items), static_cast<double>(fused_->edges_examined()),
                 slots > 0 ? static_cast<double>(fused_members_) / slots : 0.0,
                 slots > 0 ? static_cast<double>(f.items) / slots : 0.0);
    std::fprintf(stderr, "%s fused kernels (cudaEvent, profiling %s): setup %.3f s, edge masks %.3f s (%llu of the "
                 "batches, %llu by chunks, %llu drawn ahead), light %.3f s, heavy %.3f s, extract %.3f s\n",
                 prefix, profiling_ ? "on" : "off", f.setup_ms / 1e3, f.masks_ms / 1e3,
                 static_cast<unsigned long long>(f.mask_batches), static_cast<unsigned long long>(f.chunked_batches),
                 static_cast<unsigned long long>(f.drawn_ahead_batches), f.light_ms / 1e3, f.heavy_ms / 1e3,
                 f.extract_ms / 1e3);
  }


  /// Switches to the bitmap: the flat sets held so far move into it, in order, and their storage
  /// is freed. `fused_feed`: whether later sets come from the fused traversal (dense_feed).
  void start_bitmap(std::optional<bool> fused_feed) {
    settle_dense_feed(fused_feed);
    selector_.drop_index();
    bitmap_ = std::make_unique<rr_bitmap>(graph_.num_vertices(), budget_, stream_.get());
    bitmap_->append(store_);
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    store_.release();
    held_ = rr_representation::bitmap;
  }

  /// Samples ids [first_id, first_id + count) into the bitmap: the fused traversal ORs its words
  /// in; the warp path goes through chunk_ (flat) and scatters each chunk.
  void bitmap_generate(std::uint64_t first_id, std::uint64_t count) {
    if (count == 0) return;
    if (!use_fused_.has_value()) {
      // A bitmap asked for before any set: a pilot of warp-sampled sets (kept) settles the feed.
      const std::uint64_t pilot = std::min(count, pilot_samples);
      chunk_.clear();
      sample_warp(chunk_, first_id, pilot);
      bitmap_->append(chunk_);
      settle_dense_feed(dense_feed());
      first_id += pilot;
      count -= pilot;
    }
    if (use_fused_.value_or(false)) ensure_fused();  // before the bitmap takes the rest
    bitmap_->reserve(count);
    if (use_fused_.value_or(false)) {
      sample_into(*bitmap_, first_id, count);
      return;
    }
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t chunk = std::min(count - done, sets_generated_ == 0 ? pilot_samples : chunk_sets());
      chunk_.clear();
      sample_into(chunk_, first_id + done, chunk);
      bitmap_->append(chunk_);
      done += chunk;
    }
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    chunk_.release();
  }

  void account_selection(std::chrono::steady_clock::time_point start, double index_before) {
    const double seconds = seconds_since(start);
    const double index = selector_.index_seconds() - index_before;
    selection_seconds_ += seconds;
    profile_.greedy_seconds += std::max(0.0, seconds - index);
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::uint64_t sets_generated() const noexcept { return sets_generated_; }

  /// Samples ids [first_id, first_id + count) into `target` with the traversal in use (deciding
  /// it by a pilot of warp-sampled sets, kept, on the first call); counts them as generated. A
  /// bitmap target takes the fused traversal (bitmap_generate decides).
  template <class Target>
  void sample_into(Target& target, std::uint64_t first_id, std::uint64_t count) {
    if (count == 0) return;
    if constexpr (std::is_same_v<Target, rr_store>) {
      if (!use_fused_.has_value()) {
        // Pilot: the first sets of the request, sampled by the warp path (kept: they are canonical).
        const std::uint64_t pilot = std::min(count, pilot_samples);
        const std::uint64_t before = target.num_members();
        sample_warp(target, first_id, pilot);
        const double mean = static_cast<double>(target.num_members() - before) / static_cast<double>(pilot);
        use_fused_ = mean >= fused_min_mean_size &&
                     (graph_.block_edge_share() < warp_min_block_edge_share ||
                      mean >= fused_large_set_share * static_cast<double>(graph_.num_vertices()));
        first_id += pilot;
        count -= pilot;
      }
      if (count == 0) return;
      if (!*use_fused_) {
        sample_warp(target, first_id, count);
        return;
      }
    }
    ensure_fused();
    const std::uint64_t before = target.num_members();
    const auto start = std::chrono::steady_clock::now();
    if (sets_generated_ > 0) fused_->set_expected_set_size(mean_set_size());
    fused_->sample(first_id, count, target);
    if (profiling_) WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    const double seconds = seconds_since(start);
    profile_.traversal_seconds += seconds;
    profile_.fused_seconds += seconds;
    profile_.fused_sets += count;
    ++profile_.sample_batches;
    fused_members_ += target.num_members() - before;
    members_generated_ += target.num_members() - before;
    sets_generated_ += count;
  }

  double mean_set_size() const noexcept {
    return sets_generated_ == 0 ? 8.0 : static_cast<double>(members_generated_) / static_cast<double>(sets_generated_);
  }

  /// True when `count` more sets of the mean size so far would not fit flat: members, their
  /// vertex-to-sets index (the same size) and half again for the store's geometric growth, plus
  /// the offsets of the index's segments at their most.
  bool flat_would_overflow(std::uint64_t count) const noexcept {
    const double members = static_cast<double>(store_.num_members()) + mean_set_size() * static_cast<double>(count);
    const double segment_offsets = static_cast<double>(device_max_coverage::max_index_segments) *
                                   (static_cast<double>(graph_.num_vertices()) + 1.0) * sizeof(std::uint64_t);
    const double needed = members * sizeof(std::uint32_t) * 2.5 + static_cast<double>(store_.num_sets() + count) * 9.0 +
                          segment_offsets;
    return needed > static_cast<double>(budget_.available_bytes() + store_.bytes());
  }

  /// Switches to the streamed representation: the sets held so far are folded into the counts
  /// and their storage freed (their ids stay in ranges_).
  void start_streaming() {
    open_stream_counts();
    WF_CUDA_CHECK(cudaMemsetAsync(stream_counts_.data(), 0, stream_counts_.bytes(), stream_.get()));
    streamer_->add_counts(store_, stream_counts_.data());
    stream_sets_ = store_.num_sets();
    stream_members_ = store_.num_members();
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    selector_.drop_index();
    store_.release();
    held_ = rr_representation::streamed;
  }

  /// Switches from the bitmap to the streamed representation: the held sets' counts are the
  /// bitmap's column popcounts, and its memory is freed (their ids stay in ranges_).
  void start_streaming_from_bitmap() {
    open_stream_counts();
    bitmap_->count_sets(stream_counts_.data());
    stream_sets_ = bitmap_->num_sets();
    stream_members_ = bitmap_->num_members();
    bitmap_.reset();  // freed in stream order, after the count
    held_ = rr_representation::streamed;
  }

  void open_stream_counts() {
    streamer_ = std::make_unique<streamed_coverage>(graph_.num_vertices(), budget_, stream_.get());
    stream_counts_ = device_buffer<std::uint32_t>(budget_, std::max<std::uint32_t>(graph_.num_vertices(), 1),
                                                  "streamed coverage counts");
  }

  /// Sets per regenerated chunk: about a sixth of the free budget, at least one set.
  std::uint64_t chunk_sets() const noexcept {
    const double room = static_cast<double>(budget_.available_bytes() + chunk_.bytes()) / 6.0 / sizeof(std::uint32_t);
    const double sets = room / (1.5 * mean_set_size());
    return static_cast<std::uint64_t>(std::clamp(sets, 1.0, static_cast<double>(chunk_max_sets)));
  }

  void stream_generate(std::uint64_t first_id, std::uint64_t count) {
    for (std::uint64_t done = 0; done < count;) {
      const std::uint64_t chunk = std::min(count - done, sets_generated_ == 0 ? pilot_samples : chunk_sets());
      chunk_.clear();
      sample_into(chunk_, first_id + done, chunk);
      streamer_->add_counts(chunk_, stream_counts_.data());
      stream_sets_ += chunk;
      stream_members_ += chunk_.num_members();
      done += chunk;
    }
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    chunk_.release();
  }

  /// Regenerates held sets [first, first + count) chunk by chunk into chunk_ (not counted as
  /// generated) and calls `visit` after each chunk.
  template <class Visit>
  void for_each_chunk(std::uint64_t first, std::uint64_t count, Visit&& visit) {
    const std::uint64_t saved_sets = sets_generated_;
    const std::uint64_t saved_members = members_generated_;
    std::uint64_t index = 0;  // held-set index where the current range starts
    for (const auto& [range_first, range_count] : ranges_) {
      const std::uint64_t lo = std::max(first, index);
      const std::uint64_t hi = std::min(first + count, index + range_count);
      for (std::uint64_t at = lo; at < hi;) {
        const std::uint64_t chunk = std::min(hi - at, chunk_sets());
        chunk_.clear();
        sample_into(chunk_, range_first + (at - index), chunk);
        visit();
        at += chunk;
      }
      index += range_count;
      if (index >= first + count) break;
    }
    sets_generated_ = saved_sets;
    members_generated_ = saved_members;
  }

  rr_sets regenerate_copy(std::uint64_t first, std::uint64_t count) {
    rr_sets out;
    out.offsets.assign(1, 0);
    for_each_chunk(first, count, [&] {
      const std::uint64_t sets = chunk_.num_sets();
      std::vector<std::uint64_t> offsets(sets + 1);
      std::vector<std::uint32_t> members(chunk_.num_members());
      WF_CUDA_CHECK(cudaMemcpyAsync(offsets.data(), chunk_.offsets(), offsets.size() * sizeof(std::uint64_t),
                                    cudaMemcpyDeviceToHost, stream_.get()));
      if (!members.empty()) {
        WF_CUDA_CHECK(cudaMemcpyAsync(members.data(), chunk_.members(), members.size() * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, stream_.get()));
      }
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      const std::uint64_t base = out.members.size();
      for (std::uint64_t i = 1; i <= sets; ++i) out.offsets.push_back(base + offsets[i]);
      out.members.insert(out.members.end(), members.begin(), members.end());
    });
    chunk_.release();
    return out;
  }

  /// Greedy over the streamed sets: seed 1 from the counts; one regeneration pass keeps the sets
  /// it leaves uncovered (residual_); the flat greedy on those, with seed 1 preselected, gives
  /// steps 2..k. Equal to the flat greedy (streamed_coverage.hpp).
  coverage_selection streamed_select(std::uint32_t k, bool with_upper_bound) {
    WF_EXPECTS(k >= 1, "-k", "k must be at least 1");
    WF_EXPECTS(stream_sets_ < std::numeric_limits<std::uint32_t>::max(), "theta",
               "at most 2^32 - 2 RR sets can be selected over");
    const std::uint32_t first_seed = streamer_->argmax(stream_counts_.data());
    const std::uint64_t first_top =
        with_upper_bound ? streamer_->top_sum(stream_counts_.data(), k, stream_sets_) : stream_sets_;
    selector_.drop_index();
    residual_.clear();
    std::uint64_t first_gain = 0;
    for_each_chunk(0, stream_sets_, [&] { first_gain += streamer_->split(chunk_, first_seed, residual_); });
    chunk_.release();
    const std::uint32_t pre[1] = {first_seed};
    const coverage_selection rest =
        selector_.select(residual_, ++residual_version_ | (std::uint64_t{1} << 63), k, 1, with_upper_bound, pre);
    selector_.drop_index();
    residual_.release();
    coverage_selection result;
    result.seeds.push_back(first_seed);
    result.marginal_coverage.push_back(first_gain);
    result.seeds.insert(result.seeds.end(), rest.seeds.begin(), rest.seeds.end());
    result.marginal_coverage.insert(result.marginal_coverage.end(), rest.marginal_coverage.begin(),
                                    rest.marginal_coverage.end());
    result.covered = first_gain + rest.covered;
    result.optimum_upper_bound =
        with_upper_bound ? std::min({first_top, first_gain + rest.optimum_upper_bound, stream_sets_}) : stream_sets_;
    return result;
  }

  void sample_warp(rr_store& target, std::uint64_t first_id, std::uint64_t count) {
    if (!warp_) warp_ = std::make_unique<warp_sampler>(graph_.view(), graph_.blocks(), params_, budget_, stream_.get());
    if (sets_generated_ > 0 && count > reserve_ahead_min_sets) {
      // Room for the whole request at the mean set so far (a tenth more, and the last batch's
      // arena, the bound its layout reserves), once: an IMM phase appends millions of sets in
      // batches of warp_batch_samples, and the store used to grow by half, with a copy of every
      // member held, batch after batch.
      const std::uint64_t arena = warp_->arena_entries(std::min(count, warp_batch_samples), mean_set_size());
      target.reserve_ahead(count, static_cast<std::uint64_t>(1.1 * mean_set_size() * static_cast<double>(count)) + arena,
                           stream_.get());
    }
    for (std::uint64_t done = 0; done < count;) {
      // The first sets of a collection size the warps' room for the rest: sampled alone, so a
      // deferred request of a million large sets (LT on big graphs) does not go out with the
      // default guess and take the overflow path, sampling most sets twice.
      const std::uint64_t batch = std::min(sets_generated_ == 0 ? pilot_samples : warp_batch_samples, count - done);
      const double expected = mean_set_size();
      const std::uint64_t before = target.num_members();
      const auto start = std::chrono::steady_clock::now();
      warp_->launch_batch(first_id + done, batch, expected, staging_);
      // The layout in the store goes out behind the traversal, before the batch's one host
      // synchronisation: every set the sampler could not finish has size 0 there, so the layout
      // stays in bounds, and settle_batch says when it must be redone (a set redone after a full
      // arena or a warp's room outgrown). Not when profiling (the two are timed apart) or where
      // the store would have to grow beyond the batch's need for the arena's bound.
      const bool ahead = !profiling_ && target.order() == set_order::as_sampled &&
                         target.can_reserve(batch, staging_.arena.size());
      if (ahead) target.lay_out_staged(staging_, staging_.arena.size(), stream_.get());
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      const bool redone = warp_->settle_batch(staging_);
      const auto sampled = std::chrono::steady_clock::now();
      if (ahead && !redone) {
        target.commit_staged(stream_.get());
      } else {
        target.append_staged(staging_, stream_.get());
      }
      if (profiling_) WF_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      profile_.traversal_seconds += std::chrono::duration<double>(sampled - start).count();
      profile_.warp_seconds += std::chrono::duration<double>(sampled - start).count();
      profile_.warp_sets += batch;
      profile_.store_seconds += seconds_since(sampled);
      ++profile_.sample_batches;
      members_generated_ += target.num_members() - before;
      sets_generated_ += batch;
      done += batch;
    }
  }

  int device_;
  sampling_params params_;
  traversal_kind requested_;
  std::uint32_t colours_;
  stream_owner stream_;
  memory_budget budget_;
  device_graph graph_;
  rr_store store_;
  device_max_coverage selector_;
  rr_representation representation_;
  rr_representation held_ = rr_representation::flat;  // how the sets are held now
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // (first id, count) of the held sets
  std::unique_ptr<streamed_coverage> streamer_;
  std::unique_ptr<rr_bitmap> bitmap_;           // bitmap: the held sets
  device_buffer<std::uint32_t> stream_counts_;  // streamed: sets holding each vertex
  rr_store chunk_;                               // streamed: regenerated sets, one chunk at a time
  rr_store residual_;                            // streamed: sets the first seed leaves uncovered
  std::uint64_t stream_sets_ = 0;
  std::uint64_t stream_members_ = 0;
  std::uint64_t residual_version_ = 0;
  rr_staging staging_;
  std::unique_ptr<warp_sampler> warp_;
  std::unique_ptr<fused_sampler> fused_;
  std::optional<bool> use_fused_;
  std::uint64_t store_epoch_ = 0;                // changes when store_'s sets change other than by appends
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pending_;  // (first id, count) requested, not sampled
  std::uint64_t pending_sets_ = 0;
  cuda_collection_profile profile_;
  bool profiling_ = false;
  bool print_profile_ = false;        // WF_CUDA_PROFILE=1: print the profile at destruction
  std::uint64_t fused_members_ = 0;   // members the fused traversal added
  std::uint64_t sets_generated_ = 0;
  std::uint64_t members_generated_ = 0;
  double sampling_seconds_ = 0;
  double selection_seconds_ = 0;
};

}  // namespace

std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params) {
  return std::make_unique<cuda_rr_collection>(config, graph, params, rr_representation::automatic);
}

std::unique_ptr<rr_collection> make_cuda_rr_collection(const backend_config& config, const csr_graph& graph,
                                                       const sampling_params& params, rr_representation representation) {
  return std::make_unique<cuda_rr_collection>(config, graph, params, representation);
}

cuda_collection_profile profile_of(const rr_collection& collection) {
  const auto* cuda = dynamic_cast<const cuda_rr_collection*>(&collection);
  WF_EXPECTS(cuda != nullptr, "collection", "not a CUDA rr_collection");
  return cuda->profile();
}

void set_profiling(rr_collection& collection, bool on) {
  auto* cuda = dynamic_cast<cuda_rr_collection*>(&collection);
  WF_EXPECTS(cuda != nullptr, "collection", "not a CUDA rr_collection");
  cuda->set_profiling(on);
}

}  // namespace wildfire::cuda
