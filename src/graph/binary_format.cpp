// .wfg reader and writer. Layout (little-endian, every array 8-byte aligned, zero padding):
//   header (96 bytes) | weight-model text | in_offsets | in_sources | in_thresholds | out_offsets |
//   out_targets | out_edge_ids | original_ids | checksum of all previous bytes (u64) | "WFG_END\0"
// Reading: parallel preads straight into the graph's vectors (sized on transparent huge pages), a
// checksum computed over 4 MiB pieces in parallel, then O(n + m) structural checks.
#include "wildfire/graph/binary_format.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "wildfire/error.hpp"

namespace wildfire {
namespace {

constexpr std::array<char, 8> magic = {'W', 'F', 'G', 'R', 'A', 'P', 'H', '\0'};
constexpr std::array<char, 8> end_magic = {'W', 'F', 'G', '_', 'E', 'N', 'D', '\0'};
constexpr std::uint64_t trailer_bytes = 16;  // checksum + end magic
constexpr std::uint64_t flag_undirected_input = 1;
constexpr std::uint64_t max_weight_model_bytes = 1 << 16;
constexpr std::size_t parallel_threshold = 1 << 16;  // smaller arrays are checked serially

struct file_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;
  std::uint64_t flags;
  std::uint64_t num_vertices;
  std::uint64_t num_edges;
  std::uint64_t self_loops_dropped;
  std::uint64_t parallel_edges;
  std::uint64_t parallel_edges_merged;
  std::uint64_t invalid_lines_skipped;
  std::uint64_t weight_model_bytes;
  std::uint64_t file_bytes;  // the whole file, trailer included
  std::uint64_t reserved;
};
static_assert(sizeof(file_header) == 96);

constexpr std::uint64_t padded(std::uint64_t bytes) noexcept { return (bytes + 7) & ~std::uint64_t{7}; }

/// One piece of the file in order: where it lives in memory and how long it is (padding follows).
struct segment {
  void* data;
  std::uint64_t bytes;
};

/// Bytes of a file with these counts, or 0 when the counts overflow (corrupt header).
std::uint64_t expected_file_bytes(std::uint64_t n, std::uint64_t m, std::uint64_t model_bytes) {
  if (n > 0xffffffffULL || m > (std::uint64_t{1} << 56) || model_bytes > max_weight_model_bytes) return 0;
  return sizeof(file_header) + padded(model_bytes) + 8 * (n + 1) + padded(4 * m) + padded(4 * m) + 8 * (n + 1) +
         padded(4 * m) + 8 * m + 8 * n + trailer_bytes;
}

constexpr std::uint64_t prime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t prime2 = 0xC2B2AE3D27D4EB4FULL;

constexpr std::uint64_t rotl(std::uint64_t x, int r) noexcept { return (x << r) | (x >> (64 - r)); }

/// Stafford's Mix13 finaliser: a bijection of 64-bit words.
constexpr std::uint64_t finalize(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A 64-bit hash of one piece, four independent lanes of xxHash64-style rounds (several GB/s per
/// core, five times zlib's CRC-32 here). Each round is a bijection of its lane for a fixed word and
/// of the word for a fixed lane, and lanes are joined by addition, so changing any single 8-byte
/// word (in particular any single bit) always changes the result.
std::uint64_t piece_hash(const unsigned char* data, std::uint64_t bytes) noexcept {
  std::uint64_t lane[4] = {prime1, prime2, ~prime1, ~prime2};
  auto word_at = [data](std::uint64_t at) {
    std::uint64_t w;
    std::memcpy(&w, data + at, 8);
    return w;
  };
  auto round = [](std::uint64_t acc, std::uint64_t w) { return rotl(acc + w * prime2, 31) * prime1; };
  std::uint64_t at = 0;
  for (; at + 32 <= bytes; at += 32) {
    lane[0] = round(lane[0], word_at(at));
    lane[1] = round(lane[1], word_at(at + 8));
    lane[2] = round(lane[2], word_at(at + 16));
    lane[3] = round(lane[3], word_at(at + 24));
  }
  for (; at + 8 <= bytes; at += 8) lane[0] = round(lane[0], word_at(at));
  if (at < bytes) {
    std::uint64_t tail = 0;
    std::memcpy(&tail, data + at, bytes - at);
    lane[1] = round(lane[1], tail);
  }
  return finalize(rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18) + bytes * prime1);
}

/// Checksum of the concatenated segments, each followed by zero padding to 8 bytes: pieces of at
/// most 4 MiB hashed in parallel, then chained in order (each step a bijection of the piece hash).
std::uint64_t segments_checksum(const std::vector<segment>& segments) {
  constexpr std::uint64_t piece = 1 << 22;
  struct piece_ref {
    const unsigned char* data;
    std::uint64_t bytes;
  };
  static constexpr unsigned char zeros[8] = {};
  std::vector<piece_ref> pieces;
  for (const auto& s : segments) {
    const auto* bytes = static_cast<const unsigned char*>(s.data);
    for (std::uint64_t at = 0; at < s.bytes; at += piece) pieces.push_back({bytes + at, std::min(piece, s.bytes - at)});
    if (padded(s.bytes) != s.bytes) pieces.push_back({zeros, padded(s.bytes) - s.bytes});
  }
  std::vector<std::uint64_t> hashes(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) if (pieces.size() > 8)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(pieces.size()); ++i) {
    hashes[i] = piece_hash(pieces[i].data, pieces[i].bytes);
  }
  std::uint64_t h = 0x5746475241504831ULL;  // "WFGRAPH1"
  for (const std::uint64_t x : hashes) h = finalize(h + x * prime1);
  return h;
}

/// Sizes `v` to `count` elements, first advising transparent huge pages for its buffer and
/// populating its pages: filling fresh memory costs mostly page faults, and 2 MiB pages take 512
/// times fewer. Advice only: failures are harmless.
template <class T>
void resize_for_bulk_read(std::vector<T>& v, std::size_t count) {
  v.reserve(count);
  const std::size_t bytes = count * sizeof(T);
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  if (bytes >= huge) {
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t lo = (begin + huge - 1) & ~(huge - 1), hi = (begin + bytes) & ~(huge - 1);
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  }
#ifdef MADV_POPULATE_WRITE
  // One call maps every page instead of one fault per 4 KiB page (Linux 5.14+; else ignored).
  constexpr std::uintptr_t page = 4096;
  if (bytes >= 16 * page) {
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t lo = (begin + page - 1) & ~(page - 1), hi = (begin + bytes) & ~(page - 1);
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
  }
#endif
  v.resize(count);
}

template <class T>
segment segment_of(std::vector<T>& v) {
  return {v.data(), v.size() * sizeof(T)};
}

class file_descriptor {
 public:
  explicit file_descriptor(int fd) noexcept : fd_(fd) {}
  ~file_descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  file_descriptor(const file_descriptor&) = delete;
  file_descriptor& operator=(const file_descriptor&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

/// Reads exactly `bytes` at `offset`; false on a short read.
bool read_at(int fd, void* data, std::uint64_t bytes, std::uint64_t offset) {
  auto* out = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd, out, std::min<std::uint64_t>(bytes, 1ULL << 30), static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    bytes -= static_cast<std::uint64_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

/// Offsets that start at 0, never decrease and end at `total`.
bool valid_offsets(const std::vector<std::uint64_t>& offsets, std::uint64_t total) {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != total) return false;
  bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (offsets.size() > parallel_threshold)
  for (std::int64_t i = 1; i < static_cast<std::int64_t>(offsets.size()); ++i) ok = ok && offsets[i - 1] <= offsets[i];
  return ok;
}

template <class T>
bool all_below(const std::vector<T>& values, std::uint64_t bound) {
  bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (values.size() > parallel_threshold)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(values.size()); ++i) ok = ok && values[i] < bound;
  return ok;
}

}  // namespace

bool is_binary_graph_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return false;
  char head[8] = {};
  return std::fread(head, 1, 8, f.get()) == 8 && std::memcmp(head, magic.data(), 8) == 0;
}

void write_binary_graph(const csr_graph& graph, const std::string& path) {
  const std::string& model = graph.provenance.weight_model;
  if (model.size() > max_weight_model_bytes) throw input_error(path, 0, "weight model description too long");
  file_header header{};
  std::memcpy(header.magic, magic.data(), magic.size());
  header.version = binary_graph_version;
  header.header_bytes = sizeof(file_header);
  header.flags = graph.provenance.undirected_input ? flag_undirected_input : 0;
  header.num_vertices = graph.num_vertices;
  header.num_edges = graph.num_edges;
  header.self_loops_dropped = graph.provenance.self_loops_dropped;
  header.parallel_edges = graph.provenance.parallel_edges;
  header.parallel_edges_merged = graph.provenance.parallel_edges_merged;
  header.invalid_lines_skipped = graph.provenance.invalid_lines_skipped;
  header.weight_model_bytes = model.size();
  header.file_bytes = expected_file_bytes(graph.num_vertices, graph.num_edges, model.size());

  auto& g = const_cast<csr_graph&>(graph);  // segments only read through these pointers
  std::string model_copy = model;
  const std::vector<segment> segments = {
      {&header, sizeof header},      {model_copy.data(), model_copy.size()}, segment_of(g.in_offsets),
      segment_of(g.in_sources),      segment_of(g.in_thresholds),            segment_of(g.out_offsets),
      segment_of(g.out_targets),     segment_of(g.out_edge_ids),             segment_of(g.original_ids)};
  const std::uint64_t checksum = segments_checksum(segments);

  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw input_error(path, 0, std::string("cannot open for writing: ") + std::strerror(errno));
  static constexpr char zeros[8] = {};
  bool ok = true;
  for (const auto& s : segments) {
    if (s.bytes == 0) continue;  // an empty array may have no buffer at all
    ok = ok && std::fwrite(s.data, 1, s.bytes, f.get()) == s.bytes;
    ok = ok && std::fwrite(zeros, 1, padded(s.bytes) - s.bytes, f.get()) == padded(s.bytes) - s.bytes;
  }
  ok = ok && std::fwrite(&checksum, 8, 1, f.get()) == 1 && std::fwrite(end_magic.data(), 1, 8, f.get()) == 8;
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) throw input_error(path, 0, std::string("write failed: ") + std::strerror(errno));
}

csr_graph read_binary_graph(const std::string& path) {
  file_descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw input_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) throw input_error(path, 0, "cannot determine file size");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  file_header header{};
  if (size < 8 || !read_at(fd.get(), header.magic, 8, 0) || std::memcmp(header.magic, magic.data(), 8) != 0) {
    throw input_error(path, 0, "not a wildfire binary graph (bad magic)");
  }
  if (size < sizeof header || !read_at(fd.get(), &header, sizeof header, 0)) {
    throw input_error(path, 0, "truncated binary graph: " + std::to_string(size) + " bytes, shorter than its header");
  }
  if (header.version != binary_graph_version) {
    throw input_error(path, 0, "unsupported binary graph version " + std::to_string(header.version) +
                                   " (this build reads version " + std::to_string(binary_graph_version) + ")");
  }
  const std::uint64_t expected =
      expected_file_bytes(header.num_vertices, header.num_edges, header.weight_model_bytes);
  if (expected == 0 || header.header_bytes != sizeof header || header.file_bytes != expected) {
    throw input_error(path, 0, "corrupt binary graph header");
  }
  if (size < expected) {
    throw input_error(path, 0, "truncated binary graph: " + std::to_string(size) + " bytes, expected " +
                                   std::to_string(expected));
  }
  if (size > expected) {
    throw input_error(path, 0, "binary graph has " + std::to_string(size - expected) + " unexpected trailing bytes");
  }

  const std::uint64_t n = header.num_vertices, m = header.num_edges;
  csr_graph g;
  g.num_vertices = static_cast<std::uint32_t>(n);
  g.num_edges = m;
  std::string model(header.weight_model_bytes, '\0');
  resize_for_bulk_read(g.in_offsets, n + 1);
  resize_for_bulk_read(g.in_sources, m);
  resize_for_bulk_read(g.in_thresholds, m);
  resize_for_bulk_read(g.out_offsets, n + 1);
  resize_for_bulk_read(g.out_targets, m);
  resize_for_bulk_read(g.out_edge_ids, m);
  resize_for_bulk_read(g.original_ids, n);
  const std::vector<segment> segments = {
      {&header, sizeof header},      {model.data(), model.size()},   segment_of(g.in_offsets),
      segment_of(g.in_sources),      segment_of(g.in_thresholds),    segment_of(g.out_offsets),
      segment_of(g.out_targets),     segment_of(g.out_edge_ids),     segment_of(g.original_ids)};
  // Reads in pieces of at most 8 MiB, in parallel; padding is read and must be zero.
  struct read_piece {
    char* data;
    std::uint64_t bytes;
    std::uint64_t offset;
  };
  std::vector<read_piece> reads;
  std::vector<std::array<char, 8>> pads(segments.size(), std::array<char, 8>{});
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& s = segments[i];
    auto* data = static_cast<char*>(s.data);
    constexpr std::uint64_t piece = 8 << 20;
    if (i > 0) {  // the header is already in memory
      for (std::uint64_t at = 0; at < s.bytes; at += piece) reads.push_back({data + at, std::min(piece, s.bytes - at), offset + at});
    }
    if (padded(s.bytes) != s.bytes) reads.push_back({pads[i].data(), padded(s.bytes) - s.bytes, offset + s.bytes});
    offset += padded(s.bytes);
  }
  std::uint64_t stored_checksum = 0;
  std::array<char, 8> stored_end{};
  reads.push_back({reinterpret_cast<char*>(&stored_checksum), 8, offset});
  reads.push_back({stored_end.data(), 8, offset + 8});
  bool read_ok = true;
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : read_ok) if (reads.size() > 16)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(reads.size()); ++i) {
    read_ok = read_ok && read_at(fd.get(), reads[i].data, reads[i].bytes, reads[i].offset);
  }
  if (!read_ok) throw input_error(path, 0, "read failed");
  if (stored_end != end_magic) throw input_error(path, 0, "corrupt binary graph trailer");
  bool padding_zero = true;
  for (const auto& pad : pads) padding_zero = padding_zero && pad == std::array<char, 8>{};
  if (!padding_zero || segments_checksum(segments) != stored_checksum) {
    throw input_error(path, 0, "corrupt binary graph: checksum mismatch");
  }
  // A matching checksum can still hold arrays that were never a CSR (a crafted file): check them,
  // so traversals can trust every index.
  if (!valid_offsets(g.in_offsets, m) || !valid_offsets(g.out_offsets, m) || !all_below(g.in_sources, n) ||
      !all_below(g.out_targets, n) || !all_below(g.out_edge_ids, m)) {
    throw input_error(path, 0, "corrupt binary graph: arrays do not form a valid CSR");
  }
  g.provenance.undirected_input = (header.flags & flag_undirected_input) != 0;
  g.provenance.self_loops_dropped = header.self_loops_dropped;
  g.provenance.parallel_edges = header.parallel_edges;
  g.provenance.parallel_edges_merged = header.parallel_edges_merged;
  g.provenance.invalid_lines_skipped = header.invalid_lines_skipped;
  g.provenance.weight_model = std::move(model);
  return g;
}

}  // namespace wildfire
