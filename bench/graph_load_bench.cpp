// Graph loading throughput: text parsing MB/s (uncompressed), full text load, gzip load, binary
// (.wfg) load and the text/binary speed-up, with the peak memory of each load, for the shared data
// sets and a synthetic 50M-edge `u v p` list written by this benchmark.
// Every measurement runs in a forked child so its peak RSS (wait4) is its own; the parent never
// starts OpenMP threads, so forking is safe.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <omp.h>

#include "wildfire/graph/binary_format.hpp"
#include "wildfire/graph/edge_list_parser.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/random/counter_hash.hpp"
#include "wildfire/util/file_reader.hpp"
#include "wildfire/util/resource_usage.hpp"
#include "wildfire/version.hpp"

namespace {

using namespace wildfire;

/// What a timed piece of work reports: wall seconds, a count, and CPU seconds of all threads.
struct timing {
  double seconds = 0;
  double value = 0;
  double cpu_seconds = 0;
};

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Times `work` in wall and CPU seconds; `value` is what it returns.
template <class Work>
timing timed(Work&& work) {
  const double cpu = process_cpu_seconds();
  stopwatch wall;
  const double value = work();
  return {wall.seconds(), value, process_cpu_seconds() - cpu};
}

struct measurement {
  double seconds = 0;       // best of the repeats
  double value = 0;         // a count the child reports (bytes, edges)
  double cpu_seconds = 0;   // CPU time of that run, all threads
  double peak_rss_bytes = 0;
  bool ok = false;
  std::string error;
};

/// Runs `work` in a child `repeats` times and keeps the fastest run.
measurement in_child(int threads, int repeats, const std::function<timing()>& work) {
  measurement best;
  for (int r = 0; r < repeats; ++r) {
    int fds[2];
    if (::pipe(fds) != 0) return best;
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      omp_set_num_threads(threads);
      char message[512] = {};
      double result[3] = {0, 0, 0};
      int code = 0;
      try {
        const timing t = work();
        result[0] = t.seconds;
        result[1] = t.value;
        result[2] = t.cpu_seconds;
      } catch (const std::exception& e) {
        std::snprintf(message, sizeof message, "%s", e.what());
        code = 1;
      }
      [[maybe_unused]] auto w1 = ::write(fds[1], result, sizeof result);
      [[maybe_unused]] auto w2 = ::write(fds[1], message, sizeof message);
      ::_exit(code);
    }
    ::close(fds[1]);
    double result[3] = {0, 0, 0};
    char message[512] = {};
    const bool got = ::read(fds[0], result, sizeof result) == sizeof result;
    [[maybe_unused]] auto r2 = ::read(fds[0], message, sizeof message);
    ::close(fds[0]);
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      best.error = message[0] ? message : "child failed";
      return best;
    }
    const double rss = static_cast<double>(usage.ru_maxrss) * 1024.0;
    if (!best.ok || result[0] < best.seconds) {
      best.seconds = result[0];
      best.value = result[1];
      best.cpu_seconds = result[2];
      best.peak_rss_bytes = rss;
    }
    best.ok = true;
  }
  return best;
}

struct row {
  std::string name;
  std::uint64_t n = 0, m = 0;
  double text_bytes = 0;
  measurement parse, text_load, gzip_load, binary_load;
  double binary_bytes = 0;
};

graph_load_options options_for(const std::string& path, bool skip_invalid) {
  graph_load_options o;
  o.path = path;
  o.skip_invalid_lines = skip_invalid;
  return o;
}

row measure(const std::string& name, const std::string& source, bool skip_invalid, const std::string& scratch,
            int threads, int repeats) {
  row r;
  r.name = name;
  const bool gz = is_gzip_file(source);
  const std::string text_path = gz ? scratch + "/" + name + ".txt" : source;
  const std::string binary_path = scratch + "/" + name + ".wfg";
  // Prepare (in a child): the uncompressed text and the binary file.
  const auto prepared = in_child(threads, 1, [&] {
    if (gz) {
      const std::string bytes = read_file_bytes(source);
      std::ofstream(text_path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const csr_graph g = load_graph(options_for(text_path, skip_invalid));
    write_binary_graph(g, binary_path);
    return timing{static_cast<double>(g.num_vertices), static_cast<double>(g.num_edges), 0.0};
  });
  if (!prepared.ok) {
    fmt::print(stderr, "{}: {}\n", name, prepared.error);
    return r;
  }
  r.n = static_cast<std::uint64_t>(prepared.seconds);
  r.m = static_cast<std::uint64_t>(prepared.value);
  r.text_bytes = static_cast<double>(std::filesystem::file_size(text_path));
  r.binary_bytes = static_cast<double>(std::filesystem::file_size(binary_path));

  r.parse = in_child(threads, repeats, [&] {
    const std::string bytes = read_file_bytes(text_path);
    edge_list_parse_options o;
    o.skip_invalid_lines = skip_invalid;
    o.file_name = text_path;
    return timed([&] { return static_cast<double>(parse_edge_list(bytes, o).size()); });
  });
  // A load ends when the graph is usable: the graph is freed after the clock stops (all three).
  auto timed_load = [](const graph_load_options& options) {
    csr_graph g;
    return timed([&] {
      g = load_graph(options);
      return static_cast<double>(g.num_edges);
    });
  };
  r.text_load = in_child(threads, repeats, [&] { return timed_load(options_for(text_path, skip_invalid)); });
  if (gz) r.gzip_load = in_child(threads, repeats, [&] { return timed_load(options_for(source, skip_invalid)); });
  r.binary_load = in_child(threads, repeats, [&] { return timed_load(options_for(binary_path, false)); });
  if (gz) std::filesystem::remove(text_path);
  std::filesystem::remove(binary_path);
  return r;
}

/// Writes a deterministic skewed `u v p` list of `m` edges over m/10 vertices (ids scattered by
/// a multiplicative permutation; p with six decimals, as in gIM/IMM inputs). Parallel.
void write_synthetic(const std::string& path, std::uint64_t m) {
  const std::uint64_t n = std::max<std::uint64_t>(m / 10, 2);
  const std::uint64_t chunk = 1 << 20;
  const std::uint64_t chunks = (m + chunk - 1) / chunk;
  std::vector<std::string> texts(static_cast<std::size_t>(chunks));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  // Generate in rounds of a few chunks per thread and write them in order.
  const std::uint64_t round = static_cast<std::uint64_t>(omp_get_max_threads()) * 2;
  for (std::uint64_t first = 0; first < chunks; first += round) {
    const std::uint64_t last = std::min(chunks, first + round);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t c = static_cast<std::int64_t>(first); c < static_cast<std::int64_t>(last); ++c) {
      std::string& out = texts[static_cast<std::size_t>(c)];
      out.reserve(chunk * 26);
      const std::uint64_t begin = static_cast<std::uint64_t>(c) * chunk, end = std::min(m, begin + chunk);
      for (std::uint64_t e = begin; e < end; ++e) {
        const double a = element_uniform(42, 3 * e), b = element_uniform(42, 3 * e + 1);
        // Skewed ranks (density ~ x^-2/3), scattered over the id range.
        const auto rank_u = static_cast<std::uint64_t>(static_cast<double>(n) * a * a * a);
        const auto rank_v = static_cast<std::uint64_t>(static_cast<double>(n) * b * b * b);
        const std::uint64_t u = (rank_u * 2654435761ULL) % n, v = (rank_v * 2654435761ULL + 1) % n;
        const auto p = static_cast<unsigned>(element_hash(42, 3 * e + 2) % 1000000);
        fmt::format_to(std::back_inserter(out), "{} {} 0.{:06d}\n", u, v, p);
      }
    }
    for (std::uint64_t c = first; c < last; ++c) {
      std::fwrite(texts[c].data(), 1, texts[c].size(), f);
      std::string().swap(texts[c]);
    }
  }
  if (std::fclose(f) != 0) throw std::runtime_error("write failed: " + path);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

/// Seconds with four decimals below 0.1 s (binary loads of small graphs take a fraction of a ms).
std::string seconds_text(double s) { return s < 0.1 ? fmt::format("{:.4f}", s) : fmt::format("{:.3f}", s); }
std::string fmt_seconds(const measurement& m) { return m.ok ? seconds_text(m.seconds) : "-"; }

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = "../shared/data";
  std::string scratch = std::filesystem::temp_directory_path().string();
  std::string synthetic_file;  // an existing `u v p` list to use instead of writing one
  std::string markdown_path;
  std::string only;  // one shared data set by name (repeated timings of one graph)
  std::uint64_t synthetic_edges = 50'000'000;
  int threads = 2, repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--data") data_dir = value;
    else if (key == "--scratch") scratch = value;
    else if (key == "--synthetic-edges") synthetic_edges = std::stoull(value);
    else if (key == "--synthetic-file") synthetic_file = value;
    else if (key == "--threads") threads = std::stoi(value);
    else if (key == "--repeat") repeats = std::stoi(value);
    else if (key == "--markdown") markdown_path = value;
    else if (key == "--only") only = value;
    else {
      fmt::print(stderr, "usage: graph_load_bench [--data DIR] [--scratch DIR] [--synthetic-edges M] "
                         "[--synthetic-file F] [--threads T] [--repeat R] [--markdown FILE] [--only NAME]\n");
      return 2;
    }
  }
  fmt::print("# graph_load_bench\nwildfire {} (commit {}), {} threads of {} ({} cores online), repeat {} (best)\n\n",
             version_string, git_commit, threads, cpu_model(), ::sysconf(_SC_NPROCESSORS_ONLN), repeats);
  std::fflush(stdout);

  std::vector<row> rows;
  const std::pair<const char*, bool> shared[] = {
      {"soc-Epinions1", false}, {"wiki-Vote", false}, {"ca-GrQc", true}, {"NetHEPT", false}};
  for (const auto& [name, skip] : shared) {
    const std::string path = data_dir + "/" + name + ".txt.gz";
    if (!std::filesystem::exists(path) || (!only.empty() && only != name)) continue;
    rows.push_back(measure(name, path, skip, scratch, threads, repeats));
  }
  if (synthetic_edges > 0 || !synthetic_file.empty()) {
    std::string path = synthetic_file;
    std::string name = std::filesystem::path(synthetic_file).stem().string();
    if (path.empty()) {
      path = scratch + "/wf_synthetic_" + std::to_string(synthetic_edges) + ".txt";
      name = fmt::format("synthetic {}M", synthetic_edges / 1000000.0);
      const auto written = in_child(std::max(threads, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN))), 1, [&] {
        return timed([&] {
          write_synthetic(path, synthetic_edges);
          return 0.0;
        });
      });
      if (!written.ok) {
        fmt::print(stderr, "synthetic: {}\n", written.error);
        return 1;
      }
    }
    rows.push_back(measure(name, path, false, scratch, threads, std::min(repeats, 2)));
    if (synthetic_file.empty()) std::filesystem::remove(path);
  }

  std::string table =
      "| graph | n | m | text MB | parse s | parse MB/s | parse MB/CPU-s | text load s | load MB/s | peak RSS MB "
      "| gzip load s | .wfg MB | .wfg load s | .wfg peak RSS MB | text/.wfg | gzip/.wfg |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows) {
    const double mb = r.text_bytes / 1e6;
    table += fmt::format(
        "| {} | {} | {} | {:.1f} | {} | {:.0f} | {:.0f} | {} | {:.0f} | {:.0f} | {} | {:.1f} | {} | {:.0f} | {:.1f}x | {} |\n",
        r.name, r.n, r.m, mb, fmt_seconds(r.parse), r.parse.ok ? mb / r.parse.seconds : 0.0,
        r.parse.ok && r.parse.cpu_seconds > 0 ? mb / r.parse.cpu_seconds : 0.0, fmt_seconds(r.text_load),
        r.text_load.ok ? mb / r.text_load.seconds : 0.0, r.text_load.peak_rss_bytes / 1e6, fmt_seconds(r.gzip_load),
        r.binary_bytes / 1e6, fmt_seconds(r.binary_load), r.binary_load.peak_rss_bytes / 1e6,
        r.binary_load.ok && r.text_load.ok ? r.text_load.seconds / r.binary_load.seconds : 0.0,
        r.binary_load.ok && r.gzip_load.ok ? fmt::format("{:.1f}x", r.gzip_load.seconds / r.binary_load.seconds) : "-");
  }
  table += "\nCPU seconds (all threads) of the same runs, which a busy shared machine distorts less than wall time:\n\n"
           "| graph | parse CPU-s | text load CPU-s | gzip load CPU-s | .wfg load CPU-s | text/.wfg CPU |\n"
           "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows) {
    auto cpu = [](const measurement& m) { return m.ok ? seconds_text(m.cpu_seconds) : std::string("-"); };
    table += fmt::format("| {} | {} | {} | {} | {} | {:.1f}x |\n", r.name, cpu(r.parse), cpu(r.text_load), cpu(r.gzip_load),
                         cpu(r.binary_load),
                         r.binary_load.ok && r.binary_load.cpu_seconds > 0 ? r.text_load.cpu_seconds / r.binary_load.cpu_seconds
                                                                           : 0.0);
  }
  fmt::print("{}", table);
  fmt::print("\nparse: parse_edge_list on the uncompressed bytes in memory; text load: load_graph on the "
             "uncompressed file (read, parse, relabel, CSR in both directions, weights); MB/CPU-s: parse MB per "
             "CPU-second of all threads (robust on a shared machine); gzip load: the same "
             "from the .gz; .wfg load: load_graph on the binary file (mapped, one pass of checksum and CSR "
             "checks; the arrays view the mapping). Every load is timed until the graph is usable (freeing it is "
             "not counted). Peak RSS is that of the child process doing the load (a mapped file's pages count).\n");
  if (!markdown_path.empty()) std::ofstream(markdown_path) << table;
  return 0;
}
