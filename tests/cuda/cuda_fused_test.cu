// The fused traversal's batching and device-side level loop against the serial reference: one
// group per batch (WF_FUSED_GROUPS=1: many batches per request, into the flat store and into the
// bitmap), deep traversals (the ring graph: more levels than one poll of the level counts covers),
// the IC block rule, the per-edge rule and LT, and the IC edge masks (forced, and their automatic
// choice). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/cuda_rr_collection.hpp"
#include "cuda/fused_sampler.hpp"
#include "cuda/cuda_test_config.hpp"
#include "cuda/cuda_test_graphs.hpp"
#include "reference/rr_reference.hpp"
#include "support/environment_override.hpp"
#include "support/rr_set_checks.hpp"
#include "wildfire/backend.hpp"

namespace wildfire {
namespace {

using test::environment_override;

/// Samples ids 5 .. 5 + count - 1 in two requests (the second starts inside a group) with the
/// fused traversal into `representation` and compares every set with the reference; the
/// collection's profile goes to `profile_out` when given.
void expect_fused_equals_reference(const csr_graph& g, diffusion_model model, std::uint32_t colours,
                                   cuda::rr_representation representation, std::uint64_t count,
                                   const std::string& where, cuda::cuda_collection_profile* profile_out = nullptr,
                                   bool expect_examined = false) {
  sampling_params params;
  params.model = model;
  params.seed = 4242;
  auto gpu = cuda::make_cuda_rr_collection(test::gpu_config(traversal_kind::fused, colours), g, params, representation);
  gpu->generate(5, count / 3);
  gpu->generate(5 + count / 3, count - count / 3);
  const rr_sets want = reference::sample_rr_sets(g, params, 5, count);
  ASSERT_EQ(gpu->size(), count) << where;
  EXPECT_EQ(gpu->num_members(), want.num_members()) << where;
  test::expect_same_sets(want, gpu->copy_sets(0, count), where);
  if (expect_examined) {
    // Each member's colour examines every in-edge of its vertex once, whether its level pushed or
    // pulled.
    std::uint64_t member_in_edges = 0;
    for (const std::uint32_t v : want.members) member_in_edges += g.in_degree(v);
    EXPECT_EQ(gpu->stats().edges_examined, member_in_edges) << where;
  }
  const cuda::cuda_collection_profile profile = cuda::profile_of(*gpu);
  EXPECT_EQ(profile.fused_sets, count) << where;
  EXPECT_GT(profile.fused_levels, 0U) << where;
  if (profile_out != nullptr) *profile_out = profile;
}

TEST(CudaFused, OneGroupPerBatchEqualsReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override one("WF_FUSED_GROUPS", "1");
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");  // block rule, heavy hubs
  const csr_graph ring = test::hub_graph(2000, true);                   // whole-graph sets, deep levels
  const csr_graph sparse = test::hub_graph(3000, false);                // per-edge rule; valid under LT
  for (const auto representation : {cuda::rr_representation::flat, cuda::rr_representation::bitmap}) {
    const std::string kind = representation == cuda::rr_representation::flat ? "flat" : "bitmap";
    for (const std::uint32_t colours : {32U, 64U}) {
      const std::string at = kind + ", " + std::to_string(colours) + " colours";
      expect_fused_equals_reference(dense, diffusion_model::ic, colours, representation, 300, "uniform:0.3, " + at);
      expect_fused_equals_reference(ring, diffusion_model::ic, colours, representation, 150, "ring, " + at);
      expect_fused_equals_reference(sparse, diffusion_model::ic, colours, representation, 300, "hub graph, " + at);
      expect_fused_equals_reference(sparse, diffusion_model::lt, colours, representation, 300, "hub graph LT, " + at);
    }
  }
}

// More groups than the default cap: batches of 128 x 64 samples into the bitmap.
TEST(CudaFused, ManyGroupsPerBatchEqualsReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override many("WF_FUSED_GROUPS", "128");
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");
  expect_fused_equals_reference(dense, diffusion_model::ic, 64, cuda::rr_representation::bitmap, 9000,
                                "uniform:0.3, bitmap, 128 groups");
}

// Per-warp queue buffers flushed only when full and live stages of 24 pairs (WF_FUSED_QUEUE=late):
// most discoveries of a dense level then take the direct fallback beside the buffered ones, and
// under uniform:0.3 (about 29 live pairs per round of 32 items) stages resolve before a round's
// pairs go in, and rounds of more pairs than a stage holds resolve lane by lane.
TEST(CudaFused, LateBufferFlushEqualsReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");
  const csr_graph ring = test::hub_graph(2000, true);
  const environment_override queue("WF_FUSED_QUEUE", "late");
  const std::string at = "late queue";
  expect_fused_equals_reference(dense, diffusion_model::ic, 64, cuda::rr_representation::bitmap, 600,
                                "uniform:0.3, bitmap, " + at);
  expect_fused_equals_reference(dense, diffusion_model::ic, 32, cuda::rr_representation::flat, 300,
                                "uniform:0.3, flat, " + at);
  expect_fused_equals_reference(ring, diffusion_model::ic, 64, cuda::rr_representation::flat, 150, "ring, " + at);
}

/// The edge-mask tests' graphs: rounds of whole blocks (uniform:0.3, blocks of 3 and tails of 1;
/// uniform:0.05, hubs in rounds of one block of 20 and a tail of 10), blocks past 32 edges set by
/// atomics (wc hubs), the per-edge rule (random probabilities, the always-live ring), heavy hubs.
/// Each has an identifier, for test names, and a label, for messages.
struct edge_mask_graph {
  std::string id;
  std::string label;
  csr_graph (*make)();
};
const std::vector<edge_mask_graph> edge_mask_graphs = {
    {"dense", "uniform:0.3", [] { return test::model_hub_graph(3100, "uniform:0.3"); }},
    {"blocks_of_20", "uniform:0.05", [] { return test::model_hub_graph(3100, "uniform:0.05"); }},
    {"cascade", "wc", [] { return test::model_hub_graph(3100, "wc"); }},
    {"ring", "ring", [] { return test::hub_graph(2000, true); }},
    {"sparse", "hub graph", [] { return test::hub_graph(3000, false); }}};
/// The position in edge_mask_graphs of the graph whose identifier is `id` (one there is).
std::size_t edge_mask_graph_index(const std::string& id) {
  return static_cast<std::size_t>(std::find_if(edge_mask_graphs.begin(), edge_mask_graphs.end(),
                                               [&](const edge_mask_graph& e) { return e.id == id; }) -
                                  edge_mask_graphs.begin());
}

/// Under the edge masks a slot takes the colours that reached it earlier in its level (take_early in
/// fused_mask_kernels.cuh), and the sets above show that it changes none. On the dense graph it
/// happens at nearly every level: the heavy kernel runs after the light one, the four hubs are
/// queued at most levels, and the light vertices' live in-edges from them carry colours the hubs
/// have not yet settled.
void expect_colours_taken_early(const cuda::cuda_collection_profile& profile, const std::string& where) {
  EXPECT_GT(profile.fused_early_slots, 0U) << where;
}

// Edge masks forced (WF_FUSED_MASKS=on): every batch draws its masks and traverses by bit
// operations, on the graphs above, with 32- and 64-bit words, one group per batch and many.
TEST(CudaFused, EdgeMasksEqualReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override masks("WF_FUSED_MASKS", "on");
  const environment_override push("WF_FUSED_PULL", "off");  // every level pushes (and takes colours early)
  std::vector<csr_graph> graphs;
  for (const edge_mask_graph& named : edge_mask_graphs) graphs.push_back(named.make());
  const csr_graph& blocks_of_20 = graphs[edge_mask_graph_index("blocks_of_20")];
  const csr_graph& cascade = graphs[edge_mask_graph_index("cascade")];
  ASSERT_GT(ic_block_size(1550, blocks_of_20.in_thresholds[blocks_of_20.in_offsets[0]]), 16U);
  ASSERT_GT(ic_block_size(1550, cascade.in_thresholds[cascade.in_offsets[0]]), 32U);
  for (const char* groups : {"1", "64"}) {
    const environment_override in_flight("WF_FUSED_GROUPS", groups);
    for (const auto representation : {cuda::rr_representation::flat, cuda::rr_representation::bitmap}) {
      for (const std::uint32_t colours : {32U, 64U}) {
        const std::string at = std::string(representation == cuda::rr_representation::flat ? "flat" : "bitmap") +
                               ", " + std::to_string(colours) + " colours, groups " + groups;
        for (std::size_t i = 0; i < graphs.size(); ++i) {
          const std::string& name = edge_mask_graphs[i].label;
          cuda::cuda_collection_profile profile;
          expect_fused_equals_reference(graphs[i], diffusion_model::ic, colours, representation, 300, name + (", " + at),
                                        &profile);
          EXPECT_EQ(profile.fused_mask_batches, profile.fused_batches) << name << ", " << at;
          EXPECT_GT(profile.fused_batches, 0U) << name << ", " << at;
          if (edge_mask_graphs[i].id == "dense") expect_colours_taken_early(profile, name + (", " + at));
        }
      }
    }
  }
}

// Edge masks with chunked levels: batches of 32 and 64 groups of 32 colours, or 32 and 64 groups of
// 64, queue a vertex's 32 (group, word) slots side by side and expand them a warp (light) or a
// block (heavy hubs) per chunk; the roots' level is queued unpadded. Levels push (WF_FUSED_PULL=off),
// all pull (on: a warp per segment of out-edges ORs the frontier words through the masks,
// fused_chunk_pull), or pull where they queue half of the slots (auto); either way the edges
// examined are the members' in-edges. A pushing level's settle pass reads every region of next
// words (WF_FUSED_TOUCH=off), only those its reductions touched (on), or the latter where the
// level queues few slots (auto). The same graphs as above, a test each, so that compute-sanitizer
// can take one (scripts/device/sanitize.sh).
struct chunked_case {
  std::string graph;  // edge_mask_graph::id
  std::uint32_t colours;
  std::uint32_t chunks;
  std::string pull;   // WF_FUSED_PULL: off, on or auto (unset)
  std::string touch;  // WF_FUSED_TOUCH: off, on or auto (unset)
};
void PrintTo(const chunked_case& c, std::ostream* out) {
  *out << c.graph << ", " << c.colours << " colours, " << c.chunks << " chunks, pull " << c.pull << ", touch "
       << c.touch;
}
class CudaFusedChunked : public ::testing::TestWithParam<chunked_case> {};

TEST_P(CudaFusedChunked, LevelsEqualReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override masks("WF_FUSED_MASKS", "on");
  const environment_override in_flight("WF_FUSED_GROUPS", "64");
  const auto [graph, colours, chunks, pull, touch] = GetParam();
  std::optional<environment_override> pulling;  // auto: unset
  if (pull != "auto") pulling.emplace("WF_FUSED_PULL", pull.c_str());
  std::optional<environment_override> touching;
  if (touch != "auto") touching.emplace("WF_FUSED_TOUCH", touch.c_str());
  const edge_mask_graph& named = edge_mask_graphs.at(edge_mask_graph_index(graph));
  const csr_graph g = named.make();
  // expect_fused_equals_reference asks for a third, then the rest: 32 groups, then 64; or 31 and 62
  // groups, which traverse one and two empty groups up to whole chunks.
  const std::uint64_t count = 3ULL * chunks * colours;
  const std::string at = named.label + ", " + std::to_string(colours) + " colours, " + std::to_string(count) + " sets";
  cuda::cuda_collection_profile profile;
  expect_fused_equals_reference(g, diffusion_model::ic, colours, cuda::rr_representation::flat, count, at,
                                &profile, true);
  EXPECT_EQ(profile.fused_chunked_batches, profile.fused_batches) << at;
  EXPECT_EQ(profile.fused_batches, 2U) << at;
  if (pull == "off") {
    EXPECT_EQ(profile.fused_pulled_levels, 0U) << at;
    if (graph == "dense") expect_colours_taken_early(profile, at);
  }
  if (pull == "on") EXPECT_EQ(profile.fused_pulled_levels, profile.fused_levels) << at;
  // Every level with work pushes when none pulls: with touch on, each settles by its touched regions.
  if (touch == "on" && pull == "off") EXPECT_EQ(profile.fused_touched_levels, profile.fused_levels) << at;
  if (touch == "off") EXPECT_EQ(profile.fused_touched_levels, 0U) << at;
  if (pull != "off" && graph == "dense") {
    // Both kinds of pulled sources occur: hubs of more out-edges than a segment, whose segments'
    // colours meet in their next words and which the heavy kernel settles, and sources a segment
    // owns and its warp settles (fused_chunk_pull).
    std::uint32_t hubs = 0;
    for (std::uint32_t v = 0; v < g.num_vertices; ++v) hubs += g.out_degree(v) > cuda::fused_pull_segment ? 1 : 0;
    EXPECT_GT(hubs, 0U) << at;
    EXPECT_LT(hubs, g.num_vertices) << at;
  }
}

std::vector<chunked_case> chunked_cases() {
  std::vector<chunked_case> cases;
  for (const auto& [colours, chunks] : {std::pair{32U, 32U}, std::pair{64U, 32U}, std::pair{32U, 31U}})
    for (const edge_mask_graph& named : edge_mask_graphs) cases.push_back({named.id, colours, chunks, "off", "auto"});
  for (const char* touch : {"on", "off"})
    for (const edge_mask_graph& named : edge_mask_graphs) cases.push_back({named.id, 32, 32, "off", touch});
  for (const char* pull : {"on", "auto"})
    for (const edge_mask_graph& named : edge_mask_graphs) cases.push_back({named.id, 32, 32, pull, "auto"});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Graphs, CudaFusedChunked, ::testing::ValuesIn(chunked_cases()),
                         [](const ::testing::TestParamInfo<chunked_case>& info) {
                           return info.param.graph + "_" + std::to_string(info.param.colours) + "_colours_" +
                                  std::to_string(info.param.chunks) + "_chunks_pull_" + info.param.pull + "_touch_" +
                                  info.param.touch;
                         });

// Masks drawn ahead (fused_sampler::draw_ahead): a batch's masks start drawing on a second stream
// while the batch before it traverses, into the other of two buffers, and a full grid draws what
// is left; into the flat store every batch but the first is drawn so (masks forced),
// chunked or not, and into the bitmap some are. WF_FUSED_OVERLAP=0 draws none ahead.
TEST(CudaFused, EdgeMasksDrawnAheadEqualReference) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override masks("WF_FUSED_MASKS", "on");
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");
  const csr_graph cascade = test::model_hub_graph(3100, "wc");
  // 32 groups a batch: chunked batches of 1,024 sets, 6 of them; one group a batch: batches of 32
  // sets, the last shorter, 10 of them (the collection samples both requests at once).
  for (const auto& [groups, count] : {std::pair{"32", 6144U}, std::pair{"1", 300U}}) {
    const environment_override in_flight("WF_FUSED_GROUPS", groups);
    for (const auto representation : {cuda::rr_representation::flat, cuda::rr_representation::bitmap}) {
      for (const auto& [g, name] : {std::pair{&dense, "uniform:0.3"}, std::pair{&cascade, "wc"}}) {
        const std::string at = std::string(name) + ", groups " + groups + ", " +
                               (representation == cuda::rr_representation::flat ? "flat" : "bitmap");
        cuda::cuda_collection_profile profile;
        expect_fused_equals_reference(*g, diffusion_model::ic, 32, representation, count, at, &profile);
        if (groups == std::string("32")) EXPECT_EQ(profile.fused_chunked_batches, profile.fused_batches) << at;
        if (representation == cuda::rr_representation::bitmap) {
          EXPECT_GT(profile.fused_drawn_ahead_batches, 0U) << at;
          continue;
        }
        EXPECT_EQ(profile.fused_batches, groups == std::string("32") ? 6U : 10U) << at;
        EXPECT_EQ(profile.fused_drawn_ahead_batches, profile.fused_batches - 1) << at;
      }
    }
  }
  const environment_override in_flight("WF_FUSED_GROUPS", "32");
  const environment_override none("WF_FUSED_OVERLAP", "0");
  cuda::cuda_collection_profile profile;
  expect_fused_equals_reference(dense, diffusion_model::ic, 32, cuda::rr_representation::flat, 6144,
                                "uniform:0.3, WF_FUSED_OVERLAP=0", &profile);
  EXPECT_EQ(profile.fused_batches, 6U);
  EXPECT_EQ(profile.fused_drawn_ahead_batches, 0U);
}

// The automatic choice: a forced fused traversal starts with a one-group pilot batch with masks,
// then draws masks only while the mean set reaches fused_mask_min_share of the vertices. The
// premises (each graph's mean set against the threshold) are asserted on the reference sets.
TEST(CudaFused, EdgeMasksFollowTheMeanSetSize) {
  if (!gpu_available()) GTEST_SKIP() << "no CUDA GPU";
  const environment_override groups("WF_FUSED_GROUPS", "2");  // several batches per request
  const csr_graph dense = test::model_hub_graph(3100, "uniform:0.3");
  const csr_graph cascade = test::model_hub_graph(3100, "wc");
  for (const auto& [g, name, dense_sets] : {std::tuple{&dense, "uniform:0.3", true},
                                            std::tuple{&cascade, "wc", false}}) {
    sampling_params params;
    params.seed = 4242;
    const rr_sets want = reference::sample_rr_sets(*g, params, 5, 640);
    const double share = static_cast<double>(want.num_members()) / 640.0 / g->num_vertices;
    ASSERT_EQ(share >= cuda::fused_mask_min_share, dense_sets) << name << ": mean set share " << share;
    cuda::cuda_collection_profile profile;
    expect_fused_equals_reference(*g, diffusion_model::ic, 32, cuda::rr_representation::flat, 640, name, &profile);
    // 640 sets in requests of 213 and 427: a pilot group, then batches of two groups.
    EXPECT_GT(profile.fused_batches, 3U) << name;
    EXPECT_EQ(profile.fused_mask_batches, dense_sets ? profile.fused_batches : 1U) << name;
  }
  // LT never draws masks.
  const environment_override masks("WF_FUSED_MASKS", "on");
  cuda::cuda_collection_profile lt;
  expect_fused_equals_reference(test::hub_graph(3000, false), diffusion_model::lt, 32, cuda::rr_representation::flat,
                                100, "hub graph LT", &lt);
  EXPECT_EQ(lt.fused_mask_batches, 0U);
}

}  // namespace
}  // namespace wildfire
