// MERIT's kernels (paper section 3, Alg. 2-5; digest sections 2.4-2.8 with the fixes of 4.2):
// one warp per segment (the paper's 32-thread blocks, packed four to a block; as many as the GPU
// holds at once), so each segment has one writer and no global write pointer. A warp probes 32
// queued members at once, one lane each, and a heavy member with the whole warp (Alg. 2 Probe);
// roots are drawn 32 at a time with the shared rules of adaptive/mrr_rules.hpp, in the serial
// rules' order, so set s equals the CPU store's. Only merit_store.cu includes this file.
#pragma once

#include <cstdint>

#include "adaptive/selection_order.hpp"
#include "wildfire/adaptive/mrr_rules.hpp"
#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"

namespace wildfire::adaptive::cuda::detail {

inline constexpr unsigned full_mask = 0xffffffffU;
/// Threads of a segment-kernel block (four segment warps) and the blocks per SM that Generate and
/// Update are compiled for: 32 warps per SM, register use capped at 64.
inline constexpr int segment_threads = 128;
inline constexpr int segment_min_blocks = 8;
inline constexpr std::uint32_t no_vertex = 0xffffffffU;

/// Everything a MERIT kernel reads, passed by value. Segment b is mrr[b * cap, (b + 1) * cap);
/// logical positions grow without bound and are taken modulo cap (circular storage, Alg. 5).
/// Slot j of segment b (the set with sample id j * num_segments + b) is at index b * slots + j.
struct merit_view {
  graph_view g;
  ic_block_view blocks;     // IC: the block plan of the full graph (removal does not change it)
  const std::uint8_t* removed;
  const std::uint32_t* remaining;
  std::uint32_t num_remaining;
  std::uint32_t* mrr;
  std::uint64_t cap;
  std::uint64_t* start;
  std::uint32_t* len;
  std::uint8_t* flag;
  std::uint32_t slots;
  std::uint32_t* num_sets;
  std::uint64_t* seg_end;
  std::uint32_t* resume;
  std::uint32_t* visited;   // per segment, words_per_segment words
  std::uint32_t* is_root;   // per segment
  std::uint64_t words_per_segment;
  std::uint32_t* cnt;
  int* overflow;
  unsigned long long* counters;  // [0] reused, [1] repaired, [2] members written
  std::uint32_t num_segments;
  diffusion_model model;
  std::uint64_t seed;
  double mean_roots;
  std::uint32_t round;
};

struct argmax_entry {
  std::uint32_t vertex;
  std::uint32_t count;
};

__device__ inline bool bm_test(const std::uint32_t* bm, std::uint32_t v) { return ((bm[v >> 5] >> (v & 31U)) & 1U) != 0; }
/// Sets bit v; true if it was already set (atomic test-and-set, digest 4.2 item 8).
__device__ inline bool bm_test_set(std::uint32_t* bm, std::uint32_t v) {
  const std::uint32_t bit = 1U << (v & 31U);
  return (atomicOr(&bm[v >> 5], bit) & bit) != 0;
}
__device__ inline void bm_clear(std::uint32_t* bm, std::uint32_t v) { atomicAnd(&bm[v >> 5], ~(1U << (v & 31U))); }
__device__ inline std::uint32_t lane_id() { return threadIdx.x & 31U; }
/// Segment kernels run one warp per segment (warps of a block are independent: no block sync).
__device__ inline std::uint32_t warp_index() { return (blockIdx.x * blockDim.x + threadIdx.x) >> 5; }
__device__ inline std::uint32_t warp_count() { return (gridDim.x * blockDim.x) >> 5; }
__device__ inline std::uint32_t lanes_below(unsigned mask) { return __popc(mask & ((1U << lane_id()) - 1U)); }
/// Segment index of entry i (< cap) of a set whose start is at index `first` (< cap): one compare
/// instead of a 64-bit modulo per entry in the streaming loops.
__device__ inline std::uint64_t entry_index(std::uint64_t first, std::uint64_t i, std::uint64_t cap) {
  const std::uint64_t p = first + i;
  return p >= cap ? p - cap : p;
}

/// One warp step of a probe: lanes with `add` (vertex u already test-and-set in `visited`) append
/// u at tail in lane order and count it. False if the set would pass `limit`; then this step's
/// marks are undone and nothing of it stays.
__device__ inline bool append_step(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited, bool add,
                                   std::uint32_t u, std::uint64_t& tail, std::uint64_t limit) {
  const unsigned mask = __ballot_sync(full_mask, add);
  const std::uint32_t added = __popc(mask);
  if (tail + added > limit) {
    if (add) bm_clear(visited, u);
    __syncwarp();
    return false;
  }
  if (add) {
    seg[(tail + lanes_below(mask)) % d.cap] = u;
    atomicAdd(&d.cnt[u], 1U);
  }
  tail += added;
  __syncwarp();
  return true;
}

/// Test-and-set of a probed source u: true iff u is in V_i and was not visited yet.
__device__ inline bool claim(const merit_view& d, std::uint32_t* visited, std::uint32_t u) {
  return d.removed[u] == 0 && !bm_test(visited, u) && !bm_test_set(visited, u);
}

/// The in-edges of v cut into items: one in-edge each (per-edge rule) or one block each (the
/// block rule of random/ic_block_rule.hpp; under weighted cascade a whole vertex is one block).
struct ic_items {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t block = 1;  // edges per item
  std::uint32_t cls = per_edge_class;
  __device__ std::uint64_t count() const { return (end - begin + block - 1) / block; }
};

__device__ inline ic_items items_of(const merit_view& d, std::uint32_t v) {
  ic_items it;
  it.begin = d.g.in_offsets[v];
  it.end = d.g.in_offsets[v + 1];
  it.cls = d.blocks.vertex_class[v];
  // A block-rule vertex has at least two in-edges.
  if (it.cls != per_edge_class) it.block = ic_block_size(it.end - it.begin, d.g.in_thresholds[it.begin]);
  return it;
}

/// Live edges of the item starting at in-edge `first`: their offsets go to slots, their number
/// is returned.
__device__ inline std::uint32_t draw_item(const merit_view& d, std::uint64_t key, const ic_items& it,
                                          std::uint64_t first, std::uint32_t* slots) {
  if (it.cls != per_edge_class) return ic_block_draw(key, d.blocks, it.cls, first, it.end, it.block, slots);
  slots[0] = 0;
  return ic_edge_live(key, first, d.g.in_thresholds[first]) ? 1 : 0;
}

/// A vertex with more items than this is probed by the whole warp (32 items a step); lighter
/// ones by one lane each, 32 vertices at a time.
inline constexpr std::uint64_t heavy_items = 16;

/// The whole warp probes one heavy vertex: lane i takes item i of a 32-item stride, then the
/// live edges are pushed one per lane a step.
__device__ inline bool probe_heavy(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited, std::uint64_t key,
                                   const ic_items& it, std::uint64_t& tail, std::uint64_t limit) {
  for (std::uint64_t base = it.begin; base < it.end; base += 32 * it.block) {
    const std::uint64_t first = base + lane_id() * it.block;
    std::uint32_t slots[block_cdf_length];
    const std::uint32_t live = first < it.end ? draw_item(d, key, it, first, slots) : 0;
    for (std::uint32_t i = 0; __any_sync(full_mask, i < live); ++i) {
      const std::uint32_t u = i < live ? d.g.in_sources[first + slots[i]] : 0;
      if (!append_step(d, seg, visited, i < live && claim(d, visited, u), u, tail, limit)) return false;
    }
  }
  return true;
}

/// IC probe (Alg. 2 Probe for one warp): the queue is the set itself, from `head` to `tail`,
/// taken 32 members at a time. Each lane walks the items of its own member and offers one live
/// edge per step (most members of a weighted-cascade graph are a single block with ~1 live edge,
/// so a warp per member would leave 31 lanes idle); heavy members are then probed by the whole
/// warp. Live edges from removed sources are skipped. The set is the same in any order. False if
/// the set would pass `limit` (then nothing of the failed step stays).
__device__ inline bool probe_ic(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited, std::uint64_t key,
                                std::uint64_t head, std::uint64_t& tail, std::uint64_t limit) {
  while (head < tail) {
    const std::uint64_t take = tail - head < 32 ? tail - head : 32;
    const bool has = lane_id() < take;
    const std::uint32_t v = has ? member_vertex(seg[(head + lane_id()) % d.cap]) : 0;
    head += take;
    const ic_items it = has ? items_of(d, v) : ic_items{};
    const bool heavy = it.count() > heavy_items;
    std::uint64_t next = heavy ? it.end : it.begin;  // first edge of the next undrawn item
    std::uint64_t first = 0;                         // first edge of the drawn item
    std::uint32_t slots[block_cdf_length];
    std::uint32_t live = 0, used = 0;
    while (__any_sync(full_mask, used < live || next < it.end)) {
      while (used == live && next < it.end) {
        first = next;
        live = draw_item(d, key, it, first, slots);
        used = 0;
        next += it.block;
      }
      const bool offer = used < live;
      const std::uint32_t u = offer ? d.g.in_sources[first + slots[used]] : 0;
      if (offer) ++used;
      if (!append_step(d, seg, visited, offer && claim(d, visited, u), u, tail, limit)) return false;
    }
    for (unsigned heavy_mask = __ballot_sync(full_mask, heavy); heavy_mask != 0; heavy_mask &= heavy_mask - 1) {
      const int src = __ffs(heavy_mask) - 1;
      ic_items h;
      h.begin = __shfl_sync(full_mask, it.begin, src);
      h.end = __shfl_sync(full_mask, it.end, src);
      h.block = __shfl_sync(full_mask, it.block, src);
      h.cls = __shfl_sync(full_mask, it.cls, src);
      if (!probe_heavy(d, seg, visited, key, h, tail, limit)) return false;
    }
  }
  return true;
}

/// LT probe: one backward walk per root in [from, walks_end), 32 walks at a time, each stopping
/// at no chosen in-edge, a removed vertex or a visited one (the set is order-independent).
__device__ inline bool probe_lt(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited, std::uint64_t key,
                                std::uint64_t from, std::uint64_t walks_end, std::uint64_t& tail, std::uint64_t limit) {
  for (std::uint64_t base = from; base < walks_end; base += 32) {
    const std::uint64_t i = base + lane_id();
    bool active = i < walks_end;
    std::uint32_t v = active ? member_vertex(seg[i % d.cap]) : 0;
    __syncwarp();
    while (__any_sync(full_mask, active)) {
      bool add = false;
      std::uint32_t u = 0;
      if (active) {
        const std::uint64_t j = lt_chosen_in_edge(key, d.g, v);
        if (j == no_edge) {
          active = false;
        } else {
          u = d.g.in_sources[j];
          if (d.removed[u] != 0 || bm_test_set(visited, u)) {
            active = false;
          } else {
            add = true;
          }
        }
      }
      if (!append_step(d, seg, visited, add, u, tail, limit)) return false;
      if (add) v = u;
    }
  }
  return true;
}

__device__ inline bool probe(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited, std::uint64_t key,
                             std::uint64_t from, std::uint64_t& tail, std::uint64_t limit) {
  return d.model == diffusion_model::ic ? probe_ic(d, seg, visited, key, from, tail, limit)
                                        : probe_lt(d, seg, visited, key, from, tail, tail, limit);
}

/// Clears the marks of the members at [from, to) (O(|R|), digest 4.2 item 13).
__device__ inline void clear_marks(const merit_view& d, const std::uint32_t* seg, std::uint32_t* visited,
                                   std::uint32_t* is_root, std::uint64_t from, std::uint64_t to) {
  const std::uint64_t first = from % d.cap;
#pragma unroll 4
  for (std::uint64_t i = lane_id(); i < to - from; i += 32) {
    const std::uint32_t v = member_vertex(seg[entry_index(first, i, d.cap)]);
    bm_clear(visited, v);
    bm_clear(is_root, v);
  }
  __syncwarp();
}

__device__ inline void uncount(const merit_view& d, const std::uint32_t* seg, std::uint64_t from, std::uint64_t to) {
  const std::uint64_t first = from % d.cap;
  for (std::uint64_t i = lane_id(); i < to - from; i += 32) {
    atomicSub(&d.cnt[member_vertex(seg[entry_index(first, i, d.cap)])], 1U);
  }
  __syncwarp();
}

/// Tops the roots up by `need` with the fill draws (rejection against is_root, adaptive/
/// mrr_rules.hpp), 32 attempts a step: an attempt is accepted iff its vertex is no root yet and no
/// earlier attempt of the step drew it, up to `need` in attempt order, as the serial rejection
/// loop does. Accepted non-members are appended at tail (in attempt order); accepted members are
/// promoted (counted in `promoted`). False on overflow (nothing of the failed step stays).
__device__ inline bool fill_roots(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited,
                                  std::uint32_t* is_root, std::uint64_t fill, std::uint32_t need, std::uint64_t& tail,
                                  std::uint64_t limit, std::uint32_t& promoted) {
  promoted = 0;
  for (std::uint64_t base = 0; need > 0; base += 32) {
    const std::uint32_t v = d.remaining[fill_attempt(fill, base + lane_id(), d.num_remaining)];
    bool fresh = !bm_test(is_root, v);
    for (std::uint32_t i = 0; i < 31; ++i) {
      const std::uint32_t earlier = __shfl_sync(full_mask, v, i);
      if (lane_id() > i && earlier == v) fresh = false;
    }
    const unsigned fresh_mask = __ballot_sync(full_mask, fresh);
    const bool accept = fresh && lanes_below(fresh_mask) < need;
    const bool member = accept && bm_test(visited, v);
    const bool append = accept && !member;
    const unsigned append_mask = __ballot_sync(full_mask, append);
    const std::uint32_t appended = __popc(append_mask);
    if (tail + appended > limit) return false;
    if (accept) bm_test_set(is_root, v);
    if (append) {
      bm_test_set(visited, v);
      seg[(tail + lanes_below(append_mask)) % d.cap] = v | root_bit;
      atomicAdd(&d.cnt[v], 1U);
    }
    promoted += __popc(__ballot_sync(full_mask, member));
    tail += appended;
    const std::uint32_t accepted = __popc(fresh_mask);
    need -= accepted < need ? accepted : need;
    __syncwarp();
  }
  return true;
}

/// The roots of a fresh set (Floyd over the remaining pool, as reference::rr_roots), written to
/// [w, w + count) in slot order, 32 slots a step: each lane draws its slot's candidate, then the
/// lanes settle in slot order by shuffles whether the candidate was taken (by an earlier step,
/// in is_root, or by an earlier lane of this step), which is Floyd's serial rule.
__device__ inline void draw_roots(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited,
                                  std::uint32_t* is_root, std::uint64_t key, std::uint32_t count, std::uint64_t w) {
  const std::uint32_t pool = d.num_remaining;
  for (std::uint32_t base = 0; base < count; base += 32) {
    const std::uint32_t slot = base + lane_id();
    const bool active = slot < count;
    const std::uint32_t last = active ? pool - count + slot : 0;  // Floyd's j
    const std::uint32_t t = active ? floyd_candidate(key, pool, count, slot) : 0;
    bool taken = active && bm_test(is_root, d.remaining[t]);
    const std::uint32_t lanes = count - base < 32 ? count - base : 32;
    for (std::uint32_t i = 0; i + 1 < lanes; ++i) {
      const std::uint32_t chosen = __shfl_sync(full_mask, taken ? last : t, i);
      if (lane_id() > i && chosen == t) taken = true;
    }
    if (active) {
      const std::uint32_t v = d.remaining[taken ? last : t];
      bm_test_set(is_root, v);
      bm_test_set(visited, v);
      seg[(w + slot) % d.cap] = v | root_bit;
      atomicAdd(&d.cnt[v], 1U);
    }
    __syncwarp();
  }
}

/// Alg. 2 for one set at logical position w: Floyd roots over the remaining pool, then probing.
/// On overflow everything is undone and false returned.
__device__ inline bool generate_set(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited,
                                    std::uint32_t* is_root, std::uint64_t sample_id, std::uint64_t w,
                                    std::uint64_t limit, std::uint64_t& tail) {
  const std::uint64_t key = sample_key(d.seed, sample_id);
  const std::uint32_t count = root_count(key, d.mean_roots, d.num_remaining);
  tail = w;
  if (w + count > limit) return false;
  draw_roots(d, seg, visited, is_root, key, count, w);
  tail = w + count;
  const bool ok = probe(d, seg, visited, key, w, tail, limit);
  clear_marks(d, seg, visited, is_root, w, tail);
  if (!ok) uncount(d, seg, w, tail);
  return ok;
}

/// Result of updating one set: where it now is and whether it is finished.
struct update_outcome {
  bool ok;
  std::uint64_t length;  // on failure: the length of the restored, still pending set at w
  bool moved;            // on failure: whether the pending set now lives at w
};

/// Alg. 5 for one set (corrected): moved once from [start, start + length) to w in 32-entry
/// chunks (read, sync, write: overlap-safe, digest 4.2 item 9). Clean: keep all, top up roots,
/// probe from the new ones (Lemmas 3.3/3.4). Polluted: keep the roots still in V_i, top up,
/// probe afresh (Lemma 3.6). On overflow the set is restored to an equivalent pending state.
__device__ inline update_outcome update_set(const merit_view& d, std::uint32_t* seg, std::uint32_t* visited,
                                           std::uint32_t* is_root, std::uint64_t sample_id, std::uint64_t start,
                                           std::uint32_t length, bool polluted, std::uint64_t w,
                                           std::uint64_t limit, std::uint64_t& tail) {
  const std::uint64_t key = sample_key(d.seed, sample_id);
  const std::uint32_t count = root_count(key, d.mean_roots, d.num_remaining);
  tail = w;
  if (w + length > limit) return {false, length, false};
  std::uint64_t kept = 0;
  for (std::uint64_t base = 0; base < length; base += 32) {
    const std::uint64_t i = base + lane_id();
    const std::uint32_t m = i < length ? seg[(start + i) % d.cap] : 0U;
    __syncwarp();
    const std::uint32_t v = member_vertex(m);
    const bool keep = i < length && (!polluted || (member_is_root(m) && d.removed[v] == 0));
    const unsigned mask = __ballot_sync(full_mask, keep);
    if (keep) {
      seg[(w + kept + lanes_below(mask)) % d.cap] = m;
      bm_test_set(visited, v);
      if (member_is_root(m)) bm_test_set(is_root, v);
      if (polluted) atomicAdd(&d.cnt[v], 1U);
    }
    kept += __popc(mask);
    __syncwarp();
  }
  std::uint32_t old_roots = 0;
  for (std::uint64_t base = 0; base < kept; base += 32) {
    const std::uint64_t i = base + lane_id();
    old_roots += __popc(__ballot_sync(full_mask, i < kept && member_is_root(seg[(w + i) % d.cap])));
  }
  tail = w + kept;
  std::uint32_t promoted = 0;
  bool ok = true;
  if (count > old_roots) {
    ok = fill_roots(d, seg, visited, is_root, fill_key(key, d.round), count - old_roots, tail, limit, promoted);
  }
  if (ok) {
    ok = d.model == diffusion_model::ic
             ? probe_ic(d, seg, visited, key, polluted ? w : w + kept, tail, limit)
             : probe_lt(d, seg, visited, key, polluted ? w : w + kept, tail, tail, limit);
  }
  if (ok && promoted > 0) {
    for (std::uint64_t i = w + lane_id(); i < w + kept; i += 32) {
      const std::uint32_t m = seg[i % d.cap];
      if (!member_is_root(m) && bm_test(is_root, m)) seg[i % d.cap] = m | root_bit;
    }
    __syncwarp();
  }
  clear_marks(d, seg, visited, is_root, w, tail);
  if (ok) return {true, tail - w, true};
  // Restore: a clean set keeps its old members (counted); a polluted one keeps its surviving
  // roots, uncounted and still flagged, so redoing it later gives the same set.
  uncount(d, seg, polluted ? w : w + kept, tail);
  return {false, kept, true};
}

/// Generate (Alg. 2): the warp of segment b appends sets until it holds its share of `total_sets`.
__global__ void __launch_bounds__(segment_threads, segment_min_blocks)
    generate_kernel(merit_view d, std::uint64_t total_sets) {
  for (std::uint32_t b = warp_index(); b < d.num_segments; b += warp_count()) {
    std::uint32_t* seg = d.mrr + static_cast<std::uint64_t>(b) * d.cap;
    std::uint32_t* visited = d.visited + b * d.words_per_segment;
    std::uint32_t* is_root = d.is_root + b * d.words_per_segment;
    const std::uint64_t target = total_sets / d.num_segments + ((total_sets % d.num_segments) > b ? 1 : 0);
    std::uint32_t r = d.num_sets[b];
    std::uint64_t w = d.seg_end[b];
    std::uint64_t written = 0;
    while (r < target && r < d.slots) {
      const std::uint64_t limit = (r > 0 ? d.start[static_cast<std::uint64_t>(b) * d.slots] : w) + d.cap;
      std::uint64_t tail = w;
      if (!generate_set(d, seg, visited, is_root, static_cast<std::uint64_t>(r) * d.num_segments + b, w, limit, tail)) {
        if (lane_id() == 0) atomicExch(d.overflow, 1);
        break;
      }
      if (lane_id() == 0) {
        d.start[static_cast<std::uint64_t>(b) * d.slots + r] = w;
        d.len[static_cast<std::uint64_t>(b) * d.slots + r] = static_cast<std::uint32_t>(tail - w);
        d.flag[static_cast<std::uint64_t>(b) * d.slots + r] = 0;
      }
      written += tail - w;
      w = tail;
      ++r;
    }
    if (lane_id() == 0) {
      d.num_sets[b] = r;
      d.seg_end[b] = w;
      atomicAdd(&d.counters[2], static_cast<unsigned long long>(written));
    }
    __syncwarp();
  }
}

/// Update (Alg. 5, corrected): the warp of segment b moves every set once, in slot order from
/// resume[b], to the write position (circularly), never past the start of the next pending set
/// plus cap.
__global__ void __launch_bounds__(segment_threads, segment_min_blocks) update_kernel(merit_view d) {
  for (std::uint32_t b = warp_index(); b < d.num_segments; b += warp_count()) {
    std::uint32_t* seg = d.mrr + static_cast<std::uint64_t>(b) * d.cap;
    std::uint32_t* visited = d.visited + b * d.words_per_segment;
    std::uint32_t* is_root = d.is_root + b * d.words_per_segment;
    const std::uint64_t row = static_cast<std::uint64_t>(b) * d.slots;
    const std::uint32_t r = d.num_sets[b];
    std::uint32_t j = d.resume[b];
    std::uint64_t w = d.seg_end[b];
    unsigned long long reused = 0, repaired = 0, written = 0;
    for (; j < r; ++j) {
      const std::uint64_t limit = (j + 1 < r ? d.start[row + j + 1] : d.start[row]) + d.cap;
      const bool polluted = d.flag[row + j] != 0;
      const std::uint32_t old_length = d.len[row + j];
      std::uint64_t tail = w;
      const update_outcome out = update_set(d, seg, visited, is_root, static_cast<std::uint64_t>(j) * d.num_segments + b,
                                            d.start[row + j], old_length, polluted, w, limit, tail);
      __syncwarp();
      if (!out.ok) {
        if (lane_id() == 0) {
          if (out.moved) {
            d.start[row + j] = w;
            d.len[row + j] = static_cast<std::uint32_t>(out.length);
            w += out.length;
          }
          atomicExch(d.overflow, 1);
        }
        break;
      }
      if (lane_id() == 0) {
        d.start[row + j] = w;
        d.len[row + j] = static_cast<std::uint32_t>(out.length);
        d.flag[row + j] = 0;
      }
      (polluted ? repaired : reused) += 1;
      written += polluted ? out.length : out.length - old_length;
      w += out.length;
      __syncwarp();
    }
    if (lane_id() == 0) {
      d.resume[b] = j;
      d.seg_end[b] = w;
      atomicAdd(&d.counters[0], reused);
      atomicAdd(&d.counters[1], repaired);
      atomicAdd(&d.counters[2], written);
    }
    __syncwarp();
  }
}

/// Copies every segment into a larger buffer (the fallback when a segment runs out of room,
/// digest 4.2 item 15): slots resume[b] .. r-1 first, then 0 .. resume[b]-1, so pending sets
/// stay ahead of finished ones in circular order.
__global__ void regrow_kernel(merit_view d, std::uint32_t* new_mrr, std::uint64_t new_cap) {
  for (std::uint32_t b = warp_index(); b < d.num_segments; b += warp_count()) {
    const std::uint32_t* seg = d.mrr + static_cast<std::uint64_t>(b) * d.cap;
    std::uint32_t* out = new_mrr + static_cast<std::uint64_t>(b) * new_cap;
    const std::uint64_t row = static_cast<std::uint64_t>(b) * d.slots;
    const std::uint32_t r = d.num_sets[b];
    const std::uint32_t first = d.resume[b] < r ? d.resume[b] : 0;
    std::uint64_t pos = 0;
    for (std::uint32_t k = 0; k < r; ++k) {
      const std::uint32_t j = (first + k) % r;
      const std::uint64_t s = d.start[row + j];
      const std::uint32_t n = d.len[row + j];
      for (std::uint64_t i = lane_id(); i < n; i += 32) out[pos + i] = seg[(s + i) % d.cap];
      __syncwarp();
      if (lane_id() == 0) d.start[row + j] = pos;
      pos += n;
      __syncwarp();
    }
    if (lane_id() == 0) d.seg_end[b] = pos;
    __syncwarp();
  }
}

/// Discover (Alg. 3): flags each unflagged set holding a marked vertex (or, with `single` !=
/// no_vertex, holding `single`: Select's one seed, compared in registers instead of gathered from
/// `marks`) and takes its members out of `cnt` (a warp-vote early exit per set, digest 4.2 item 18).
__global__ void discover_kernel(merit_view d, const std::uint8_t* marks, std::uint32_t single, std::uint8_t* flags,
                                std::uint32_t* cnt) {
  for (std::uint32_t b = warp_index(); b < d.num_segments; b += warp_count()) {
    const std::uint32_t* seg = d.mrr + static_cast<std::uint64_t>(b) * d.cap;
    const std::uint64_t row = static_cast<std::uint64_t>(b) * d.slots;
    const std::uint32_t r = d.num_sets[b];
    for (std::uint32_t j = 0; j < r; ++j) {
      if (flags[row + j] != 0) continue;
      const std::uint64_t first = d.start[row + j] % d.cap;
      const std::uint32_t n = d.len[row + j];
      bool hit = false;
      // 128 members a vote: four independent loads in flight per lane (the scan is latency-bound).
      for (std::uint64_t base = 0; base < n && !hit; base += 128) {
        bool mine = false;
#pragma unroll
        for (std::uint32_t k = 0; k < 4; ++k) {
          const std::uint64_t i = base + 32 * k + lane_id();
          if (i < n) {
            const std::uint32_t v = member_vertex(seg[entry_index(first, i, d.cap)]);
            mine = mine || (single != no_vertex ? v == single : marks[v] != 0);
          }
        }
        hit = __any_sync(full_mask, mine);
      }
      if (!hit) continue;
      if (lane_id() == 0) flags[row + j] = 1;
      for (std::uint64_t i = lane_id(); i < n; i += 32) {
        atomicSub(&cnt[member_vertex(seg[entry_index(first, i, d.cap)])], 1U);
      }
      __syncwarp();
    }
  }
}

/// Drops the sets of slots >= keep(b) (ids >= keep_total): their counts leave cnt if unflagged.
__global__ void truncate_kernel(merit_view d, std::uint64_t keep_total) {
  for (std::uint32_t b = warp_index(); b < d.num_segments; b += warp_count()) {
    const std::uint32_t* seg = d.mrr + static_cast<std::uint64_t>(b) * d.cap;
    const std::uint64_t row = static_cast<std::uint64_t>(b) * d.slots;
    const std::uint32_t r = d.num_sets[b];
    const std::uint64_t keep = keep_total / d.num_segments + ((keep_total % d.num_segments) > b ? 1 : 0);
    if (keep >= r) continue;
    for (std::uint32_t j = static_cast<std::uint32_t>(keep); j < r; ++j) {
      if (d.flag[row + j] != 0) continue;
      for (std::uint64_t i = lane_id(); i < d.len[row + j]; i += 32) {
        atomicSub(&d.cnt[member_vertex(seg[(d.start[row + j] + i) % d.cap])], 1U);
      }
      __syncwarp();
    }
    if (lane_id() == 0) {
      d.seg_end[b] = d.start[row + keep];
      d.num_sets[b] = static_cast<std::uint32_t>(keep);
    }
    __syncwarp();
  }
}

/// Select's argmax (Alg. 4 line 3): per block, the remaining vertex not yet taken that
/// selection_before prefers; the host reduces the per-block winners.
__global__ void argmax_kernel(const std::uint32_t* remaining, std::uint32_t num_remaining, const std::uint32_t* cnt,
                              const double* costs, const std::uint8_t* taken, argmax_entry* out) {
  __shared__ std::uint32_t warp_best[32];
  std::uint32_t best = no_vertex;
  const auto better = [&](std::uint32_t a, std::uint32_t b) {
    if (a == no_vertex) return false;
    if (b == no_vertex) return true;
    return selection_before(cnt[a], costs[a], a, cnt[b], costs[b], b);
  };
  for (std::uint64_t t = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; t < num_remaining;
       t += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t v = remaining[t];
    if (taken[v] == 0 && better(v, best)) best = v;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const std::uint32_t other = __shfl_down_sync(full_mask, best, offset);
    if (better(other, best)) best = other;
  }
  if (lane_id() == 0) warp_best[threadIdx.x / 32] = best;
  __syncthreads();
  if (threadIdx.x < 32) {
    best = threadIdx.x < blockDim.x / 32 ? warp_best[threadIdx.x] : no_vertex;
    for (int offset = 16; offset > 0; offset /= 2) {
      const std::uint32_t other = __shfl_down_sync(full_mask, best, offset);
      if (better(other, best)) best = other;
    }
    if (threadIdx.x == 0) out[blockIdx.x] = argmax_entry{best, best == no_vertex ? 0U : cnt[best]};
  }
}

/// marks[v] = value for each listed vertex.
__global__ void set_marks_kernel(const std::uint32_t* vertices, std::uint64_t count, std::uint8_t* marks,
                                 std::uint8_t value) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    marks[vertices[i]] = value;
  }
}

}  // namespace wildfire::adaptive::cuda::detail
