// .wfg reader and writer. Layout (little-endian, every array 8-byte aligned, zero padding):
//   header (96 bytes) | weight-model text | in_offsets | in_sources | in_thresholds | out_offsets |
//   out_targets | out_edge_ids | original_ids | checksum of all previous bytes (u64) | "WFG_END\0"
// Reading maps the file privately (mapped_file) and the graph's arrays view the mapping: nothing
// is copied. One parallel pass over 4 MiB pieces populates the pages, hashes them and checks the
// CSR rules (offsets non-decreasing, indices in range) block by block while in cache.
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
#include <filesystem>
#include <limits>
#include <memory>

#include "wildfire/error.hpp"
#include "wildfire/util/mapped_file.hpp"

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
  const void* data;
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
      // Four dependent lanes keep too few loads in flight to stream from memory at full speed
      // (4 GB/s here); asking for the line 4 KiB ahead brings it to memory bandwidth (7.5 GB/s).
      if ((at & 63) == 0 && at + prefetch_distance < bytes) __builtin_prefetch(data + at + prefetch_distance);
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
  static constexpr std::uint64_t prefetch_distance = 4096;
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
segment segment_of(const mapped_vector<T>& v) {
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
    T bad = 0;  // accumulated in the elements' width, so the loops vectorize
    if (what == below) {
      if (bound > std::numeric_limits<T>::max()) return true;  // every T is below
      const auto limit = static_cast<T>(bound);
      for (std::uint64_t i = 0; i < count; ++i) bad |= static_cast<T>(block[i] >= limit);
    } else {
      if (previous != nullptr) bad |= static_cast<T>(block[0] < *previous);
      for (std::uint64_t i = 1; i < count; ++i) bad |= static_cast<T>(block[i] < block[i - 1]);
    }
    return bad == 0;
  }
};

/// One checksum piece of an array in the mapped file, the unit of parallel work when reading.
struct piece_task {
  std::uint64_t offset;  // in the file
  std::uint64_t bytes;
  std::size_t array;     // index into the array table
  std::size_t slot;      // position of its hash in the chain
};

/// One array of the file: where it lies, its element size and the rule it must satisfy.
struct array_entry {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  std::uint32_t element_bytes = 8;
  array_rule<std::uint64_t> rule64;
  array_rule<std::uint32_t> rule32;
};

constexpr std::uint64_t check_block_bytes = 1 << 16;  // hashed, then checked while in L1/L2

/// Hashes one piece and checks its elements against the array's rule, block by block so each
/// block is read from memory once. `base` is the start of the mapped file.
bool hash_and_check(const unsigned char* base, const array_entry& a, const piece_task& t, std::uint64_t& hash) {
  piece_hasher hasher;
  bool valid = true;
  for (std::uint64_t at = 0; at < t.bytes; at += check_block_bytes) {
    const std::uint64_t block = std::min(check_block_bytes, t.bytes - at);
    const unsigned char* bytes = base + t.offset + at;
    hasher.update(bytes, block);
    const bool first_of_array = t.offset + at == a.offset;
    if (a.element_bytes == 8) {
      const auto* e = reinterpret_cast<const std::uint64_t*>(bytes);
      valid = a.rule64.holds(e, block / 8, first_of_array ? nullptr : e - 1) && valid;
    } else {
      const auto* e = reinterpret_cast<const std::uint32_t*>(bytes);
      valid = a.rule32.holds(e, block / 4, first_of_array ? nullptr : e - 1) && valid;
    }
  }
  hash = hasher.finish();
  return valid;
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

  const csr_graph& g = graph;
  const std::vector<segment> segments = {
      {&header, sizeof header},      {model.data(), model.size()},   segment_of(g.in_offsets),
      segment_of(g.in_sources),      segment_of(g.in_thresholds),    segment_of(g.out_offsets),
      segment_of(g.out_targets),     segment_of(g.out_edge_ids),     segment_of(g.original_ids)};
  const std::uint64_t checksum = segments_checksum(segments);

  // A regular file (or a new one) is replaced by rename: a process that has the old file mapped
  // (a loaded graph, possibly `graph` itself) keeps the old bytes instead of seeing them truncated.
  // Anything else (a device, a pipe) is written in place.
  // A symbolic link is followed: its target is replaced and the link kept.
  std::string target = path;
  std::error_code no_link;
  if (std::filesystem::is_symlink(path, no_link)) {
    std::error_code dangling;
    const auto resolved = std::filesystem::canonical(path, dangling);
    if (!dangling) target = resolved.string();
  }
  struct stat st{};
  const bool replace = ::stat(target.c_str(), &st) != 0 || S_ISREG(st.st_mode);
  const std::string written = replace ? target + ".tmp." + std::to_string(::getpid()) : target;
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(written.c_str(), "wb"), &std::fclose);
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
  ok = ok && (!replace || std::rename(written.c_str(), target.c_str()) == 0);
  if (!ok) {
    const int saved = errno;
    if (replace) std::remove(written.c_str());
    errno = saved;
  }
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
  // The whole file, mapped privately: the graph's arrays view it (no copy), and it lives as long
  // as any of them.
  const auto file = std::make_shared<mapped_file>(fd.get(), expected, path);
  const unsigned char* base = file->data();
  file->populate(0, std::min<std::uint64_t>(expected, 1 << 16));
  std::array<char, 8> stored_end{};
  std::uint64_t stored_checksum = 0;
  std::memcpy(&stored_checksum, base + expected - trailer_bytes, 8);
  std::memcpy(stored_end.data(), base + expected - 8, 8);
  if (stored_end != end_magic) throw input_error(path, 0, "corrupt binary graph trailer");
  const std::uint64_t model_bytes = header.weight_model_bytes;
  std::string model(reinterpret_cast<const char*>(base) + sizeof header, model_bytes);

  // The seven arrays in file order, then their checksum pieces: the chain of piece hashes runs
  // header, model, its padding, then for each array its pieces and its padding.
  using r32 = array_rule<std::uint32_t>;
  using r64 = array_rule<std::uint64_t>;
  std::array<array_entry, 7> arrays;
  const std::array<std::uint64_t, 7> counts = {n + 1, m, m, n + 1, m, m, n};
  const std::array<std::uint32_t, 7> element_bytes = {8, 4, 4, 8, 4, 8, 8};
  arrays[0].rule64 = r64{r64::non_decreasing};
  arrays[1].rule32 = r32{r32::below, n};
  arrays[3].rule64 = r64{r64::non_decreasing};
  arrays[4].rule32 = r32{r32::below, n};
  arrays[5].rule64 = r64{r64::below, m};
  std::vector<piece_task> tasks;
  std::vector<std::uint64_t> chain_hashes;  // filled in place by the tasks
  bool padding_zero = true;
  auto add_padding = [&](std::uint64_t end, std::uint64_t bytes) {
    const std::uint64_t pad = padded(bytes) - bytes;
    if (pad == 0) return;
    for (std::uint64_t i = 0; i < pad; ++i) padding_zero = padding_zero && base[end + i] == 0;
    chain_hashes.push_back(padding_hash(bytes));
  };
  chain_hashes.push_back(piece_hash(base, sizeof header));
  if (model_bytes > 0) {
    chain_hashes.push_back(piece_hash(base + sizeof header, model_bytes));
    add_padding(sizeof header + model_bytes, model_bytes);
  }
  std::uint64_t offset = sizeof header + padded(model_bytes);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    auto& a = arrays[i];
    a.offset = offset;
    a.count = counts[i];
    a.element_bytes = element_bytes[i];
    const std::uint64_t bytes = a.count * a.element_bytes;
    for (std::uint64_t at = 0; at < bytes; at += checksum_piece) {
      tasks.push_back({offset + at, std::min(checksum_piece, bytes - at), i, chain_hashes.size()});
      chain_hashes.push_back(0);
    }
    add_padding(offset + bytes, bytes);
    offset += padded(bytes);
  }

  // Pieces in parallel, largest first (only the last piece of an array is shorter than 4 MiB).
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tasks[a].bytes > tasks[b].bytes; });
  bool valid = true;
  const auto count = static_cast<std::int64_t>(order.size());
#pragma omp parallel for schedule(dynamic, 1) reduction(&& : valid) if (expected > (std::uint64_t{1} << 20))
  for (std::int64_t k = 0; k < count; ++k) {
    const piece_task& t = tasks[order[static_cast<std::size_t>(k)]];
    file->populate(t.offset, t.bytes);
    valid = hash_and_check(base, arrays[t.array], t, chain_hashes[t.slot]) && valid;
  }
  std::uint64_t checksum = checksum_seed;
  for (const std::uint64_t h : chain_hashes) checksum = chain(checksum, h);
  if (!padding_zero || checksum != stored_checksum) throw input_error(path, 0, "corrupt binary graph: checksum mismatch");

  csr_graph g;
  g.num_vertices = static_cast<std::uint32_t>(n);
  g.num_edges = m;
  // Writable views: the mapping is private, so writes (new thresholds) copy pages, never the file.
  auto* writable = file->data();
  auto view64 = [&](std::size_t i) {
    return mapped_vector<std::uint64_t>::view(file, reinterpret_cast<std::uint64_t*>(writable + arrays[i].offset),
                                              arrays[i].count);
  };
  auto view32 = [&](std::size_t i) {
    return mapped_vector<std::uint32_t>::view(file, reinterpret_cast<std::uint32_t*>(writable + arrays[i].offset),
                                              arrays[i].count);
  };
  g.in_offsets = view64(0);
  g.in_sources = view32(1);
  g.in_thresholds = view32(2);
  g.out_offsets = view64(3);
  g.out_targets = view32(4);
  g.out_edge_ids = view64(5);
  g.original_ids = view64(6);
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
