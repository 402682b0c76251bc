// Launcher of the fused multi-colour RR traversal (see fused_sampler.hpp).
#include "cuda/fused_sampler.hpp"

#include <algorithm>
#include <utility>

#include <cub/device/device_scan.cuh>

#include "cuda/fused_sampler_kernels.cuh"

namespace wildfire::cuda {
namespace {

unsigned blocks_for(std::uint64_t threads) {
  const std::uint64_t blocks = (threads + kernels::fused_block_threads - 1) / kernels::fused_block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(blocks, 1, 1U << 20));
}

/// Groups in flight at most; more add memory-set cost without more parallelism.
constexpr std::uint32_t group_cap = 64;

}  // namespace

fused_sampler::fused_sampler(const graph_view& graph, const ic_block_view& blocks, const sampling_params& params,
                             std::uint32_t colours, memory_budget& budget, cudaStream_t stream)
    : graph_(graph), blocks_(blocks), params_(params), colours_(colours), budget_(&budget), stream_(stream) {
  WF_EXPECTS(params.model != diffusion_model::ic || graph.num_vertices == 0 || blocks.vertex_class != nullptr,
             "blocks", "IC sampling on the GPU needs the graph's IC block plan on the device");
  WF_EXPECTS(fused_colours_supported(colours), "--colours",
             "colours must be 8, 16 or a multiple of 32 between 32 and 1024");
  word_bytes_ = colours % 64 == 0 ? 8 : 4;
  words_ = (colours + word_bytes_ * 8 - 1) / (word_bytes_ * 8);  // 8 and 16 colours: one 32-bit word
  const std::uint64_t n = std::max<std::uint32_t>(graph.num_vertices, 1);
  tiles_ = (n + 31) / 32;
  // Per group: visited, current and next words, two queues of slots, tile counts.
  const std::uint64_t slots = n * words_;
  const std::uint64_t per_group = slots * (3 * word_bytes_ + 2 * sizeof(std::uint32_t)) +
                                  static_cast<std::uint64_t>(colours) * tiles_ * sizeof(std::uint32_t) +
                                  colours * sizeof(std::uint64_t);
  std::uint64_t groups = budget.available_bytes() / 2 / per_group;
  // Slot ids and member positions are 32-bit.
  groups = std::min<std::uint64_t>(groups, ((1ULL << 32) - 2) / slots);
  groups = std::min<std::uint64_t>(groups, ((1ULL << 32) - 2) / (static_cast<std::uint64_t>(colours) * tiles_ * 32));
  // Fewer than 32 colours: as many samples in flight as 32 colours would have.
  groups = std::min<std::uint64_t>(groups, colours < 32 ? group_cap * 32 / colours : group_cap);
  max_groups_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(groups, 1));  // charge() reports a shortfall
  const std::uint64_t all_slots = slots * max_groups_;
  visited_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused visited colour masks");
  current_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused frontier colour masks");
  next_ = device_buffer<unsigned char>(budget, all_slots * word_bytes_, "fused next-frontier colour masks");
  queue_ = device_buffer<std::uint32_t>(budget, all_slots, "fused frontier queue");
  next_queue_ = device_buffer<std::uint32_t>(budget, all_slots, "fused next-frontier queue");
  keys_ = device_buffer<std::uint64_t>(budget, static_cast<std::uint64_t>(colours) * max_groups_, "fused sample keys");
  tile_counts_ = device_buffer<std::uint32_t>(budget, static_cast<std::uint64_t>(colours) * max_groups_ * tiles_ + 1,
                                              "fused per-tile set sizes");
  counters_ = device_buffer<unsigned>(budget, 4, "fused counters");
  examined_ = device_buffer<unsigned long long>(budget, 1, "fused edge counter");
  WF_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counters_), 4 * sizeof(unsigned)));
  std::size_t scan_bytes = 0;
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, tile_counts_.data(), tile_counts_.data(),
                                              tile_counts_.size(), stream));
  scan_scratch_ = device_buffer<unsigned char>(budget, std::max<std::size_t>(scan_bytes, 1), "CUB scan scratch");
}

fused_sampler::~fused_sampler() {
  if (host_counters_ != nullptr) (void)cudaFreeHost(host_counters_);
}

void fused_sampler::sample(std::uint64_t first_id, std::uint64_t count, rr_store& store) {
  sample_batches(first_id, count, store);
}

void fused_sampler::sample(std::uint64_t first_id, std::uint64_t count, rr_bitmap& bitmap) {
  sample_batches(first_id, count, bitmap);
}

template <class Target>
void fused_sampler::sample_batches(std::uint64_t first_id, std::uint64_t count, Target& target) {
  const std::uint64_t per_batch = static_cast<std::uint64_t>(colours_) * max_groups_;
  for (std::uint64_t done = 0; done < count;) {
    const auto batch = static_cast<std::uint32_t>(std::min(per_batch, count - done));
    if (word_bytes_ == 8) {
      extract(traverse<unsigned long long>(first_id + done, batch), target);
    } else {
      extract(traverse<unsigned>(first_id + done, batch), target);
    }
    done += batch;
  }
}

template <class Word>
kernels::fused_args<Word> fused_sampler::traverse(std::uint64_t first_id, std::uint32_t num_samples) {
  const std::uint32_t groups = (num_samples + colours_ - 1) / colours_;
  const std::uint64_t n = graph_.num_vertices;
  const std::uint64_t slots = n * words_ * groups;
  kernels::fused_args<Word> a{};
  a.seed = params_.seed;
  a.mean_roots = params_.mean_roots;
  a.first_id = first_id;
  a.num_samples = num_samples;
  a.colours = colours_;
  a.words = words_;
  a.num_groups = groups;
  a.keys = keys_.data();
  a.visited = reinterpret_cast<Word*>(visited_.data());
  a.current = reinterpret_cast<Word*>(current_.data());
  a.next = reinterpret_cast<Word*>(next_.data());
  a.queue = queue_.data();
  a.next_queue = next_queue_.data();
  a.queue_capacity = queue_.size();
  a.next_light = counters_.data();
  a.next_heavy = counters_.data() + 1;
  a.edges_examined = examined_.data();
  a.blocks = params_.model == diffusion_model::ic ? blocks_ : ic_block_view{};
  if (slots > 0) {
    WF_CUDA_CHECK(cudaMemsetAsync(a.visited, 0, slots * sizeof(Word), stream_));
    WF_CUDA_CHECK(cudaMemsetAsync(a.current, 0, slots * sizeof(Word), stream_));
    WF_CUDA_CHECK(cudaMemsetAsync(a.next, 0, slots * sizeof(Word), stream_));
  }
  WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 4 * sizeof(unsigned), stream_));
  WF_CUDA_CHECK(cudaMemsetAsync(examined_.data(), 0, sizeof(unsigned long long), stream_));

  kernels::fused_roots<Word><<<blocks_for(num_samples), kernels::fused_block_threads, 0, stream_>>>(graph_, a);
  WF_CUDA_CHECK(cudaGetLastError());
  // Level-synchronous: the roots (and then each level's discoveries) sit in next/next_queue.
  for (;;) {
    WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_, counters_.data(), 2 * sizeof(unsigned), cudaMemcpyDeviceToHost, stream_));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const unsigned light = host_counters_[0];
    const unsigned heavy = host_counters_[1];
    if (light == 0 && heavy == 0) break;
    ++levels_;
    std::swap(a.current, a.next);
    std::swap(a.queue, a.next_queue);
    WF_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), stream_));
    if (params_.model == diffusion_model::ic) {
      if (light > 0) {
        kernels::fused_ic_light<Word><<<blocks_for(static_cast<std::uint64_t>(light)), kernels::fused_block_threads, 0,
                                        stream_>>>(graph_, a, light);
        WF_CUDA_CHECK(cudaGetLastError());
      }
      if (heavy > 0) {
        kernels::fused_ic_heavy<Word><<<std::min(heavy, 65535U), kernels::fused_block_threads, 0, stream_>>>(graph_, a,
                                                                                                            heavy);
        WF_CUDA_CHECK(cudaGetLastError());
      }
    } else {
      kernels::fused_lt<Word><<<blocks_for((static_cast<std::uint64_t>(light) + heavy) * 32), kernels::fused_block_threads,
                                0, stream_>>>(graph_, a, light, heavy);
      WF_CUDA_CHECK(cudaGetLastError());
    }
  }

  unsigned long long examined = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&examined, examined_.data(), sizeof(examined), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  edges_examined_ += examined;
  return a;
}

template <class Word>
void fused_sampler::extract(const kernels::fused_args<Word>& a, rr_store& store) {
  const std::uint32_t groups = a.num_groups;
  const std::uint32_t num_samples = a.num_samples;
  // Extraction: per-tile popcounts, one scan, then a write pass that keeps each set sorted.
  const std::uint64_t cells = static_cast<std::uint64_t>(groups) * colours_ * tiles_;
  WF_CUDA_CHECK(cudaMemsetAsync(tile_counts_.data() + cells, 0, sizeof(std::uint32_t), stream_));
  const unsigned extract_blocks = blocks_for(static_cast<std::uint64_t>(groups) * tiles_ * 32);
  kernels::fused_count_tiles<Word><<<extract_blocks, kernels::fused_block_threads, 0, stream_>>>(graph_, a, tiles_,
                                                                                                tile_counts_.data());
  WF_CUDA_CHECK(cudaGetLastError());
  std::size_t scan_bytes = scan_scratch_.size();
  WF_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_scratch_.data(), scan_bytes, tile_counts_.data(),
                                              tile_counts_.data(), cells + 1, stream_));
  WF_CUDA_CHECK(cudaMemcpyAsync(host_counters_ + 2, tile_counts_.data() + cells, sizeof(std::uint32_t),
                                cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  const std::uint64_t total = host_counters_[2];
  store.reserve(num_samples, total, stream_);
  kernels::fused_write_members<Word><<<extract_blocks, kernels::fused_block_threads, 0, stream_>>>(
      graph_, a, tiles_, tile_counts_.data(), store.members_end());
  WF_CUDA_CHECK(cudaGetLastError());
  kernels::fused_append_offsets<<<blocks_for(num_samples), kernels::fused_block_threads, 0, stream_>>>(
      tile_counts_.data(), tiles_, num_samples, store.num_members(), store.offsets_end());
  WF_CUDA_CHECK(cudaGetLastError());
  store.commit(num_samples, total);
}

template <class Word>
void fused_sampler::extract(const kernels::fused_args<Word>& a, rr_bitmap& bitmap) {
  // examined_ now counts the batch's members (its edge count was read by traverse).
  WF_CUDA_CHECK(cudaMemsetAsync(examined_.data(), 0, sizeof(unsigned long long), stream_));
  const std::uint64_t slots = static_cast<std::uint64_t>(a.num_groups) * graph_.num_vertices * words_;
  if (slots > 0) {
    kernels::fused_or_into_bitmap<Word><<<blocks_for(slots), kernels::fused_block_threads, 0, stream_>>>(
        graph_, a, bitmap.view(), bitmap.num_sets(), examined_.data());
    WF_CUDA_CHECK(cudaGetLastError());
  }
  unsigned long long members = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&members, examined_.data(), sizeof(members), cudaMemcpyDeviceToHost, stream_));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  bitmap.commit(a.num_samples, members);
}

}  // namespace wildfire::cuda
