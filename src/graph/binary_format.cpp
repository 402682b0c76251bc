// .wfg reader and writer. Layout (little-endian, every array 8-byte aligned, zero padding):
//   header (96 bytes) | weight-model text | in_offsets | in_sources | in_thresholds | out_offsets |
//   out_targets | out_edge_ids | original_ids | checksum of all previous bytes (u64) | "WFG_END\0"
// Reading: one pass over the file, one task per array in parallel: each block is read into a
// cache-sized buffer, appended to the reserved (never zero-filled) vector, then hashed and checked
// (offsets non-decreasing, indices in range) while still in cache (docs/formats.md).
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
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>

#include "wildfire/error.hpp"

namespace wildfire {
namespace {

constexpr std::array<char, 8> magic = {'W', 'F', 'G', 'R', 'A', 'P', 'H', '\0'};
constexpr std::array<char, 8> end_magic = {'W', 'F', 'G', '_', 'E', 'N', 'D', '\0'};
constexpr std::uint64_t trailer_bytes = 16;  // checksum + end magic
constexpr std::uint64_t flag_undirected_input = 1;
constexpr std::uint64_t max_weight_model_bytes = 1 << 16;

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

/// The 64-bit hash of one piece, fed in blocks: four independent lanes of xxHash64-style rounds
/// (about 10 GB/s per core, five times zlib's CRC-32). Each round is a bijection of its lane for a
/// fixed word and of the word for a fixed lane, and lanes are joined by addition, so changing any
/// single 8-byte word (in particular any single bit) always changes the result. Feeding a piece in
/// blocks whose sizes are multiples of 32 bytes (the last one excepted) gives the same hash as one
/// call over the whole piece.
class piece_hasher {
 public:
  void update(const unsigned char* data, std::uint64_t bytes) noexcept {
    auto word_at = [data](std::uint64_t at) {
      std::uint64_t w;
      std::memcpy(&w, data + at, 8);
      return w;
    };
    std::uint64_t l0 = lane_[0], l1 = lane_[1], l2 = lane_[2], l3 = lane_[3];  // registers, not memory
    std::uint64_t at = 0;
    for (; at + 32 <= bytes; at += 32) {
      l0 = round(l0, word_at(at));
      l1 = round(l1, word_at(at + 8));
      l2 = round(l2, word_at(at + 16));
      l3 = round(l3, word_at(at + 24));
    }
    for (; at + 8 <= bytes; at += 8) l0 = round(l0, word_at(at));
    if (at < bytes) {
      std::uint64_t tail = 0;
      std::memcpy(&tail, data + at, bytes - at);
      l1 = round(l1, tail);
    }
    lane_[0] = l0, lane_[1] = l1, lane_[2] = l2, lane_[3] = l3;
    bytes_ += bytes;
  }
  std::uint64_t finish() const noexcept {
    return finalize(rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18) +
                    bytes_ * prime1);
  }

 private:
  static constexpr std::uint64_t round(std::uint64_t acc, std::uint64_t w) noexcept {
    return rotl(acc + w * prime2, 31) * prime1;
  }
  std::uint64_t lane_[4] = {prime1, prime2, ~prime1, ~prime2};
  std::uint64_t bytes_ = 0;
};

std::uint64_t piece_hash(const unsigned char* data, std::uint64_t bytes) noexcept {
  piece_hasher h;
  h.update(data, bytes);
  return h.finish();
}

constexpr std::uint64_t checksum_piece = 1 << 22;  // bytes hashed as one piece (part of format v1)
constexpr std::uint64_t checksum_seed = 0x5746475241504831ULL;  // "WFGRAPH1"

/// One step of the ordered chain of piece hashes (a bijection of the piece hash).
constexpr std::uint64_t chain(std::uint64_t h, std::uint64_t piece) noexcept { return finalize(h + piece * prime1); }

/// Hash of the zero padding that follows a segment of `bytes` bytes (0 when there is none).
std::uint64_t padding_hash(std::uint64_t bytes) noexcept {
  static constexpr unsigned char zeros[8] = {};
  return piece_hash(zeros, padded(bytes) - bytes);
}

/// Checksum of the concatenated segments, each followed by zero padding to 8 bytes: pieces of at
/// most 4 MiB hashed in parallel, then chained in order, the padding of a segment being a piece
/// of its own.
std::uint64_t segments_checksum(const std::vector<segment>& segments) {
  struct piece_ref {
    const unsigned char* data;
    std::uint64_t bytes;
  };
  static constexpr unsigned char zeros[8] = {};
  std::vector<piece_ref> pieces;
  for (const auto& s : segments) {
    const auto* bytes = static_cast<const unsigned char*>(s.data);
    for (std::uint64_t at = 0; at < s.bytes; at += checksum_piece) {
      pieces.push_back({bytes + at, std::min(checksum_piece, s.bytes - at)});
    }
    if (padded(s.bytes) != s.bytes) pieces.push_back({zeros, padded(s.bytes) - s.bytes});
  }
  std::vector<std::uint64_t> hashes(pieces.size());
#pragma omp parallel for schedule(dynamic, 1) if (pieces.size() > 8)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(pieces.size()); ++i) {
    hashes[i] = piece_hash(pieces[i].data, pieces[i].bytes);
  }
  std::uint64_t h = checksum_seed;
  for (const std::uint64_t x : hashes) h = chain(h, x);
  return h;
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

/// Structural rules of one array, checked block by block while the block is in cache. `previous`
/// is the element before the block (null for the first block). Branch-free so it vectorizes.
template <class T>
struct array_rule {
  enum kind { none, non_decreasing, below } what = none;
  std::uint64_t bound = 0;

  bool holds(const T* block, std::uint64_t count, const T* previous) const noexcept {
    if (what == none || count == 0) return true;
    unsigned bad = 0;
    if (what == below) {
      for (std::uint64_t i = 0; i < count; ++i) bad |= static_cast<unsigned>(block[i] >= bound);
    } else {
      if (previous != nullptr) bad |= static_cast<unsigned>(block[0] < *previous);
      for (std::uint64_t i = 1; i < count; ++i) bad |= static_cast<unsigned>(block[i] < block[i - 1]);
    }
    return bad == 0;
  }
};

/// What loading one array found: the hashes of its checksum pieces in file order (its padding
/// last), and whether its bytes could be read, its padding was zero and its rule held.
struct array_outcome {
  std::vector<std::uint64_t> piece_hashes;
  bool read_ok = true;
  bool padding_zero = true;
  bool valid = true;
};

constexpr std::uint64_t bounce_bytes = 1 << 18;  // per thread; fits L2, multiple of 32 and of 8

/// Reserves room for `count` elements without initialising them, first advising transparent huge
/// pages and populating the pages: filling fresh memory costs mostly page faults, and 2 MiB pages
/// take 512 times fewer. Advice only: failures are harmless.
template <class T>
void reserve_for_bulk_read(std::vector<T>& v, std::uint64_t count) {
  v.clear();
  v.reserve(count);
  const std::uint64_t bytes = count * sizeof(T);
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
}

/// Loads the array of `count` elements at `offset` into `out` in one pass: each block is read
/// into the (cache-sized) bounce buffer, appended to `out` (reserved, so never zero-filled or
/// moved), then hashed and checked while it is still in cache. Memory traffic: the file's bytes
/// are read once and the array written once.
template <class T>
array_outcome load_array(int fd, std::uint64_t offset, std::uint64_t count, std::vector<T>& out,
                         const array_rule<T>& rule, unsigned char* bounce) {
  array_outcome r;
  reserve_for_bulk_read(out, count);
  const std::uint64_t bytes = count * sizeof(T);
  for (std::uint64_t piece_at = 0; piece_at < bytes; piece_at += checksum_piece) {
    const std::uint64_t piece_end = std::min(bytes, piece_at + checksum_piece);
    piece_hasher hasher;
    for (std::uint64_t at = piece_at; at < piece_end; at += bounce_bytes) {
      const std::uint64_t block = std::min(bounce_bytes, piece_end - at);
      if (!read_at(fd, bounce, block, offset + at)) {
        r.read_ok = false;
        return r;
      }
      const std::size_t before = out.size();
      const auto* first = reinterpret_cast<const T*>(bounce);
      out.insert(out.end(), first, first + block / sizeof(T));
      hasher.update(reinterpret_cast<const unsigned char*>(out.data() + before), block);
      r.valid = rule.holds(out.data() + before, block / sizeof(T), before > 0 ? out.data() + before - 1 : nullptr) &&
                r.valid;
    }
    r.piece_hashes.push_back(hasher.finish());
  }
  if (const std::uint64_t pad = padded(bytes) - bytes; pad != 0) {
    std::array<unsigned char, 8> zeros{}, got{};
    if (!read_at(fd, got.data(), pad, offset + bytes)) {
      r.read_ok = false;
      return r;
    }
    r.padding_zero = got == zeros;
    r.piece_hashes.push_back(padding_hash(bytes));
  }
  return r;
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

  // Weight model and trailer: small reads before the arrays.
  std::string model(header.weight_model_bytes, '\0');
  std::array<unsigned char, 8> model_pad{};
  const std::uint64_t model_pad_bytes = padded(model.size()) - model.size();
  std::uint64_t stored_checksum = 0;
  std::array<char, 8> stored_end{};
  if (!read_at(fd.get(), model.data(), model.size(), sizeof header) ||
      !read_at(fd.get(), model_pad.data(), model_pad_bytes, sizeof header + model.size()) ||
      !read_at(fd.get(), &stored_checksum, 8, expected - trailer_bytes) ||
      !read_at(fd.get(), stored_end.data(), 8, expected - 8)) {
    throw input_error(path, 0, "read failed");
  }
  if (stored_end != end_magic) throw input_error(path, 0, "corrupt binary graph trailer");

  // The seven arrays in file order, each loaded, hashed and checked by one task.
  std::array<std::function<array_outcome(unsigned char*)>, 7> tasks;
  std::array<std::uint64_t, 7> task_bytes{};
  std::uint64_t offset = sizeof header + padded(model.size());
  std::size_t next = 0;
  auto add = [&](auto& vec, std::uint64_t count, auto rule) {
    using T = typename std::remove_reference_t<decltype(vec)>::value_type;
    const int fd_value = fd.get();
    tasks[next] = [fd_value, at = offset, count, &vec, rule](unsigned char* bounce) {
      return load_array<T>(fd_value, at, count, vec, rule, bounce);
    };
    task_bytes[next++] = count * sizeof(T);
    offset += padded(count * sizeof(T));
  };
  using r32 = array_rule<std::uint32_t>;
  using r64 = array_rule<std::uint64_t>;
  add(g.in_offsets, n + 1, r64{r64::non_decreasing});
  add(g.in_sources, m, r32{r32::below, n});
  add(g.in_thresholds, m, r32{});
  add(g.out_offsets, n + 1, r64{r64::non_decreasing});
  add(g.out_targets, m, r32{r32::below, n});
  add(g.out_edge_ids, m, r64{r64::below, m});
  add(g.original_ids, n, r64{});

  // Largest first, so two threads finish together (the arrays are 1:1:2 in size for m >> n).
  std::array<std::size_t, 7> order{0, 1, 2, 3, 4, 5, 6};
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return task_bytes[a] > task_bytes[b]; });
  std::array<array_outcome, 7> outcomes;
  std::exception_ptr failure;
  const bool parallel = expected > (std::uint64_t{1} << 20);
#pragma omp parallel if (parallel)
  {
    std::unique_ptr<unsigned char[]> bounce;
    try {
      bounce = std::make_unique_for_overwrite<unsigned char[]>(bounce_bytes);
    } catch (...) {
#pragma omp critical(wf_binary_graph_failure)
      failure = std::current_exception();
    }
#pragma omp for schedule(dynamic, 1)
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (!bounce) continue;
      try {
        outcomes[order[k]] = tasks[order[k]](bounce.get());
      } catch (...) {  // std::bad_alloc from a reserve: rethrown on the calling thread
#pragma omp critical(wf_binary_graph_failure)
        failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);

  bool read_ok = true, padding_zero = model_pad == std::array<unsigned char, 8>{}, valid = true;
  std::uint64_t checksum = chain(checksum_seed, piece_hash(reinterpret_cast<const unsigned char*>(&header), sizeof header));
  if (!model.empty()) {
    checksum = chain(checksum, piece_hash(reinterpret_cast<const unsigned char*>(model.data()), model.size()));
    if (model_pad_bytes != 0) checksum = chain(checksum, padding_hash(model.size()));
  }
  for (const auto& o : outcomes) {
    read_ok = read_ok && o.read_ok;
    padding_zero = padding_zero && o.padding_zero;
    valid = valid && o.valid;
    for (const std::uint64_t h : o.piece_hashes) checksum = chain(checksum, h);
  }
  if (!read_ok) throw input_error(path, 0, "read failed");
  if (!padding_zero || checksum != stored_checksum) throw input_error(path, 0, "corrupt binary graph: checksum mismatch");
  // A matching checksum can still hold arrays that were never a CSR (a crafted file): the rules
  // above and the ends of the offsets below are checked so traversals can trust every index.
  valid = valid && g.in_offsets.front() == 0 && g.in_offsets.back() == m && g.out_offsets.front() == 0 &&
          g.out_offsets.back() == m;
  if (!valid) throw input_error(path, 0, "corrupt binary graph: arrays do not form a valid CSR");
  g.provenance.undirected_input = (header.flags & flag_undirected_input) != 0;
  g.provenance.self_loops_dropped = header.self_loops_dropped;
  g.provenance.parallel_edges = header.parallel_edges;
  g.provenance.parallel_edges_merged = header.parallel_edges_merged;
  g.provenance.invalid_lines_skipped = header.invalid_lines_skipped;
  g.provenance.weight_model = std::move(model);
  return g;
}

}  // namespace wildfire
