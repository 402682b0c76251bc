// A small ustar reader over bytes already in memory (a decompressed .tar.gz), enough for the
// Twitter15/16 archives: regular files with their paths, GNU long names, pax headers skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wildfire::twitter::detail {

struct tar_entry {
  std::string path;
  std::string_view data;  // points into the archive bytes
};

/// The regular files of the archive, in archive order. Throws input_error(archive_name, 0, ...)
/// on a bad header checksum, a size field that is not octal or a member running past the end.
std::vector<tar_entry> read_tar_entries(std::string_view bytes, const std::string& archive_name);

}  // namespace wildfire::twitter::detail
