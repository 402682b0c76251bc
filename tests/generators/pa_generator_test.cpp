// Structural invariants and schedule independence of the preferential-attachment generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "pa_test_support.hpp"
#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_reference.hpp"

namespace wildfire {
namespace {

pa_graph run_cpu(const pa_params& params, int threads, std::uint32_t block = 256,
                 std::uint32_t segment = 1U << 20, pa_run_stats* stats = nullptr) {
  pa_cpu_options options;
  options.num_threads = threads;
  options.block_vertices = block;
  options.max_segment_vertices = segment;
  return generate_pa_cpu(params, options, stats);
}

TEST(PaGenerator, StructuralInvariantsOnManySeedsAndSizes) {
  // Prepare: sizes from the smallest legal (n = d + 1) to several segments, p across [0, 1].
  for (std::uint32_t d : {1U, 2U, 3U, 8U}) {
    for (std::uint32_t n : {d + 1, d + 2, 50U, 1000U, 20000U}) {
      for (double p : {0.0, 0.1, 0.5, 0.9, 1.0}) {
        for (std::uint64_t seed = 0; seed < (n > 1000 ? 1U : 3U); ++seed) {
          const pa_params params{n, d, p, seed};
          // Run + verify: parallel CPU (2 threads), sequential copy model, and BA where p = 1/2.
          const auto parallel = test::verify_pa_graph(run_cpu(params, 2), n, d);
          ASSERT_TRUE(parallel.ok) << "n=" << n << " d=" << d << " p=" << p << ": " << parallel.first_mismatch;
          const auto scm = test::verify_pa_graph(reference::copy_model(params), n, d);
          ASSERT_TRUE(scm.ok) << "n=" << n << " d=" << d << " p=" << p << ": " << scm.first_mismatch;
        }
      }
      const auto ba = test::verify_pa_graph(reference::barabasi_albert(n, d, 7), n, d);
      ASSERT_TRUE(ba.ok) << "n=" << n << " d=" << d << ": " << ba.first_mismatch;
    }
  }
}

TEST(PaGenerator, FirstNewVertexTakesAllSeedVertices) {
  for (std::uint32_t d : {1U, 4U, 16U}) {
    const pa_params params{d + 5, d, 0.5, 11};
    const auto g = run_cpu(params, 2);
    std::vector<std::uint32_t> row(g.targets.begin(), g.targets.begin() + d);
    std::sort(row.begin(), row.end());
    std::vector<std::uint32_t> seeds(d);
    std::iota(seeds.begin(), seeds.end(), 0U);
    EXPECT_EQ(row, seeds) << "d=" << d;
  }
}

TEST(PaGenerator, ZeroDirectProbabilityGivesTheStar) {
  // Digest statement 2: with p = 0 every new vertex links to exactly {0, ..., d-1}.
  for (std::uint32_t d : {1U, 3U, 8U}) {
    const pa_params params{5000, d, 0.0, 3};
    for (const pa_graph& g : {run_cpu(params, 2), reference::copy_model(params)}) {
      for (std::uint32_t v = d; v < params.num_vertices; ++v) {
        std::vector<std::uint32_t> row(d);
        for (std::uint32_t l = 0; l < d; ++l) row[l] = g.target(v, l);
        std::sort(row.begin(), row.end());
        for (std::uint32_t l = 0; l < d; ++l) ASSERT_EQ(row[l], l) << "vertex " << v << " d=" << d;
      }
    }
  }
}

TEST(PaGenerator, FullDirectProbabilityNeverWaitsAndHasNoHeavyTail) {
  // Digest statement 3: with p = 1 no slot is ever set aside, and the maximum degree of uniform
  // attachment is about d (ln n + 1) (vertex 0 receives d / v expected links from each v), far
  // below the ~ d sqrt(n) hubs of p = 1/2.
  const std::uint32_t n = 100000;
  const std::uint32_t d = 4;
  pa_run_stats stats;
  const auto g = run_cpu({n, d, 1.0, 5}, 2, 64, 1U << 20, &stats);
  EXPECT_EQ(stats.max_pending, 0U);
  EXPECT_EQ(stats.resolve_passes, 0U);
  const auto degrees = pa_total_degrees(g);
  const double mean_top = d * (std::log(static_cast<double>(n)) + 1.0);
  const double bound = mean_top + 10.0 * std::sqrt(mean_top) + d;
  EXPECT_LT(static_cast<double>(*std::max_element(degrees.begin(), degrees.end())), bound);
  const auto ba_degrees = pa_total_degrees(run_cpu({n, d, 0.5, 5}, 2));
  EXPECT_GT(static_cast<double>(*std::max_element(ba_degrees.begin(), ba_degrees.end())), 2.0 * bound);
}

TEST(PaGenerator, ParallelEqualsCanonicalOrderForAnyThreadCountAndShape) {
  // Prepare: segments and round-robin blocks from 1 vertex up, so many vertices are set aside.
  for (const pa_params& params : {pa_params{30000, 4, 0.5, 1}, pa_params{30000, 1, 0.0, 2},
                                  pa_params{20000, 8, 0.05, 3}, pa_params{5000, 16, 0.9, 4},
                                  pa_params{20000, 2, 1.0, 5}}) {
    const auto expected = test::canonical_pa(params);
    for (int threads : {1, 2, 3}) {
      for (auto [block, segment] : {std::pair{256U, 1U << 20}, std::pair{1U, 64U}, std::pair{7U, 1000U}}) {
        pa_run_stats stats;
        const auto got = run_cpu(params, threads, block, segment, &stats);
        ASSERT_EQ(got.targets, expected.targets)
            << "n=" << params.num_vertices << " d=" << params.out_degree << " p=" << params.copy_probability
            << " threads=" << threads << " block=" << block << " segment=" << segment;
      }
    }
  }
}

TEST(PaGenerator, SeedsChangeTheGraphAndRepeatRunsDoNot) {
  const pa_params a{10000, 4, 0.5, 1};
  pa_params b = a;
  b.seed = 2;
  EXPECT_EQ(run_cpu(a, 2).targets, run_cpu(a, 2).targets);
  EXPECT_NE(run_cpu(a, 2).targets, run_cpu(b, 2).targets);
}

TEST(PaGenerator, RejectsBadParametersNamingTheFlag) {
  const auto parameter_of = [](const pa_params& params) -> std::string {
    try {
      validate_pa_params(params);
    } catch (const config_error& e) {
      return e.parameter();
    }
    return "";
  };
  EXPECT_EQ(parameter_of({10, 0, 0.5, 0}), "-d");
  EXPECT_EQ(parameter_of({4, 4, 0.5, 0}), "-n");
  EXPECT_EQ(parameter_of({10, 70000, 0.5, 0}), "-d");
  EXPECT_EQ(parameter_of({10, 2, -0.1, 0}), "--copy-p");
  EXPECT_EQ(parameter_of({10, 2, 1.5, 0}), "--copy-p");
  EXPECT_EQ(parameter_of({10, 2, std::nan(""), 0}), "--copy-p");
  EXPECT_EQ(parameter_of({10, 2, 0.5, 0}), "");
  EXPECT_THROW(run_cpu({3, 3, 0.5, 0}, 1), config_error);
}

TEST(PaGenerator, VerifierCatchesBrokenGraphs) {
  const pa_params params{200, 3, 0.5, 4};
  auto g = run_cpu(params, 2);
  EXPECT_TRUE(verify_pa_graph(g, params).ok);
  auto duplicate = g;
  duplicate.targets[(150 - 3) * 3 + 1] = duplicate.targets[(150 - 3) * 3];
  const auto bad = verify_pa_graph(duplicate, params);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.first_mismatch.find("vertex 150"), std::string::npos) << bad.first_mismatch;
  auto later = g;
  later.targets[(40 - 3) * 3 + 2] = 40;  // a self-loop
  EXPECT_FALSE(verify_pa_graph(later, params).ok);
  auto pending = g;
  pending.targets[(99 - 3) * 3] = pa_unresolved;
  EXPECT_FALSE(verify_pa_graph(pending, params).ok);
  EXPECT_FALSE(verify_pa_graph(g, pa_params{201, 3, 0.5, 4}).ok);
}

TEST(PaGenerator, TotalDegreesSumToTwiceTheEdges) {
  const auto g = run_cpu({1000, 3, 0.5, 9}, 2);
  const auto degrees = pa_total_degrees(g);
  EXPECT_EQ(std::accumulate(degrees.begin(), degrees.end(), std::uint64_t{0}), 2 * g.num_edges());
  EXPECT_EQ(g.num_edges(), std::uint64_t{997} * 3);
}

}  // namespace
}  // namespace wildfire
