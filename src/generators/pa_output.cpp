// Conversions and writers for generated preferential-attachment graphs, and the `gen:pa:` spec.
#include "wildfire/generators/pa_output.hpp"

#include <zlib.h>

#include <charconv>
#include <iterator>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"

namespace wildfire {

csr_graph pa_to_csr_graph(const pa_graph& graph, bool undirected) {
  const std::uint32_t d = graph.out_degree;
  const std::size_t m = graph.targets.size();
  const std::size_t copies = undirected ? 2 : 1;
  std::vector<weighted_edge> edges(m * copies);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i) {
    const auto source = static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) / d + d);
    const std::uint32_t target = graph.targets[i];
    edges[i * copies] = {source, target, 0};
    if (undirected) edges[i * copies + 1] = {target, source, 0};
  }
  csr_graph g = build_csr_graph(graph.num_vertices, edges);
  g.provenance.undirected_input = undirected;
  return g;
}

namespace {

/// Buffered output to a plain or gzip file; errors name the file.
class edge_sink {
 public:
  edge_sink(const std::string& path, bool gzip) : path_(path), gzip_(gzip) {
    if (gzip_) {
      gz_ = gzopen(path.c_str(), "wb6");
      if (gz_ != nullptr) gzbuffer(gz_, 1U << 20);
    } else {
      file_ = std::fopen(path.c_str(), "wb");
    }
    if (gz_ == nullptr && file_ == nullptr) throw input_error(path, 0, "cannot open for writing");
    buffer_.reserve(capacity + 64);
  }
  ~edge_sink() {
    if (gz_ != nullptr) gzclose(gz_);
    if (file_ != nullptr) std::fclose(file_);
  }
  edge_sink(const edge_sink&) = delete;
  edge_sink& operator=(const edge_sink&) = delete;

  void text(const std::string& s) {
    buffer_ += s;
    if (buffer_.size() >= capacity) flush();
  }
  void edge(std::uint32_t a, std::uint32_t b) {
    fmt::format_to(std::back_inserter(buffer_), "{} {}\n", a, b);
    if (buffer_.size() >= capacity) flush();
  }
  void close() {
    flush();
    const bool ok = gzip_ ? gzclose(gz_) == Z_OK : std::fclose(file_) == 0;
    gz_ = nullptr;
    file_ = nullptr;
    if (!ok) throw input_error(path_, 0, "write failed (disk full?)");
  }

 private:
  static constexpr std::size_t capacity = 1U << 20;
  void flush() {
    if (buffer_.empty()) return;
    const bool ok = gzip_ ? gzwrite(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size())) ==
                                static_cast<int>(buffer_.size())
                          : std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
    if (!ok) throw input_error(path_, 0, "write failed (disk full?)");
    buffer_.clear();
  }
  std::string path_;
  bool gzip_;
  gzFile gz_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

}  // namespace

void write_pa_edge_list(const pa_graph& graph, const std::string& path, bool undirected,
                        const std::string& description) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  edge_sink sink(path, gzip);
  sink.text("# " + description + "\n");
  const std::uint32_t d = graph.out_degree;
  for (std::uint32_t v = d; v < graph.num_vertices; ++v) {
    for (std::uint32_t l = 0; l < d; ++l) {
      const std::uint32_t u = graph.target(v, l);
      sink.edge(v, u);
      if (undirected) sink.edge(u, v);
    }
  }
  sink.close();
}

bool is_pa_spec(std::string_view input) {
  return input == "gen:pa" || input.starts_with("gen:pa:");
}

namespace {

[[noreturn]] void spec_error(std::string_view input, const std::string& message) {
  throw config_error("-i", "generator spec \"" + std::string(input) + "\": " + message);
}

/// A non-negative integer written plainly or as 1e6 / 2.5e8 (which must be exact).
std::uint64_t parse_count(std::string_view input, std::string_view key, std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size()) return value;
  double real = 0;
  const auto [end_real, ec_real] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (ec_real != std::errc() || end_real != text.data() + text.size() || !(real >= 0) || real > 1.8e19 ||
      std::floor(real) != real) {
    spec_error(input, std::string(key) + "=" + std::string(text) + " is not a non-negative integer");
  }
  return static_cast<std::uint64_t>(real);
}

}  // namespace

pa_params parse_pa_spec(std::string_view input) {
  if (!is_pa_spec(input)) spec_error(input, "expected gen:pa:n=N,d=D[,p=P][,seed=S]");
  std::string_view rest = input.size() > 7 ? input.substr(7) : std::string_view{};
  pa_params params;
  bool have_n = false;
  bool have_d = false;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) spec_error(input, "\"" + std::string(item) + "\" is not key=value");
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (key == "n") {
      const std::uint64_t n = parse_count(input, key, value);
      if (n >= 0xffffffffULL) spec_error(input, "n must be below 2^32 - 1");
      params.num_vertices = static_cast<std::uint32_t>(n);
      have_n = true;
    } else if (key == "d") {
      const std::uint64_t d = parse_count(input, key, value);
      if (d > 0xffffULL) spec_error(input, "d must be at most 65535");
      params.out_degree = static_cast<std::uint32_t>(d);
      have_d = true;
    } else if (key == "p") {
      double p = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), p);
      if (ec != std::errc() || end != value.data() + value.size()) {
        spec_error(input, "p=" + std::string(value) + " is not a number");
      }
      params.copy_probability = p;
    } else if (key == "seed") {
      params.seed = parse_count(input, key, value);
    } else {
      spec_error(input, "unknown key \"" + std::string(key) + "\" (expected n, d, p, seed)");
    }
  }
  if (!have_n || !have_d) spec_error(input, "n and d are required");
  try {
    validate_pa_params(params);
  } catch (const config_error& e) {
    spec_error(input, e.what());
  }
  return params;
}

csr_graph generate_pa_input(std::string_view input, bool undirected, device_kind device) {
  const pa_params params = parse_pa_spec(input);
  return pa_to_csr_graph(generate_pa(params, device), undirected);
}

}  // namespace wildfire
