// The CUDA collection's incremental paths against the CPU, exactly: generate requests deferred to
// the next read (many small slices give the same sets as the reference), the vertex-to-sets index
// grown by one segment per select while the store only grows (and rebuilt past the segment limit
// or after clear), each segment built by the atomic scatter and by the radix sort, cover steps with
// and without chunks, the greedy over candidates (with too few candidates too), and IMM end to end
// on the GPU against the CPU backend (same seeds, theta, coverage), fresh and reused final sets.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/environment_override.hpp"
#include "support/selection_checks.hpp"
#include "wildfire/algorithms/imm.hpp"
#include "wildfire/backend.hpp"

namespace wildfire {
namespace {

using test::expect_greedy_equals_cpu;
using test::gpu_config;

/// The two ways a segment of the vertex-to-sets index is built (max_coverage.cu), forced for
/// every segment whatever its size.
constexpr const char* index_builds[] = {"scatter", "sort"};
test::environment_override force_index_build(const std::string& build) {
  return {"WF_INDEX_SORT_MIN_MEMBERS", build == "sort" ? "0" : "18446744073709551615"};
}

/// The greedy's candidates (greedy_candidates.hpp), forced on a small graph with T of them.
test::environment_override force_candidates(const char* limit) { return {"WF_GREEDY_CANDIDATES", limit}; }
/// Cover steps that deal large sets in chunks ("1") or lower every set in the warp that finds it.
test::environment_override force_cover_chunks(const char* on) { return {"WF_COVER_CHUNKS", on}; }
/// The whole greedy in one cooperative launch of N blocks per multiprocessor ("N"; 2 by default,
/// where it applies) or a launch per step ("0").
test::environment_override force_persistent_greedy(const char* on) { return {"WF_GREEDY_PERSISTENT", on}; }

TEST(CudaIncremental, DeferredSlicesEqualReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  sampling_params params;
  params.seed = 31;
  auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
  // 40 slices of 1,000 ids from id 5, then a gap and a slice: sizes count them before sampling.
  std::uint64_t next = 5;
  for (int i = 0; i < 40; ++i) {
    gpu->generate(next, 1000);
    next += 1000;
    EXPECT_EQ(gpu->size(), static_cast<std::uint64_t>(i + 1) * 1000);
  }
  gpu->generate(next + 77, 500);
  gpu->generate(next + 77, 0);
  ASSERT_EQ(gpu->size(), 40500U);
  cuda::cuda_collection_profile profile = cuda::profile_of(*gpu);
  EXPECT_EQ(profile.generate_calls, 42U);
  EXPECT_EQ(profile.sample_flushes, 0U);

  rr_sets want = reference::sample_rr_sets(g, params, 5, 40000);
  const rr_sets tail = reference::sample_rr_sets(g, params, next + 77, 500);
  const std::uint64_t base = want.members.size();
  want.members.insert(want.members.end(), tail.members.begin(), tail.members.end());
  for (std::uint64_t i = 1; i < tail.offsets.size(); ++i) want.offsets.push_back(base + tail.offsets[i]);

  EXPECT_EQ(gpu->num_members(), want.num_members());
  profile = cuda::profile_of(*gpu);
  EXPECT_EQ(profile.sample_flushes, 1U);
  const rr_sets got = gpu->copy_sets(0, gpu->size());
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_EQ(got.members, want.members);
  EXPECT_EQ(gpu->stats().sets_generated, 40500U);
  EXPECT_EQ(gpu->stats().members_generated, want.num_members());
  // Nothing left to sample: reads do not flush again.
  EXPECT_EQ(cuda::profile_of(*gpu).sample_flushes, 1U);
}

TEST(CudaIncremental, SegmentedIndexEqualsCpuGreedy) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  for (const std::string build : index_builds) {
    SCOPED_TRACE(build);
    const auto forced = force_index_build(build);
    // Each build with the other cover step: in chunks for the sort, in the warp for the scatter.
    const auto forced_chunks = force_cover_chunks(build == "sort" ? "1" : "0");
    const csr_graph g = test::hub_graph(3000, false);
    sampling_params params;
    params.seed = 32;
    auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
    // Doubling phases as in IMM, a select after each: one new segment per phase, then past the
    // segment limit a rebuild from scratch; twice the same select reuses the index.
    std::uint64_t next = 0;
    std::uint64_t want_segments = 0;
    for (int phase = 0; phase < 11; ++phase) {
      const std::uint64_t grow = 500ULL << (phase % 5);
      gpu->generate(next, grow / 2);
      gpu->generate(next + grow / 2, grow - grow / 2);
      next += grow;
      const std::string where = "phase " + std::to_string(phase);
      expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, phase % 2 == 0, where);
      expect_greedy_equals_cpu(*gpu, g.num_vertices, 7, true, where + ", again");
      ++want_segments;
    }
    const cuda::cuda_collection_profile profile = cuda::profile_of(*gpu);
    EXPECT_EQ(profile.index_segments, want_segments);
    EXPECT_EQ(profile.index_rebuilds, 1U);  // the 9th phase: 8 segments held
    EXPECT_EQ(profile.select_calls, 22U);
    // After clear the index starts over.
    gpu->clear();
    gpu->generate(next, 3000);
    expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, true, "after clear");
    gpu->generate(next + 3000, 100);
    expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, false, "after clear, grown");
    const coverage_selection four = gpu->select(4, false);
    EXPECT_EQ(gpu->coverage(four.seeds), four.covered);
  }
}

TEST(CudaIncremental, CandidateGreedyEqualsCpuGreedy) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph g = test::hub_graph(3000, false);
  // T = 1 cannot vouch for a second seed (no candidate is left), so every select of k >= 2 runs
  // again with more candidates; 2,999 is the largest limit below n.
  for (const char* limit : {"1", "64", "1024", "2999"}) {
    for (const char* chunks : {"0", "1"}) {
      SCOPED_TRACE(std::string("candidates ") + limit + ", chunks " + chunks);
      const auto forced = force_candidates(limit);
      const auto forced_chunks = force_cover_chunks(chunks);
      sampling_params params;
      params.seed = 34;
      auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
      std::uint64_t next = 0;
      for (int phase = 0; phase < 6; ++phase) {
        const std::uint64_t grow = 400ULL << phase;
        gpu->generate(next, grow);
        next += grow;
        const std::string where = "phase " + std::to_string(phase);
        expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, false, where);
        // The bound needs every count: no candidates then.
        if (phase % 2 == 1) expect_greedy_equals_cpu(*gpu, g.num_vertices, 20, true, where + ", bound");
        expect_greedy_equals_cpu(*gpu, g.num_vertices, 1, false, where + ", k 1");
      }
      // A select runs again with four times the candidates (and lists) until a run vouches for
      // every seed, and the later selects keep the larger limit (up to n: then every count and
      // the index). With ties at small counts, as here, runs of few candidates often cannot.
      const cuda::cuda_collection_profile phases = cuda::profile_of(*gpu);
      EXPECT_GE(phases.candidate_selects, 1U);
      if (std::string(limit) == "1") EXPECT_GE(phases.candidate_fallbacks, 1U);
      // Few sets, k beyond the vertices they hold: the zero-gain steps need every count.
      gpu->clear();
      gpu->generate(next, 7);
      expect_greedy_equals_cpu(*gpu, g.num_vertices, 60, false, "7 sets");
      const coverage_selection chosen = gpu->select(60, false);
      EXPECT_EQ(gpu->coverage(chosen.seeds), chosen.covered);
    }
  }
}

TEST(CudaIncremental, OneLaunchGreedyEqualsCpuGreedy) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  // Every count kept, no chunks, no bound: the greedy_persistent path, and the launch per step
  // beside it, over growing sets (ties at small counts in the first phases), with k past the
  // vertices the sets hold (zero-gain picks), and per round over multi-round sets.
  const auto no_candidates = force_candidates("0");
  const auto no_chunks = force_cover_chunks("0");
  const csr_graph g = test::hub_graph(3000, false);
  for (const char* persistent : {"1", "0"}) {
    SCOPED_TRACE(std::string("persistent ") + persistent);
    const auto forced = force_persistent_greedy(persistent);
    sampling_params params;
    params.seed = 33;
    auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
    std::uint64_t next = 0;
    for (int phase = 0; phase < 5; ++phase) {
      const std::uint64_t grow = 5ULL << (2 * phase);
      gpu->generate(next, grow);
      next += grow;
      expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, false, "phase " + std::to_string(phase));
    }
    expect_greedy_equals_cpu(*gpu, g.num_vertices, 2000, false, "k 2000");
    params.rounds = 3;
    auto rounds = cuda::make_cuda_rr_collection(gpu_config(), g, params);
    rounds->generate(0, 4000);
    const coverage_selection got = test::expect_per_round_greedy_equals_cpu(*rounds, g.num_vertices, 3, 40, "3 rounds");
    EXPECT_EQ(got.seeds.size(), 120U);
  }
}

TEST(CudaIncremental, CandidateGreedyOffWithoutLimit) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const auto forced = force_candidates("0");
  const csr_graph g = test::hub_graph(3000, false);
  sampling_params params;
  params.seed = 35;
  auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
  gpu->generate(0, 5000);
  expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, false, "off");
  EXPECT_EQ(cuda::profile_of(*gpu).candidate_selects, 0U);
}

/// The GPU per-round greedy over everything the collection holds equals the CPU's over its sets.
void expect_per_round_equals_cpu(rr_collection& gpu, std::uint32_t n, std::uint32_t rounds, std::uint32_t k,
                                 const std::string& where) {
  const coverage_selection got = test::expect_per_round_greedy_equals_cpu(gpu, n, rounds, k, where);
  EXPECT_EQ(got.seeds.size(), std::min<std::size_t>(std::size_t{k} * rounds, std::size_t{n} * rounds)) << where;
}

TEST(CudaIncremental, SegmentedIndexPerRoundEqualsCpuGreedy) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  // Multi-round sets (members round * n + vertex) grown in IMM-like phases with a per-round
  // select after each: every phase adds a segment, the ninth rebuilds. The first phases hold a
  // handful of sets, so most counts tie (at 1) and the budget runs into the zero-gain fill
  // across rounds; a large k fills every round with zero-gain picks at every phase.
  for (const std::string build : index_builds) {
    SCOPED_TRACE(build);
    const auto forced = force_index_build(build);
    const auto forced_chunks = force_cover_chunks(build == "sort" ? "1" : "0");
    for (const std::uint32_t rounds : {2U, 3U}) {
      const csr_graph g = test::hub_graph(3000, false);
      sampling_params params;
      params.seed = 36 + rounds;
      params.rounds = rounds;
      auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
      std::uint64_t next = 0;
      for (int phase = 0; phase < 11; ++phase) {
        const std::uint64_t grow = phase < 3 ? 3ULL + 4 * phase : 300ULL << (phase % 4);
        for (std::uint64_t done = 0; done < grow;) {  // several slices per phase, as IMM requests them
          const std::uint64_t slice = std::min<std::uint64_t>(grow - done, 1 + grow / 3);
          gpu->generate(next + done, slice);
          done += slice;
        }
        next += grow;
        const std::string where = std::to_string(rounds) + " rounds, phase " + std::to_string(phase);
        expect_per_round_equals_cpu(*gpu, g.num_vertices, rounds, 5, where);
        expect_per_round_equals_cpu(*gpu, g.num_vertices, rounds, 1, where + ", k 1");
        expect_per_round_equals_cpu(*gpu, g.num_vertices, rounds, 60, where + ", k 60");
      }
      const cuda::cuda_collection_profile profile = cuda::profile_of(*gpu);
      EXPECT_EQ(profile.index_segments, 11U);
      EXPECT_EQ(profile.index_rebuilds, 1U);
    }
    }
    // A universe smaller than k * rounds: every element is picked, most with gain 0, in id order
    // within the rounds that still have budget.
    const csr_graph tiny = test::hub_graph(24, false);
    sampling_params params;
    params.seed = 39;
    params.rounds = 2;
    auto gpu = cuda::make_cuda_rr_collection(gpu_config(), tiny, params);
    std::uint64_t next = 0;
    for (const std::uint64_t grow : {1ULL, 2ULL, 5ULL, 40ULL}) {
      gpu->generate(next, grow);
      next += grow;
      const std::string where = "tiny graph, " + std::to_string(next) + " sets";
      expect_per_round_equals_cpu(*gpu, tiny.num_vertices, 2, 3, where);
      expect_per_round_equals_cpu(*gpu, tiny.num_vertices, 2, 24, where + ", k = n");
      expect_per_round_equals_cpu(*gpu, tiny.num_vertices, 2, 30, where + ", k > n");
  }
}

TEST(CudaIncremental, SegmentedIndexOnSharedGraph) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  csr_graph g;
  if (!test::load_shared_graph("NetHEPT.txt.gz", g)) GTEST_SKIP() << "NetHEPT.txt.gz not in the shared data";
  for (const std::string build : index_builds) {
    SCOPED_TRACE(build);
    const auto forced = force_index_build(build);
    sampling_params params;
    params.seed = 33;
    auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
    std::uint64_t next = 0;
    for (const std::uint64_t grow : {4000ULL, 4000ULL, 8000ULL, 16000ULL}) {
      for (std::uint64_t done = 0; done < grow; done += 1000) {
        gpu->generate(next, 1000);
        next += 1000;
      }
      expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, false, "after " + std::to_string(next) + " sets");
    }
    expect_greedy_equals_cpu(*gpu, g.num_vertices, 50, true, "with the bound");
    EXPECT_EQ(cuda::profile_of(*gpu).index_segments, 4U);
  }
}

void expect_imm_equal(const csr_graph& g, diffusion_model model, std::uint32_t k, double eps, bool reuse,
                      const std::string& name, bool by_candidates = false) {
  sampling_params params;
  params.model = model;
  params.seed = 41;
  imm_options options;
  options.k = k;
  options.epsilon = eps;
  options.reuse_rrsets = reuse;
  backend_config cpu_config;
  cpu_config.device = device_kind::cpu;
  cpu_config.num_threads = 2;
  auto cpu = make_rr_collection(cpu_config, g, params);
  const imm_result want = run_imm(*cpu, g.num_vertices, options);
  auto gpu = cuda::make_cuda_rr_collection(gpu_config(), g, params);
  const imm_result got = run_imm(*gpu, g.num_vertices, options);
  const std::string where = name + ", " + std::string(to_string(model)) + ", reuse " + (reuse ? "yes" : "no");
  EXPECT_EQ(got.selection.seeds, want.selection.seeds) << where;
  EXPECT_EQ(got.selection.marginal_coverage, want.selection.marginal_coverage) << where;
  EXPECT_EQ(got.theta, want.theta) << where;
  EXPECT_EQ(got.total_sets_generated, want.total_sets_generated) << where;
  EXPECT_EQ(got.estimation_iterations, want.estimation_iterations) << where;
  EXPECT_EQ(gpu->stats().sets_generated, cpu->stats().sets_generated) << where;
  EXPECT_EQ(gpu->stats().members_generated, cpu->stats().members_generated) << where;
  // One flush per select at most: the slices of a phase are sampled together.
  const cuda::cuda_collection_profile profile = cuda::profile_of(*gpu);
  EXPECT_LE(profile.sample_flushes, profile.select_calls) << where;
  EXPECT_GE(profile.generate_calls, profile.sample_flushes) << where;
  // Some runs over candidates held (vouched for every seed), not only their fallbacks.
  EXPECT_EQ(profile.candidate_selects > profile.candidate_fallbacks, by_candidates) << where;
}

TEST(CudaIncremental, ImmEqualsCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph hubs = test::hub_graph(3000, false);
  csr_graph shared;
  const bool have_shared = test::load_shared_graph("NetHEPT.txt.gz", shared);
  // Every count kept (these graphs are below the candidates' default universe), and few candidates
  // (some selects run again with more) with chunked cover steps.
  for (const char* limit : {"0", "200"}) {
    SCOPED_TRACE(std::string("candidates ") + limit);
    const auto forced = force_candidates(limit);
    const auto forced_chunks = force_cover_chunks(std::string(limit) == "0" ? "0" : "1");
    const bool by_candidates = std::string(limit) != "0";
    for (const bool reuse : {true, false}) {
      expect_imm_equal(hubs, diffusion_model::ic, 10, 0.3, reuse, "hub graph", by_candidates);
      expect_imm_equal(hubs, diffusion_model::lt, 10, 0.3, reuse, "hub graph", by_candidates);
    }
    if (have_shared) {
      for (const bool reuse : {true, false}) {
        expect_imm_equal(shared, diffusion_model::ic, 50, 0.2, reuse, "NetHEPT", by_candidates);
      }
    }
  }
}

}  // namespace
}  // namespace wildfire
