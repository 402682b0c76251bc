// The CPU RR samplers (unfused and fused) against the serial reference, bit for bit, for every
// model, root count, round count, colour count and thread count; and against exact inclusion
// probabilities on tiny graphs (mixed in-probabilities and uniform ones, so both IC rules).
#include <gtest/gtest.h>

#include <string>

#include "reference/exact_spread.hpp"
#include "reference/rr_reference.hpp"
#include "support/statistics.hpp"
#include "support/rr_set_checks.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {
namespace {

rr_sets sample_cpu(const csr_graph& g, const sampling_params& params, traversal_kind traversal,
                   std::uint32_t colours, int threads, std::uint64_t first, std::uint64_t count) {
  backend_config config;
  config.device = device_kind::cpu;
  config.traversal = traversal;
  config.colours = colours;
  config.num_threads = threads;
  auto collection = make_rr_collection(config, g, params);
  collection->generate(first, count);
  EXPECT_EQ(collection->size(), count);
  return collection->copy_sets(0, count);
}

struct sampler_case {
  diffusion_model model;
  double mean_roots;
  std::uint32_t rounds;
  double uniform_p;  // 0: weighted cascade
};

std::string case_name(const sampler_case& c) {
  return std::string(to_string(c.model)) + "_roots" + std::to_string(static_cast<int>(c.mean_roots * 10)) + "_rounds" +
         std::to_string(c.rounds) + (c.uniform_p > 0 ? "_uniform" : "_wc");
}

class CpuSamplers : public ::testing::TestWithParam<sampler_case> {};

TEST_P(CpuSamplers, UnfusedAndFusedEqualReferenceForEveryThreadAndColourCount) {
  // Prepare: a skewed random graph (wide frontiers), ids from a non-zero offset, 1000 sets
  // (spans several 64-id blocks and an incomplete last block).
  const auto& c = GetParam();
  const auto g = test::random_graph(700, 5000, 42, c.uniform_p);
  sampling_params params;
  params.model = c.model;
  params.seed = 2024;
  params.mean_roots = c.mean_roots;
  params.rounds = c.rounds;
  constexpr std::uint64_t first = 1000003, count = 1000;
  const rr_sets expected = reference::sample_rr_sets(g, params, first, count);
  test::expect_same_sets(expected, sample_cpu(g, params, traversal_kind::unfused, 64, 1, first, count), "unfused 1 thread");
  test::expect_same_sets(expected, sample_cpu(g, params, traversal_kind::unfused, 64, 2, first, count), "unfused 2 threads");
  for (const std::uint32_t colours : {32u, 64u, 96u, 1024u}) {
    for (const int threads : {1, 2}) {
      test::expect_same_sets(expected, sample_cpu(g, params, traversal_kind::fused, colours, threads, first, count),
                       "fused C=" + std::to_string(colours) + " threads=" + std::to_string(threads));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CpuSamplers,
                         ::testing::Values(sampler_case{diffusion_model::ic, 1.0, 1, 0.0},
                                           sampler_case{diffusion_model::ic, 1.0, 1, 0.15},
                                           sampler_case{diffusion_model::lt, 1.0, 1, 0.0},
                                           sampler_case{diffusion_model::ic, 3.5, 1, 0.05},
                                           sampler_case{diffusion_model::lt, 4.2, 1, 0.0},
                                           sampler_case{diffusion_model::ic, 1.0, 3, 0.1},
                                           sampler_case{diffusion_model::lt, 2.0, 2, 0.0},
                                           sampler_case{diffusion_model::ic, 2.5, 1, 0.0},
                                           sampler_case{diffusion_model::ic, 1.0, 2, 0.3}),
                         [](const auto& param_info) { return case_name(param_info.param); });

TEST(CpuSamplers, GenerateAppendsInIdOrder) {
  // Two generate calls give the same store as one call over the union of ids.
  const auto g = test::random_graph(300, 2000, 7, 0.1);
  sampling_params params;
  params.seed = 3;
  backend_config config;
  config.device = device_kind::cpu;
  config.traversal = traversal_kind::fused;
  config.num_threads = 2;
  auto collection = make_rr_collection(config, g, params);
  collection->generate(0, 100);
  collection->generate(100, 157);
  test::expect_same_sets(reference::sample_rr_sets(g, params, 0, 257), collection->copy_sets(0, 257), "appended");
  const auto tail = collection->copy_sets(200, 57);
  test::expect_same_sets(reference::sample_rr_sets(g, params, 200, 57), tail, "copy_sets slice");
  EXPECT_EQ(collection->stats().sets_generated, 257u);
  collection->clear();
  EXPECT_EQ(collection->size(), 0u);
}

TEST(CpuSamplers, RejectsBadColourCounts) {
  const auto g = test::tiny_ic_graph();
  backend_config config;
  config.device = device_kind::cpu;
  for (const std::uint32_t colours : {0u, 16u, 48u, 2048u}) {
    config.colours = colours;
    EXPECT_THROW(make_rr_collection(config, g, sampling_params{}), config_error) << colours;
  }
}

class TinyGraphSampling : public ::testing::TestWithParam<std::tuple<test::tiny_case, traversal_kind, double>> {};

TEST_P(TinyGraphSampling, FrequenciesMatchExactInclusion) {
  // Verify: each vertex's frequency in the CPU sets is within 5 binomial standard errors of the
  // exact probability from enumerating every live-edge world (single root: per root).
  const auto [tiny, traversal, mean_roots] = GetParam();
  const diffusion_model model = tiny.model;
  const auto g = tiny.graph();
  sampling_params params;
  params.model = model;
  params.seed = 31337;
  params.mean_roots = mean_roots;
  constexpr std::uint64_t samples = 60000;
  const rr_sets sets = sample_cpu(g, params, traversal, 64, 2, 0, samples);
  const std::uint32_t n = g.num_vertices;
  if (mean_roots == 1.0) {
    std::vector<std::vector<std::uint64_t>> hits(n, std::vector<std::uint64_t>(n, 0));
    std::vector<std::uint64_t> per_root(n, 0);
    for (std::uint64_t s = 0; s < samples; ++s) {
      const std::uint32_t root = reference::rr_roots(g, params, s)[0];
      ++per_root[root];
      for (const std::uint32_t u : sets[s]) ++hits[root][u];
    }
    for (std::uint32_t r = 0; r < n; ++r) {
      const auto exact = reference::exact_rr_inclusion(g, model, r);
      for (std::uint32_t u = 0; u < n; ++u)
        EXPECT_NEAR(static_cast<double>(hits[r][u]) / per_root[r], exact[u], test::binomial_tolerance(exact[u], per_root[r]))
            << "root " << r << " vertex " << u;
    }
  } else {
    std::vector<std::uint64_t> hits(n, 0);
    for (std::uint64_t s = 0; s < samples; ++s)
      for (const std::uint32_t u : sets[s]) ++hits[u];
    const auto exact = reference::exact_multi_root_inclusion(g, model, mean_roots);
    for (std::uint32_t u = 0; u < n; ++u)
      EXPECT_NEAR(static_cast<double>(hits[u]) / samples, exact[u], test::binomial_tolerance(exact[u], samples)) << u;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TinyGraphSampling,
                         ::testing::Combine(::testing::ValuesIn(test::tiny_cases()),
                                            ::testing::Values(traversal_kind::unfused, traversal_kind::fused),
                                            ::testing::Values(1.0, 2.5)),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param).name) + "_" +
                                  to_string(std::get<1>(param_info.param)) + "_roots" +
                                  std::to_string(static_cast<int>(std::get<2>(param_info.param) * 10));
                         });

}  // namespace
}  // namespace wildfire
