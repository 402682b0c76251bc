// The backend-neutral store of RR sets that the algorithms (IMM, OPIM-C, multi-round IM, MERIT)
// are written against, once (ARCHITECTURE.md section 3). A backend keeps the sets where it likes
// (host memory, GPU memory, compressed) and answers coverage queries over them.
//
// Multi-round families (sampling_params::rounds = T > 1, gIM digest section 3.1): every member is
// the pair (vertex, round) encoded as round * n + vertex (sampling/multi_round.hpp), coverage runs
// over the universe of n * T pairs, `select` and `coverage` take and return encoded ids, and
// `select_per_round(k)` gives each round a budget of k seeds (a partition matroid).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/sampling/rr_sets.hpp"
#include "wildfire/sampling/sampling_params.hpp"

namespace wildfire {

/// Result of greedy maximum coverage over the held sets.
struct coverage_selection {
  std::vector<std::uint32_t> seeds;              // dense ids, in selection order
  std::vector<std::uint64_t> marginal_coverage;  // sets newly covered by each seed
  std::uint64_t covered = 0;                     // sets covered by all seeds
  /// Upper bound on the coverage of any k vertices, from the greedy run (OPIM-C, Tang et al.
  /// 2018, Eq. 9: min over steps i of Lambda(S_i) + sum of the k largest marginals at step i).
  std::uint64_t optimum_upper_bound = 0;
};

/// Counters every backend keeps, reported in the JSON result.
struct collection_stats {
  std::uint64_t sets_generated = 0;
  std::uint64_t members_generated = 0;
  std::uint64_t edges_examined = 0;   // in-edges whose liveness (IC) or weight (LT) was read
  double sampling_seconds = 0;
  double selection_seconds = 0;
  std::uint64_t peak_bytes = 0;       // of RR storage and indices (device bytes on the GPU)
  std::string representation;         // e.g. "flat", "bitmap", "compressed"
  std::string traversal;              // the traversal actually used
};

class rr_collection {
 public:
  virtual ~rr_collection() = default;

  /// Generates the sets with sample ids [first_id, first_id + count) and appends them (size()
  /// counts them at once). A backend may defer the work until the sets are next read (select,
  /// coverage, copy_sets, num_members, stats, clear), where errors of the sampling itself then
  /// surface; bad parameters are still refused at construction. Blocks.
  virtual void generate(std::uint64_t first_id, std::uint64_t count) = 0;
  /// Number of sets held.
  virtual std::uint64_t size() const = 0;
  /// Total members over the held sets.
  virtual std::uint64_t num_members() const = 0;
  /// Drops every held set (the counters keep running).
  virtual void clear() = 0;
  /// Greedy maximum coverage with `k` seeds; ties go to the lowest dense id. With
  /// `with_upper_bound`, optimum_upper_bound is OPIM-C's Eq. 9 bound (a top-k scan per greedy
  /// step; OPIM-C needs it, IMM does not), else the number of sets. Blocks.
  virtual coverage_selection select(std::uint32_t k, bool with_upper_bound) = 0;
  /// Greedy maximum coverage over (vertex, round) pairs with at most `k_per_round` seeds in each
  /// round (cross-round greedy of multi-round IM); ties go to the lowest encoded id. With one
  /// round it equals select(k_per_round). `num_vertices` is n and `rounds` is T of the family.
  /// The default copies the sets to the host and runs the CPU greedy; a backend may override it.
  /// Blocks.
  virtual coverage_selection select_per_round(std::uint32_t k_per_round, std::uint32_t num_vertices,
                                              std::uint32_t rounds);
  /// Number of held sets that contain at least one of `seeds`. Blocks.
  virtual std::uint64_t coverage(std::span<const std::uint32_t> seeds) = 0;
  /// Copies held sets [first, first + count) into host flat storage (verification and tests).
  virtual rr_sets copy_sets(std::uint64_t first, std::uint64_t count) const = 0;
  virtual collection_stats stats() const = 0;
};

/// Makes the collection for `config.device` (resolved); throws config_error for an unsupported
/// combination. The graph must outlive the collection.
std::unique_ptr<rr_collection> make_rr_collection(const backend_config& config, const csr_graph& graph,
                                                  const sampling_params& params);

}  // namespace wildfire
