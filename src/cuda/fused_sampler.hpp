// Launcher of the fused multi-colour RR traversal (fused_sampler_kernels.cuh, and under IC with
// dense sets fused_mask_kernels.cuh): batches of
// groups x colours samples traverse level by level and are extracted straight into the store,
// sorted, by a scan over per-span colour popcounts, or ORed as bit columns into the bitmap
// representation (bitmap_coverage.hpp): a visited colour word is the membership of its vertex in
// the word's samples. Included only by .cu files.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/bitmap_coverage.hpp"
#include "cuda/device_memory.hpp"
#include "cuda/rr_batch.hpp"
#include "wildfire/graph/graph_view.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire::cuda {
namespace kernels {
template <class Word>
struct fused_args;
}  // namespace kernels

/// Colour counts the fused GPU traversal takes: 8, 16, or a multiple of 32 in [32, 1024].
constexpr bool fused_colours_supported(std::uint32_t colours) noexcept {
  return colours == 8 || colours == 16 || (colours >= 32 && colours <= 1024 && colours % 32 == 0);
}

/// Mean set, as a share of the vertices, from which a batch draws edge masks (automatic choice).
/// H200, topcats-like, 64 colours: masks against per-item draws 1.49 against 1.71 s at a mean set
/// of 7% of n (p = 0.05), 1.04 against 1.97 s at 25%, 0.65 against 1.45 s at 58%.
constexpr double fused_mask_min_share = 0.05;

/// Share of a batch's slots below which a pushing level's queue marks the settle regions its
/// reductions touch, and its settle pass reads only those (kernels::touches_regions): H200,
/// topcats-like, p = 0.2, 32 colours, a sparse level's pass 0.11 -> 0.005 ms.
constexpr double fused_touch_share = 1.0 / 32;

/// Out-edges a pulling warp takes at once (the last segment shorter): edges of the out-CSR in
/// order, across source vertices. A segment owns the sources whose out-edges start in it, past its
/// end too; a source with more out-edges (a hub) spreads over the segments they fall in
/// (kernels::fused_chunk_pull).
constexpr std::uint64_t fused_pull_segment = 64;

/// Where the fused traversal's work and time went (WF_CUDA_PROFILE=1 prints it; docs/gpu.md). The
/// counts are always kept (one device read per batch); the milliseconds are cudaEvent times taken
/// only with profiling on.
struct fused_profile {
  std::uint64_t traversals = 0;       // batches
  std::uint64_t samples = 0;
  std::uint64_t levels = 0;           // levels with work, over all batches
  std::uint64_t max_levels = 0;       // the deepest batch's
  std::uint64_t levels_launched = 0;  // queued levels, with the empty ones past a batch's end
  std::uint64_t polls = 0;            // host synchronisations on the level counts
  std::uint64_t light_slots = 0;      // (group, vertex, word) slots expanded a warp per 32
  std::uint64_t heavy_slots = 0;      // slots expanded a block each
  std::uint64_t items = 0;            // IC work items: (block, colour) pairs or (edge, word) pairs
  std::uint64_t early_slots = 0;      // slots that took colours early in a level (edge masks, take_early)
  std::uint64_t pulled_levels = 0;    // chunked levels that pulled (fused_chunk_pull)
  std::uint64_t touched_levels = 0;   // levels under the masks settled by touched regions only
  std::uint64_t mask_batches = 0;     // batches traversed with edge masks (their items: (edge, word) pairs)
  std::uint64_t chunked_batches = 0;  // of those, the batches whose levels went by chunks (fused_args::chunked)
  std::uint64_t drawn_ahead_batches = 0;  // of those, masks started beside the last batch's levels
  double setup_ms = 0;                // clearing the colour words and drawing the roots
  double masks_ms = 0;                // drawing the edge masks (what a draw ahead left)
  double light_ms = 0;                // light kernels (the LT kernel under LT)
  double heavy_ms = 0;                // heavy kernels (and the settling of the levels with edge masks)
  double extract_ms = 0;              // members to the store or words to the bitmap
};

class fused_sampler {
 public:
  /// `colours`: samples per group, 8, 16 or a multiple of 32 (64-bit words when a multiple of
  /// 64, else 32-bit words, of which 8 and 16 colours use the low bits), at most 1024. Sizes the number of groups in flight from the budget; throws resource_error if
  /// not even one group fits.
  /// `blocks`: the graph's IC block plan on the device (device_graph::blocks), required under IC.
  /// The environment's WF_FUSED_GROUPS (a positive integer) caps the groups in flight, to measure
  /// the trade between parallelism and the masks' cache footprint; WF_FUSED_QUEUE=late flushes
  /// the per-warp queue buffers only when full and shrinks the live stages, so that tests cover the
  /// direct fallbacks. WF_FUSED_PULL=on / off makes every chunked level pull (fused_chunk_pull) /
  /// none, and a share in (0, 1] the levels whose queue holds that share of the batch's slots;
  /// unset, those that queue half of them.
  /// WF_FUSED_TOUCH=on / off makes every pushing level under the masks settle only the regions it
  /// reduced into (kernels::touches_regions) / none, and a share in (0, 1] the levels that queue
  /// less than that share of the slots; unset, fused_touch_share.
  /// WF_FUSED_MASKS=on / off forces / forbids the edge masks (IC, colours a
  /// multiple of 32, and the masks of one group must fit half the budget left); unset, a batch
  /// takes them when the expected set (set_expected_set_size, then the last batch's mean) holds
  /// at least fused_mask_min_share of the vertices, and a first batch with no expected set is a
  /// one-group pilot with them.
  /// WF_FUSED_OVERLAP=N (N >= 0) sets the blocks a multiprocessor gives to drawing the next
  /// batch's masks during a batch's levels (0: none; default fused_overlap_blocks), when a second
  /// mask buffer fits half the budget left; it is freed at the end of each request.
  /// WF_FUSED_QUADS=off makes a batch drawn alone draw its edge-major masks by pairs of units, as
  /// a draw ahead does, instead of quads (kernels::fused_draw_edge_masks).
  fused_sampler(const graph_view& graph, const ic_block_view& blocks, const sampling_params& params,
                std::uint32_t colours, memory_budget& budget, cudaStream_t stream);
  ~fused_sampler();
  fused_sampler(const fused_sampler&) = delete;
  fused_sampler& operator=(const fused_sampler&) = delete;

  /// Appends the sets of ids first_id .. first_id + count - 1 to `store`, in id order. Blocks
  /// (one host synchronisation per 4 to 16 traversal levels and one per batch).
  void sample(std::uint64_t first_id, std::uint64_t count, rr_store& store);
  /// Appends the same sets to `bitmap` as its next held sets (bitmap.reserve(count) first): held
  /// set bitmap.num_sets() + i is sample first_id + i. Blocks.
  void sample(std::uint64_t first_id, std::uint64_t count, rr_bitmap& bitmap);

  /// The mean set size the next batch should expect (the caller's sets so far); each batch then
  /// updates it with its own mean.
  void set_expected_set_size(double members) noexcept { expected_set_size_ = members; }

  std::uint64_t edges_examined() const noexcept { return edges_examined_; }
  /// Groups per batch into a bitmap; a flat store's batches may hold fewer (32-bit positions).
  std::uint32_t max_groups() const noexcept { return max_groups_; }
  std::uint64_t levels() const noexcept { return profile_.levels; }
  const fused_profile& profile() const noexcept { return profile_; }
  /// With profiling on, kernels are timed by cudaEvents (profile().*_ms).
  void set_profiling(bool on);

 private:
  template <class Target>
  void sample_batches(std::uint64_t first_id, std::uint64_t count, std::uint32_t group_cap, Target& target);
  /// Whether the expected set holds fused_mask_min_share of the vertices (the automatic choice
  /// of edge masks; false while no set is expected).
  bool expected_sets_take_masks() const noexcept {
    return expected_set_size_ >= fused_mask_min_share * static_cast<double>(graph_.num_vertices);
  }
  /// Groups of the next batch if it traverses with edge masks (allocated here), else 0.
  std::uint32_t mask_groups_for_next_batch(std::uint32_t group_cap);
  /// The persistent grids of the kernels over `Word` colour words.
  template <class Word>
  void size_grids();
  /// Samples and groups of the next batch, `left` samples being left, with `mask_groups` groups
  /// of masks (0: none).
  struct batch_shape {
    std::uint32_t samples;
    std::uint32_t groups;
  };
  batch_shape shape_of(std::uint64_t left, std::uint32_t group_cap, std::uint32_t mask_groups) const;
  /// The state of a batch of `num_samples` samples from `first_id` in `groups` groups, with edge
  /// masks in buffer `buffer` when `masks` (everything the mask draw reads; traverse adds the
  /// levels' buffers).
  template <class Word>
  kernels::fused_args<Word> batch_args(std::uint64_t first_id, std::uint32_t num_samples, std::uint32_t groups,
                                       bool masks, unsigned buffer) const;
  /// Starts drawing the masks of the batch that follows the one in buffer `buffer` (`next` of it,
  /// from `first_id`) on the draw stream, a small grid beside the levels, when the next batch is
  /// expected to take masks and the other buffer fits; this batch's later levels then use the
  /// grids beside it.
  template <class Word>
  void draw_ahead(std::uint64_t first_id, const batch_shape& next, unsigned buffer);
  /// Draws what a draw ahead has left with a full grid, after this batch's levels; the stream
  /// then waits for the draw ahead.
  template <class Word>
  void finish_draw_ahead();
  /// Waits for a draw ahead and forgets it (before its buffer is freed or left unused).
  void drop_draw_ahead();
  /// Queues level `level`'s kernels (arguments `a` with that level's masks, queues and counts).
  template <class Word>
  void launch_level(kernels::fused_args<Word> a, std::uint32_t level);
  /// Adds the milliseconds between profiling events `from` and `to` to `sum`.
  void add_event_time(std::size_t from, std::size_t to, double& sum);
  /// Traverses samples first_id .. first_id + shape.samples - 1 in shape.groups groups (at least
  /// enough for them; groups past them stay empty), with the edge masks of buffer `buffer` when
  /// `masks` (`drawn`: a draw ahead started them); their visited words are then in visited_ (the
  /// returned state's). Blocks. `queued(Word{})` runs once the first levels are queued, before the
  /// host first waits for them, so that host work there overlaps the GPU's.
  template <class Word, class Queued>
  kernels::fused_args<Word> traverse(std::uint64_t first_id, const batch_shape& shape, bool masks, unsigned buffer,
                                     bool drawn, Queued&& queued);
  /// Extract the traversed sets into the target; return their members.
  template <class Word>
  std::uint64_t extract(const kernels::fused_args<Word>& a, rr_store& store);
  template <class Word>
  std::uint64_t extract(const kernels::fused_args<Word>& a, rr_bitmap& bitmap);

  graph_view graph_;
  ic_block_view blocks_;
  sampling_params params_;
  std::uint32_t colours_;
  std::uint32_t words_;  // per vertex and group, of word_bytes_ each
  std::uint32_t word_bytes_;
  std::uint32_t max_groups_ = 1;
  std::uint32_t flat_groups_ = 1;  // groups per batch into a flat store
  /// Persistent grids of the level kernels (blocks).
  struct level_grids {
    unsigned light = 0;
    unsigned heavy = 0;
    unsigned mask_light = 0;  // the edge masks' kernels
    unsigned mask_heavy = 0;
    unsigned mask_settle = 0;
    unsigned chunk_light = 0;  // the chunked levels' (batches of 32 (group, word) slots a vertex)
    unsigned chunk_heavy = 0;
    unsigned pull = 0;
    unsigned pull_wide = 0;  // two 32-bit words a lane (kernels::pull_lanes_fit)
  };
  level_grids grids_;         // alone on the device
  level_grids beside_grids_;  // beside a draw ahead's overlap_blocks_ blocks a multiprocessor
  unsigned mask_draw_grids_[2] = {0, 0};  // the mask draw's full grid by pairs, by quads (draw_kernel)
  unsigned overlap_blocks_ = 0;  // WF_FUSED_OVERLAP
  double pull_share_ = 0.5;  // chunked levels pull when they queue this share of the slots (< 0: never)
  double touch_share_ = fused_touch_share;  // WF_FUSED_TOUCH (kernels::touches_regions; > 1: every level)
  device_buffer<std::uint32_t> pull_first_;     // per out-edge segment: its first edge's source
  unsigned buffer_flush_ = 0;      // fill from which a warp flushes its queue buffer
  bool late_queue_ = false;        // WF_FUSED_QUEUE=late
  bool quads_alone_ = true;        // a batch drawn alone draws quads (WF_FUSED_QUADS=off: pairs)
  std::uint64_t spans_ = 0;       // the flat extraction's spans of vertices (kernels::fused_span_tiles tiles)
  memory_budget* budget_;
  cudaStream_t stream_;
  device_buffer<unsigned char> visited_;
  device_buffer<unsigned char> current_;
  device_buffer<unsigned char> next_;
  device_buffer<std::uint8_t> touched_;  // per settle region of next_: reduced into (kernels::touch_region)
  device_buffer<std::uint32_t> queue_;
  device_buffer<std::uint32_t> next_queue_;
  device_buffer<std::uint64_t> keys_;
  device_buffer<std::uint32_t> span_counts_;
  device_buffer<unsigned char> scan_scratch_;
  device_buffer<unsigned> counters_;  // the level ring: (light, heavy) x 3
  device_buffer<unsigned long long> examined_;  // edges examined (then the bitmap's members), stats
  device_buffer<uint2> rules_;                  // per vertex: class, block size
  device_buffer<std::uint8_t> heavy_;           // per vertex: heavy slot
  device_buffer<std::uint8_t> mask_heavy_;      // per vertex: heavy slot under the edge masks
  enum class mask_mode { automatic, on, off } mask_mode_ = mask_mode::automatic;
  device_buffer<unsigned char> masks_[2];       // edge masks of mask_groups_ groups each (allocated on
  std::uint32_t mask_groups_ = 0;               //   first use; the second for draws ahead)
  bool second_refused_ = false;                 // the second buffer did not fit: no draws ahead this request
  device_buffer<unsigned long long> draw_claims_;  // per buffer: its draw's next task
  cudaStream_t draw_stream_ = nullptr;          // draws ahead
  cudaEvent_t drawn_ahead_ = nullptr;           // recorded after a draw ahead
  cudaEvent_t ahead_start_ = nullptr;           // what a draw ahead waits for on stream_
  struct {
    bool valid = false;
    std::uint64_t first_id = 0;
    batch_shape shape{0, 0};
    unsigned buffer = 0;
  } ahead_;                                     // the batch a draw ahead draws for
  bool masks_refused_ = false;                  // not even one group's fitted: draw per item from then on
  double expected_set_size_ = -1;              // members; negative: unknown
  unsigned* host_counters_ = nullptr;  // pinned: light, heavy, member total
  unsigned long long* host_stats_ = nullptr;  // pinned: edges examined and the batch's stats
  std::uint64_t edges_examined_ = 0;
  fused_profile profile_;
  bool profiling_ = false;
  std::vector<cudaEvent_t> events_;  // profiling only
};

}  // namespace wildfire::cuda
