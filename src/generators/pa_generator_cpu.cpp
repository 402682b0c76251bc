// Parallel copy-model generator on the CPU (cuPPA, Alam & Perumalla 2017, sections 3.1-3.3):
// segmented round-robin partitioning with the waiting queue replaced by passes over pending
// vertices separated by barriers, so no thread ever waits on a slot another thread owns.
#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <omp.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_slot_rule.hpp"

namespace wildfire {
namespace {

struct pending_vertex {
  std::uint32_t vertex;
  pa_progress progress;
};

/// Segment (round) starting at vertex `first`: as many vertices as precede it (so a copy lands
/// in the segment being generated with probability <= 1/2, and mostly on a slot already final
/// because threads advance through the segment together), at least 16384 and at most
/// `max_vertices`. Few segments keep the barriers few, which matters on busy machines.
std::uint64_t segment_end(std::uint64_t first, std::uint64_t n, std::uint64_t max_vertices) {
  const std::uint64_t size = std::min(std::max<std::uint64_t>(max_vertices, 1), std::max<std::uint64_t>(first, 16384));
  return std::min(n, first + size);
}

/// Asks for transparent huge pages: copies read uniformly random slots of the whole array, and
/// with 4 KiB pages nearly every read is also a TLB miss (twice as slow, and prefetches of
/// unmapped pages are dropped). Must run before the first touch. A hint only.
void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef __linux__
  constexpr std::uintptr_t huge = 2U << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t aligned = (begin + huge - 1) & ~(huge - 1);
  if (bytes >= 2 * huge && aligned < begin + bytes) {
    madvise(reinterpret_cast<void*>(aligned), begin + bytes - aligned, MADV_HUGEPAGE);
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace

pa_graph generate_pa_cpu(const pa_params& params, const pa_cpu_options& options, pa_run_stats* stats) {
  validate_pa_params(params);
  const std::uint32_t n = params.num_vertices;
  const std::uint32_t d = params.out_degree;
  pa_graph graph;
  graph.num_vertices = n;
  graph.out_degree = d;
  graph.targets.resize(static_cast<std::size_t>(n - d) * d);
  std::uint32_t* const targets = graph.targets.data();
  advise_huge_pages(targets, graph.targets.size() * sizeof(std::uint32_t));
  const std::int64_t num_slots = static_cast<std::int64_t>(graph.targets.size());
  const pa_rule rule{params.seed, d, pa_direct_threshold(params.copy_probability)};
  const int num_threads = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
  const std::uint64_t block = std::max<std::uint32_t>(options.block_vertices, 1);

  // Slots of other threads' vertices may be written while they are read: relaxed atomics; a
  // reader that sees pa_unresolved sets its vertex aside, one that sees a value sees a final one.
  const auto load = [targets, d](std::uint32_t u, std::uint32_t k) -> std::uint32_t {
    return std::atomic_ref<std::uint32_t>(targets[static_cast<std::size_t>(u - d) * d + k])
        .load(std::memory_order_relaxed);
  };
  const auto complete = [&](std::uint32_t v, pa_progress& progress) {
    std::uint32_t* row = targets + static_cast<std::size_t>(v - d) * d;
    return pa_resume_vertex(rule, v, row, progress, load, [row](std::uint32_t j, std::uint32_t x) {
      std::atomic_ref<std::uint32_t>(row[j]).store(x, std::memory_order_relaxed);
    });
  };

  // Attempt 0 of every slot is known before its vertex is reached, so the slots that copies will
  // read are prefetched a few vertices ahead and the random reads overlap.
  const std::uint64_t prefetch_distance = std::max<std::uint32_t>(2, 16 / d);
  const auto prefetch = [&](std::uint64_t w) {
    const auto v = static_cast<std::uint32_t>(w);
    const std::uint64_t key = pa_vertex_key(rule.seed, v);
    for (std::uint32_t l = 0; l < std::min<std::uint32_t>(d, 16); ++l) {
      const pa_draw draw = pa_attempt_draw(rule, key, v, l, 0);
      if (draw.copy && draw.vertex >= d) {
        __builtin_prefetch(targets + static_cast<std::size_t>(draw.vertex - d) * d + draw.copied_slot);
      }
    }
  };

  pa_run_stats run{};

#pragma omp parallel num_threads(num_threads)
  {
    const std::uint64_t tid = static_cast<std::uint64_t>(omp_get_thread_num());
    const std::uint64_t threads = static_cast<std::uint64_t>(omp_get_num_threads());
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < num_slots; ++i) targets[i] = pa_unresolved;

    std::vector<pending_vertex> pending;
    std::vector<pending_vertex> still_pending;
    pa_run_stats mine{};
    for (std::uint64_t first = d; first < n;) {
      const std::uint64_t last = segment_end(first, n, options.max_segment_vertices);
      const std::uint64_t num_blocks = (last - first + block - 1) / block;
      for (std::uint64_t b = tid; b < num_blocks; b += threads) {
        const std::uint64_t begin = first + b * block;
        const std::uint64_t end = std::min(last, first + (b + 1) * block);
        for (std::uint64_t w = begin; w < std::min(end, begin + prefetch_distance); ++w) prefetch(w);
        for (std::uint64_t v = begin; v < end; ++v) {
          if (v + prefetch_distance < end) prefetch(v + prefetch_distance);
          pa_progress progress{0, 0};
          if (!complete(static_cast<std::uint32_t>(v), progress)) {
            pending.push_back({static_cast<std::uint32_t>(v), progress});
          }
        }
      }
      mine.max_pending = std::max<std::uint64_t>(mine.max_pending, pending.size());
      // Sweep the own pending list, ascending, until it is empty; no barrier between sweeps.
      // It terminates: earlier segments are complete, so the segment's smallest incomplete
      // vertex is either in some thread's first pass or pending with every slot it reads final,
      // and its owner completes it on its next sweep. A sweep that completes nothing (the
      // vertices wait for another thread) yields the core instead of spinning.
      while (!pending.empty()) {
        still_pending.clear();
        for (auto item : pending) {
          if (!complete(item.vertex, item.progress)) still_pending.push_back(item);
        }
        const bool progressed = still_pending.size() < pending.size();
        pending.swap(still_pending);
        ++mine.resolve_passes;
        if (!progressed) std::this_thread::yield();
      }
#pragma omp barrier
      ++mine.segments;
      first = last;
    }
#pragma omp critical
    {
      run.segments = mine.segments;
      run.resolve_passes += mine.resolve_passes;
      run.max_pending = std::max(run.max_pending, mine.max_pending);
    }
  }
  if (stats != nullptr) *stats = run;
  return graph;
}

}  // namespace wildfire
