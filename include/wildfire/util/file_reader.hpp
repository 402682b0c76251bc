// Reads a whole file into memory, decompressing gzip transparently (zlib), with clear errors.
#pragma once

#include <string>

namespace wildfire {

/// The file's bytes (decompressed when it is gzip). Throws input_error naming the file when it is
/// missing, unreadable or a corrupt gzip stream.
std::string read_file_bytes(const std::string& path);

/// True if the file starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

}  // namespace wildfire
