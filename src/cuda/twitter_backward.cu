// Launchers of the backward-phase kernels: upload once, split graphs by size category (thesis
// Table 6.1), run each category's kernel on its own stream, time with CUDA events.
#include "cuda/twitter_backward.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/event_stopwatch.hpp"
#include "cuda/resident_grid.hpp"
#include "cuda/twitter_backward_kernels.cuh"
#include "cuda/twitter_pull_kernels.cuh"
#include "cuda/twitter_staged_kernels.cuh"
#include "twitter/backward_sweep.hpp"
#include "twitter/pull_layout.hpp"
#include "twitter/staged_layout.hpp"
#include "wildfire/error.hpp"

namespace wildfire::cuda {

namespace k = twitter_kernels;
using twitter::gpu_variant;
using twitter::graph_category;

namespace {

template <class T>
struct device_array {
  T* ptr = nullptr;
  std::uint64_t size = 0;
  device_array() = default;
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() {
    if (ptr) cudaFree(ptr);
  }
  void allocate(std::uint64_t n) {
    size = n;
    WF_CUDA_CHECK(cudaMalloc(&ptr, std::max<std::uint64_t>(n, 1) * sizeof(T)));
  }
  void upload(const std::vector<T>& host) {
    allocate(host.size());
    if (!host.empty()) WF_CUDA_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
};

constexpr int medium_block = 256;
constexpr int medium_group = 32;
constexpr int large_block = 1024;
constexpr int large_unroll = 4;
constexpr int small_block = 32;
constexpr int chunk_nodes = 1024;
constexpr int chunk_block = 1024;
// shared-pull: a warp per Small and per Medium graph (an RSG Medium level has a few nodes, so 8
// warps left most threads idle at every barrier; with 2, four times as many graphs were in
// flight: Medium alone 0.72 -> 0.24 ms on the H100, seventeenth session; with 1, at the same
// registers a graph, fewer idle threads issue beside the staged grid: Medium alone 0.219-0.220 ->
// 0.211-0.214 ms, whole phase 1.443-1.449 -> 1.431-1.434 ms, twenty-third session); Large graphs
// take the pipelined kernel with 8 warps per graph whose shares fit half the shared memory (two
// blocks per SM) and 16 warps per larger graph (one per SM). Each Large thread keeps two levels
// of K = 8 in-list units (128 B) in registers: 2 x 256 and 1 x 512 threads per SM leave 128
// registers a thread.
constexpr int pull_small_block = 32;
constexpr int pull_medium_block = 32;
constexpr int pull_large_block = 256;
constexpr int pull_huge_block = 512;
constexpr int pull_prefetch_units = 8;
constexpr int pull_classes = 5;  // empty, small, medium, large (two per SM), large (one per SM)
// staged: 8 warps per block, registers bounded for three blocks per SM (92.5 KB of shared memory
// each), a block per staged graph and at most two per SM: 2 x 132 blocks give every Large graph of
// the RSG set (170) its own critical block and leave registers and shared memory for the Small
// and Medium kernels on the other streams (with three per SM those would wait for the whole
// cooperative kernel).
constexpr int staged_block = 256;
constexpr int staged_register_blocks = 3;
constexpr int staged_blocks_per_sm = 2;
// The far-sum kernel beside it: 8 warps and 8 KB of shared memory a block, two per SM (one per SM
// left the critical blocks waiting for far sums, three slowed the Small and Medium kernels; H100,
// seventeenth session).
constexpr int staged_far_block = 256;
constexpr int staged_far_blocks_per_sm = 2;
// Registers of the kernels that share the SMs with the cooperative grid (64K an SM; a critical
// block takes 20K). Beside one critical block and three far-sum blocks at 56 registers a thread
// ~2K were left, no Medium block at 48; beside two far-sum blocks, five (an SM with two critical
// blocks has shared memory for three, whatever the registers). So beside the Large graphs the
// Medium kernel ran at about a seventh of its speed alone and ended ~0.17 ms after them. Bounding
// the Medium kernel to 32 registers (then 64 threads a graph, for 32 blocks an SM; 20 bytes
// spilled; now a warp a graph at 62 registers, the same 2K a graph) and the far-sum kernel to 48
// (for 5; 18 bytes spilled) leaves room for four to ten Medium graphs there: whole phase 1.50 ->
// 1.44 ms on the H100, the Large category unchanged; the far-sum kernel at 40 (82 bytes spilled)
// made the Large category 1.33 -> 1.64 ms (twenty-second session).
constexpr int pull_medium_min_blocks = 32;
constexpr int staged_far_min_blocks = 5;

/// Loads the kernels now (a query of their attributes does), not at their first launch: CUDA 12
/// loads kernels lazily, and a first launch behind the cooperative grid's came too late (below).
template <class... Kernels>
void load_kernels(Kernels... kernels) {
  cudaFuncAttributes attributes{};
  for (const void* f : {reinterpret_cast<const void*>(kernels)...}) WF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, f));
}

}  // namespace

struct twitter_backward_session::impl {
  std::uint64_t num_graphs = 0, num_nodes = 0, num_edges = 0;
  device_array<std::uint64_t> graph_offsets, rows;
  device_array<std::uint32_t> targets, sources;
  device_array<double> base, influence;
  device_array<std::uint32_t> indegree, queue, state, stalled, error;
  // Graph ids per category, and all non-empty graphs (for a variant forced on every graph).
  std::vector<std::uint32_t> host_lists[4];
  device_array<std::uint32_t> lists[4], non_empty;
  // Medium and Large graphs split by whether their numbering is topological (for `topological`).
  bool split_done = false;
  device_array<std::uint32_t> ordered[4], unordered[4];
  std::uint32_t max_n[4] = {0, 0, 0, 0};
  std::uint32_t max_n_all = 0;
  // Per category (Large, Large and Medium, Medium and Small), and the staged far-sum kernel.
  static constexpr int num_streams = 4;
  cudaStream_t streams[num_streams] = {nullptr, nullptr, nullptr, nullptr};
  cudaEvent_t start = nullptr, stop = nullptr, joined[num_streams] = {nullptr, nullptr, nullptr, nullptr};
  // Where each kernel group ends, recorded in profile_staged's runs only (staged_timeline's *_end).
  enum group_end { grid_end, far_end, large_two_end, medium_end, small_end, group_ends };
  cudaEvent_t ends[group_ends] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  int max_shared_optin = 48 * 1024;
  // shared-pull: the level-ordered layout, per-class graph lists (largest first) and their
  // largest n, the graphs the layout leaves to the queue kernel, per category.
  device_array<twitter::detail::pull_graph> pull_graphs;
  device_array<twitter::detail::pull_node> pull_nodes;
  device_array<twitter::detail::pull_level> pull_levels;
  device_array<std::uint16_t> pull_sources;
  device_array<double> pull_spill;
  device_array<std::uint32_t> pull_lists[pull_classes], pull_fallback[4];
  std::uint32_t pull_max_n[pull_classes] = {0, 0, 0, 0, 0};
  std::uint32_t pull_fallback_max_n[4] = {0, 0, 0, 0};
  std::uint64_t pull_bytes = 0;
  std::uint32_t pull_max_levels = 0;
  double pull_prepare_seconds = 0.0;
  // staged: its layout on top of the pull layout, the Large graphs it leaves to the pipelined
  // kernel (per pull class 3 and 4), the cooperative grid and the scratch of far sums.
  device_array<twitter::detail::staged_graph> staged_graphs;
  device_array<twitter::detail::staged_stage> staged_stages;
  device_array<std::uint32_t> staged_near_start;
  device_array<std::uint16_t> staged_near_slots, staged_older_near, staged_recent_slots;
  device_array<std::uint64_t> staged_chunk_offsets;
  device_array<k::staged_chunk_ref> staged_chunks;
  // What the blocks publish and claim, zeroed by one memset per run: the progress records (one
  // word each), the counters (staged_view::counters) and the slots' pass counts.
  device_array<std::uint32_t> staged_sync;
  std::uint32_t staged_reference = 0;
  unsigned staged_far_grid = 0;
  bool staged_far_kernel = true;  // false: the critical blocks take every far-sum chunk (tests)
  device_array<double> staged_far, staged_base;
  device_array<std::uint16_t> staged_far_entries;
  device_array<std::uint32_t> staged_far_runs;
  device_array<std::uint32_t> staged_rest[pull_classes];
  std::uint32_t staged_rest_max_n[pull_classes] = {0, 0, 0, 0, 0};
  std::uint32_t staged_steps = 0;
  std::uint64_t staged_bytes = 0;       // moved beyond the pull layout's
  std::uint64_t staged_list_bytes = 0;  // of the pull layout's, the staged graphs' in-lists (not read)
  std::uint64_t* staged_timeline = nullptr;  // set by profile_staged for one run
  std::uint64_t* staged_chunk_trace = nullptr;  // with it
  twitter::detail::staged_start staged_starts = twitter::detail::staged_start::balanced;

  impl() = default;
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  // Here rather than in the session's destructor, so a constructor that throws half-way releases
  // the streams and events it made.
  ~impl() {
    for (auto s : streams) {
      if (s) cudaStreamDestroy(s);
    }
    for (auto e : {start, stop, joined[0], joined[1], joined[2], joined[3]}) {
      if (e) cudaEventDestroy(e);
    }
    for (auto e : ends) {
      if (e) cudaEventDestroy(e);
    }
  }

  k::backward_view view() const {
    return {graph_offsets.ptr, rows.ptr, targets.ptr, sources.ptr, influence.ptr, indegree.ptr,
            queue.ptr,         state.ptr, stalled.ptr, error.ptr};
  }

  void ensure_sources() {
    if (sources.ptr || num_edges == 0) return;
    sources.allocate(num_edges);
    const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(std::max<std::uint64_t>(num_graphs, 1), 65535));
    k::build_edge_sources<<<blocks, 128, 0, streams[0]>>>(view(), sources.ptr, num_graphs);
    WF_CUDA_CHECK(cudaGetLastError());
    WF_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
  }

  /// Splits the Medium and Large lists by a device check of the numbering (preparation, once).
  void ensure_split() {
    if (split_done) return;
    split_done = true;
    device_array<std::uint32_t> flags;
    flags.allocate(num_graphs);
    if (num_graphs > 0) {
      const auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(num_graphs, 65535));
      k::check_ascending<<<blocks, 1024, 0, streams[0]>>>(view(), num_graphs, flags.ptr);
      WF_CUDA_CHECK(cudaGetLastError());
      WF_CUDA_CHECK(cudaStreamSynchronize(streams[0]));
    }
    std::vector<std::uint32_t> host(num_graphs);
    if (num_graphs > 0) {
      WF_CUDA_CHECK(cudaMemcpy(host.data(), flags.ptr, num_graphs * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    }
    for (int c = 2; c < 4; ++c) {
      std::vector<std::uint32_t> yes, no;
      for (std::uint32_t t : host_lists[c]) (host[t] ? yes : no).push_back(t);
      ordered[c].upload(yes);
      unordered[c].upload(no);
    }
  }

  void launch_chunked(const device_array<std::uint32_t>& list, cudaStream_t s) {
    if (list.size == 0) return;
    k::backward_chunked<chunk_nodes, chunk_block><<<grid_for(list.size), chunk_block, 0, s>>>(
        view(), list.ptr, static_cast<std::uint32_t>(list.size));
    WF_CUDA_CHECK(cudaGetLastError());
  }

  twitter_kernels::pull_view pull_kernel_view() const {
    return {graph_offsets.ptr, pull_graphs.ptr, pull_nodes.ptr, pull_levels.ptr, pull_sources.ptr,
            base.ptr,          influence.ptr,   pull_spill.ptr, stalled.ptr,     error.ptr};
  }

  /// Builds the level-ordered layout on the host (OpenMP over graphs) and uploads it: the
  /// preparation of shared-pull, once per graph set, timed apart from the sweep.
  void prepare_pull(const twitter::spreading_graphs& g) {
    const auto t0 = std::chrono::steady_clock::now();
    const twitter::detail::pull_layout layout = twitter::detail::build_pull_layout(g);
    const std::uint64_t free_bytes = device_free_bytes();
    const std::uint64_t wanted = layout.sources.size() * 2 + (layout.nodes.size() + layout.levels.size()) * 8 +
                                 layout.graphs.size() * sizeof(twitter::detail::pull_graph) + num_nodes * 8;
    if (wanted > free_bytes) throw resource_error("GPU backward phase (shared-pull layout)", wanted, free_bytes);
    pull_graphs.upload(layout.graphs);
    pull_nodes.upload(layout.nodes);
    pull_levels.upload(layout.levels);
    pull_sources.upload(layout.sources);
    pull_spill.allocate(num_nodes);
    pull_bytes = twitter::detail::pull_bytes_moved(g, layout);
    pull_max_levels = layout.max_levels;
    // Half the shared memory a block may have, less the 1 KB the SM reserves per block, in
    // shares: graphs up to this many nodes run two blocks per SM.
    const std::uint32_t half_cap = static_cast<std::uint32_t>(std::max(0, max_shared_optin / 2 - 1024) / sizeof(double));
    std::vector<std::uint32_t> host[pull_classes], fallback[4];
    for (std::uint64_t t = 0; t < num_graphs; ++t) {
      const std::uint64_t n = g.graph_size(t);
      if (n == 0) continue;
      const auto c = static_cast<int>(twitter::categorize(n));
      if (!layout.included[t]) {
        fallback[c].push_back(static_cast<std::uint32_t>(t));
        pull_fallback_max_n[c] = std::max(pull_fallback_max_n[c], static_cast<std::uint32_t>(n));
        continue;
      }
      const int k = c < 3 ? c : (n <= half_cap ? 3 : 4);
      host[k].push_back(static_cast<std::uint32_t>(t));
      pull_max_n[k] = std::max(pull_max_n[k], static_cast<std::uint32_t>(n));
    }
    auto entries = [&](std::uint32_t t) {
      const twitter::detail::pull_graph& r = layout.graphs[t];
      return layout.levels[r.level_base + r.num_levels].first_entry;
    };
    // The longest sweeps first (blocks start in index order): the most entries, or for the Medium
    // graphs, whose sweeps are chains of a few nodes a level, the most levels (whole phase 1.431-1.434
    // -> 1.420-1.421 ms on the H100 beside the staged grid, twenty-third session).
    auto levels = [&](std::uint32_t t) { return layout.graphs[t].num_levels; };
    for (int k = 0; k < pull_classes; ++k) {
      if (k == static_cast<int>(twitter::graph_category::medium)) {
        std::stable_sort(host[k].begin(), host[k].end(),
                         [&](auto a, auto b) { return std::pair(levels(a), entries(a)) > std::pair(levels(b), entries(b)); });
      } else {
        std::stable_sort(host[k].begin(), host[k].end(), [&](auto a, auto b) { return entries(a) > entries(b); });
      }
      pull_lists[k].upload(host[k]);
    }
    for (int c = 0; c < 4; ++c) pull_fallback[c].upload(fallback[c]);
    // The pull kernels are loaded now, not by their first launch (CUDA 12 loads a kernel lazily):
    // that launch comes after the cooperative grid's, and a session's first run, all that a
    // one-shot `wildfire twitter-influence` runs, took 1.83-2.52 ms on the H100 against 1.64-1.66
    // ms with them loaded here (later runs 1.52-1.53 ms; twenty-first session).
    load_kernels(k::backward_shared_pull<pull_small_block, 0>, k::backward_shared_pull<pull_medium_block, pull_medium_min_blocks>,
                 k::backward_pipelined_pull<pull_large_block, 2, pull_prefetch_units>,
                 k::backward_pipelined_pull<pull_huge_block, 1, pull_prefetch_units>);
    prepare_staged(g, layout, host[3], host[4]);
    pull_prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  /// The staged layout of the Large graphs of the pull layout (as many as the cooperative grid
  /// has blocks, most levels first), uploaded; the Large graphs it leaves out keep the pipelined
  /// kernel. Part of the preparation, timed with it.
  void prepare_staged(const twitter::spreading_graphs& g, const twitter::detail::pull_layout& layout,
                      const std::vector<std::uint32_t>& large_two, const std::vector<std::uint32_t>& large_one) {
    int device = 0, cooperative = 0, per_sm = 0;
    WF_CUDA_CHECK(cudaGetDevice(&device));
    WF_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    const int sms = static_cast<int>(multiprocessor_count());
    auto kernel = k::backward_staged<staged_block, staged_register_blocks, false>;
    auto traced = k::backward_staged<staged_block, staged_register_blocks, true>;  // profile_staged's
    if (static_cast<std::uint64_t>(max_shared_optin) >= k::staged_shared_bytes) {
      for (auto f : {kernel, traced}) {
        WF_CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(k::staged_shared_bytes)));
      }
      WF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, staged_block, k::staged_shared_bytes));
    }
    // Both far-sum kernels are loaded now: with lazy module loading (CUDA 12's default) the first
    // launch of one loads it after the grid has started, too late to take part (the traced run's
    // far-sum blocks took no chunk, and the critical blocks took them all).
    load_kernels(k::backward_staged_far<staged_far_block, staged_far_min_blocks, false>,
                 k::backward_staged_far<staged_far_block, staged_far_min_blocks, true>);
    // At most staged_blocks_per_sm critical blocks an SM (the cooperative grid's co-residency).
    const unsigned max_staged = cooperative ? static_cast<unsigned>(std::max(0, std::min(per_sm, staged_blocks_per_sm) * sms)) : 0u;
    std::vector<std::uint32_t> candidates(large_one);
    candidates.insert(candidates.end(), large_two.begin(), large_two.end());
    const twitter::detail::staged_layout staged = twitter::detail::build_staged_layout(g, layout, candidates, max_staged, staged_starts);
    std::vector<std::uint8_t> in_staged(num_graphs, 0);
    for (const auto& record : staged.graphs) in_staged[record.graph] = 1;
    for (int c = 3; c < pull_classes; ++c) {
      std::vector<std::uint32_t> rest;
      for (std::uint32_t t : c == 3 ? large_two : large_one) {
        if (in_staged[t]) continue;
        rest.push_back(t);
        staged_rest_max_n[c] = std::max(staged_rest_max_n[c], static_cast<std::uint32_t>(g.graph_size(t)));
      }
      staged_rest[c].upload(rest);
    }
    staged_graphs.upload(staged.graphs);
    staged_stages.upload(staged.stages);
    staged_near_start.upload(staged.near_start);
    staged_near_slots.upload(staged.near_slots);
    staged_far_entries.upload(staged.far_entries);
    staged_far_runs.upload(staged.far_runs);
    staged_older_near.upload(staged.older_near);
    staged_recent_slots.upload(staged.recent_slots);
    // The chunks in the layout's step order, each with what its block needs of its graph.
    const std::size_t num_staged = staged.graphs.size();
    if (num_staged > 0xffffu) throw cuda_error("twitter backward: more staged graphs than a chunk record can name");
    if (staged.chunks.size() > 0x7fffffffu) throw cuda_error("twitter backward: more far-sum chunks than a ticket can count");
    for (std::size_t j = 0; j < num_staged; ++j) {
      const auto& record = staged.graphs[j];
      if (record.first_step == 0 && record.num_stages == staged.num_steps) staged_reference = static_cast<std::uint32_t>(j);
    }
    std::vector<k::staged_chunk_ref> chunks;
    chunks.reserve(staged.chunks.size());
    for (const auto& c : staged.chunks) {
      const auto& record = staged.graphs[c.staged];
      const std::uint32_t t = record.graph;
      chunks.push_back({g.graph_offsets[t], c.run_base, record.slot_base + c.first / twitter::detail::staged_chunk_nodes,
                        static_cast<std::uint16_t>(c.pass), static_cast<std::uint16_t>(c.staged), static_cast<std::uint16_t>(c.first),
                        static_cast<std::uint16_t>(c.last), c.source_first, c.source_end});
    }
    staged_chunks.upload(chunks);
    staged_chunk_offsets.upload(staged.chunk_offsets);
    static_assert(sizeof(k::staged_progress) == sizeof(std::uint32_t));
    staged_sync.allocate(num_staged + k::staged_counters + staged.num_slots);
    staged_far_grid = static_cast<unsigned>(staged_far_blocks_per_sm * sms);
    staged_far.allocate(staged.graphs.empty() ? 0 : num_nodes);
    // The staged positions' base values in position order (the pull kernels read them by local
    // id), so that a stage's node records and base values come in one trip.
    // (The same walk counts their positions and in-list entries for the bytes moved, below.)
    std::vector<double> position_base(staged.graphs.empty() ? 0 : num_nodes, 0.0);
    std::uint64_t positions = 0, list_entries = 0;
    for (const auto& record : staged.graphs) {
      const std::uint64_t lo = g.graph_offsets[record.graph], n = g.graph_size(record.graph);
      const twitter::detail::pull_node* nodes = layout.nodes.data() + layout.node_index(g, record.graph);
      for (std::uint64_t p = 0; p < n; ++p) {
        if (nodes[p].local_id < n) position_base[lo + p] = g.base[lo + nodes[p].local_id];
      }
      positions += n;
      list_entries += nodes[n].in_begin - nodes[0].in_begin;
    }
    staged_base.upload(position_base);
    staged_steps = staged.num_steps;
    // Bytes moved against the pull layout's: the staged graphs' in-lists are not read (2 B an
    // entry less), their near slots and far runs are (2 B, padding included), and the near
    // slots' starts, older run lengths and recent slots (4 + 2 + 16 B per position), stage
    // records, chunks with their source shares (8 B each) and run records (4 B), and per chunk
    // visit of a position its far sum read and written (16 B).
    std::uint64_t visits = 0, sources = 0;
    for (const auto& chunk : staged.chunks) {
      visits += chunk.last - chunk.first;
      sources += static_cast<std::uint64_t>(chunk.source_end - chunk.source_first);
    }
    staged_bytes = 2 * (staged.near_slots.size() + staged.far_entries.size()) + (4 + 2 + 16) * positions +
                   sizeof(twitter::detail::staged_stage) * staged.stages.size() + sizeof(k::staged_chunk_ref) * staged.chunks.size() +
                   8 * sources + 4 * staged.far_runs.size() + 16 * visits;
    staged_list_bytes = 2 * list_entries;
  }

  std::uint32_t* staged_counters() const { return staged_sync.ptr + staged_graphs.size; }

  /// The cooperative staged kernel over every staged graph, a block each, on stream s, and the
  /// far-sum kernel beside it on stream `far` (nothing when there are none).
  void launch_staged(cudaStream_t s, cudaStream_t far) {
    if (staged_graphs.size == 0) return;
    k::staged_view view{pull_kernel_view(),
                        staged_graphs.ptr,
                        static_cast<std::uint32_t>(staged_graphs.size),
                        staged_stages.ptr,
                        staged_near_start.ptr,
                        staged_near_slots.ptr,
                        staged_older_near.ptr,
                        reinterpret_cast<const uint4*>(staged_recent_slots.ptr),
                        staged_chunk_offsets.ptr,
                        staged_chunks.ptr,
                        static_cast<std::uint32_t>(staged_chunks.size),
                        staged_counters() + k::staged_counters,
                        staged_steps,
                        staged_reference,
                        staged_base.ptr,
                        staged_far.ptr,
                        reinterpret_cast<const uint4*>(staged_far_entries.ptr),
                        staged_far_runs.ptr,
                        reinterpret_cast<k::staged_progress*>(staged_sync.ptr),
                        staged_counters(),
                        staged_timeline,
                        staged_chunk_trace};
    void* args[] = {&view};
    const void* kernel = staged_timeline ? reinterpret_cast<const void*>(k::backward_staged<staged_block, staged_register_blocks, true>)
                                         : reinterpret_cast<const void*>(k::backward_staged<staged_block, staged_register_blocks, false>);
    WF_CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3(view.num_graphs), dim3(staged_block), args, k::staged_shared_bytes, s));
    // Without the far-sum kernel (tests) every critical block helps until its far sums are complete.
    if (staged_far_kernel && staged_timeline) {
      k::backward_staged_far<staged_far_block, staged_far_min_blocks, true><<<staged_far_grid, staged_far_block, 0, far>>>(view);
    } else if (staged_far_kernel) {
      k::backward_staged_far<staged_far_block, staged_far_min_blocks, false><<<staged_far_grid, staged_far_block, 0, far>>>(view);
    }
    WF_CUDA_CHECK(cudaGetLastError());
  }

  using pull_kernel = void (*)(k::pull_view, const std::uint32_t*, std::uint32_t, std::uint32_t);

  /// Launches a shared-pull kernel over `list` with the shares of up to the largest graph's n
  /// positions in shared memory (the rest in the global scratch, read through L2).
  void launch_pull_kernel(pull_kernel kernel, int block, const device_array<std::uint32_t>& list, std::uint32_t max_n,
                          cudaStream_t s) {
    if (list.size == 0) return;
    cudaFuncAttributes attributes{};
    WF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const std::uint64_t limit = static_cast<std::uint64_t>(max_shared_optin) > attributes.sharedSizeBytes
                                    ? static_cast<std::uint64_t>(max_shared_optin) - attributes.sharedSizeBytes
                                    : 0;
    // Shares of positions past the shared-memory capacity live in the global scratch (L2).
    const auto cap = static_cast<std::uint32_t>(std::min<std::uint64_t>(max_n, limit / sizeof(double)));
    const std::size_t shared_bytes = static_cast<std::size_t>(cap) * sizeof(double);
    if (shared_bytes > 48 * 1024) {
      WF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
    }
    kernel<<<grid_for(list.size), block, shared_bytes, s>>>(pull_kernel_view(), list.ptr, static_cast<std::uint32_t>(list.size), cap);
    WF_CUDA_CHECK(cudaGetLastError());
  }

  template <int Block, int MinBlocks>
  void launch_pull(const device_array<std::uint32_t>& list, std::uint32_t max_n, cudaStream_t s) {
    launch_pull_kernel(k::backward_shared_pull<Block, MinBlocks>, Block, list, max_n, s);
  }

  /// Large graphs: the pipelined kernel, MinBlocks blocks per SM.
  template <int Block, int MinBlocks>
  void launch_pipelined(const device_array<std::uint32_t>& list, std::uint32_t max_n, cudaStream_t s) {
    launch_pull_kernel(k::backward_pipelined_pull<Block, MinBlocks, pull_prefetch_units>, Block, list, max_n, s);
  }

  static unsigned grid_for(std::uint64_t count) {
    return static_cast<unsigned>(std::min<std::uint64_t>(count, 1u << 30));
  }

  void launch(gpu_variant variant, const device_array<std::uint32_t>& list, std::uint32_t max_n, cudaStream_t s,
              bool large) {
    if (list.size == 0) return;
    const unsigned grid = grid_for(list.size);
    const auto count = static_cast<std::uint32_t>(list.size);
    switch (variant) {
      case gpu_variant::edge_array:
        k::backward_edge_array<<<grid, large ? 1024 : small_block, 0, s>>>(view(), list.ptr, count);
        break;
      case gpu_variant::vertex_array:
        k::backward_vertex_array<<<grid, large ? 1024 : medium_block, 0, s>>>(view(), list.ptr, count);
        break;
      default: {
        const std::uint64_t shared_bytes = static_cast<std::uint64_t>(max_n) * sizeof(std::uint32_t);
        if (!large) {
          if (shared_bytes <= 48 * 1024) {
            k::backward_queue_grouped<medium_group, true>
                <<<grid, medium_block, static_cast<std::size_t>(shared_bytes), s>>>(view(), list.ptr, count);
          } else {
            k::backward_queue_grouped<medium_group, false><<<grid, medium_block, 0, s>>>(view(), list.ptr, count);
          }
        } else {
          // In-degrees in shared memory when the largest graph's fit next to the static arrays.
          constexpr std::uint64_t static_bytes = 3 * 8 * large_block + 2048;
          if (shared_bytes + static_bytes <= static_cast<std::uint64_t>(max_shared_optin)) {
            auto kernel = k::backward_queue_balanced<large_block, large_unroll, true>;
            WF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shared_bytes)));
            kernel<<<grid, large_block, static_cast<std::size_t>(shared_bytes), s>>>(view(), list.ptr, count);
          } else {
            k::backward_queue_balanced<large_block, large_unroll, false><<<grid, large_block, 0, s>>>(view(), list.ptr, count);
          }
        }
      }
    }
    WF_CUDA_CHECK(cudaGetLastError());
  }
};

twitter_backward_session::twitter_backward_session(const twitter::spreading_graphs& g, twitter::detail::staged_start starts)
    : impl_(std::make_unique<impl>()) {
  impl& d = *impl_;
  d.staged_starts = starts;
  d.num_graphs = g.num_graphs();
  d.num_nodes = g.num_nodes();
  d.num_edges = g.num_edges();
  WF_EXPECTS(d.num_graphs < (1ULL << 32), "input", "at most 2^32 - 1 graphs");
  const std::uint64_t free_bytes = device_free_bytes();
  const std::uint64_t wanted = d.num_edges * 8 + d.num_nodes * (8 + 8 + 8 + 12) + d.num_graphs * 24;
  if (wanted > free_bytes) throw resource_error("GPU backward phase", wanted, free_bytes);
  int device = 0;
  WF_CUDA_CHECK(cudaGetDevice(&device));
  WF_CUDA_CHECK(cudaDeviceGetAttribute(&d.max_shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  for (auto& s : d.streams) WF_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  WF_CUDA_CHECK(cudaEventCreate(&d.start));
  WF_CUDA_CHECK(cudaEventCreate(&d.stop));
  for (auto& e : d.joined) WF_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  for (auto& e : d.ends) WF_CUDA_CHECK(cudaEventCreate(&e));

  d.graph_offsets.upload(g.graph_offsets);
  d.rows.upload(g.row_offsets);
  d.targets.upload(g.edge_targets);
  d.base.upload(g.base);
  d.influence.allocate(d.num_nodes);
  d.indegree.allocate(d.num_nodes);
  d.queue.allocate(d.num_nodes);
  d.state.allocate(d.num_nodes);
  d.stalled.allocate(d.num_graphs);
  d.error.allocate(1);
  std::vector<std::uint32_t> all;
  for (std::uint64_t t = 0; t < d.num_graphs; ++t) {
    const std::uint64_t n = g.graph_size(t);
    const auto c = static_cast<int>(twitter::categorize(n));
    d.host_lists[c].push_back(static_cast<std::uint32_t>(t));
    d.max_n[c] = std::max(d.max_n[c], static_cast<std::uint32_t>(n));
    if (n > 1) all.push_back(static_cast<std::uint32_t>(t));
  }
  for (int c = 0; c < 4; ++c) d.lists[c].upload(d.host_lists[c]);
  d.non_empty.upload(all);
  d.max_n_all = std::max({d.max_n[1], d.max_n[2], d.max_n[3]});
  d.prepare_pull(g);
}

twitter_backward_session::~twitter_backward_session() = default;

double twitter_backward_session::run(gpu_variant variant, unsigned categories) {
  impl& d = *impl_;
  WF_EXPECTS(categories != 0 && categories <= all_categories, "categories", "expected a non-empty mask of categories 0..3");
  static const device_array<std::uint32_t> no_graphs;
  auto chosen = [&](int c) { return ((categories >> c) & 1u) != 0; };
  auto list = [&](int c) -> const device_array<std::uint32_t>& { return chosen(c) ? d.lists[c] : no_graphs; };
  // The edge array needs COO sources (preparation, outside the timed region as in the thesis).
  if (variant == gpu_variant::automatic) variant = gpu_variant::staged;
  const bool tuned = variant == gpu_variant::thesis || variant == gpu_variant::topological;
  if (variant == gpu_variant::edge_array || (tuned && d.lists[1].size > 0)) d.ensure_sources();
  if (variant == gpu_variant::topological) d.ensure_split();
  auto part = [&](const device_array<std::uint32_t>& l, int c) -> const device_array<std::uint32_t>& {
    return chosen(c) ? l : no_graphs;
  };
  cudaStream_t main = d.streams[0];
  WF_CUDA_CHECK(cudaMemsetAsync(d.error.ptr, 0, sizeof(std::uint32_t), main));
  WF_CUDA_CHECK(cudaMemsetAsync(d.stalled.ptr, 0, std::max<std::uint64_t>(d.num_graphs, 1) * sizeof(std::uint32_t), main));
  WF_CUDA_CHECK(cudaEventRecord(d.start, main));
  const bool staged = variant == gpu_variant::staged;
  const bool pull = variant == gpu_variant::shared_pull || staged;
  bool any_fallback = false;
  for (int c = 0; c < 4; ++c) any_fallback = any_fallback || part(d.pull_fallback[c], c).size > 0;
  // Alg. 2 lines 2-4: I(v) = n_v for every node, Empty graphs included. The pull kernels write
  // every node of their graphs themselves, so the copy is needed there only for the queue fallback.
  if (d.num_nodes > 0 && (!pull || any_fallback)) {
    WF_CUDA_CHECK(cudaMemcpyAsync(d.influence.ptr, d.base.ptr, d.num_nodes * sizeof(double), cudaMemcpyDeviceToDevice, main));
  }
  // The staged progress records, chunk tickets and started count start at zero (before the other
  // streams start, so nothing stands between the cooperative launch and the SMs it needs).
  if (staged && chosen(3) && d.staged_sync.size > 0) {
    WF_CUDA_CHECK(cudaMemsetAsync(d.staged_sync.ptr, 0, d.staged_sync.size * sizeof(std::uint32_t), main));
  }
  WF_CUDA_CHECK(cudaEventRecord(d.joined[0], main));
  for (int s = 1; s < impl::num_streams; ++s) WF_CUDA_CHECK(cudaStreamWaitEvent(d.streams[s], d.joined[0], 0));
  if (pull) {
    // The Large graphs with the longest sweeps first, on their own stream: they are the critical
    // path. staged: the cooperative grid takes the staged graphs, the pipelined kernel the rest.
    auto large = [&](int k) -> const device_array<std::uint32_t>& { return staged ? d.staged_rest[k] : d.pull_lists[k]; };
    auto large_n = [&](int k) { return staged ? d.staged_rest_max_n[k] : d.pull_max_n[k]; };
    const bool traced = d.staged_timeline != nullptr;
    auto end_of = [&](impl::group_end e, cudaStream_t s) {
      if (traced) WF_CUDA_CHECK(cudaEventRecord(d.ends[e], s));
    };
    if (staged && chosen(3)) d.launch_staged(d.streams[0], d.streams[3]);
    end_of(impl::far_end, d.streams[3]);
    d.launch_pipelined<pull_huge_block, 1>(part(large(4), 3), large_n(4), d.streams[0]);
    d.launch(gpu_variant::queue, part(d.pull_fallback[3], 3), d.pull_fallback_max_n[3], d.streams[0], true);
    end_of(impl::grid_end, d.streams[0]);
    d.launch_pipelined<pull_large_block, 2>(part(large(3), 3), large_n(3), d.streams[1]);
    d.launch(gpu_variant::queue, part(d.pull_fallback[2], 2), d.pull_fallback_max_n[2], d.streams[1], false);
    end_of(impl::large_two_end, d.streams[1]);
    d.launch_pull<pull_medium_block, pull_medium_min_blocks>(part(d.pull_lists[2], 2), d.pull_max_n[2], d.streams[2]);
    end_of(impl::medium_end, d.streams[2]);
    d.launch_pull<pull_small_block, 0>(part(d.pull_lists[1], 1), d.pull_max_n[1], d.streams[2]);
    d.launch_pull<pull_small_block, 0>(part(d.pull_lists[0], 0), d.pull_max_n[0], d.streams[2]);
    end_of(impl::small_end, d.streams[2]);
    // Left out of the layout only with out-degrees past 16 bits (repeated edges): not in valid sets.
    d.launch(gpu_variant::queue, part(d.pull_fallback[1], 1), d.pull_fallback_max_n[1], d.streams[2], false);
    d.launch(gpu_variant::queue, part(d.pull_fallback[0], 0), d.pull_fallback_max_n[0], d.streams[2], false);
  } else if (variant == gpu_variant::topological) {
    d.launch_chunked(part(d.ordered[3], 3), d.streams[0]);
    d.launch(gpu_variant::queue, part(d.unordered[3], 3), d.max_n[3], d.streams[0], true);
    d.launch_chunked(part(d.ordered[2], 2), d.streams[1]);
    d.launch(gpu_variant::queue, part(d.unordered[2], 2), d.max_n[2], d.streams[1], false);
    d.launch(gpu_variant::edge_array, list(1), d.max_n[1], d.streams[2], false);
  } else if (variant == gpu_variant::thesis) {
    // Large first on its own stream: its few long sweeps overlap the many short ones.
    d.launch(gpu_variant::queue, list(3), d.max_n[3], d.streams[0], true);
    d.launch(gpu_variant::queue, list(2), d.max_n[2], d.streams[1], false);
    d.launch(gpu_variant::edge_array, list(1), d.max_n[1], d.streams[2], false);
  } else {
    // One variant everywhere; Large graphs get the wide configuration of that variant.
    d.launch(variant, list(3), d.max_n[3], d.streams[0], true);
    d.launch(variant, list(2), d.max_n[2], d.streams[1], false);
    d.launch(variant, list(1), d.max_n[1], d.streams[2], false);
  }
  for (int s = 1; s < impl::num_streams; ++s) {
    WF_CUDA_CHECK(cudaEventRecord(d.joined[s], d.streams[s]));
    WF_CUDA_CHECK(cudaStreamWaitEvent(main, d.joined[s], 0));
  }
  WF_CUDA_CHECK(cudaEventRecord(d.stop, main));
  WF_CUDA_CHECK(cudaEventSynchronize(d.stop));
  float ms = 0.0f;
  WF_CUDA_CHECK(cudaEventElapsedTime(&ms, d.start, d.stop));
  std::uint32_t error = 0;
  WF_CUDA_CHECK(cudaMemcpy(&error, d.error.ptr, sizeof(error), cudaMemcpyDeviceToHost));
  if (error & 2u) throw input_error("spreading graphs", 0, "an edge target lies outside its graph");
  if (error & 1u) throw cuda_error("twitter backward: queue overflow (a node was enqueued twice); this is a bug");
  if (error & k::pull_error_bit) throw cuda_error("twitter backward: a pull in-list names a position not yet final; this is a bug");
  if (error & k::staged_error_bit) throw cuda_error("twitter backward: the staged layout is inconsistent (a near run outside its stage or slot outside its window, a far entry outside its source stage or a stage past its limits); this is a bug");
  return ms / 1000.0;
}

twitter::influence_result twitter_backward_session::result() const {
  const impl& d = *impl_;
  twitter::influence_result r;
  r.influence.resize(d.num_nodes);
  if (d.num_nodes > 0) {
    WF_CUDA_CHECK(cudaMemcpy(r.influence.data(), d.influence.ptr, d.num_nodes * sizeof(double), cudaMemcpyDeviceToHost));
  }
  std::vector<std::uint32_t> stalled(d.num_graphs);
  if (d.num_graphs > 0) {
    WF_CUDA_CHECK(cudaMemcpy(stalled.data(), d.stalled.ptr, d.num_graphs * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  }
  twitter::detail::collect_cycles(stalled, r);
  return r;
}

std::uint64_t twitter_backward_session::resident_bytes() const noexcept {
  const impl& d = *impl_;
  return d.num_edges * 4 + (d.num_nodes + 1) * 8 + d.num_nodes * 8 + (d.num_graphs + 1) * 8;
}

std::uint64_t twitter_backward_session::shared_pull_bytes() const noexcept { return impl_->pull_bytes; }
double twitter_backward_session::shared_pull_prepare_seconds() const noexcept { return impl_->pull_prepare_seconds; }
std::uint32_t twitter_backward_session::shared_pull_max_levels() const noexcept { return impl_->pull_max_levels; }
std::uint64_t twitter_backward_session::staged_bytes() const noexcept { return impl_->pull_bytes - impl_->staged_list_bytes + impl_->staged_bytes; }
std::uint64_t twitter_backward_session::staged_graph_count() const noexcept { return impl_->staged_graphs.size; }
std::uint32_t twitter_backward_session::staged_steps() const noexcept { return impl_->staged_steps; }
void twitter_backward_session::use_far_sum_kernel(bool on) noexcept { impl_->staged_far_kernel = on; }

static_assert(twitter_backward_session::staged_timeline::slots == k::staged_timeline_slots);
static_assert(twitter_backward_session::large_category == 1u << static_cast<int>(twitter::graph_category::large));
static_assert(twitter_backward_session::staged_timeline::ready_ns_slot == k::staged_ready_ns_slot &&
              twitter_backward_session::staged_timeline::published_ns_slot == k::staged_published_ns_slot &&
              twitter_backward_session::staged_timeline::staged_ns_slot == k::staged_staged_ns_slot);

twitter_backward_session::staged_timeline twitter_backward_session::profile_staged(unsigned categories) {
  impl& d = *impl_;
  staged_timeline t;
  t.blocks = static_cast<std::uint32_t>(d.staged_graphs.size);
  t.steps = d.staged_steps;
  t.reference = d.staged_reference;
  if (t.blocks == 0) return t;
  const std::uint64_t slots = std::uint64_t{k::staged_timeline_slots} * t.blocks * t.steps + 4;
  const std::uint64_t span_slots = std::uint64_t{k::staged_block_span_slots} * (t.blocks + d.staged_far_grid);
  const std::uint64_t chunk_slots = std::uint64_t{k::staged_chunk_trace_slots} * d.staged_chunks.size;
  device_array<std::uint64_t> records, chunk_records;
  records.allocate(slots + span_slots);
  chunk_records.allocate(chunk_slots);
  WF_CUDA_CHECK(cudaMemset(records.ptr, 0, (slots + span_slots) * sizeof(std::uint64_t)));
  WF_CUDA_CHECK(cudaMemset(chunk_records.ptr, 0, chunk_slots * sizeof(std::uint64_t)));
  d.staged_timeline = records.ptr;
  d.staged_chunk_trace = chunk_records.ptr;
  try {
    t.seconds = run(gpu_variant::staged, categories | large_category);
  } catch (...) {
    d.staged_timeline = d.staged_chunk_trace = nullptr;
    throw;
  }
  d.staged_timeline = d.staged_chunk_trace = nullptr;
  const auto since_start = [&](impl::group_end e) {
    float ms = 0.0f;
    WF_CUDA_CHECK(cudaEventElapsedTime(&ms, d.start, d.ends[e]));
    return ms / 1000.0;
  };
  t.grid_end = since_start(impl::grid_end);
  t.far_end = since_start(impl::far_end);
  t.large_two_end = since_start(impl::large_two_end);
  t.medium_end = since_start(impl::medium_end);
  t.small_end = since_start(impl::small_end);
  t.records.resize(slots + span_slots);
  WF_CUDA_CHECK(cudaMemcpy(t.records.data(), records.ptr, (slots + span_slots) * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  const std::uint64_t* tail = t.records.data() + slots - 4;
  if (tail[3] > tail[1]) t.clock_hz = static_cast<double>(tail[2] - tail[0]) / (static_cast<double>(tail[3] - tail[1]) * 1e-9);
  // The critical blocks' spans by the staged graph each solved.
  t.critical_spans.resize(t.blocks);
  for (std::uint64_t b = 0; b < t.blocks + d.staged_far_grid; ++b) {
    const std::uint64_t* span = t.records.data() + slots + b * k::staged_block_span_slots;
    const staged_timeline::block_span record{static_cast<std::uint32_t>(span[0]), span[1], span[2], b >= t.blocks && span[3] != 0};
    if (b < t.blocks && span[3] < t.blocks) t.critical_spans[span[3]] = record;
    if (b >= t.blocks) t.far_spans.push_back(record);
  }
  t.records.resize(slots - 4);
  std::vector<std::uint64_t> stamps(chunk_slots), offsets(t.steps + 1);
  std::vector<k::staged_chunk_ref> refs(d.staged_chunks.size);
  WF_CUDA_CHECK(cudaMemcpy(stamps.data(), chunk_records.ptr, chunk_slots * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  WF_CUDA_CHECK(cudaMemcpy(refs.data(), d.staged_chunks.ptr, refs.size() * sizeof(k::staged_chunk_ref), cudaMemcpyDeviceToHost));
  WF_CUDA_CHECK(cudaMemcpy(offsets.data(), d.staged_chunk_offsets.ptr, offsets.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  t.chunks.resize(refs.size());
  for (std::uint32_t step = 0; step < t.steps; ++step) {
    for (std::uint64_t c = offsets[step]; c < offsets[step + 1]; ++c) {
      const std::uint64_t* s = stamps.data() + c * k::staged_chunk_trace_slots;
      t.chunks[c] = {refs[c].staged, refs[c].pass, step, s[0], s[1], s[2], static_cast<std::uint32_t>(s[3]),
                     (s[3] & k::staged_trace_far_block) != 0};
    }
  }
  return t;
}

twitter::influence_result twitter_backward(const twitter::spreading_graphs& graphs, gpu_variant variant) {
  twitter_backward_session session(graphs);
  const double seconds = session.run(variant);
  twitter::influence_result r = session.result();
  r.backward_seconds = seconds;
  return r;
}

double measure_copy_bandwidth(std::uint64_t bytes) {
  device_array<char> a, b;
  a.allocate(bytes);
  b.allocate(bytes);
  WF_CUDA_CHECK(cudaMemset(a.ptr, 1, bytes));
  event_stopwatch stopwatch;
  WF_CUDA_CHECK(cudaMemcpy(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice));  // warm-up
  constexpr int reps = 10;
  stopwatch.start();
  for (int r = 0; r < reps; ++r) WF_CUDA_CHECK(cudaMemcpy(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice));
  return 2.0 * static_cast<double>(bytes) * reps / stopwatch.stop_seconds();
}

}  // namespace wildfire::cuda
