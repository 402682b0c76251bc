// ustar parsing with a bounds check on every field and member (POSIX.1-1988 header layout).
#include "twitter/tar_archive.hpp"

#include <cstdint>

#include "wildfire/error.hpp"

namespace wildfire::twitter::detail {

namespace {

constexpr std::size_t block = 512;

std::string_view c_string(std::string_view field) {
  const std::size_t end = field.find('\0');
  return end == std::string_view::npos ? field : field.substr(0, end);
}

/// Octal number field (NUL or blank terminated); -1 when it is not one.
std::int64_t octal(std::string_view field) {
  std::int64_t value = 0;
  bool any = false;
  for (char c : field) {
    if (c == '\0' || c == ' ') {
      if (any) break;
      continue;
    }
    if (c < '0' || c > '7' || value > (std::int64_t{1} << 55)) return -1;
    value = value * 8 + (c - '0');
    any = true;
  }
  return any ? value : 0;
}

}  // namespace

std::vector<tar_entry> read_tar_entries(std::string_view bytes, const std::string& name) {
  std::vector<tar_entry> entries;
  std::string long_name;
  std::size_t pos = 0;
  while (pos + block <= bytes.size()) {
    const std::string_view header = bytes.substr(pos, block);
    if (header.find_first_not_of('\0') == std::string_view::npos) break;  // end-of-archive block
    const std::int64_t checksum = octal(header.substr(148, 8));
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < block; ++i) {
      sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(header[i]);
    }
    if (checksum != sum) throw input_error(name, 0, "tar header checksum mismatch at byte " + std::to_string(pos));
    const std::int64_t size = octal(header.substr(124, 12));
    if (size < 0) throw input_error(name, 0, "tar size field is not octal at byte " + std::to_string(pos));
    const std::size_t data_start = pos + block;
    if (static_cast<std::uint64_t>(size) > bytes.size() - data_start) {
      throw input_error(name, 0, "tar member at byte " + std::to_string(pos) + " runs past the end of the archive");
    }
    const std::string_view data = bytes.substr(data_start, static_cast<std::size_t>(size));
    const char type = header[156];
    if (type == 'L') {
      long_name = std::string(c_string(data));  // GNU: the next member's full path
    } else if (type == '0' || type == '\0' || type == '7') {
      std::string path;
      if (!long_name.empty()) {
        path = std::move(long_name);
        long_name.clear();
      } else {
        const std::string_view prefix = header.substr(257, 5) == "ustar" ? c_string(header.substr(345, 155)) : "";
        path = prefix.empty() ? std::string(c_string(header.substr(0, 100)))
                              : std::string(prefix) + "/" + std::string(c_string(header.substr(0, 100)));
      }
      entries.push_back({std::move(path), data});
    } else {
      long_name.clear();  // directories, links and pax headers carry no tree data
    }
    pos = data_start + (static_cast<std::size_t>(size) + block - 1) / block * block;
  }
  return entries;
}

}  // namespace wildfire::twitter::detail
