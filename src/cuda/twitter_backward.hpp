// Launchers of the GPU backward phase (thesis sec. 6.3): a session uploads the graphs once and
// times sweeps with data resident, as the thesis's measurements do. g++-includable.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "twitter/staged_layout.hpp"
#include "wildfire/twitter/influence.hpp"

namespace wildfire::cuda {

/// Device copy of a spreading-graph set with the category lists and scratch of every variant.
class twitter_backward_session {
 public:
  /// Uploads `graphs` and builds and uploads the shared-pull and staged layouts (blocking; `starts`:
  /// when the staged graphs start, for the bench's comparison). Throws resource_error when the
  /// device lacks the memory.
  explicit twitter_backward_session(const twitter::spreading_graphs& graphs,
                                    twitter::detail::staged_start starts = twitter::detail::staged_start::balanced);
  ~twitter_backward_session();
  twitter_backward_session(const twitter_backward_session&) = delete;
  twitter_backward_session& operator=(const twitter_backward_session&) = delete;

  /// Every size category (bit c for twitter::graph_category c: Empty, Small, Medium, Large).
  static constexpr unsigned all_categories = 0xfu;

  /// One backward phase (initialisation, in-degree count, sweep, stalled count) with `variant`
  /// (`thesis`: edge array for Small, queue for Medium and Large, run concurrently on three
  /// streams; `automatic` = `staged`; the pull variants' levels and stalled nodes come from the
  /// layout the constructor built, so their timed region is the sweep alone). Blocking; returns the
  /// device time in seconds (CUDA events). Only the graphs of the categories set in the mask
  /// `categories` are swept (per-category timings, thesis Table 7.4); the influence of the
  /// others is then left as it was.
  double run(twitter::gpu_variant variant, unsigned categories = all_categories);
  /// Influence and stalled nodes of the last run (blocking copy).
  twitter::influence_result result() const;
  /// Bytes of graph data on the device (offsets, targets, base), for bandwidth accounting.
  std::uint64_t resident_bytes() const noexcept;
  /// shared-pull: the bytes its sweep must read and write at least (twitter/pull_layout.hpp,
  /// pull_bytes_moved; graphs left to the queue fallback not counted), the host seconds the
  /// constructor spent building and uploading its layout, and the most levels of any graph.
  std::uint64_t shared_pull_bytes() const noexcept;
  double shared_pull_prepare_seconds() const noexcept;
  std::uint32_t shared_pull_max_levels() const noexcept;
  /// staged: the bytes its sweep moves at least (the pull layout's, the staged graphs' in-lists
  /// replaced by their near slots and far runs, plus the near slots' starts, stage records,
  /// chunks and the far sums written and read), how many Large graphs the
  /// cooperative grid sweeps and its steps (grid barriers).
  std::uint64_t staged_bytes() const noexcept;
  std::uint64_t staged_graph_count() const noexcept;
  std::uint32_t staged_steps() const noexcept;
  /// staged: whether the far-sum kernel runs beside the cooperative grid (the default). Without
  /// it no far-sum block takes part, and the critical blocks take every far-sum chunk themselves,
  /// as they do before the far-sum blocks start: the path tests force with false.
  void use_far_sum_kernel(bool on) noexcept;

  /// staged diagnostics for the bench: one run of the Large graphs (or of `categories`, a mask of
  /// graph_category bits, beside them) with SM clock stamps per
  /// critical block (one per staged graph) and step, taken once the stage may start, once it is in
  /// shared memory, after its levels and once it is published, then the stage's level count, the
  /// cycles its chain warps waited for level helpers and those its first level helper waited for
  /// the chain, then the global timer (ns) once it may start, once published and once thread 0 has
  /// staged its part of it (`at(block, step, slot)`, slots in that order); and per far-sum chunk (in step order) its staged graph, its pass
  /// and the global timer when a block turned to it, once it could run and once done, and whether
  /// a far-sum block (not a critical one) ran it; per block of either kernel its SM and when it
  /// started and left (global timer); and the run's time by CUDA events.
  struct staged_timeline {
    static constexpr std::uint32_t slots = 10;  // per block and step
    static constexpr std::uint32_t ready_ns_slot = 7, published_ns_slot = 8, staged_ns_slot = 9;
    std::uint32_t blocks = 0, steps = 0;
    std::uint32_t reference = 0;  // the staged graph with the most stages
    std::vector<std::uint64_t> records;
    double clock_hz = 0.0;  // block 0's SM clock cycles over the global timer during the run
    std::uint64_t at(std::uint32_t block, std::uint32_t step, std::uint32_t slot) const {
      return records[(std::uint64_t{block} * steps + step) * slots + slot];
    }
    struct chunk {
      std::uint32_t staged, pass, step;
      std::uint64_t turned_ns, ready_ns, done_ns;
      std::uint32_t block;  // the index of the block that ran it, in its grid
      bool far_block;
    };
    std::vector<chunk> chunks;
    struct block_span {
      std::uint32_t sm = 0;
      std::uint64_t started_ns = 0, left_ns = 0;
      bool took_part = false;  // a far-sum block that took chunks
    };
    std::vector<block_span> critical_spans;  // by staged graph (the block that solved it)
    std::vector<block_span> far_spans;
    double seconds = 0.0;
    /// Seconds from the run's start to the end of each kernel group (CUDA events): the cooperative
    /// grid with the Large graphs left to the pipelined kernel, the far-sum kernel, the Large
    /// graphs of two blocks per SM, the Medium kernel, and the Small kernels (after it on its stream).
    double grid_end = 0.0, far_end = 0.0, large_two_end = 0.0, medium_end = 0.0, small_end = 0.0;
  };
  static constexpr unsigned large_category = 0x8u;
  staged_timeline profile_staged(unsigned categories = large_category);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Uploads, runs one sweep and downloads: backward_gpu() in influence.hpp.
twitter::influence_result twitter_backward(const twitter::spreading_graphs& graphs, twitter::gpu_variant variant);

/// Device-to-device copy bandwidth in bytes/s (read + write counted), measured on `bytes`.
double measure_copy_bandwidth(std::uint64_t bytes);

}  // namespace wildfire::cuda
