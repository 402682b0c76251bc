// Edge-list text parser. A short sequential prologue reads the first data lines (header row,
// `n m` line, column count); the body is then cut into newline-aligned chunks that OpenMP threads
// parse with hand-written digit loops. Chunks are concatenated in order, so the result and the
// first error reported do not depend on the thread count.
#include "wildfire/graph/edge_list_parser.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "wildfire/error.hpp"
#include "parallel_grain.hpp"

namespace wildfire {
namespace {

constexpr int max_fields = 4;

struct line_fields {
  int count = 0;  // may exceed max_fields; only the first max_fields are kept
  std::string_view field[max_fields];
};

inline bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

/// Splits one line (without '\n' and trailing '\r') into fields separated by blanks or by one
/// comma with optional blanks around it. An empty field between commas is kept (as empty).
inline void split_fields(const char* p, const char* end, line_fields& out) noexcept {
  out.count = 0;
  while (p < end && is_blank(*p)) ++p;
  if (p == end) return;
  for (;;) {
    const char* start = p;
    while (p < end && !is_blank(*p) && *p != ',') ++p;
    if (out.count < max_fields) out.field[out.count] = std::string_view(start, static_cast<std::size_t>(p - start));
    ++out.count;
    while (p < end && is_blank(*p)) ++p;
    if (p == end) return;
    if (*p == ',') {
      ++p;
      while (p < end && is_blank(*p)) ++p;
      if (p == end) {  // trailing comma: an empty last field
        if (out.count < max_fields) out.field[out.count] = std::string_view();
        ++out.count;
        return;
      }
    }
  }
}

enum class id_status { ok, empty, non_numeric, overflow };

/// Unsigned decimal of at most 20 digits that must fill the whole field.
inline id_status parse_id(std::string_view text, std::uint64_t& value) noexcept {
  if (text.empty()) return id_status::empty;
  std::uint64_t v = 0;
  for (const char c : text) {
    const unsigned digit = static_cast<unsigned char>(c) - static_cast<unsigned>('0');
    if (digit > 9) return id_status::non_numeric;
    if (__builtin_mul_overflow(v, std::uint64_t{10}, &v) || __builtin_add_overflow(v, digit, &v)) {
      return id_status::overflow;
    }
  }
  value = v;
  return id_status::ok;
}

/// A field quoted in a message: at most 40 characters, non-printable bytes shown as '?'.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const char c = text[i];
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  if (text.size() > 40) out += "...";
  return out + "\"";
}

bool is_comment_or_blank(const char* p, const char* end) noexcept {
  while (p < end && is_blank(*p)) ++p;
  return p == end || *p == '#' || *p == '%';
}

/// [begin, end) of the line starting at `p`, without '\n' and a trailing '\r'; `next` is the
/// start of the following line.
inline const char* line_end(const char* p, const char* text_end, const char*& next) noexcept {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(text_end - p));
  const char* e = nl ? static_cast<const char*>(nl) : text_end;
  next = nl ? e + 1 : text_end;
  if (e > p && e[-1] == '\r') --e;
  return e;
}

/// What the body lines must look like, fixed by the prologue.
struct body_shape {
  int columns = 2;                 // 2 (u v) or 3 (u v p)
  bool bounded = false;            // ids must be below id_bound (the `n` of a `n m` line)
  std::uint64_t id_bound = 0;
};

struct line_problem {
  std::string message;
  bool skippable = true;  // malformed-line problems may be skipped; probability range may not
};

/// Parses one data line into (u, v[, p]); returns the problem, if any.
std::optional<line_problem> parse_edge_line(const line_fields& f, const body_shape& shape, std::uint64_t& u,
                                            std::uint64_t& v, double& p) {
  std::uint64_t* ids[2] = {&u, &v};
  for (int c = 0; c < std::min(f.count, 2); ++c) {
    switch (parse_id(f.field[c], *ids[c])) {
      case id_status::ok: break;
      case id_status::empty: return line_problem{"missing column: empty vertex id field"};
      case id_status::non_numeric:
        return line_problem{"non-numeric vertex id " + quoted(f.field[c]) + ", expected an unsigned integer"};
      case id_status::overflow: return line_problem{"vertex id " + quoted(f.field[c]) + " exceeds 2^64-1"};
    }
    if (shape.bounded && *ids[c] >= shape.id_bound) {
      return line_problem{"vertex id " + std::to_string(*ids[c]) + " is not below the declared vertex count " +
                              std::to_string(shape.id_bound),
                          false};
    }
  }
  if (f.count < shape.columns) {
    return line_problem{shape.columns == 3 && f.count == 2
                            ? std::string("missing column: expected `source target probability`, got 2 fields")
                            : "missing column: expected " + std::to_string(shape.columns) + " fields, got " +
                                  std::to_string(f.count)};
  }
  if (f.count > shape.columns) {
    return line_problem{"unexpected extra column: expected " + std::to_string(shape.columns) + " fields, got " +
                        std::to_string(f.count)};
  }
  if (shape.columns == 3) {
    const std::string_view t = f.field[2];
    if (t.empty()) return line_problem{"missing column: empty probability field"};
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), p);
    if (ec != std::errc() || ptr != t.data() + t.size()) {
      return line_problem{"non-numeric probability " + quoted(t)};
    }
    if (!(p >= 0.0 && p <= 1.0)) {
      return line_problem{"probability " + std::string(t) + " is outside [0, 1]", false};
    }
  }
  return std::nullopt;
}

/// Up to 19 digits (cannot overflow); false when there are none or more.
inline bool fast_digits(const char*& q, const char* e, std::uint64_t& x) noexcept {
  const char* start = q;
  std::uint64_t v = 0;
  while (q < e && static_cast<unsigned>(*q - '0') <= 9) v = v * 10 + static_cast<unsigned>(*q++ - '0');
  const auto n = q - start;
  x = v;
  return n > 0 && n <= 19;
}

/// One blank or comma, then blanks; false unless a field follows.
inline bool fast_separator(const char*& q, const char* e) noexcept {
  if (q >= e || (!is_blank(*q) && *q != ',')) return false;
  ++q;
  while (q < e && is_blank(*q)) ++q;
  return q < e;
}

/// The hot path for well-formed lines; false sends the line to the general (slow) path, which
/// also produces every error message.
inline bool parse_edge_line_fast(const char* q, const char* e, const body_shape& shape, std::uint64_t& u,
                                 std::uint64_t& v, double& p) noexcept {
  while (q < e && is_blank(*q)) ++q;
  if (!fast_digits(q, e, u) || !fast_separator(q, e) || !fast_digits(q, e, v)) return false;
  if (shape.columns == 3) {
    if (!fast_separator(q, e)) return false;
    const char* stop = q;
    while (stop < e && !is_blank(*stop) && *stop != ',') ++stop;
    const auto [ptr, ec] = std::from_chars(q, stop, p);
    if (ec != std::errc() || ptr != stop || !(p >= 0.0 && p <= 1.0)) return false;
    q = stop;
  }
  while (q < e && is_blank(*q)) ++q;
  if (q != e) return false;
  return !shape.bounded || (u < shape.id_bound && v < shape.id_bound);
}

struct chunk_result {
  std::vector<std::uint64_t> sources, targets;
  std::vector<double> probabilities;
  std::uint64_t skipped = 0;
  std::uint64_t max_id = 0;
  bool failed = false;
  std::size_t error_offset = 0;  // byte offset of the failing line in the whole text
  std::string error_message;
};

void parse_chunk(const char* text, std::size_t begin, std::size_t end, const body_shape& shape, bool skip_invalid,
                 chunk_result& out) {
  const char* p = text + begin;
  const char* stop = text + end;
  // About 12 bytes per edge line in typical SNAP files; reserve generously to avoid regrowth.
  const std::size_t guess = (end - begin) / 10 + 16;
  out.sources.reserve(guess);
  out.targets.reserve(guess);
  if (shape.columns == 3) out.probabilities.reserve(guess);
  line_fields f;
  std::uint64_t max_id = 0;
  while (p < stop) {
    const char* next = nullptr;
    const char* e = line_end(p, stop, next);
    std::uint64_t u = 0, v = 0;
    double prob = 0.0;
    const bool fast = parse_edge_line_fast(p, e, shape, u, v, prob);
    if (!fast) {
      if (is_comment_or_blank(p, e)) {
        p = next;
        continue;
      }
      split_fields(p, e, f);
      if (auto problem = parse_edge_line(f, shape, u, v, prob)) {
        if (skip_invalid && problem->skippable) {
          ++out.skipped;
          p = next;
          continue;
        }
        out.failed = true;
        out.error_offset = static_cast<std::size_t>(p - text);
        out.error_message = std::move(problem->message);
        return;
      }
    }
    out.sources.push_back(u);
    out.targets.push_back(v);
    if (shape.columns == 3) out.probabilities.push_back(prob);
    max_id = std::max(max_id, std::max(u, v));
    p = next;
  }
  out.max_id = max_id;
}

std::uint64_t line_number_at(std::string_view text, std::size_t offset) {
  return 1 + static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

bool all_numeric(const line_fields& f) {
  std::uint64_t ignored = 0;
  for (int c = 0; c < std::min(f.count, max_fields); ++c) {
    if (parse_id(f.field[c], ignored) != id_status::ok) {
      double d = 0;
      const auto [ptr, ec] = std::from_chars(f.field[c].data(), f.field[c].data() + f.field[c].size(), d);
      if (ec != std::errc() || ptr != f.field[c].data() + f.field[c].size() || f.field[c].empty()) return false;
    }
  }
  return true;
}

}  // namespace

text_format parse_text_format(const std::string& name) {
  if (name == "auto") return text_format::automatic;
  if (name == "snap") return text_format::snap;
  if (name == "weighted") return text_format::weighted;
  if (name == "nm-header") return text_format::nm_header;
  if (name == "csv") return text_format::csv;
  throw config_error("--format", "unknown text format \"" + name + "\", expected auto, snap, weighted, nm-header or csv");
}

std::string to_string(text_format format) {
  switch (format) {
    case text_format::snap: return "snap";
    case text_format::weighted: return "weighted";
    case text_format::nm_header: return "nm-header";
    case text_format::csv: return "csv";
    default: return "auto";
  }
}

parsed_edge_list parse_edge_list(std::string_view text, const edge_list_parse_options& options) {
  const std::string& file = options.file_name;
  parsed_edge_list result;
  const char* const begin = text.data();
  const char* const end = text.data() + text.size();
  auto fail = [&](const char* line_start, const std::string& message) -> void {
    throw input_error(file, line_number_at(text, static_cast<std::size_t>(line_start - begin)), message);
  };

  // Prologue: header row or `n m` line, then the first body line fixes the column count.
  text_format format = options.format;
  bool header_candidate = false;  // auto: a 2-field first line that may be `n m` or an edge
  std::uint64_t header_n = 0, header_m = 0;
  const char* candidate_line = nullptr;
  bool header_seen = false;  // the first data line has been classified
  body_shape shape;
  const char* body_start = end;
  line_fields f;
  for (const char* p = begin; p < end;) {
    const char* next = nullptr;
    const char* e = line_end(p, end, next);
    if (is_comment_or_blank(p, e)) {
      p = next;
      continue;
    }
    split_fields(p, e, f);
    if (!header_seen) {
      header_seen = true;
      const bool has_comma = std::memchr(p, ',', static_cast<std::size_t>(e - p)) != nullptr;
      if ((format == text_format::csv || (format == text_format::automatic && has_comma)) && !all_numeric(f)) {
        format = text_format::csv;  // a header row such as `id_1,id_2`
        p = next;
        continue;
      }
      if (format == text_format::nm_header || format == text_format::automatic) {
        const bool two_ids = f.count == 2 && parse_id(f.field[0], header_n) == id_status::ok &&
                             parse_id(f.field[1], header_m) == id_status::ok;
        if (format == text_format::nm_header) {
          if (!two_ids) fail(p, "expected the `vertices edges` counts line, got " + std::to_string(f.count) + " fields");
          if (header_n > (std::uint64_t{1} << 32) - 1) fail(p, "declared vertex count " + std::to_string(header_n) + " exceeds 2^32-1");
          p = next;
          continue;
        }
        if (two_ids) {
          header_candidate = true;
          candidate_line = p;
          p = next;
          continue;
        }
      }
    }
    // The first body line.
    std::uint64_t u = 0, v = 0;
    double prob = 0;
    shape.columns = format == text_format::weighted ? 3 : std::clamp(f.count, 2, 3);
    if (auto problem = parse_edge_line(f, shape, u, v, prob)) {
      if (options.skip_invalid_lines && problem->skippable) {
        ++result.invalid_lines_skipped;
        p = next;
        continue;
      }
      fail(p, problem->message);
    }
    body_start = p;
    break;
  }
  if (!header_seen) throw input_error(file, 0, "empty input: no edge lines");

  if (format == text_format::nm_header) {
    shape.bounded = true;
    shape.id_bound = header_n;
  }
  if (format == text_format::automatic) format = shape.columns == 3 ? text_format::weighted : text_format::snap;

  // Body: newline-aligned chunks, parsed in parallel, concatenated in order.
  const std::size_t body_offset = static_cast<std::size_t>(body_start - begin);
  const std::size_t body_bytes = text.size() - body_offset;
  const int threads = options.num_threads > 0 ? options.num_threads : omp_get_max_threads();
  constexpr std::size_t min_chunk_bytes = 1 << 20;
  const std::size_t num_chunks =
      std::max<std::size_t>(1, std::min<std::size_t>(body_bytes / min_chunk_bytes, static_cast<std::size_t>(threads) * 4));
  std::vector<std::size_t> bounds(num_chunks + 1, text.size());
  bounds[0] = body_offset;
  for (std::size_t c = 1; c < num_chunks; ++c) {
    std::size_t at = std::max(bounds[c - 1], body_offset + body_bytes / num_chunks * c);
    const void* nl = at < text.size() ? std::memchr(begin + at, '\n', text.size() - at) : nullptr;
    bounds[c] = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - begin) + 1 : text.size();
  }
  std::vector<chunk_result> chunks(num_chunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (num_chunks > 1)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(num_chunks); ++c) {
    parse_chunk(begin, bounds[c], bounds[c + 1], shape, options.skip_invalid_lines, chunks[c]);
  }
  std::uint64_t body_edges = 0, max_id = 0;
  for (const auto& chunk : chunks) {
    if (chunk.failed) throw input_error(file, line_number_at(text, chunk.error_offset), chunk.error_message);
    body_edges += chunk.sources.size();
    result.invalid_lines_skipped += chunk.skipped;
    max_id = std::max(max_id, chunk.max_id);
  }

  // An undecided 2-field first line is a `n m` header iff it describes the body exactly.
  bool first_line_is_edge = false;
  if (header_candidate) {
    const bool consistent = header_m == body_edges && (body_edges == 0 || max_id < header_n) &&
                            header_n <= (std::uint64_t{1} << 32) - 1;
    if (consistent) {
      format = text_format::nm_header;
    } else if (shape.columns == 3) {  // an edge line without the probability the others have
      if (!options.skip_invalid_lines) {
        fail(candidate_line, "missing column: expected `source target probability`, got 2 fields");
      }
      ++result.invalid_lines_skipped;
    } else {
      first_line_is_edge = true;
      max_id = std::max(max_id, std::max(header_n, header_m));
    }
  }
  if (format == text_format::nm_header) {
    result.has_counts_header = true;
    result.declared_vertices = header_n;
    result.declared_edges = header_m;
    if (body_edges != header_m && body_edges + result.invalid_lines_skipped != header_m) {
      const char* header_line = candidate_line;
      if (header_line == nullptr) {  // explicit --format nm-header: the first data line
        header_line = begin;
        while (true) {
          const char* next = nullptr;
          const char* e = line_end(header_line, end, next);
          if (!is_comment_or_blank(header_line, e)) break;
          header_line = next;
        }
      }
      fail(header_line, "the counts line declares " + std::to_string(header_m) + " edges but " +
                            std::to_string(body_edges) + " edge lines follow");
    }
  }
  const std::uint64_t total = body_edges + (first_line_is_edge ? 1 : 0);
  if (total == 0 && !result.has_counts_header) throw input_error(file, 0, "empty input: no edge lines");

  result.sources.resize(total);
  result.targets.resize(total);
  if (shape.columns == 3) result.probabilities.resize(total);
  std::vector<std::uint64_t> starts(num_chunks + 1, first_line_is_edge ? 1 : 0);
  for (std::size_t c = 0; c < num_chunks; ++c) starts[c + 1] = starts[c] + chunks[c].sources.size();
  if (first_line_is_edge) {
    result.sources[0] = header_n;
    result.targets[0] = header_m;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (num_chunks > 1)
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(num_chunks); ++c) {
    auto& chunk = chunks[c];
    std::copy(chunk.sources.begin(), chunk.sources.end(), result.sources.begin() + static_cast<std::ptrdiff_t>(starts[c]));
    std::copy(chunk.targets.begin(), chunk.targets.end(), result.targets.begin() + static_cast<std::ptrdiff_t>(starts[c]));
    if (shape.columns == 3) {
      std::copy(chunk.probabilities.begin(), chunk.probabilities.end(),
                result.probabilities.begin() + static_cast<std::ptrdiff_t>(starts[c]));
    }
    chunk = chunk_result();  // release as we go
  }
  result.format = format;
  result.max_id = max_id;
  return result;
}

}  // namespace wildfire
