// Backward-phase kernels (thesis sec. 6.3): queue per graph (grouped, and edge-balanced for Large
// graphs), vertex array and edge array. One block per spreading graph; levels are separated by
// block barriers, never by inter-block waits. Included only by twitter_backward.cu.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

namespace wildfire::cuda::twitter_kernels {

struct backward_view {
  const std::uint64_t* graph_offsets;  // T + 1
  const std::uint64_t* rows;           // N + 1
  const std::uint32_t* targets;        // M, graph-local
  const std::uint32_t* sources;        // M, graph-local COO sources (edge array only)
  double* influence;                   // N, holds the base values on entry
  std::uint32_t* indegree;             // N scratch
  std::uint32_t* queue;                // N scratch: graph t's queue is its own node range
  std::uint32_t* state;                // N scratch: level at which a node becomes a source
  std::uint32_t* stalled;              // T: nodes whose in-edges were not all consumed
  std::uint32_t* error;                // bit 1: queue overflow, bit 2: edge target out of range
};

inline constexpr std::uint32_t not_ready = 0xffffffffu;

// Influence, queue slots, states and global in-degrees are written by other threads of the block
// (atomics resolve in L2), so they are read with ld.global.cg, never through a possibly stale L1.
template <bool Shared>
__device__ __forceinline__ std::uint32_t load_count(const std::uint32_t* p) {
  if constexpr (Shared) return *p;
  else return __ldcg(p);
}

struct graph_range {
  std::uint64_t lo;
  std::uint32_t n;
};

__device__ __forceinline__ graph_range graph_of(const backward_view& v, std::uint32_t t) {
  const std::uint64_t lo = v.graph_offsets[t];
  return {lo, static_cast<std::uint32_t>(v.graph_offsets[t + 1] - lo)};
}

/// Zeroes and counts the in-degrees of one graph (edges of a graph are contiguous, so the count
/// walks them coalesced). Ends with a barrier.
__device__ __forceinline__ void count_indegrees(const backward_view& v, graph_range g, std::uint32_t* indeg) {
  for (std::uint32_t i = threadIdx.x; i < g.n; i += blockDim.x) indeg[i] = 0;
  __syncthreads();
  const std::uint64_t end = v.rows[g.lo + g.n];
  for (std::uint64_t e = v.rows[g.lo] + threadIdx.x; e < end; e += blockDim.x) {
    const std::uint32_t w = v.targets[e];
    if (w < g.n) atomicAdd(indeg + w, 1u);
    else atomicOr(v.error, 2u);
  }
  __syncthreads();
}

/// Writes the number of nodes with unconsumed in-edges of graph t. Starts and ends with a barrier.
template <bool Shared>
__device__ __forceinline__ void count_stalled(const backward_view& v, std::uint32_t t, graph_range g,
                                              const std::uint32_t* indeg, std::uint32_t* s_counter) {
  __syncthreads();
  if (threadIdx.x == 0) *s_counter = 0;
  __syncthreads();
  std::uint32_t c = 0;
  for (std::uint32_t i = threadIdx.x; i < g.n; i += blockDim.x) c += load_count<Shared>(indeg + i) != 0;
  if (c) atomicAdd(s_counter, c);
  __syncthreads();
  if (threadIdx.x == 0) v.stalled[t] = *s_counter;
  __syncthreads();
}

/// Pushes `share` along one edge (u, w): influence, then the in-degree decrement that "removes"
/// the edge (Alg. 2 line 15); the thread that takes w's in-degree to 0 enqueues w, exactly once.
/// Unlike the thesis's rule (sec. 6.3.4) a sink is enqueued too: testing its out-degree here would
/// put a dependent global load on every level's critical path, while dequeuing a node without
/// out-edges does nothing (its share is never used).
template <bool Shared>
__device__ __forceinline__ void push_edge(const backward_view& v, graph_range g, std::uint32_t w, double share,
                                          std::uint32_t* indeg, std::uint32_t* queue, std::uint32_t* s_tail) {
  atomicAdd(v.influence + g.lo + w, share);
  if (atomicSub(indeg + w, 1u) == 1u) {
    const std::uint32_t pos = atomicAdd(s_tail, 1u);
    if (pos < g.n) queue[pos] = w;
    else atomicOr(v.error, 1u);
  }
}

/// Enqueues the initial sources (in-degree 0, out-degree > 0). Ends with a barrier.
template <bool Shared>
__device__ __forceinline__ void initial_frontier(const backward_view& v, graph_range g, const std::uint32_t* indeg,
                                                 std::uint32_t* queue, std::uint32_t* s_tail) {
  for (std::uint32_t i = threadIdx.x; i < g.n; i += blockDim.x) {
    if (load_count<Shared>(indeg + i) == 0 && v.rows[g.lo + i + 1] > v.rows[g.lo + i]) queue[atomicAdd(s_tail, 1u)] = i;
  }
  __syncthreads();
}

/// A queue kernel's graph: its id and range, its in-degrees (in `s_dynamic`, shared memory, when
/// Shared) and its queue (its own node range of the global scratch).
struct queue_graph {
  std::uint32_t t;
  graph_range g;
  std::uint32_t* indeg;
  std::uint32_t* queue;
};

/// The queue kernels' start on graph t: empties the queue, counts the in-degrees and enqueues the
/// initial sources. Ends with a barrier.
template <bool Shared>
__device__ __forceinline__ queue_graph open_queue(const backward_view& v, std::uint32_t t, std::uint32_t* s_dynamic,
                                                  std::uint32_t* s_head, std::uint32_t* s_tail) {
  const graph_range g = graph_of(v, t);
  const queue_graph q{t, g, Shared ? s_dynamic : v.indegree + g.lo, v.queue + g.lo};
  if (threadIdx.x == 0) *s_head = *s_tail = 0;
  count_indegrees(v, g, q.indeg);
  initial_frontier<Shared>(v, g, q.indeg, q.queue, s_tail);
  return q;
}

/// Block-wide, before each level of a queue kernel: the level is the queue's entries [head, tail)
/// enqueued by the previous one; false (in every thread) when it is empty.
__device__ __forceinline__ bool next_level(std::uint32_t* s_head, const std::uint32_t* s_tail, std::uint32_t& head,
                                           std::uint32_t& tail) {
  __syncthreads();  // the previous level's enqueues are complete and visible
  head = *s_head;
  tail = *s_tail;
  if (head == tail) return false;
  __syncthreads();  // every thread has read head and tail before thread 0 moves head
  if (threadIdx.x == 0) *s_head = tail;
  return true;
}

/// Queue per graph with GroupSize threads per frontier node (thesis "AQ", sec. 6.3.2; 8 groups of
/// 32 for Medium graphs, sec. 7.2.6). One block per listed graph; the in-degrees live in shared
/// memory (n * 4 bytes of dynamic shared memory) when Shared.
template <int GroupSize, bool Shared>
__global__ void backward_queue_grouped(backward_view v, const std::uint32_t* graphs, std::uint32_t num_graphs) {
  extern __shared__ std::uint32_t s_dynamic[];
  __shared__ std::uint32_t s_head, s_tail, s_counter;
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const auto [t, g, indeg, queue] = open_queue<Shared>(v, graphs[k], s_dynamic, &s_head, &s_tail);
    const std::uint32_t group = threadIdx.x / GroupSize, lane = threadIdx.x % GroupSize;
    const std::uint32_t num_groups = blockDim.x / GroupSize;
    std::uint32_t head = 0, tail = 0;
    while (next_level(&s_head, &s_tail, head, tail)) {
      for (std::uint32_t q = head + group; q < tail; q += num_groups) {
        const std::uint32_t u = __ldcg(queue + q);
        const std::uint64_t b = v.rows[g.lo + u], e = v.rows[g.lo + u + 1];
        if (e == b) continue;  // a sink: nothing to pass on
        const double share = __ldcg(v.influence + g.lo + u) / static_cast<double>(e - b);
        for (std::uint64_t j = b + lane; j < e; j += GroupSize) {
          const std::uint32_t w = v.targets[j];
          if (w < g.n) push_edge<Shared>(v, g, w, share, indeg, queue, &s_tail);
          else atomicOr(v.error, 2u);
        }
      }
    }
    count_stalled<Shared>(v, t, g, indeg, &s_counter);
  }
}

/// Queue per graph with the frontier's edges spread evenly over the block (Merrill-style: a block
/// scan of the frontier's out-degrees, then each thread takes edges BlockSize apart and finds
/// their source by binary search). Targets are loaded Unroll at a time before any atomic, so
/// several loads are in flight per thread. For Large graphs, where the thesis's best kernel was a
/// block per frontier node (sec. 7.2.4).
template <int BlockSize, int Unroll, bool Shared>
__global__ void __launch_bounds__(BlockSize)
    backward_queue_balanced(backward_view v, const std::uint32_t* graphs, std::uint32_t num_graphs) {
  using scan_t = cub::BlockScan<unsigned long long, BlockSize>;
  extern __shared__ std::uint32_t s_dynamic[];
  __shared__ typename scan_t::TempStorage s_scan;
  __shared__ unsigned long long s_end[BlockSize];  // inclusive prefix of the chunk's out-degrees
  __shared__ unsigned long long s_row[BlockSize];
  __shared__ double s_share[BlockSize];
  __shared__ std::uint32_t s_head, s_tail, s_counter;
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const auto [t, g, indeg, queue] = open_queue<Shared>(v, graphs[k], s_dynamic, &s_head, &s_tail);
    std::uint32_t head = 0, tail = 0;
    while (next_level(&s_head, &s_tail, head, tail)) {
      for (std::uint32_t c0 = head; c0 < tail; c0 += BlockSize) {
        const std::uint32_t count = min(static_cast<std::uint32_t>(BlockSize), tail - c0);
        unsigned long long degree = 0;
        if (threadIdx.x < count) {
          const std::uint32_t u = __ldcg(queue + c0 + threadIdx.x);
          const std::uint64_t b = v.rows[g.lo + u], e = v.rows[g.lo + u + 1];
          degree = e - b;
          s_row[threadIdx.x] = b;
          s_share[threadIdx.x] = degree ? __ldcg(v.influence + g.lo + u) / static_cast<double>(degree) : 0.0;
        }
        unsigned long long inclusive = 0, total = 0;
        scan_t(s_scan).InclusiveSum(degree, inclusive, total);
        s_end[threadIdx.x] = inclusive;
        __syncthreads();
        for (unsigned long long base = 0; base < total; base += static_cast<unsigned long long>(BlockSize) * Unroll) {
          std::uint32_t w[Unroll];
          double share[Unroll];
#pragma unroll
          for (int r = 0; r < Unroll; ++r) {
            const unsigned long long x = base + static_cast<unsigned long long>(r) * BlockSize + threadIdx.x;
            w[r] = not_ready;
            if (x < total) {
              std::uint32_t lo = 0, hi = count - 1;  // first slot whose inclusive end exceeds x
              while (lo < hi) {
                const std::uint32_t mid = (lo + hi) / 2;
                if (s_end[mid] > x) hi = mid;
                else lo = mid + 1;
              }
              const unsigned long long offset = x - (lo == 0 ? 0ULL : s_end[lo - 1]);
              w[r] = v.targets[s_row[lo] + offset];
              share[r] = s_share[lo];
            }
          }
#pragma unroll
          for (int r = 0; r < Unroll; ++r) {
            if (w[r] == not_ready) continue;
            if (w[r] < g.n) push_edge<Shared>(v, g, w[r], share[r], indeg, queue, &s_tail);
            else atomicOr(v.error, 2u);
          }
        }
        __syncthreads();  // s_row, s_share, s_end and the scan storage are reused by the next chunk
      }
    }
    count_stalled<Shared>(v, t, g, indeg, &s_counter);
  }
}

/// Vertex and edge array, shared steps: every node with in-degree 0 and out-edges is ready at
/// level 0, the others not_ready.
__device__ __forceinline__ void initial_states(const backward_view& v, graph_range g, const std::uint32_t* indeg,
                                               std::uint32_t* state) {
  for (std::uint32_t i = threadIdx.x; i < g.n; i += blockDim.x) {
    state[i] = (__ldcg(indeg + i) == 0 && v.rows[g.lo + i + 1] > v.rows[g.lo + i]) ? 0u : not_ready;
  }
}

/// Passes `share` along the edge to w found at `level`: the thread whose decrement frees w (and
/// w has out-edges) marks it ready for level + 1.
__device__ __forceinline__ void release_edge(const backward_view& v, graph_range g, std::uint32_t w, double share,
                                             std::uint32_t level, std::uint32_t* indeg, std::uint32_t* state) {
  if (w >= g.n) {
    atomicOr(v.error, 2u);
    return;
  }
  atomicAdd(v.influence + g.lo + w, share);
  if (atomicSub(indeg + w, 1u) == 1u && v.rows[g.lo + w + 1] > v.rows[g.lo + w]) state[w] = level + 1;
}

/// The level loop of the vertex and edge arrays: `scan(level)` releases the edges of the nodes
/// ready at `level` and returns whether it found any; the loop ends at the first empty level.
template <class Scan>
__device__ __forceinline__ void array_levels(const backward_view& v, std::uint32_t t, graph_range g, std::uint32_t* indeg,
                                             std::uint32_t* state, std::uint32_t* s_counter, Scan scan) {
  count_indegrees(v, g, indeg);
  initial_states(v, g, indeg, state);
  for (std::uint32_t level = 0;; ++level) {
    __syncthreads();  // the states of this level are final
    if (__syncthreads_or(scan(level) ? 1 : 0) == 0) break;
  }
  count_stalled<false>(v, t, g, indeg, s_counter);
}

/// Vertex array (Harish and Narayanan; thesis "VA"): every level checks every node of the graph
/// for state == level.
__global__ void backward_vertex_array(backward_view v, const std::uint32_t* graphs, std::uint32_t num_graphs) {
  __shared__ std::uint32_t s_counter;
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const graph_range g = graph_of(v, t);
    std::uint32_t* indeg = v.indegree + g.lo;
    std::uint32_t* state = v.state + g.lo;
    array_levels(v, t, g, indeg, state, &s_counter, [&](std::uint32_t level) {
      bool active = false;
      for (std::uint32_t u = threadIdx.x; u < g.n; u += blockDim.x) {
        if (__ldcg(state + u) != level) continue;
        active = true;
        const std::uint64_t b = v.rows[g.lo + u], e = v.rows[g.lo + u + 1];
        const double share = __ldcg(v.influence + g.lo + u) / static_cast<double>(e - b);
        for (std::uint64_t j = b; j < e; ++j) release_edge(v, g, v.targets[j], share, level, indeg, state);
      }
      return active;
    });
  }
}

/// Edge array (after Springer; thesis "EA"): every level checks every edge of the graph (COO) for
/// a source in state == level. Work O(levels * m): meant for Small graphs, as in sec. 7.2.6.
__global__ void backward_edge_array(backward_view v, const std::uint32_t* graphs, std::uint32_t num_graphs) {
  __shared__ std::uint32_t s_counter;
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const graph_range g = graph_of(v, t);
    std::uint32_t* indeg = v.indegree + g.lo;
    std::uint32_t* state = v.state + g.lo;
    const std::uint64_t e_lo = v.rows[g.lo], e_hi = v.rows[g.lo + g.n];
    array_levels(v, t, g, indeg, state, &s_counter, [&](std::uint32_t level) {
      bool active = false;
      for (std::uint64_t e = e_lo + threadIdx.x; e < e_hi; e += blockDim.x) {
        const std::uint32_t u = v.sources[e];
        if (u >= g.n || __ldcg(state + u) != level) continue;
        active = true;
        const double share = __ldcg(v.influence + g.lo + u) / static_cast<double>(v.rows[g.lo + u + 1] - v.rows[g.lo + u]);
        release_edge(v, g, v.targets[e], share, level, indeg, state);
      }
      return active;
    });
  }
}

/// Per graph: 1 when every edge goes to a higher local index and rows are sorted (the graph is
/// numbered in topological order, as RSG graphs are), else 0. One block per graph.
__global__ void check_ascending(backward_view v, std::uint64_t num_graphs, std::uint32_t* ascending) {
  for (std::uint64_t t = blockIdx.x; t < num_graphs; t += gridDim.x) {
    const graph_range g = graph_of(v, static_cast<std::uint32_t>(t));
    int bad = 0;
    for (std::uint32_t i = threadIdx.x; i < g.n && !bad; i += blockDim.x) {
      std::uint32_t previous = i;  // targets must exceed i and increase along the row
      for (std::uint64_t j = v.rows[g.lo + i]; j < v.rows[g.lo + i + 1]; ++j) {
        if (v.targets[j] <= previous || v.targets[j] >= g.n) {
          bad = 1;
          break;
        }
        previous = v.targets[j];
      }
    }
    bad = __syncthreads_or(bad);
    if (threadIdx.x == 0) ascending[t] = bad ? 0u : 1u;
    __syncthreads();
  }
}

/// Chunked sweep of a graph numbered in topological order (every edge goes to a higher index,
/// rows sorted): nodes are taken Chunk at a time. Everything from earlier chunks has already been
/// added to the chunk's influence, so the chunk is swept on its own, with influence, in-degrees,
/// queue and row bounds in shared memory: a level costs shared-memory and L2 latency instead of
/// the global round trips of the queue kernel. The edges leaving the chunk are pushed in bulk
/// once its values are final. One block per listed graph; Block threads, Block / 32 warps.
template <int Chunk, int Block>
__global__ void __launch_bounds__(Block)
    backward_chunked(backward_view v, const std::uint32_t* graphs, std::uint32_t num_graphs) {
  __shared__ double s_influence[Chunk];
  __shared__ unsigned long long s_begin[Chunk];  // row start
  __shared__ unsigned long long s_split[Chunk];  // first edge leaving the chunk
  __shared__ std::uint32_t s_degree[Chunk];
  __shared__ std::uint32_t s_indeg[Chunk];       // in-edges from inside the chunk
  __shared__ std::uint32_t s_queue[Chunk];
  __shared__ std::uint32_t s_head, s_tail;
  constexpr unsigned warps = Block / 32;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (std::uint32_t k = blockIdx.x; k < num_graphs; k += gridDim.x) {
    const std::uint32_t t = graphs[k];
    const graph_range g = graph_of(v, t);
    for (std::uint32_t cs = 0; cs < g.n; cs += Chunk) {
      const std::uint32_t cn = min(static_cast<std::uint32_t>(Chunk), g.n - cs), ce = cs + cn;
      for (std::uint32_t i = threadIdx.x; i < cn; i += Block) {
        s_influence[i] = __ldcg(v.influence + g.lo + cs + i);  // base plus earlier chunks' shares
        s_indeg[i] = 0;
        const std::uint64_t b = v.rows[g.lo + cs + i], e = v.rows[g.lo + cs + i + 1];
        s_begin[i] = b;
        s_split[i] = e;
        s_degree[i] = static_cast<std::uint32_t>(e - b);
      }
      if (threadIdx.x == 0) s_head = s_tail = 0;
      __syncthreads();
      // Intra-chunk in-degrees and each row's split: rows are sorted, so the edges that stay in
      // the chunk are a prefix; a warp reads a row 32 edges at a time until a target leaves.
      for (std::uint32_t i = warp; i < cn; i += warps) {
        const std::uint64_t b = s_begin[i], e = b + s_degree[i];
        for (std::uint64_t j0 = b; j0 < e; j0 += 32) {
          const std::uint64_t j = j0 + lane;
          const std::uint32_t w = j < e ? v.targets[j] : ce;
          const bool inside = w < ce;
          if (inside) atomicAdd(&s_indeg[w - cs], 1u);
          const unsigned leaving = __ballot_sync(0xffffffffu, !inside);
          if (leaving) {
            if (lane == 0) s_split[i] = j0 + static_cast<unsigned>(__ffs(leaving) - 1);
            break;
          }
        }
      }
      __syncthreads();
      for (std::uint32_t i = threadIdx.x; i < cn; i += Block) {
        if (s_indeg[i] == 0) s_queue[atomicAdd(&s_tail, 1u)] = i;
      }
      // Kahn inside the chunk, a warp per frontier node; levels separated by block barriers.
      std::uint32_t head = 0, tail = 0;
      while (next_level(&s_head, &s_tail, head, tail)) {
        for (std::uint32_t q = head + warp; q < tail; q += warps) {
          const std::uint32_t u = s_queue[q];
          if (s_degree[u] == 0) continue;
          const double share = s_influence[u] / static_cast<double>(s_degree[u]);
          for (std::uint64_t j = s_begin[u] + lane; j < s_split[u]; j += 32) {
            const std::uint32_t w = v.targets[j] - cs;
            atomicAdd(&s_influence[w], share);
            if (atomicSub(&s_indeg[w], 1u) == 1u) {
              const std::uint32_t pos = atomicAdd(&s_tail, 1u);
              if (pos < Chunk) s_queue[pos] = w;
              else atomicOr(v.error, 1u);
            }
          }
        }
      }
      // Every chunk node is final: push the edges leaving the chunk, store the values.
      for (std::uint32_t i = warp; i < cn; i += warps) {
        if (s_degree[i] == 0) continue;
        const double share = s_influence[i] / static_cast<double>(s_degree[i]);
        const std::uint64_t e = s_begin[i] + s_degree[i];
        for (std::uint64_t j = s_split[i] + lane; j < e; j += 32) atomicAdd(v.influence + g.lo + v.targets[j], share);
      }
      for (std::uint32_t i = threadIdx.x; i < cn; i += Block) v.influence[g.lo + cs + i] = s_influence[i];
      __syncthreads();  // the pushes reach later chunks before they load their values
    }
    if (threadIdx.x == 0) v.stalled[t] = 0;  // a topologically numbered graph has no cycle
  }
}

/// COO sources of every edge (graph-local), for the edge array. One block per graph.
__global__ void build_edge_sources(backward_view v, std::uint32_t* sources, std::uint64_t num_graphs) {
  for (std::uint64_t t = blockIdx.x; t < num_graphs; t += gridDim.x) {
    const graph_range g = graph_of(v, static_cast<std::uint32_t>(t));
    for (std::uint32_t i = threadIdx.x; i < g.n; i += blockDim.x) {
      for (std::uint64_t j = v.rows[g.lo + i]; j < v.rows[g.lo + i + 1]; ++j) sources[j] = i;
    }
  }
}

}  // namespace wildfire::cuda::twitter_kernels
