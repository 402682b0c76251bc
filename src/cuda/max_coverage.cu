// Greedy maximum coverage on the GPU (see max_coverage.hpp).
#include "cuda/max_coverage.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/greedy_steps.hpp"
#include "cuda/max_coverage_kernels.cuh"
#include "cuda/resident_grid.hpp"
#include "cuda/top_k_sort_sum.hpp"

namespace wildfire::cuda {
namespace {

unsigned blocks_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::cover_block_threads - 1) / kernels::cover_block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 16));
}

struct plus_u64 {
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a + b; }
};

/// Members of a new index segment from which it is built by a radix sort instead of the atomic
/// scatter: below, the cursors and lists stay in L2 and the scatter is cheaper than a sort's
/// passes; above, one random atomic and one random write per member cost more than streaming
/// the pairs a few times (LJ-like's 455M members, H100: 62 ms by the scatter, 27 by the sort).
/// WF_INDEX_SORT_MIN_MEMBERS overrides it (tests take either path on small inputs).
constexpr std::uint64_t default_sort_min_members = 1ULL << 25;

std::uint64_t sort_min_members_from_environment() {
  const char* text = std::getenv("WF_INDEX_SORT_MIN_MEMBERS");
  return text != nullptr ? std::strtoull(text, nullptr, 10) : default_sort_min_members;
}

/// The greedy keeps exact counts for this many candidates (greedy_candidates.hpp) on universes of
/// at least default_candidate_universe elements (below, scanning every count costs little).
/// LJ-like's IMM (k = 50) needs 5,746 of them. WF_GREEDY_CANDIDATES=T sets T for every universe
/// larger than T (the tests take candidates on small graphs); 0 turns candidates off.
constexpr std::uint32_t default_candidates = 8192;
constexpr std::uint32_t default_candidate_universe = 1U << 18;

/// WF_COVER_CHUNKS=1 or 0 makes every cover step deal the members of large sets in chunks, or
/// none (the tests take both paths on small graphs); unset, collections with a mean set of at
/// least kernels::chunked_mean_set members take chunks.
int cover_chunks_from_environment() {
  const char* text = std::getenv("WF_COVER_CHUNKS");
  return text == nullptr ? -1 : std::atoi(text) != 0;
}

/// Blocks per multiprocessor of greedy_persistent: enough warps for a step's lists, and a cheap
/// grid barrier. WF_GREEDY_PERSISTENT=N sets N; 0 keeps a launch per greedy step (the tests take
/// both; A/B runs compare them).
constexpr unsigned default_persistent_blocks_per_sm = 2;

unsigned persistent_blocks_from_environment() {
  const char* text = std::getenv("WF_GREEDY_PERSISTENT");
  return text == nullptr ? default_persistent_blocks_per_sm : static_cast<unsigned>(std::max(std::atoi(text), 0));
}

std::uint32_t candidate_limit_from_environment(std::uint32_t universe) {
  if (const char* text = std::getenv("WF_GREEDY_CANDIDATES"); text != nullptr) {
    return static_cast<std::uint32_t>(std::min<unsigned long long>(std::strtoull(text, nullptr, 10), universe));
  }
  return universe >= default_candidate_universe ? default_candidates : 0;
}

}  // namespace

device_max_coverage::device_max_coverage(std::uint32_t num_vertices, memory_budget& budget, cudaStream_t stream)
    : n_(num_vertices),
      budget_(&budget),
      stream_(stream),
      candidate_limit_(candidate_limit_from_environment(num_vertices)),
      cover_chunks_(cover_chunks_from_environment()),
      sort_min_members_(sort_min_members_from_environment()) {
  cover_grid_ = multiprocessor_count() * 8;
  if (const unsigned per_sm = persistent_blocks_from_environment(); per_sm > 0) {
    persistent_grid_ = std::min(resident_grid(kernels::greedy_persistent, kernels::cover_block_threads),
                                multiprocessor_count() * per_sm);
  }
  const std::uint64_t n = std::max<std::uint32_t>(num_vertices, 1);
  base_counts_ = device_buffer<std::uint32_t>(budget, n, "coverage counts");
  counts_ = device_buffer<std::uint32_t>(budget, n, "coverage counts (working)");
  sorted_counts_ = device_buffer<std::uint32_t>(budget, n, "sorted coverage counts");
  flags_ = device_buffer<std::uint8_t>(budget, n, "vertex flags");
}

void device_max_coverage::drop_index() noexcept {
  release_index_lists();
  covered_.reset();
  set_ids_.reset();
  counted_epoch_ = ~0ULL;
  counted_sets_ = 0;
  counted_members_ = 0;
  labeled_sets_ = 0;
  labeled_members_ = 0;
}

void device_max_coverage::release_index_lists() noexcept {
  if (segments_.empty()) return;
  segments_.clear();  // freed in stream order, after the kernels that read them
  // Stale from here: the next select with the index rebuilds it and its counts from scratch.
  index_epoch_ = ~0ULL;
  indexed_sets_ = 0;
  indexed_members_ = 0;
}

void device_max_coverage::count_new_members(const rr_store& store, std::uint64_t store_epoch) {
  const bool same = counted_epoch_ == store_epoch && store.num_sets() >= counted_sets_ &&
                    store.num_members() >= counted_members_;
  if (!same) {
    WF_CUDA_CHECK(cudaMemsetAsync(base_counts_.data(), 0, base_counts_.bytes(), stream_));
    counted_sets_ = 0;
    counted_members_ = 0;
    labeled_sets_ = 0;
    labeled_members_ = 0;
  }
  const std::uint64_t members = store.num_members() - counted_members_;
  if (members > 0) {
    kernels::count_members<<<blocks_for(members), kernels::cover_block_threads, 0, stream_>>>(
        store.members() + counted_members_, members, base_counts_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  counted_epoch_ = store_epoch;
  counted_sets_ = store.num_sets();
  counted_members_ = store.num_members();
}

bool device_max_coverage::prepare_candidates(const rr_store& store, std::uint64_t store_epoch) {
  release_index_lists();  // the index would not follow the appends: free its room
  count_new_members(store, store_epoch);
  // Both sized by the store's room, so that they grow when it does, not at every select.
  grow_buffer(covered_, *budget_, std::max<std::uint64_t>(store.set_capacity(), 1), 0, stream_, "covered flags");
  const std::uint64_t members = store.num_members();
  if (members > set_ids_.size()) {
    const std::uint64_t room = std::max(members, store.member_capacity());
    if (!budget_->fits(room * sizeof(std::uint32_t))) return false;
    grow_buffer(set_ids_, *budget_, room, labeled_members_, stream_, "set of each member");
  }
  // Only the sets appended since the last select (positions are absolute: first_member 0).
  if (store.num_sets() > labeled_sets_) {
    const std::uint64_t sets = store.num_sets() - labeled_sets_;
    kernels::label_members<<<blocks_for(sets * 32), kernels::cover_block_threads, 0, stream_>>>(
        store.offsets(), labeled_sets_, sets, 0, set_ids_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  labeled_sets_ = store.num_sets();
  labeled_members_ = members;
  if (!candidates_) candidates_ = std::make_unique<greedy_candidates>(n_, *budget_, stream_);
  return candidates_->build(base_counts_.data(), store.num_sets(), candidate_limit_, store.members(), set_ids_.data(),
                            members);
}

void device_max_coverage::update_index(const rr_store& store, std::uint64_t store_epoch) {
  static_assert(max_index_segments == kernels::max_segments, "the kernels' segment table has max_index_segments");
  const bool same = index_epoch_ == store_epoch && store.num_sets() >= indexed_sets_ &&
                    store.num_members() >= indexed_members_;
  if (same && store.num_sets() == indexed_sets_) return;
  if (!same || segments_.size() >= max_index_segments) {
    // Free the old lists first (in stream order): the rebuilt index needs their room.
    if (!segments_.empty()) ++full_rebuilds_;
    drop_index();
  }
  index_epoch_ = store_epoch;
  grow_buffer(covered_, *budget_, std::max<std::uint64_t>(store.num_sets(), 1), 0, stream_, "covered flags");
  if (indexed_sets_ == 0) WF_CUDA_CHECK(cudaMemsetAsync(base_counts_.data(), 0, base_counts_.bytes(), stream_));
  add_segment(store);
  // The segments' counts add up to base_counts_: a select over candidates goes on from here.
  counted_epoch_ = index_epoch_;
  counted_sets_ = indexed_sets_;
  counted_members_ = indexed_members_;
}

void device_max_coverage::add_segment(const rr_store& store) {
  const std::uint64_t first_set = indexed_sets_;
  const std::uint64_t sets = store.num_sets() - first_set;
  const std::uint64_t members = store.num_members() - indexed_members_;
  // Every allocation before the first kernel: a resource_error leaves the index as it was.
  index_segment segment;
  segment.offsets = device_buffer<std::uint64_t>(*budget_, std::uint64_t{n_} + 1, "vertex-to-sets offsets");
  segment.sets = device_buffer<std::uint32_t>(*budget_, members, "vertex-to-sets index");
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, counts_.data(), segment.offsets.data(), plus_u64{},
                                               std::uint64_t{0}, static_cast<std::uint64_t>(n_), stream_));
  grow_buffer(scratch_, *budget_, std::max<std::size_t>(scan_bytes, 1), 0, stream_, "CUB scan scratch");
  // The working counts hold the segment's counts, then serve as its scatter cursors.
  WF_CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), stream_));
  if (members > 0) {
    kernels::count_members<<<blocks_for(members), kernels::cover_block_threads, 0, stream_>>>(
        store.members() + indexed_members_, members, counts_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  if (n_ > 0) {
    kernels::add_counts<<<blocks_for(n_), kernels::cover_block_threads, 0, stream_>>>(counts_.data(), n_,
                                                                                     base_counts_.data());
    WF_CUDA_CHECK(cudaGetLastError());
    // offsets = exclusive scan of the segment's counts, accumulated in 64 bits; [n] is the total.
    WF_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scratch_.data(), scan_bytes, counts_.data(), segment.offsets.data(),
                                                 plus_u64{}, std::uint64_t{0}, static_cast<std::uint64_t>(n_), stream_));
    kernels::close_offsets<<<1, 32, 0, stream_>>>(counts_.data(), n_, segment.offsets.data());
    WF_CUDA_CHECK(cudaGetLastError());
  } else {
    WF_CUDA_CHECK(cudaMemsetAsync(segment.offsets.data(), 0, sizeof(std::uint64_t), stream_));
  }
  if (members > 0 && !(members >= sort_min_members_ && sort_into_segment(store, first_set, sets, members, segment))) {
    WF_CUDA_CHECK(cudaMemsetAsync(counts_.data(), 0, counts_.bytes(), stream_));
    kernels::scatter_index<<<blocks_for(sets * 32), kernels::cover_block_threads, 0, stream_>>>(
        store.offsets(), store.members(), first_set, sets, segment.offsets.data(), counts_.data(),
        segment.sets.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  segments_.push_back(std::move(segment));
  indexed_sets_ = store.num_sets();
  indexed_members_ = store.num_members();
  ++segments_built_;
  members_indexed_ += members;
}

bool device_max_coverage::sort_into_segment(const rr_store& store, std::uint64_t first_set, std::uint64_t sets,
                                            std::uint64_t members, index_segment& segment) {
  // Members are below n_ (>= 1 here), so the sort needs only that many low bits. LSD radix sort
  // is stable: every vertex's list comes out in ascending set order.
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(std::uint64_t{n_} - 1)));
  cub::DoubleBuffer<std::uint32_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
  std::size_t sort_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, static_cast<std::int64_t>(members), 0,
                                                end_bit, stream_));
  if (!budget_->fits(3 * members * sizeof(std::uint32_t) + sort_bytes)) return false;
  device_buffer<std::uint32_t> key_copy(*budget_, members, "index sort keys");
  device_buffer<std::uint32_t> key_other(*budget_, members, "index sort keys");
  device_buffer<std::uint32_t> set_ids(*budget_, members, "index sort set ids");
  device_buffer<unsigned char> sort_scratch(*budget_, std::max<std::size_t>(sort_bytes, 1), "CUB radix-sort scratch");
  WF_CUDA_CHECK(cudaMemcpyAsync(key_copy.data(), store.members() + indexed_members_, members * sizeof(std::uint32_t),
                                cudaMemcpyDeviceToDevice, stream_));
  kernels::label_members<<<blocks_for(sets * 32), kernels::cover_block_threads, 0, stream_>>>(
      store.offsets(), first_set, sets, indexed_members_, set_ids.data());
  WF_CUDA_CHECK(cudaGetLastError());
  keys = cub::DoubleBuffer<std::uint32_t>(key_copy.data(), key_other.data());
  values = cub::DoubleBuffer<std::uint32_t>(set_ids.data(), segment.sets.data());
  WF_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_scratch.data(), sort_bytes, keys, values,
                                                static_cast<std::int64_t>(members), 0, end_bit, stream_));
  if (values.Current() != segment.sets.data()) std::swap(segment.sets, set_ids);  // the ids ended in the other buffer
  return true;  // the temporaries are freed in stream order, after the sort
}

coverage_selection device_max_coverage::select(const rr_store& store, std::uint64_t store_epoch, std::uint32_t k,
                                               std::uint32_t rounds, bool want_bound,
                                               std::span<const std::uint32_t> preselected) {
  WF_EXPECTS(k >= 1, "-k", "k must be at least 1");
  WF_EXPECTS(rounds >= 1 && n_ % rounds == 0, "--rounds",
             "the universe must hold the same number of elements in every round");
  WF_EXPECTS(store.num_sets() < std::numeric_limits<std::uint32_t>::max(), "theta",
             "at most 2^32 - 2 RR sets can be selected over");
  WF_EXPECTS(preselected.empty() || (rounds == 1 && preselected.size() <= std::min<std::uint64_t>(k, n_)), "preselected",
             "preselected seeds need one round and at most k of them");
  const auto index_start = std::chrono::steady_clock::now();
  const bool by_candidates = rounds == 1 && !want_bound && preselected.empty() && candidate_limit_ >= 1 &&
                             candidate_limit_ < n_ && store.num_sets() > 0 && prepare_candidates(store, store_epoch);
  if (!by_candidates) update_index(store, store_epoch);
  if (profiling_) WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  index_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - index_start).count();
  kernels::index_segments index{};
  if (by_candidates) {
    index.count = 1;
    index.offsets[0] = candidates_->list_offsets();
    index.sets[0] = candidates_->lists();
  } else {
    index.count = static_cast<unsigned>(segments_.size());
    for (std::size_t i = 0; i < segments_.size(); ++i) {
      index.offsets[i] = segments_[i].offsets.data();
      index.sets[i] = segments_[i].sets.data();
    }
  }
  const std::uint64_t wanted = std::min<std::uint64_t>(std::uint64_t{k} * rounds, n_) - preselected.size();
  const std::uint64_t top = std::min<std::uint64_t>(k, n_);
  const std::uint32_t per_round = n_ / rounds;
  const bool bound = want_bound && rounds == 1;
  // Per step: the argmax key, the sets it newly covers, the top-k sum; then the failure flag, and
  // the chunks each step deals.
  grow_buffer(step_results_, *budget_, 4 * (wanted + 1), 0, stream_, "greedy step results");
  const bool chunked =
      cover_chunks_ >= 0 ? cover_chunks_ == 1 : store.num_members() >= kernels::chunked_mean_set * store.num_sets();
  if (chunked) {
    grow_buffer(chunks_, *budget_, kernels::max_cover_chunks(store.num_sets(), store.num_members()), 0, stream_,
                "greedy cover chunks");
  }
  grow_buffer(round_used_, *budget_, rounds, 0, stream_, "greedy per-round budgets");
  WF_CUDA_CHECK(cudaMemsetAsync(round_used_.data(), 0, rounds * sizeof(std::uint32_t), stream_));
  unsigned long long* best = step_results_.data();
  unsigned long long* gained = best + (wanted + 1);
  unsigned long long* top_sums = gained + (wanted + 1);
  unsigned long long* failed = top_sums + (wanted + 1);
  unsigned long long* chunk_counts = failed + 1;
  WF_CUDA_CHECK(cudaMemsetAsync(step_results_.data(), 0, step_results_.bytes(), stream_));
  WF_CUDA_CHECK(cudaMemcpyAsync(counts_.data(), base_counts_.data(), base_counts_.bytes(), cudaMemcpyDeviceToDevice,
                                stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(flags_.data(), 0, flags_.bytes(), stream_));
  if (!preselected.empty()) {
    static constexpr std::uint8_t one = 1;
    for (const std::uint32_t s : preselected) {
      WF_EXPECTS(s < n_, "preselected", "seed id " + std::to_string(s) + " is outside the universe");
      WF_CUDA_CHECK(cudaMemcpyAsync(flags_.data() + s, &one, 1, cudaMemcpyHostToDevice, stream_));
    }
    const auto used = static_cast<std::uint32_t>(preselected.size());
    WF_CUDA_CHECK(cudaMemcpyAsync(round_used_.data(), &used, sizeof(used), cudaMemcpyHostToDevice, stream_));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `used` lives on this stack frame
  }
  if (store.num_sets() > 0) WF_CUDA_CHECK(cudaMemsetAsync(covered_.data(), 0, store.num_sets(), stream_));

  // Counts never exceed the number of sets, so the sort needs only that many low bits.
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(store.num_sets())));
  std::size_t sort_bytes = 0;
  const bool small = n_ <= kernels::top_k_small_limit;
  if (bound && !small) {
    sort_bytes = top_k_sort_scratch_bytes(counts_.data(), sorted_counts_.data(), n_, end_bit, stream_);
    grow_buffer(scratch_, *budget_, std::max<std::size_t>(sort_bytes, 1), 0, stream_, "CUB radix-sort scratch");
  }
  // OPIM-C's bound at step i needs the sum of the k largest marginals: a one-block radix select
  // on small universes, else a descending radix sort of the counts and a prefix sum.
  auto top_k_sum = [&](unsigned long long* out) {
    if (n_ == 0 || !bound) return;
    if (small) {
      kernels::top_k_sum_small<<<1, kernels::top_k_threads, 0, stream_>>>(counts_.data(), n_,
                                                                           static_cast<std::uint32_t>(top), end_bit, out);
      WF_CUDA_CHECK(cudaGetLastError());
      return;
    }
    top_k_sort_sum_async(scratch_.data(), sort_bytes, counts_.data(), sorted_counts_.data(), n_, end_bit, top, out,
                         stream_);
  };
  // The chosen vertex's list is unknown on the host: a grid of a few blocks per SM strides over it
  // (a grid sized by the number of sets would spend most of the step scheduling idle blocks).
  const unsigned cover_blocks = std::min(blocks_for(store.num_sets()), cover_grid_);
  auto cover = [&](std::uint64_t step, auto policy) {
    kernels::cover_sets<<<cover_blocks, kernels::cover_block_threads, 0, stream_>>>(
        best + step, index, store.offsets(), store.members(), covered_.data(), counts_.data(), flags_.data(),
        round_used_.data(), per_round, gained + step, chunked ? kernels::cover_small_set : ~0ULL, chunks_.data(),
        chunk_counts + step, policy);
    WF_CUDA_CHECK(cudaGetLastError());
    if (!chunked) return;
    kernels::lower_chunked_counts<<<cover_grid_, kernels::cover_block_threads, 0, stream_>>>(
        best + step, chunks_.data(), chunk_counts + step, store.members(), counts_.data(), policy);
    WF_CUDA_CHECK(cudaGetLastError());
  };
  const bool persistent = persistent_grid_ > 0 && !by_candidates && !chunked && !bound && wanted > 0;
  if (persistent) {
    std::uint64_t steps = wanted;
    std::uint32_t universe = n_;
    std::uint32_t per_round_k = k;
    const std::uint64_t* offsets = store.offsets();
    const std::uint32_t* members = store.members();
    std::uint8_t* covered = covered_.data();
    std::uint32_t* counts = counts_.data();
    std::uint8_t* selected = flags_.data();
    std::uint32_t* used = round_used_.data();
    std::uint32_t round_size = per_round;
    void* args[] = {&steps, &universe, &per_round_k, &index, &offsets, &members, &covered,
                    &counts, &selected, &used, &round_size, &best, &gained};
    WF_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernels::greedy_persistent),
                                              dim3(persistent_grid_), dim3(kernels::cover_block_threads), args, 0,
                                              stream_));
  } else {
    for (std::uint64_t step = 0; step < wanted; ++step) {
      top_k_sum(top_sums + step);
      if (by_candidates) {
        candidates_->argmax(counts_.data(), flags_.data(), failed, best + step);
        cover(step, candidates_->policy(failed));
      } else {
        // A grid of a few blocks per SM strides over the counts: one atomic per block at the end.
        const unsigned argmax_blocks = std::min(blocks_for((std::uint64_t{n_} + 3) / 4), cover_grid_);  // 4 per thread
        kernels::argmax_count<<<argmax_blocks, kernels::cover_block_threads, 0, stream_>>>(
            counts_.data(), flags_.data(), n_, round_used_.data(), per_round, k, best + step);
        WF_CUDA_CHECK(cudaGetLastError());
        cover(step, kernels::lower_every_count{});
      }
    }
  }
  top_k_sum(top_sums + wanted);
  std::vector<unsigned long long> host(3 * (wanted + 1) + 1);
  WF_CUDA_CHECK(cudaMemcpyAsync(host.data(), step_results_.data(), host.size() * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (by_candidates) {
    ++candidate_selects_;
    if (host.back() != 0) {
      // A step could not vouch for its seed: more candidates, for this select and the later ones.
      ++candidate_fallbacks_;
      candidate_limit_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(4ULL * candidate_limit_, n_));
      return select(store, store_epoch, k, rounds, want_bound, preselected);
    }
  }
  host.pop_back();
  return assemble_selection(host, wanted, bound, store.num_sets());
}

std::uint64_t device_max_coverage::coverage(const rr_store& store, std::span<const std::uint32_t> seeds) {
  std::vector<std::uint8_t> marks(std::max<std::uint32_t>(n_, 1), 0);
  for (const std::uint32_t s : seeds) {
    WF_EXPECTS(s < n_, "seeds", "seed id " + std::to_string(s) + " is outside the graph");
    marks[s] = 1;
  }
  grow_buffer(step_results_, *budget_, 1, 0, stream_, "coverage result");
  WF_CUDA_CHECK(cudaMemcpyAsync(flags_.data(), marks.data(), marks.size(), cudaMemcpyHostToDevice, stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(step_results_.data(), 0, sizeof(unsigned long long), stream_));
  if (store.num_sets() > 0) {
    kernels::count_covered_sets<<<blocks_for(store.num_sets() * 32), kernels::cover_block_threads, 0, stream_>>>(
        store.offsets(), store.members(), store.num_sets(), flags_.data(), step_results_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long covered = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&covered, step_results_.data(), sizeof(covered), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return covered;
}

}  // namespace wildfire::cuda
