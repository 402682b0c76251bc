// The CUDA copy-model generator reproduces the CPU generator exactly, for every launch shape and
// schedule (cuPPA section 3 with counter-hash randomness). Skipped without a GPU.
#include <gtest/gtest.h>

#include "cuda/pa_generator.hpp"
#include "pa_test_support.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"

namespace wildfire {
namespace {

/// Index of the first differing slot, or -1.
long long first_difference(const pa_graph& a, const pa_graph& b) {
  if (a.targets.size() != b.targets.size()) return 0;
  for (std::size_t i = 0; i < a.targets.size(); ++i) {
    if (a.targets[i] != b.targets[i]) return static_cast<long long>(i);
  }
  return -1;
}

TEST(PaGeneratorGpu, EqualsCpuForEveryLaunchShape) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  // Prepare: small and medium graphs across p (0 is the all-copy worst case) and d.
  for (const pa_params& params : {pa_params{5, 4, 0.5, 1}, pa_params{3000, 1, 0.5, 2}, pa_params{50000, 4, 0.5, 3},
                                  pa_params{50000, 4, 0.0, 4}, pa_params{20000, 16, 0.1, 5},
                                  pa_params{50000, 2, 1.0, 6}, pa_params{30000, 32, 0.9, 7}}) {
    const pa_graph expected = test::canonical_pa(params);
    // Run: launch shapes from one 32-thread block (every vertex round-robin through 32 threads)
    // to full grids, rounds from 100 vertices up, one or several passes per read-back.
    struct shape {
      std::uint32_t threads, blocks, segment, passes;
    };
    for (const shape s : {shape{256, 0, 1U << 24, 4}, shape{32, 1, 1U << 24, 1}, shape{1024, 7, 100, 2},
                          shape{64, 0, 4096, 8}}) {
      cuda::pa_gpu_options options;
      options.threads_per_block = s.threads;
      options.max_blocks = s.blocks;
      options.max_segment_vertices = s.segment;
      options.passes_per_check = s.passes;
      cuda::pa_gpu_report report;
      const pa_graph got = cuda::generate_pa_gpu(params, options, &report);
      // Verify: bit-identical slots; name the first differing vertex and slot.
      const long long diff = first_difference(got, expected);
      ASSERT_EQ(diff, -1) << "n=" << params.num_vertices << " d=" << params.out_degree
                          << " p=" << params.copy_probability << " threads=" << s.threads << " blocks=" << s.blocks
                          << " segment=" << s.segment << ": vertex " << diff / params.out_degree + params.out_degree
                          << " slot " << diff % params.out_degree;
      EXPECT_TRUE(test::verify_pa_graph(got, params.num_vertices, params.out_degree).ok);
      if (params.copy_probability == 1.0) EXPECT_EQ(report.stats.max_pending, 0U);
    }
  }
}

TEST(PaGeneratorGpu, LargeGraphEqualsParallelCpu) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  for (const pa_params& params : {pa_params{4000000, 4, 0.5, 11}, pa_params{2000000, 8, 0.0, 12},
                                  pa_params{3000000, 1, 0.01, 13}}) {
    const pa_graph cpu = generate_pa_cpu(params);
    cuda::pa_gpu_report report;
    const pa_graph gpu = cuda::generate_pa_gpu(params, {}, &report);
    const long long diff = first_difference(gpu, cpu);
    EXPECT_EQ(diff, -1) << "n=" << params.num_vertices << " d=" << params.out_degree << " p="
                        << params.copy_probability << ": first difference at slot " << diff;
    EXPECT_GT(report.stats.segments, 1U);
    EXPECT_GT(report.generate_seconds, 0.0);
  }
}

TEST(PaGeneratorGpu, DispatchAndTooLargeGraphs) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU";
  const pa_params params{10000, 3, 0.5, 21};
  EXPECT_EQ(generate_pa(params, device_kind::gpu).targets, generate_pa_cpu(params).targets);
  // 4e9 x 1000 slots need 16 TB: refused before any allocation, naming the bytes.
  EXPECT_THROW(cuda::generate_pa_gpu(pa_params{4000000000U, 1000, 0.5, 1}), resource_error);
  cuda::pa_gpu_options bad;
  bad.threads_per_block = 100;
  EXPECT_THROW(cuda::generate_pa_gpu(params, bad), config_error);
}

}  // namespace
}  // namespace wildfire
