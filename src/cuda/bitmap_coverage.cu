// The bitmap RR representation (see bitmap_coverage.hpp).
#include "cuda/bitmap_coverage.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "cuda/bitmap_coverage_kernels.cuh"
#include "cuda/greedy_steps.hpp"
#include "cuda/top_k_sort_sum.hpp"

namespace wildfire::cuda {
namespace {

unsigned grid_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::bitmap::block_threads - 1) / kernels::bitmap::block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 16));
}

/// Bytes per allocation: about 256 MiB of batches (a last, partly used chunk wastes at most that),
/// at most 64 batches (4,096 sets) so that small graphs do not reserve far more than they use.
constexpr std::uint64_t chunk_target_bytes = 256ULL << 20;
constexpr std::uint64_t chunk_max_batches = 64;

}  // namespace

std::uint32_t rr_bitmap::batches_per_chunk(std::uint32_t num_vertices) noexcept {
  const std::uint64_t batch_bytes = std::max<std::uint64_t>(num_vertices, 1) * sizeof(unsigned long long);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(chunk_target_bytes / batch_bytes, 1, chunk_max_batches));
}

rr_bitmap::rr_bitmap(std::uint32_t num_vertices, memory_budget& budget, cudaStream_t stream)
    : n_(num_vertices), per_chunk_(batches_per_chunk(num_vertices)), budget_(&budget), stream_(stream) {}

std::uint64_t rr_bitmap::bytes_for(std::uint32_t num_vertices, std::uint64_t sets) noexcept {
  const std::uint64_t per_chunk = batches_per_chunk(num_vertices);
  const std::uint64_t chunks = ((sets + 63) / 64 + per_chunk - 1) / per_chunk;
  return chunks * per_chunk * std::max<std::uint64_t>(num_vertices, 1) * sizeof(unsigned long long);
}

std::uint64_t rr_bitmap::chunks_for(std::uint64_t extra_sets) const noexcept {
  const std::uint64_t batches = (num_sets_ + extra_sets + 63) / 64;
  return (batches + per_chunk_ - 1) / per_chunk_;
}

std::uint64_t rr_bitmap::bytes_to_reserve(std::uint64_t extra_sets) const noexcept {
  const std::uint64_t chunks = chunks_for(extra_sets);
  if (chunks <= chunks_.size()) return 0;
  const std::uint64_t chunk_bytes = std::uint64_t{per_chunk_} * std::max<std::uint64_t>(n_, 1) * sizeof(unsigned long long);
  return (chunks - chunks_.size()) * chunk_bytes + chunks * sizeof(unsigned long long*);  // chunks and table
}

void rr_bitmap::count_sets(std::uint32_t* counts) const {
  kernels::bitmap::count_sets<<<grid_for(n_), kernels::bitmap::block_threads, 0, stream_>>>(view(), batches_used(),
                                                                                         counts);
  WF_CUDA_CHECK(cudaGetLastError());
}

void rr_bitmap::reserve(std::uint64_t extra_sets) {
  const std::uint64_t chunks = chunks_for(extra_sets);
  if (chunks <= chunks_.size()) return;
  const std::uint64_t chunk_words = std::uint64_t{per_chunk_} * std::max<std::uint64_t>(n_, 1);
  const std::uint64_t table_bytes = chunks * sizeof(unsigned long long*);
  if (const std::uint64_t needed = bytes_to_reserve(extra_sets); !budget_->fits(needed)) {
    throw resource_error("GPU memory for the RR-set bitmap (" + std::to_string(num_sets_ + extra_sets) + " sets over " +
                             std::to_string(n_) + " vertices, 8n bytes per 64 sets)",
                         needed, budget_->available_bytes());
  }
  while (chunks_.size() < chunks) {
    device_buffer<unsigned long long> chunk(*budget_, chunk_words, "RR-set bitmap");
    WF_CUDA_CHECK(cudaMemsetAsync(chunk.data(), 0, chunk.bytes(), stream_));
    host_table_.push_back(chunk.data());
    chunks_.push_back(std::move(chunk));
  }
  table_ = device_buffer<unsigned long long*>(*budget_, chunks, "RR-set bitmap chunk table");
  WF_CUDA_CHECK(cudaMemcpyAsync(table_.data(), host_table_.data(), table_bytes, cudaMemcpyHostToDevice, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));  // host_table_ may change before a later copy
}

void rr_bitmap::append(const rr_store& store) {
  const std::uint64_t sets = store.num_sets();
  if (sets == 0) return;
  reserve(sets);
  if (store.num_members() > 0) {
    kernels::bitmap::scatter_sets<<<grid_for(sets * 32), kernels::bitmap::block_threads, 0, stream_>>>(
        view(), store.offsets(), store.members(), sets, num_sets_);
    WF_CUDA_CHECK(cudaGetLastError());
  }
  commit(sets, store.num_members());
}

void rr_bitmap::clear() {
  const std::uint64_t batches = batches_used();
  const std::uint64_t batch_bytes = std::uint64_t{n_} * sizeof(unsigned long long);
  for (std::uint64_t c = 0; c * per_chunk_ < batches; ++c) {
    const std::uint64_t in_chunk = std::min<std::uint64_t>(per_chunk_, batches - c * per_chunk_);
    WF_CUDA_CHECK(cudaMemsetAsync(chunks_[c].data(), 0, in_chunk * batch_bytes, stream_));
  }
  num_sets_ = 0;
  num_members_ = 0;
}

coverage_selection rr_bitmap::select(std::uint32_t k, bool want_bound) {
  WF_EXPECTS(k >= 1, "-k", "k must be at least 1");
  WF_EXPECTS(num_sets_ < std::numeric_limits<std::uint32_t>::max(), "theta",
             "at most 2^32 - 2 RR sets can be selected over");
  const std::uint64_t n = std::max<std::uint32_t>(n_, 1);
  const std::uint64_t batches = batches_used();
  const std::uint64_t wanted = std::min<std::uint64_t>(k, n_);
  const std::uint64_t top = std::min<std::uint64_t>(k, n_);
  const std::uint64_t slots = wanted + 1;
  grow_buffer(counts_, *budget_, n, 0, stream_, "bitmap coverage counts");
  grow_buffer(selected_, *budget_, n, 0, stream_, "bitmap selected flags");
  grow_buffer(covered_, *budget_, std::max<std::uint64_t>(batches, 1), 0, stream_, "bitmap covered sets");
  grow_buffer(fresh_, *budget_, std::max<std::uint64_t>(batches, 1), 0, stream_, "bitmap newly covered sets");
  grow_buffer(touched_, *budget_, std::max<std::uint64_t>(batches, 1), 0, stream_, "bitmap touched batches");
  grow_buffer(results_, *budget_, 4 * slots, 0, stream_, "bitmap greedy step results");
  unsigned long long* best = results_.data();
  unsigned long long* gained = best + slots;
  unsigned long long* top_sums = gained + slots;
  unsigned long long* num_touched = top_sums + slots;
  WF_CUDA_CHECK(cudaMemsetAsync(results_.data(), 0, 4 * slots * sizeof(unsigned long long), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(selected_.data(), 0, n, stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(covered_.data(), 0, covered_.bytes(), stream_));
  count_sets(counts_.data());

  // OPIM-C's bound at step i: the sum of the k largest current counts (a descending radix sort of
  // the counts, which never exceed the number of sets, and a prefix sum).
  const bool bound = want_bound && n_ > 0;
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(num_sets_)));
  std::size_t sort_bytes = 0;
  if (bound) {
    grow_buffer(sorted_counts_, *budget_, n, 0, stream_, "bitmap sorted counts");
    sort_bytes = top_k_sort_scratch_bytes(counts_.data(), sorted_counts_.data(), n_, end_bit, stream_);
    grow_buffer(scratch_, *budget_, std::max<std::size_t>(sort_bytes, 1), 0, stream_, "CUB radix-sort scratch");
  }
  auto top_k_sum = [&](unsigned long long* out) {
    if (!bound) return;
    top_k_sort_sum_async(scratch_.data(), sort_bytes, counts_.data(), sorted_counts_.data(), n_, end_bit, top, out,
                         stream_);
  };
  for (std::uint64_t step = 0; step < wanted; ++step) {
    top_k_sum(top_sums + step);
    kernels::bitmap::argmax<<<grid_for(n_), kernels::bitmap::block_threads, 0, stream_>>>(
        counts_.data(), selected_.data(), n_, best + step);
    WF_CUDA_CHECK(cudaGetLastError());
    kernels::bitmap::cover<<<grid_for(batches), kernels::bitmap::block_threads, 0, stream_>>>(
        view(), batches, best + step, selected_.data(), covered_.data(), fresh_.data(), touched_.data(),
        num_touched + step, gained + step);
    WF_CUDA_CHECK(cudaGetLastError());
    kernels::bitmap::uncount<<<grid_for(n_), kernels::bitmap::block_threads, 0, stream_>>>(
        view(), touched_.data(), num_touched + step, fresh_.data(), counts_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  top_k_sum(top_sums + wanted);
  std::vector<unsigned long long> host(4 * slots);
  WF_CUDA_CHECK(cudaMemcpyAsync(host.data(), results_.data(), host.size() * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));

  return assemble_selection(std::span<const unsigned long long>(host).first(3 * slots), wanted, bound, num_sets_);
}

std::uint64_t rr_bitmap::coverage(std::span<const std::uint32_t> seeds) {
  for (const std::uint32_t s : seeds) {
    WF_EXPECTS(s < n_, "seeds", "seed id " + std::to_string(s) + " is outside the graph");
  }
  const std::uint64_t batches = batches_used();
  if (seeds.empty() || batches == 0) return 0;
  grow_buffer(seeds_, *budget_, seeds.size(), 0, stream_, "bitmap coverage seeds");
  grow_buffer(results_, *budget_, 1, 0, stream_, "bitmap coverage result");
  WF_CUDA_CHECK(cudaMemcpyAsync(seeds_.data(), seeds.data(), seeds.size() * sizeof(std::uint32_t),
                                cudaMemcpyHostToDevice, stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(results_.data(), 0, sizeof(unsigned long long), stream_));
  kernels::bitmap::count_covered<<<grid_for(batches), kernels::bitmap::block_threads, 0, stream_>>>(
      view(), batches, seeds_.data(), static_cast<std::uint32_t>(seeds.size()), results_.data());
  WF_CUDA_CHECK(cudaGetLastError());
  unsigned long long covered = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&covered, results_.data(), sizeof(covered), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));  // also before `seeds` (host) goes away
  return covered;
}

rr_sets rr_bitmap::copy_sets(std::uint64_t first, std::uint64_t count) const {
  rr_sets out;
  out.offsets.assign(1, 0);
  if (count == 0) return out;
  std::vector<unsigned long long> words(n_);
  for (std::uint64_t b = first / 64; b * 64 < first + count; ++b) {
    const std::uint64_t lo = std::max(first, b * 64) - b * 64;  // bits [lo, hi) of this batch
    const std::uint64_t hi = std::min(first + count, b * 64 + 64) - b * 64;
    if (n_ > 0) {
      WF_CUDA_CHECK(cudaMemcpyAsync(words.data(), chunks_[b / per_chunk_].data() + (b % per_chunk_) * n_,
                                    n_ * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream_));
      WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    // Walking v upwards appends every set's members in ascending order.
    std::vector<std::vector<std::uint32_t>> sets(hi - lo);
    const unsigned long long mask = (hi - lo == 64 ? ~0ULL : ((1ULL << (hi - lo)) - 1)) << lo;
    for (std::uint32_t v = 0; v < n_; ++v) {
      for (unsigned long long x = words[v] & mask; x != 0; x &= x - 1) {
        sets[static_cast<std::uint64_t>(std::countr_zero(x)) - lo].push_back(v);
      }
    }
    for (const auto& set : sets) {
      out.members.insert(out.members.end(), set.begin(), set.end());
      out.offsets.push_back(out.members.size());
    }
  }
  return out;
}

}  // namespace wildfire::cuda
