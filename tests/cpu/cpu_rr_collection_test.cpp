// The CPU collection's flat store (cpu/flat_set_store.hpp): many small generate calls (each one
// growing the store, several reallocating it) and a clear() followed by fresh sets, as IMM's
// final phase does, give exactly the reference sets.
#include <gtest/gtest.h>

#include "reference/rr_reference.hpp"
#include "support/rr_set_checks.hpp"
#include "support/tiny_graphs.hpp"
#include "wildfire/sampling/rr_collection.hpp"

namespace wildfire {
namespace {

TEST(CpuRrCollection, GrowingAndClearedStoresHoldTheReferenceSets) {
  const auto g = test::random_graph(400, 3000, 31, 0.2);
  sampling_params params;
  params.seed = 99;
  for (const int threads : {1, 2}) {
    backend_config config;
    config.device = device_kind::cpu;
    config.num_threads = threads;
    auto collection = make_rr_collection(config, g, params);
    // Prepare: 40 calls of 1 to 79 sets (the store doubles several times from one set).
    std::uint64_t next = 0;
    for (std::uint64_t call = 0; call < 40; ++call) {
      const std::uint64_t count = 1 + (call * 37) % 79;
      collection->generate(next, count);
      next += count;
    }
    // Verify, then clear and refill from other ids with fewer sets than the capacity held.
    test::expect_same_sets(reference::sample_rr_sets(g, params, 0, next), collection->copy_sets(0, next), "grown");
    collection->clear();
    EXPECT_EQ(collection->size(), 0u);
    EXPECT_EQ(collection->num_members(), 0u);
    collection->generate(5000, 700);
    collection->generate(5700, 3);
    test::expect_same_sets(reference::sample_rr_sets(g, params, 5000, 703), collection->copy_sets(0, 703), "refilled");
    EXPECT_EQ(collection->stats().sets_generated, next + 703);
  }
}

}  // namespace
}  // namespace wildfire
