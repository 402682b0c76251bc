// Single-root IC RR sets traversed several at a time, interleaved (software pipelining across
// independent samples). A small weighted-cascade set is a chain of dependent cache misses: the
// vertex record, then the source of each live in-edge, then the next record. Each lane holds one
// sample's breadth-first traversal and takes one step per turn: expand its next vertex (prefetch
// the sources of the live edges) or read the sources prefetched a turn ago (prefetch their
// records). The misses of the other lanes' steps overlap meanwhile. Visited marks are one bit per
// lane in one byte per vertex (n bytes stay in L2, unlike a stamp word per vertex), cleared
// through the lane's member list when its set is stored. Every set equals reference::rr_set of its
// sample id: only the order of work changes, the draws are those of random/ic_block_rule.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/ic_vertex_records.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire::cpu {

class ic_lane_sampler {
 public:
  /// `records` and `blocks` belong to the graph of `view` and outlive the sampler.
  ic_lane_sampler(const graph_view& view, const ic_block_view& blocks, const ic_vertex_record* records,
                  std::uint64_t seed);

  /// Appends the single-root, single-round IC sets of samples [first_id, first_id + count) to
  /// `out`, each sorted ascending. Returns the in-edges examined.
  std::uint64_t sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out);

  std::uint64_t memory_bytes() const noexcept;

  /// Live edges a lane holds between its two steps; further ones are resolved at once.
  static constexpr std::uint32_t pending_capacity = 32;

 private:
  struct lane {
    std::uint64_t key = 0;
    std::uint32_t sample = 0;  // index within the current call
    std::uint32_t head = 0;    // members expanded
    std::uint32_t num_pending = 0;
    std::uint8_t bit = 0;      // this lane's visited bit
    std::vector<std::uint32_t> members;       // in discovery order (the breadth-first queue)
    std::uint64_t pending[pending_capacity];  // live in-edges whose sources are not yet read
  };

  void start(lane& l, std::uint32_t sample, std::uint64_t first_id);
  void visit(lane& l, std::uint32_t u);
  std::uint64_t expand(lane& l, std::uint32_t v);
  void store(lane& l);

  graph_view view_;
  ic_block_view blocks_;
  const ic_vertex_record* records_;
  std::uint64_t seed_;
  std::vector<std::uint8_t> visited_;    // n: bit i set iff lane i's sample reached the vertex
  std::vector<std::uint32_t> batch_;     // finished sets of this call, in finishing order
  std::vector<std::uint64_t> begins_;    // per sample of this call: its set's start in batch_
  std::vector<std::uint64_t> sizes_;
  std::vector<lane> lanes_;
};

}  // namespace wildfire::cpu
