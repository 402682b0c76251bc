// The store of mRR-sets that MERIT and ASTI are written against, once (MERIT digest section 2.1):
// Generate, Select (with Discover and roll-back), post-round Discover and Update. A backend keeps
// the sets where it likes (host vectors, GPU segments); set s always holds the same vertices on
// every backend, because every draw follows adaptive/mrr_rules.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wildfire/adaptive/residual_graph.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/diffusion_model.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"
#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire::adaptive {

/// A batch chosen greedily by marginal coverage over cost (Alg. 4).
struct batch_selection {
  std::vector<std::uint32_t> seeds;  // dense ids, selection order
  std::uint64_t coverage = 0;        // Lambda(S): held sets covered by the batch
};

struct mrr_store_stats {
  std::uint64_t sets_generated = 0;    // fresh sets drawn (Generate)
  std::uint64_t sets_reused = 0;       // clean sets kept and extended (Lemma 3.3)
  std::uint64_t sets_repaired = 0;     // polluted sets repaired (Lemma 3.6)
  std::uint64_t sets_dropped = 0;      // sets dropped to bound memory (content-independent)
  std::uint64_t members_written = 0;   // entries written by Generate and Update
  std::uint64_t peak_bytes = 0;        // of set storage (device bytes on the GPU)
  std::uint64_t storage_regrowths = 0; // GPU: times a segment ran out of room and was regrown
};

/// Copy of the held sets for tests and verification: set i has sample id i.
struct mrr_snapshot {
  rr_sets members;              // each sorted ascending, root bits stripped
  rr_sets roots;                // the roots of each set, sorted ascending
  std::vector<std::uint8_t> flags;  // 1 = polluted or covered (excluded from coverage)

  /// Appends a set given by its encoded members (adaptive/mrr_rules.hpp) to `members` and
  /// `roots`; the caller appends its flag.
  void append_set(std::span<const std::uint32_t> encoded);
};

class mrr_store {
 public:
  virtual ~mrr_store() = default;

  /// Starts round `round` (1-based) on `residual` with n_i / eta_i = `mean_roots` roots per set.
  /// The residual graph must stay unchanged until the next call. Blocks.
  virtual void begin_round(const residual_graph& residual, double mean_roots, std::uint32_t round) = 0;
  /// Update (Alg. 5, corrected): extends clean sets to the round's root count and repairs polluted
  /// ones; afterwards every flag is clear and the coverage counts are exact. Blocks.
  virtual void update() = 0;
  /// Generate (Alg. 2): appends sets with sample ids [size(), size() + count). Blocks.
  virtual void generate(std::uint64_t count) = 0;
  virtual std::uint64_t size() const = 0;
  virtual std::uint64_t num_members() const = 0;
  /// Select (Alg. 4): greedy batch of `batch` remaining vertices by coverage / cost on scratch
  /// copies of the counts and flags (so a rejected trial needs no roll-back). Ties: lower cost,
  /// then lower id. Blocks.
  virtual batch_selection select(std::uint32_t batch) = 0;
  /// Accepts the last select(): counts and flags take the scratch values (Alg. 1 line 18).
  virtual void commit_selection() = 0;
  /// Discover (Alg. 3) after a round: flags every held set containing an activated vertex and
  /// removes its members from the coverage counts. Blocks.
  virtual void discover(std::span<const std::uint32_t> activated) = 0;
  /// Keeps sets [0, count) and drops the rest (ids carry no information about content, so this
  /// keeps the collection unbiased). Blocks.
  virtual void truncate(std::uint64_t count) = 0;
  /// Drops every set and samples later sets with `seed` (ASTI regenerates every round).
  virtual void reset(std::uint64_t seed) = 0;

  virtual mrr_snapshot snapshot() const = 0;
  /// Coverage count of every vertex over the unflagged sets.
  virtual std::vector<std::uint32_t> coverage_counts() const = 0;
  virtual mrr_store_stats stats() const = 0;
  /// "cpu" or "gpu".
  virtual std::string device() const = 0;
  /// Bytes the retained sets may use by default: half the memory available on the host, a quarter
  /// of the free GPU memory (segments are sized by their fullest one; a regrowth holds two copies).
  virtual std::uint64_t default_budget_bytes() const = 0;
};

/// The host store (OpenMP over sets, `threads` = 0: OpenMP default). `ic_plan`: the graph's
/// make_ic_block_plan, outliving the store (IC only); when null the store builds its own (O(m),
/// a third of a second on a LiveJournal-sized graph, so a run shares one).
std::unique_ptr<mrr_store> make_cpu_mrr_store(const csr_graph& graph, diffusion_model model,
                                              std::span<const double> costs, std::uint64_t seed, int threads,
                                              const ic_block_plan* ic_plan = nullptr);

/// The store for `config.device` (resolved: auto picks the GPU when one is visible). Throws
/// config_error for a GPU request without one. Graph, costs and the plan must outlive the store.
std::unique_ptr<mrr_store> make_mrr_store(const backend_config& config, const csr_graph& graph,
                                          diffusion_model model, std::span<const double> costs,
                                          std::uint64_t seed, const ic_block_plan* ic_plan = nullptr);

}  // namespace wildfire::adaptive
