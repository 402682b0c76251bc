// A private, copy-on-write memory mapping of a file: the storage a binary graph's arrays view
// (mapped_vector), so loading a .wfg file copies nothing (docs/formats.md).
#pragma once

#include <cstdint>
#include <string>

namespace wildfire {

/// The first `size()` bytes of a file, readable and writable in memory. Mapped with MAP_PRIVATE:
/// writes are copy-on-write and stay in this process; pages nobody writes are the page cache's own
/// (no copy, shared with other processes mapping the file). Where the file cannot be mapped (a
/// pipe, some special file systems), its bytes are read into anonymous memory instead, behind the
/// same interface. Unmapped on destruction.
///
/// As with any file mapping, the file must not be truncated or rewritten in place while mapped
/// (pages not yet written would show the new bytes, or fault past a new end). Replacing it by
/// rename, as write_binary_graph does, is safe: the mapping keeps the old file.
class mapped_file {
 public:
  /// Maps `bytes` bytes of the open file `fd` from its start. Throws input_error naming `path`
  /// when the file can be neither mapped nor read.
  mapped_file(int fd, std::uint64_t bytes, const std::string& path);
  ~mapped_file();
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;

  unsigned char* data() const noexcept { return data_; }
  std::uint64_t size() const noexcept { return size_; }
  /// False when the bytes were read into anonymous memory instead.
  bool file_backed() const noexcept { return file_backed_; }

  /// Maps the pages of [offset, offset + bytes) now with one call instead of a fault per page
  /// (MADV_POPULATE_READ, Linux 5.14+; nothing elsewhere). Pages stay shared with the page cache.
  /// Several threads may populate disjoint or overlapping ranges at once.
  void populate(std::uint64_t offset, std::uint64_t bytes) const noexcept;

 private:
  unsigned char* data_ = nullptr;
  std::uint64_t size_ = 0;
  bool file_backed_ = false;
};

}  // namespace wildfire
