// Throughput of the preferential-attachment generators (edges per second, peak memory) over a
// grid of n, d and p on the CPU (OpenMP) or the GPU, for docs/benchmarks/generators.md.
// Usage: pa_generator_bench [--device cpu|gpu] [-n 1e6,1e7] [-d 1,4,16] [-p 0,0.5,0.9]
//                           [--threads T] [--reps R] [--max-edges E]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <omp.h>

#include <fmt/core.h>

#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/util/resource_usage.hpp"
#include "wildfire/version.hpp"

#ifdef WF_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/pa_generator.hpp"
#endif

namespace {

std::vector<double> parse_list(const std::string& text) {
  std::vector<double> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    values.push_back(std::stod(text.substr(start, comma - start)));
    start = comma + 1;
  }
  return values;
}

struct row_result {
  double seconds = 0;          // best of the repetitions: generation only
  double total_seconds = 0;    // GPU: with allocation (no copy back); CPU: same as seconds
  std::uint64_t memory_bytes = 0;
  wildfire::pa_run_stats stats;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace wildfire;
  std::string device = "cpu";
  std::vector<double> ns{1e6, 1e7};
  std::vector<double> ds{1, 4, 16};
  std::vector<double> ps{0.0, 0.5, 0.9};
  int threads = omp_get_max_threads();
  int reps = 3;
  double max_edges = 4.1e9;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--device") device = value;
    else if (flag == "-n") ns = parse_list(value);
    else if (flag == "-d") ds = parse_list(value);
    else if (flag == "-p") ps = parse_list(value);
    else if (flag == "--threads") threads = std::stoi(value);
    else if (flag == "--reps") reps = std::stoi(value);
    else if (flag == "--max-edges") max_edges = std::stod(value);
    else {
      fmt::print(stderr, "unknown flag {}\n", flag);
      return 2;
    }
  }
  std::string device_name = fmt::format("CPU, {} OpenMP threads", threads);
#ifdef WF_HAVE_CUDA
  if (device == "gpu") {
    if (!gpu_available()) {
      fmt::print(stderr, "no GPU visible\n");
      return 1;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    device_name = fmt::format("GPU {} ({} SMs)", prop.name, prop.multiProcessorCount);
  }
#else
  if (device == "gpu") {
    fmt::print(stderr, "this build has no CUDA backend\n");
    return 1;
  }
#endif
  fmt::print("# pa_generator_bench: wildfire {} (commit {})\n", version_string, git_commit);
  fmt::print("# device: {}; best of {} repetitions; graph: preferential attachment (copy model), seed 1\n",
             device_name, reps);
  fmt::print("# time: generation only ({}); edges = (n - d) d\n\n",
             device == "gpu" ? "device events: sentinel fill + all rounds, no allocation or copy back"
                             : "wall clock of generate_pa_cpu, including the sentinel fill");
  fmt::print("| device | n | d | p | edges | seconds | M edges/s | memory (GiB) | rounds | resolve passes | max pending |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (double n_value : ns) {
    for (double d_value : ds) {
      for (double p : ps) {
        const pa_params params{static_cast<std::uint32_t>(n_value), static_cast<std::uint32_t>(d_value), p, 1};
        const double edges = (n_value - d_value) * d_value;
        if (edges > max_edges) continue;
        row_result best;
        best.seconds = 1e30;
        try {
          for (int r = 0; r < reps; ++r) {
            row_result run;
            if (device == "gpu") {
#ifdef WF_HAVE_CUDA
              cuda::pa_gpu_options options;
              options.copy_to_host = false;
              cuda::pa_gpu_report report;
              const stopwatch total;
              cuda::generate_pa_gpu(params, options, &report);
              run.total_seconds = total.seconds();
              run.seconds = report.generate_seconds;
              run.memory_bytes = report.device_bytes;
              run.stats = report.stats;
#endif
            } else {
              pa_cpu_options options;
              options.num_threads = threads;
              const stopwatch total;
              const pa_graph graph = generate_pa_cpu(params, options, &run.stats);
              run.seconds = run.total_seconds = total.seconds();
              run.memory_bytes = peak_memory_bytes();
            }
            if (run.seconds < best.seconds) best = run;
          }
        } catch (const wildfire::error& e) {
          fmt::print("| {} | {:.3g} | {} | {} | {:.3g} | skipped: {} |||||\n", device, n_value, d_value, p, edges,
                     e.what());
          continue;
        }
        fmt::print("| {} | {:.3g} | {} | {} | {:.3g} | {:.4f} | {:.1f} | {:.2f} | {} | {} | {} |\n", device, n_value,
                   d_value, p, edges, best.seconds, edges / best.seconds / 1e6,
                   static_cast<double>(best.memory_bytes) / (1ULL << 30), best.stats.segments,
                   best.stats.resolve_passes, best.stats.max_pending);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
