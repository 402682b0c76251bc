// Line and field splitting for the Twitter input readers: every line keeps its 1-based number so
// errors name file:line; fields are separated by blanks and/or commas.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {

/// Calls fn(line_number, line) for every line without its terminator (LF or CRLF), skipping blank
/// lines and lines starting with '#'.
template <class Fn>
void for_each_line(std::string_view bytes, Fn&& fn) {
  std::uint64_t number = 0;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    fn(number, line);
  }
}

/// Splits on blanks, tabs and commas (empty fields between separators are skipped).
inline std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t,", pos);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find_first_of(" \t,", start);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(start, end - start));
    pos = end;
  }
  return fields;
}

inline std::string quoted(std::string_view text) {
  std::string s = "\"";
  s.append(text.substr(0, 60));
  if (text.size() > 60) s.append("...");
  return s + "\"";
}

inline std::uint64_t parse_index(std::string_view field, const std::string& file, std::uint64_t line,
                                 const char* what) {
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || ptr != field.data() + field.size()) {
    throw input_error(file, line, std::string("expected ") + what + " (a non-negative integer), got " + quoted(field));
  }
  return value;
}

inline double parse_number(std::string_view field, const std::string& file, std::uint64_t line, const char* what) {
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || ptr != field.data() + field.size() || !(value >= 0.0) || value > 1e300) {
    throw input_error(file, line, std::string("expected ") + what + " (a non-negative number), got " + quoted(field));
  }
  return value;
}

/// Any finite number (Twitter15 trees carry a few negative delays).
inline double parse_real(std::string_view field, const std::string& file, std::uint64_t line, const char* what) {
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc{} || ptr != field.data() + field.size() || !(value > -1e300 && value < 1e300)) {
    throw input_error(file, line, std::string("expected ") + what + " (a number), got " + quoted(field));
  }
  return value;
}

}  // namespace wildfire::twitter::detail
