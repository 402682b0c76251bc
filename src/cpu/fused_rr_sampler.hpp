// Fused RR sampling (fused-BPT paper, digest sections 2-3.6): a batch of C samples shares one
// level-synchronous frontier through per-vertex colour bitmasks. A (vertex, colour) is marked
// visited when it is discovered, so it enters a frontier at most once and each (edge, colour)
// is drawn at most once (the digest's fix of Listing 1's double expansion). Each (edge, colour)
// draw uses that colour's own sample key, so set c equals reference::rr_set(first_id + c). Under
// IC, a block-rule vertex (random/ic_block_rule.hpp) enumerates each waiting colour's live
// in-edges; the other vertices hash their edges per colour or per edge.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/epoch_marker.hpp"
#include "cpu/world_tables.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_sets.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cpu {

class fused_rr_sampler {
 public:
  /// `colours`: samples per traversal, a multiple of 32 in [32, 1024].
  /// `tables` as for unfused_rr_sampler.
  fused_rr_sampler(const csr_graph& graph, const sampling_params& params, std::uint32_t colours,
                   const world_tables* tables = nullptr);

  /// Appends the sets of samples [first_id, first_id + count) to `out` (count <= colours), each
  /// sorted ascending. Returns the in-edges examined (one per edge read, shared by its colours).
  std::uint64_t sample(std::uint64_t first_id, std::uint32_t count, rr_sets& out);

  std::uint32_t colours() const noexcept { return colours_; }
  std::uint64_t memory_bytes() const noexcept;

 private:
  void seed_frontier(std::uint32_t count);
  void advance_level();
  std::uint64_t expand_ic();
  std::uint64_t expand_lt();
  void discover(std::uint32_t u, std::uint32_t word, std::uint64_t bits);
  void extract(std::uint32_t count, std::uint32_t round, rr_sets& dst);

  graph_view view_;
  sampling_params params_;
  std::uint32_t colours_;
  std::uint32_t words_;                     // 64-bit mask words per vertex
  std::vector<std::uint64_t> visited_;      // n * words_: colours that reached each vertex
  std::vector<std::uint64_t> next_;         // n * words_: colours to expand at the next level
  std::vector<std::uint8_t> touched_flag_;  // vertex has some visited bit
  std::vector<std::uint8_t> next_flag_;     // vertex is in next_list_
  std::vector<std::uint32_t> touched_;
  std::vector<std::uint32_t> next_list_;
  std::vector<std::uint32_t> frontier_;
  std::vector<std::uint64_t> frontier_masks_;  // frontier_.size() * words_
  std::vector<std::uint64_t> keys_;            // world key of each colour in the current round
  std::vector<std::uint64_t> root_keys_;       // round-0 key of each colour
  std::vector<std::uint32_t> root_offsets_;    // colour c's roots: roots_[root_offsets_[c] ..]
  std::vector<std::uint32_t> roots_;
  std::vector<std::uint64_t> positions_;
  std::vector<rr_sets> round_sets_;            // multi-round: each round's sets before merging
  epoch_marker root_marker_;
  struct live_pair {
    std::uint64_t edge;
    std::uint32_t source;
    std::uint32_t colour;
  };
  std::vector<live_pair> live_pairs_;  // IC: live (edge, colour) pairs of the current level
  world_tables own_tables_;
  const std::uint64_t* lt_cumulative_ = nullptr;
  ic_block_view blocks_;
};

}  // namespace wildfire::cpu
