// GPU RR sampling throughput: warp-per-sample against fused (8/32/64/... colours) and against the
// CPU backend on the same sample ids, with the device's copy bandwidth measured once so that
// sampling's share of it can be reported (from a lower bound on the bytes read, which under the IC
// block rule is far below 8 bytes per examined edge). Prints its configuration and a markdown table.
// Usage: gpu_sampling_bench GRAPH [--weights W] [--model IC|LT] [--sets N] [--colours 8,32,64]
//        [--traversals warp,fused,auto] [--cpu-threads T] [--cpu-sets N] [--check N]
//        [--representation flat|bitmap|auto] [--imm EPS,...] [--imm-runs R] [--imm-final reused,fresh] [--groups 1,8,64]
//        [--masks off,on,auto]
// The CPU samples the first --cpu-sets ids (default all; the dense regime's sets make all too
// slow there), and the first --check of them are compared with every GPU row. GPU rows sample
// into the --representation (default flat: the traversals compared with the same extraction),
// with profiling on, so "traversal s" holds the sampler kernels alone (sets into the store, or
// the bitmap's scatter, are the rest). A colour count the fused path refuses prints a row saying so.
// --groups repeats every fused row with WF_FUSED_GROUPS set to each value (groups of colours in
// flight per batch: parallelism against the colour masks' cache footprint); "levels" is the fused
// traversal's levels with work, over all its batches. --masks repeats every fused row with
// WF_FUSED_MASKS set to each value (the IC edge masks: off, on, auto), and a fused row says how
// many of its batches drew them.
// With --imm it instead runs IMM (k = 50, reused and fresh final sets) on the GPU collection R
// times unprofiled and once profiled, and prints where the time went (cuda_collection_profile):
// generate/select calls, sampler batches, index segments, traversal/store/index/greedy seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef WF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/cuda_rr_collection.hpp"
#endif

#include "wildfire/algorithms/imm.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/error.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/sampling/ic_block_plan.hpp"
#include "wildfire/sampling/rr_collection.hpp"
#include "wildfire/version.hpp"
#include "bench_args.hpp"

namespace {

using wildfire::bench::split;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Device-to-device copy bandwidth in bytes per second (read + write counted), or 0 without a GPU.
double copy_bandwidth() {
#ifdef WF_HAVE_CUDA
  if (!wildfire::gpu_available()) return 0;
  const std::size_t bytes = 1ULL << 30;
  void* a = nullptr;
  void* b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 0;
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  cudaDeviceSynchronize();
  const double seconds = seconds_since(start);
  cudaFree(a);
  cudaFree(b);
  return 2.0 * 10 * static_cast<double>(bytes) / seconds;
#else
  return 0;
#endif
}

#ifdef WF_HAVE_CUDA
/// Bytes sampling must have read, a lower bound on its traffic. LT: source id and threshold of
/// every examined in-edge (8 bytes). IC: per expanded vertex (every member) its two in-offsets
/// (16 bytes), then its in-edges' thresholds (4 bytes each) under the per-edge rule or its class
/// and first threshold (8 bytes) under the block rule (random/ic_block_rule.hpp), plus the source
/// id of the live edge that added it (4 bytes). Edges examined overstate the block rule's reads:
/// it counts whole in-degrees but reads only the live edges.
/// IC: measured on `sample` (the first sets) and scaled to all `members`.
double bytes_read_lower_bound(const wildfire::csr_graph& g, const wildfire::ic_block_plan& plan,
                              wildfire::diffusion_model model, const wildfire::rr_sets& sample,
                              std::uint64_t members, const wildfire::collection_stats& s) {
  if (model != wildfire::diffusion_model::ic) return 8.0 * static_cast<double>(s.edges_examined);
  if (sample.members.empty()) return 0;
  double bytes = 0;
  for (const std::uint32_t v : sample.members) {
    const std::uint64_t degree = g.in_offsets[v + 1] - g.in_offsets[v];
    bytes += 20.0 + (plan.vertex_class[v] == wildfire::per_edge_class ? 4.0 * static_cast<double>(degree) : 8.0);
  }
  return bytes * static_cast<double>(members) / static_cast<double>(sample.members.size());
}

/// IMM on the GPU collection: per eps and final-set mode, `runs` unprofiled runs (each on a new
/// collection: upload excluded, as in gIM's timer) and one profiled run, as a markdown table. The
/// process's first run allocates from a cold memory pool; later runs find the memory the earlier
/// ones freed (device_memory.hpp), so, as in gIM's timer, allocation stays outside their region.
void imm_profile(const wildfire::csr_graph& g, const wildfire::sampling_params& params,
                 const std::vector<std::string>& eps_list, int runs, const std::vector<std::string>& finals) {
  using namespace wildfire;
  std::printf("IMM k = 50 on the GPU (%s). Samp+Sel = sampling + selection seconds of the collection (graph on the "
              "device). `profiled`: every part ends with a stream synchronisation, so the parts hold their own "
              "kernels (the run is slightly slower). traversal = sampler kernels, store = staged sets into the "
              "store, index = vertex-to-sets index segments, greedy = the rest of select; candidate selects "
              "(fallbacks): greedy runs over candidates only, and those run again with more candidates. The process's "
              "first run allocates from a cold memory pool; the later runs reuse what earlier runs freed.\n\n",
              std::string(to_string(params.model)).c_str());
  std::printf("| eps | final sets | run | theta | Samp+Sel ms | sampling ms | selection ms | generate calls | flushes | "
              "sampler batches | small sets | deferred | selects | index segments | rebuilds | members indexed | traversal ms | "
              "store ms | index ms | greedy ms | first seeds | warp vertices per round | warp relaunches | candidate selects "
              "(fallbacks) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& eps_text : eps_list) {
    for (const std::string& final_sets : finals) {
      const bool reuse = final_sets == "reused";
      for (int run = 0; run <= runs; ++run) {
        const bool profiled = run == runs;
        backend_config config;
        config.device = device_kind::gpu;
        auto gpu = cuda::make_cuda_rr_collection(config, g, params);
        cuda::set_profiling(*gpu, profiled);
        imm_options options;
        options.k = 50;
        options.epsilon = std::stod(eps_text);
        options.reuse_rrsets = reuse;
        const imm_result r = run_imm(*gpu, g.num_vertices, options);
        const collection_stats s = gpu->stats();
        const cuda::cuda_collection_profile p = cuda::profile_of(*gpu);
        std::string seeds;
        for (std::size_t i = 0; i < std::min<std::size_t>(5, r.selection.seeds.size()); ++i) {
          if (i > 0) seeds.push_back(' ');
          seeds.append(std::to_string(r.selection.seeds[i]));
        }
        std::printf("| %s | %s | %s | %llu | %.2f | %.2f | %.2f | %llu | %llu | %llu | %llu | %llu | %llu | %llu | "
                    "%llu | %llu | %.2f | %.2f | %.2f | %.2f | %s | %.1f | %llu | %llu (%llu) |\n",
                    eps_text.c_str(), reuse ? "reused" : "fresh",
                    profiled ? "profiled" : std::to_string(run + 1).c_str(), static_cast<unsigned long long>(r.theta),
                    1e3 * (s.sampling_seconds + s.selection_seconds), 1e3 * s.sampling_seconds,
                    1e3 * s.selection_seconds, static_cast<unsigned long long>(p.generate_calls),
                    static_cast<unsigned long long>(p.sample_flushes), static_cast<unsigned long long>(p.sample_batches),
                    static_cast<unsigned long long>(p.small_sets), static_cast<unsigned long long>(p.small_deferred),
                    static_cast<unsigned long long>(p.select_calls), static_cast<unsigned long long>(p.index_segments),
                    static_cast<unsigned long long>(p.index_rebuilds), static_cast<unsigned long long>(p.members_indexed),
                    1e3 * p.traversal_seconds, 1e3 * p.store_seconds, 1e3 * p.index_seconds, 1e3 * p.greedy_seconds,
                    seeds.c_str(),
                    p.warp_expansions == 0 ? 0.0
                                           : static_cast<double>(p.warp_expanded) / static_cast<double>(p.warp_expansions),
                    static_cast<unsigned long long>(p.warp_retries), static_cast<unsigned long long>(p.candidate_selects),
                    static_cast<unsigned long long>(p.candidate_fallbacks));
        std::fflush(stdout);
      }
    }
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  using namespace wildfire;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s GRAPH [--weights W] [--model IC|LT] [--sets N] [--colours 8,32,64] "
                 "[--traversals warp,fused] [--cpu-threads T] [--cpu-sets N] [--check N] "
                 "[--representation flat|bitmap|auto] [--imm EPS,...] [--imm-runs R] [--imm-final reused,fresh] [--groups 1,8,64] "
                 "[--masks off,on,auto]\n", argv[0]);
    return 2;
  }
  graph_load_options options;
  options.path = argv[1];
  std::string model_text = "IC";
  std::uint64_t sets = 100000;
  std::string colours_text = "64";
  std::string traversals_text = "warp,fused";
  int cpu_threads = 0;
  std::uint64_t check = 2000;
  std::uint64_t cpu_sets = 0;  // 0: all
  std::string representation_text = "flat";
  std::string imm_eps;
  [[maybe_unused]] int imm_runs = 3;  // read only where CUDA is built
  std::string imm_finals = "reused,fresh";
  std::string groups_text;  // empty: the sampler's default
  std::string masks_text;   // WF_FUSED_MASKS values (on, off, auto: the default); empty: as set
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--weights") options.weights = value;
    else if (flag == "--model") model_text = value;
    else if (flag == "--sets") sets = std::stoull(value);
    else if (flag == "--colours") colours_text = value;
    else if (flag == "--traversals") traversals_text = value;
    else if (flag == "--cpu-threads") cpu_threads = std::stoi(value);
    else if (flag == "--check") check = std::stoull(value);
    else if (flag == "--cpu-sets") cpu_sets = std::stoull(value);
    else if (flag == "--representation") representation_text = value;
    else if (flag == "--imm") imm_eps = value;
    else if (flag == "--imm-runs") imm_runs = std::stoi(value);
    else if (flag == "--imm-final") imm_finals = value;
    else if (flag == "--groups") groups_text = value;
    else if (flag == "--masks") masks_text = value;
  }
  try {
    const auto load_start = std::chrono::steady_clock::now();
    const csr_graph g = load_graph(options);
    const double load_seconds = seconds_since(load_start);
    sampling_params params;
    params.model = parse_diffusion_model(model_text);
    params.seed = 1;
    if (!imm_eps.empty()) {
      for (const std::string& final_sets : split(imm_finals)) {
        if (final_sets != "reused" && final_sets != "fresh") {
          std::fprintf(stderr, "error: --imm-final: '%s' is neither reused nor fresh\n", final_sets.c_str());
          return 2;
        }
      }
      std::printf("# gpu_sampling_bench --imm\n\ngraph %s, n %u, m %llu, weights %s, model %s, seed %llu, commit %s, "
                  "load %.2f s\n\n",
                  options.path.c_str(), g.num_vertices, static_cast<unsigned long long>(g.num_edges),
                  options.weights.c_str(), model_text.c_str(), static_cast<unsigned long long>(params.seed), git_commit,
                  load_seconds);
#ifdef WF_HAVE_CUDA
      if (gpu_available()) imm_profile(g, params, split(imm_eps), imm_runs, split(imm_finals));
#endif
      return 0;
    }
    const double bandwidth = copy_bandwidth();
    std::printf("# gpu_sampling_bench\n\ngraph %s, n %u, m %llu, weights %s, model %s, sets %llu, seed %llu, "
                "commit %s, load %.2f s, device-to-device copy bandwidth %.0f GB/s\n\n",
                options.path.c_str(), g.num_vertices, static_cast<unsigned long long>(g.num_edges),
                options.weights.c_str(), model_text.c_str(), static_cast<unsigned long long>(sets),
                static_cast<unsigned long long>(params.seed), git_commit, load_seconds, bandwidth / 1e9);
    if (cpu_sets == 0 || cpu_sets > sets) cpu_sets = sets;
    std::printf("representation %s (GPU rows); CPU: the first %llu sets\n\n", representation_text.c_str(),
                static_cast<unsigned long long>(cpu_sets));
    std::printf("| device | traversal | colours | sets | mean set size | seconds (upload excl.) | traversal s | sets/s | "
                "edges examined/s | bytes read/s, lower bound (share of copy bw) | peak device MB | same sets as CPU | levels |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::fflush(stdout);

    // CPU first: its sets are the comparison for every GPU row.
    backend_config cpu_config;
    cpu_config.device = device_kind::cpu;
    cpu_config.num_threads = cpu_threads;
    auto cpu = make_rr_collection(cpu_config, g, params);
    auto start = std::chrono::steady_clock::now();
    cpu->generate(0, cpu_sets);
    const std::uint64_t cpu_members = cpu->num_members();  // a deferring backend samples here
    double seconds = seconds_since(start);
    collection_stats cs = cpu->stats();
    check = std::min(check, cpu_sets);
    const rr_sets cpu_copy = cpu->copy_sets(0, check);
    std::printf("| cpu (%d threads) | %s | - | %llu | %.1f | %.3f | - | %.3g | %.3g | - | - | - | - |\n", cpu_threads,
                cs.traversal.c_str(), static_cast<unsigned long long>(cpu_sets),
                static_cast<double>(cpu_members) / static_cast<double>(std::max<std::uint64_t>(cpu_sets, 1)), seconds,
                static_cast<double>(cpu_sets) / seconds, static_cast<double>(cs.edges_examined) / seconds);
    std::fflush(stdout);
    cpu.reset();
    if (!gpu_available()) return 0;
#ifdef WF_HAVE_CUDA
    const ic_block_plan plan = params.model == diffusion_model::ic ? make_ic_block_plan(g.view()) : ic_block_plan{};
    cuda::rr_representation representation = cuda::rr_representation::flat;
    if (representation_text == "bitmap") representation = cuda::rr_representation::bitmap;
    if (representation_text == "auto") representation = cuda::rr_representation::automatic;

    for (const auto& traversal_name : split(traversals_text)) {
      const traversal_kind traversal = parse_traversal_kind(traversal_name);
      const auto colour_list = traversal == traversal_kind::fused ? split(colours_text) : std::vector<std::string>{"-"};
      // colours, then /groups with --groups and " masks M" with --masks (fused rows)
      std::vector<std::string> row_list;
      for (const auto& colour_text : colour_list) {
        if (colour_text == "-" || groups_text.empty()) {
          row_list.push_back(colour_text);
        } else {
          for (const auto& groups : split(groups_text)) row_list.push_back(colour_text + "/" + groups);
        }
      }
      if (traversal != traversal_kind::warp && !masks_text.empty()) {
        std::vector<std::string> with_masks;
        for (const auto& masks : split(masks_text))
          for (const auto& row : row_list) with_masks.push_back(row + " masks " + masks);
        row_list = with_masks;
      }
      for (const auto& row_text : row_list) {
        const std::string colours_and_groups = row_text.substr(0, row_text.find(' '));
        const std::string colour_text = colours_and_groups.substr(0, colours_and_groups.find('/'));
        if (colours_and_groups.find('/') != std::string::npos) {
          setenv("WF_FUSED_GROUPS", colours_and_groups.substr(colours_and_groups.find('/') + 1).c_str(), 1);  // read by the sampler
        }
        if (row_text.find(" masks ") != std::string::npos) {
          setenv("WF_FUSED_MASKS", row_text.substr(row_text.find(" masks ") + 7).c_str(), 1);  // read by the sampler
        }
        backend_config config;
        config.device = device_kind::gpu;
        config.traversal = traversal;
        if (colour_text != "-") config.colours = static_cast<std::uint32_t>(std::stoul(colour_text));
        try {
          auto gpu = cuda::make_cuda_rr_collection(config, g, params, representation);
          cuda::set_profiling(*gpu, true);
          start = std::chrono::steady_clock::now();
          gpu->generate(0, sets);
          const std::uint64_t members = gpu->num_members();  // generate defers: this samples
          seconds = seconds_since(start);
          const collection_stats s = gpu->stats();
          const cuda::cuda_collection_profile p = cuda::profile_of(*gpu);
          const rr_sets gpu_sets = gpu->copy_sets(0, check);
          const bool same = gpu_sets.offsets == cpu_copy.offsets && gpu_sets.members == cpu_copy.members;
          const double bytes_per_second = bytes_read_lower_bound(g, plan, params.model, gpu_sets, members, s) / seconds;
          const std::string masked = p.fused_batches == 0 ? ""
                                     : " (" + std::to_string(p.fused_mask_batches) + "/" +
                                           std::to_string(p.fused_batches) + " batches masked, " +
                                           std::to_string(p.fused_chunked_batches) + " by chunks, " +
                                           std::to_string(p.fused_drawn_ahead_batches) + " drawn ahead)";
          std::printf("| gpu | %s | %s%s | %llu | %.1f | %.3f | %.3f | %.3g | %.3g | %.3g (%.0f%%) | %.0f | %s | %llu |\n",
                      s.traversal.c_str(), row_text.c_str(), masked.c_str(), static_cast<unsigned long long>(sets),
                      static_cast<double>(members) / static_cast<double>(sets), seconds, p.traversal_seconds,
                      static_cast<double>(sets) / seconds, static_cast<double>(s.edges_examined) / seconds,
                      bytes_per_second, bandwidth > 0 ? 100.0 * bytes_per_second / bandwidth : 0.0,
                      static_cast<double>(s.peak_bytes) / 1e6, same ? "yes" : "NO",
                      static_cast<unsigned long long>(p.fused_levels));
        } catch (const wildfire::error& e) {
          std::printf("| gpu | %s | %s | %llu | refused: %s | | | | | | | | |\n", traversal_name.c_str(),
                      row_text.c_str(), static_cast<unsigned long long>(sets), e.what());
        }
        std::fflush(stdout);
      }
    }
#endif
  } catch (const wildfire::error& e) {
    std::fprintf(stderr, "gpu_sampling_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
