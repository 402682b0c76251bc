// Interleaved single-root IC traversals: lanes of independent samples stepped round-robin.
#include "cpu/ic_lane_sampler.hpp"

#include <algorithm>
#include <bit>

#include "cpu/ic_live_scan.hpp"
#include "cpu/insertion_sort.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"

namespace wildfire::cpu {
namespace {

/// Samples in flight, one visited bit each. Each turn of a lane leaves num_lanes - 1 other steps
/// for its prefetches to land: enough to cover an L3 miss, few enough that lanes stay in L1.
constexpr std::uint32_t num_lanes = 8;
/// Per-edge vertices up to this in-degree (under weighted cascade, those of in-degree 1) hash
/// their edges inline: the vector kernel's call and mask set-up cost more than a few hashes.
constexpr std::uint32_t scalar_degree = 4;

}  // namespace

ic_lane_sampler::ic_lane_sampler(const graph_view& view, const ic_block_view& blocks,
                                 const ic_vertex_record* records, std::uint64_t seed)
    : view_(view), blocks_(blocks), records_(records), seed_(seed), visited_(view.num_vertices, 0),
      lanes_(num_lanes) {
  for (std::uint32_t i = 0; i < num_lanes; ++i) lanes_[i].bit = static_cast<std::uint8_t>(1U << i);
}

std::uint64_t ic_lane_sampler::memory_bytes() const noexcept {
  std::uint64_t bytes = visited_.capacity() + batch_.capacity() * sizeof(std::uint32_t) +
                        (begins_.capacity() + sizes_.capacity()) * sizeof(std::uint64_t);
  for (const lane& l : lanes_) bytes += sizeof(lane) + l.members.capacity() * sizeof(std::uint32_t);
  return bytes;
}

void ic_lane_sampler::start(lane& l, std::uint32_t sample, std::uint64_t first_id) {
  l.key = sample_key(seed_, first_id + sample);
  l.sample = sample;
  const std::uint32_t root = single_root(l.key, view_.num_vertices);
  __builtin_prefetch(records_ + root);
  visited_[root] |= l.bit;
  l.members.assign(1, root);
  l.head = 0;
  l.num_pending = 0;
}

inline void ic_lane_sampler::visit(lane& l, std::uint32_t u) {
  if (visited_[u] & l.bit) return;
  visited_[u] |= l.bit;
  l.members.push_back(u);
  __builtin_prefetch(records_ + u);
}

std::uint64_t ic_lane_sampler::expand(lane& l, std::uint32_t v) {
  const ic_vertex_record r = records_[v];
  auto on_live = [&](std::uint64_t j) {
    if (l.num_pending == pending_capacity) {
      visit(l, view_.in_sources[j]);
      return;
    }
    __builtin_prefetch(view_.in_sources + j);
    l.pending[l.num_pending++] = j;
  };
  if (r.cls != per_edge_class) {
    for_each_live_block_edge(l.key, r, blocks_, on_live);
  } else if (r.degree == 1) {
    if (ic_edge_live(l.key, r.begin, r.param)) on_live(r.begin);
  } else if (r.degree <= scalar_degree) {
    for (std::uint64_t j = r.begin; j < std::uint64_t{r.begin} + r.degree; ++j)
      if (ic_edge_live(l.key, j, view_.in_thresholds[j])) on_live(j);
  } else {
    const std::uint64_t end = std::uint64_t{r.begin} + r.degree;
    for (std::uint64_t chunk = r.begin; chunk < end; chunk += 64) {
      const auto count = static_cast<std::uint32_t>(end - chunk < 64 ? end - chunk : 64);
      for (std::uint64_t live = ic_live_mask(l.key, chunk, view_.in_thresholds + chunk, count); live != 0;
           live &= live - 1)
        on_live(chunk + static_cast<std::uint64_t>(std::countr_zero(live)));
    }
  }
  return r.degree;  // every in-edge's liveness is decided, whichever rule decides it
}

void ic_lane_sampler::store(lane& l) {
  const std::uint8_t keep = static_cast<std::uint8_t>(~l.bit);
  for (const std::uint32_t v : l.members) visited_[v] &= keep;
  std::uint32_t* first = l.members.data();
  std::uint32_t* last = first + l.members.size();
  if (l.members.size() <= 24) {
    insertion_sort(first, last);  // most weighted-cascade sets are a handful of vertices
  } else {
    std::sort(first, last);
  }
  begins_[l.sample] = batch_.size();
  sizes_[l.sample] = l.members.size();
  batch_.insert(batch_.end(), first, last);
}

std::uint64_t ic_lane_sampler::sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out) {
  if (count == 0) return 0;
  batch_.clear();
  begins_.resize(count);
  sizes_.resize(count);
  std::uint64_t edges = 0;
  std::uint32_t next = 0;
  std::uint32_t active = 0;
  for (lane& l : lanes_) {
    if (next == count) break;
    start(l, next++, first_id);
    ++active;
  }
  // Round-robin, one step per lane and turn: read the sources prefetched at the lane's last
  // turn, else expand its next vertex, else store its set and start the next sample.
  std::uint32_t i = 0;
  while (active > 0) {
    lane& l = lanes_[i];
    bool retired = false;
    if (l.num_pending > 0) {
      for (std::uint32_t p = 0; p < l.num_pending; ++p) visit(l, view_.in_sources[l.pending[p]]);
      l.num_pending = 0;
    } else if (l.head < l.members.size()) {
      edges += expand(l, l.members[l.head++]);
    } else {
      store(l);
      if (next < count) {
        start(l, next++, first_id);
      } else {
        --active;
        std::swap(lanes_[i], lanes_[active]);  // keep the active lanes first
        retired = true;
      }
    }
    if (!retired) ++i;  // a retired slot now holds the last active lane: it takes the next turn
    if (i >= active) i = 0;
  }

  // Sets finish out of order: append them by sample id.
  std::uint64_t total = 0;
  for (std::uint32_t s = 0; s < count; ++s) total += sizes_[s];
  const std::uint64_t base = out.members.size();
  out.members.resize(base + total);
  std::uint64_t at = base;
  for (std::uint32_t s = 0; s < count; ++s) {
    std::copy_n(batch_.data() + begins_[s], sizes_[s], out.members.data() + at);
    at += sizes_[s];
    out.offsets.push_back(at);
  }
  return edges;
}

}  // namespace wildfire::cpu
