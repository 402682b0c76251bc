// Backward phase: influence of every participant of every tweet (thesis sec. 2.3.3, Algorithm 2 as
// corrected in the digest): I(v) = n_v + sum over back edges (u, v) of I(u) / deg+(u), with deg+
// the ORIGINAL out-degree. Sequential reference, OpenMP over tweets, and the GPU variants.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wildfire/twitter/spreading_graphs.hpp"

namespace wildfire::twitter {

/// GPU kernel family (thesis sec. 6.3): queue per graph (atomic queue), vertex array (every vertex
/// checked each level) or edge array (every edge checked each level). `thesis` picks per size
/// category as the thesis's tuned pipeline does: edge array for Small, queue for Medium and Large.
/// `topological` (ours, not the thesis's) sweeps Medium and Large graphs whose nodes are numbered
/// in topological order (every edge to a higher index, as in RSG) chunk by chunk in shared memory,
/// and the other graphs as `thesis` does. `shared_pull` (ours) sweeps each graph of up to 65,535
/// nodes with one block, level by level, every node pulling its predecessors' shares from shared
/// memory through a level-ordered 16-bit layout built once per graph set (docs/twitter.md);
/// larger graphs go to the queue kernel. `staged` (ours) is `shared_pull` except for the Large
/// graphs with long chains of levels, which one cooperative grid sweeps stage by stage: a block
/// per graph follows the dependent levels while the whole GPU sums the pulls from earlier stages
/// (docs/twitter.md). `automatic` is `staged` (measured 4x faster than `shared_pull` on the
/// thesis-sized RSG set, docs/benchmarks.md; without cooperative launch it is `shared_pull`).
enum class gpu_variant { automatic, queue, vertex_array, edge_array, topological, shared_pull, thesis, staged };
gpu_variant parse_gpu_variant(const std::string& text);  // config_error("--gpu-variant")
const char* to_string(gpu_variant v) noexcept;

/// Per-node influence plus what the sweep could not finish. A vertex is "stalled" when some of its
/// in-edges were never consumed: it sits on a cycle or downstream of one (the thesis's real data
/// has cycles). A stalled vertex keeps what it accumulated (its base plus the shares of the
/// predecessors that did finish) and passes nothing on (docs/twitter.md).
struct influence_result {
  std::vector<double> influence;           // N, node order of the input
  std::uint64_t num_stalled_nodes = 0;
  std::uint64_t num_graphs_with_cycles = 0;
  std::vector<std::uint64_t> cyclic_graphs;  // ids of graphs with stalled nodes, ascending
  double backward_seconds = 0.0;           // the sweep alone (GPU: device time, data resident)
};

/// Corrected Algorithm 2, one graph after another, FIFO Kahn sweep. The specification the other
/// backends are checked against. O(N + M).
influence_result backward_sequential(const spreading_graphs& graphs);

/// The same sweep, graphs distributed over OpenMP threads (largest first, dynamic). Equal to the
/// sequential result bit for bit: each graph is swept by one thread in the same order.
influence_result backward_openmp(const spreading_graphs& graphs, int num_threads = 0);

/// GPU backward phase: copies the graphs to the device, runs the variant (per category when
/// automatic), copies the influence back. Blocking. Throws config_error("--device") in builds
/// without CUDA. Results agree with the sequential sweep to rounding (double atomics change the
/// summation order): exactly where every share is exactly representable.
influence_result backward_gpu(const spreading_graphs& graphs, gpu_variant variant = gpu_variant::automatic);

/// Invariants checked against a fresh sequential sweep: same stalled nodes; every influence within
/// `rel_tol` (relative to max(1, |value|)); on every graph without cycles, conservation: the sum of
/// the influences of the sinks equals the sum of the base values of the nodes that reach a sink.
struct verify_result {
  bool ok = true;
  std::string first_mismatch;
};
verify_result verify_influence(const spreading_graphs& graphs, const influence_result& result,
                               double rel_tol = 1e-12);

}  // namespace wildfire::twitter
