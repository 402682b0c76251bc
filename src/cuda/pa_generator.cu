// Launcher of the CUDA copy-model generator (cuPPA, section 3): sizes the device buffers,
// runs the rounds (first pass + resolve passes until the queue is empty) and copies the graph
// back. The graph equals generate_pa_cpu's for the same parameters.
#include "cuda/pa_generator.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/pa_generator_kernels.cuh"
#include "cuda/resident_grid.hpp"
#include "wildfire/error.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cuda {
namespace {

/// Device buffers of one run, freed on every exit path.
struct device_buffers {
  std::uint32_t* targets = nullptr;
  pa_pending_vertex* queues[2] = {nullptr, nullptr};
  std::uint32_t* counters = nullptr;  // [0], [1]: queue lengths; [2]: overflow flag
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  ~device_buffers() {
    cudaFree(targets);
    cudaFree(queues[0]);
    cudaFree(queues[1]);
    cudaFree(counters);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
};

/// Round starting at `first`: half the vertices before it (the chance that a copy lands in the
/// round shrinks as v grows, cuPPA section 3.3), at least 2^16 and at most `max_vertices`.
std::uint64_t segment_end(std::uint64_t first, std::uint64_t n, std::uint64_t max_vertices) {
  const std::uint64_t size = std::clamp<std::uint64_t>(first / 2, std::min<std::uint64_t>(1U << 16, max_vertices),
                                                       max_vertices);
  return std::min(n, first + size);
}

}  // namespace

pa_graph generate_pa_gpu(const pa_params& params, const pa_gpu_options& options, pa_gpu_report* report) {
  validate_pa_params(params);
  WF_EXPECTS(options.threads_per_block >= 32 && options.threads_per_block <= 1024 &&
                 options.threads_per_block % 32 == 0,
             "threads_per_block", "threads per block must be a multiple of 32 in [32, 1024]");
  WF_EXPECTS(options.max_segment_vertices >= 1, "max_segment_vertices", "segments need at least one vertex");
  const std::uint32_t n = params.num_vertices;
  const std::uint32_t d = params.out_degree;
  const std::uint64_t num_slots = static_cast<std::uint64_t>(n - d) * d;
  const std::uint64_t capacity = std::min<std::uint64_t>(options.max_segment_vertices, n - d);
  const pa_rule rule{params.seed, d, pa_direct_threshold(params.copy_probability)};

  const std::uint32_t threads = options.threads_per_block;
  const std::uint32_t max_blocks =
      options.max_blocks != 0 ? options.max_blocks : resident_grid(pa_first_pass_kernel, threads);
  const auto blocks_for = [&](std::uint64_t items) {
    return static_cast<unsigned>(std::clamp<std::uint64_t>((items + threads - 1) / threads, 1, max_blocks));
  };

  const std::uint64_t targets_bytes = num_slots * sizeof(std::uint32_t);
  const std::uint64_t queue_bytes = capacity * sizeof(pa_pending_vertex);
  const std::uint64_t needed_bytes = targets_bytes + 2 * queue_bytes + 3 * sizeof(std::uint32_t);
  const std::uint64_t free_bytes = device_free_bytes();
  if (needed_bytes > free_bytes) {
    throw resource_error("preferential-attachment graph on the GPU (n = " + std::to_string(n) +
                             ", d = " + std::to_string(d) + ")",
                         needed_bytes, free_bytes);
  }

  device_buffers buffers;
  WF_CUDA_CHECK(cudaMalloc(&buffers.targets, std::max<std::uint64_t>(targets_bytes, 4)));
  WF_CUDA_CHECK(cudaMalloc(&buffers.queues[0], queue_bytes));
  WF_CUDA_CHECK(cudaMalloc(&buffers.queues[1], queue_bytes));
  WF_CUDA_CHECK(cudaMalloc(&buffers.counters, 3 * sizeof(std::uint32_t)));
  WF_CUDA_CHECK(cudaEventCreate(&buffers.start));
  WF_CUDA_CHECK(cudaEventCreate(&buffers.stop));
  std::uint32_t* const overflow = buffers.counters + 2;

  pa_run_stats stats{};
  const cudaStream_t stream = cudaStreamPerThread;
  WF_CUDA_CHECK(cudaEventRecord(buffers.start, stream));
  WF_CUDA_CHECK(cudaMemsetAsync(buffers.targets, 0xff, targets_bytes, stream));  // all pa_unresolved
  WF_CUDA_CHECK(cudaMemsetAsync(buffers.counters, 0, 3 * sizeof(std::uint32_t), stream));
  for (std::uint64_t first = d; first < n;) {
    const std::uint64_t last = segment_end(first, n, capacity);
    int in = 0;
    WF_CUDA_CHECK(cudaMemsetAsync(buffers.counters + in, 0, sizeof(std::uint32_t), stream));
    pa_first_pass_kernel<<<blocks_for(last - first), threads, 0, stream>>>(
        rule, buffers.targets, static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(last),
        buffers.queues[in], buffers.counters + in, static_cast<std::uint32_t>(capacity), overflow);
    WF_CUDA_CHECK(cudaGetLastError());
    std::uint32_t pending = 0;
    WF_CUDA_CHECK(cudaMemcpyAsync(&pending, buffers.counters + in, sizeof(pending), cudaMemcpyDeviceToHost, stream));
    WF_CUDA_CHECK(cudaStreamSynchronize(stream));
    stats.max_pending = std::max<std::uint64_t>(stats.max_pending, pending);
    // Resolve passes in batches: a pass over an empty queue costs one launch, a read-back a sync.
    while (pending != 0) {
      const std::uint32_t before = pending;
      const unsigned blocks = blocks_for(pending);
      for (std::uint32_t pass = 0; pass < std::max<std::uint32_t>(options.passes_per_check, 1); ++pass) {
        const int out = 1 - in;
        WF_CUDA_CHECK(cudaMemsetAsync(buffers.counters + out, 0, sizeof(std::uint32_t), stream));
        pa_resolve_kernel<<<blocks, threads, 0, stream>>>(rule, buffers.targets, buffers.queues[in],
                                                          buffers.counters + in, buffers.queues[out],
                                                          buffers.counters + out,
                                                          static_cast<std::uint32_t>(capacity), overflow);
        WF_CUDA_CHECK(cudaGetLastError());
        in = out;
        ++stats.resolve_passes;
      }
      WF_CUDA_CHECK(
          cudaMemcpyAsync(&pending, buffers.counters + in, sizeof(pending), cudaMemcpyDeviceToHost, stream));
      WF_CUDA_CHECK(cudaStreamSynchronize(stream));
      // Every pass completes at least the smallest queued vertex, so the queue must shrink; if it
      // does not, fail loudly instead of looping forever.
      if (pending >= before) {
        throw error("preferential-attachment generator: " + std::to_string(pending) +
                    " queued vertices made no progress in round starting at vertex " + std::to_string(first) +
                    " (internal error)");
      }
    }
    ++stats.segments;
    first = last;
  }
  WF_CUDA_CHECK(cudaEventRecord(buffers.stop, stream));
  std::uint32_t overflowed = 0;
  WF_CUDA_CHECK(cudaMemcpyAsync(&overflowed, overflow, sizeof(overflowed), cudaMemcpyDeviceToHost, stream));
  WF_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (overflowed != 0) {
    throw resource_error("preferential-attachment pending queue overflowed (internal sizing error)",
                         queue_bytes + sizeof(pa_pending_vertex), queue_bytes);
  }
  float generate_ms = 0;
  WF_CUDA_CHECK(cudaEventElapsedTime(&generate_ms, buffers.start, buffers.stop));

  pa_graph graph;
  graph.num_vertices = n;
  graph.out_degree = d;
  double transfer_seconds = 0;
  if (options.copy_to_host) {
    const stopwatch transfer;
    graph.targets.resize(num_slots);
    WF_CUDA_CHECK(cudaMemcpy(graph.targets.data(), buffers.targets, targets_bytes, cudaMemcpyDeviceToHost));
    transfer_seconds = transfer.seconds();
  }
  if (report != nullptr) {
    report->generate_seconds = generate_ms / 1000.0;
    report->transfer_seconds = transfer_seconds;
    report->device_bytes = needed_bytes;
    report->stats = stats;
  }
  return graph;
}

}  // namespace wildfire::cuda
