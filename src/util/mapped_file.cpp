// Private file mappings with a read fallback (see mapped_file.hpp).
#include "wildfire/util/mapped_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "wildfire/error.hpp"

namespace wildfire {

mapped_file::mapped_file(int fd, std::uint64_t bytes, const std::string& path) : size_(bytes) {
  if (bytes == 0) return;
  // Readable and writable but private: a read fault maps the page cache's page read-only (no
  // copy), and only a write copies that one page. (MAP_POPULATE is not used: on a writable private
  // mapping it would write-fault, i.e. copy, every page; populate() reads them in instead.)
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (mapped != MAP_FAILED) {
    data_ = static_cast<unsigned char*>(mapped);
    file_backed_ = true;
    return;
  }
  const int map_errno = errno;
  mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    throw input_error(path, 0, std::string("cannot map file: ") + std::strerror(map_errno));
  }
  data_ = static_cast<unsigned char*>(mapped);
  for (std::uint64_t at = 0; at < bytes;) {
    const ssize_t got = ::pread(fd, data_ + at, std::min<std::uint64_t>(bytes - at, 1ULL << 30), static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const std::string reason = got < 0 ? std::strerror(errno) : "unexpected end of file";
      ::munmap(data_, bytes);
      data_ = nullptr;
      throw input_error(path, 0, "read failed: " + reason);
    }
    at += static_cast<std::uint64_t>(got);
  }
}

mapped_file::~mapped_file() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

void mapped_file::populate([[maybe_unused]] std::uint64_t offset, [[maybe_unused]] std::uint64_t bytes) const noexcept {
#ifdef MADV_POPULATE_READ
  if (!file_backed_ || offset >= size_ || bytes == 0) return;
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t first = offset & ~(page - 1), last = std::min(size_, offset + bytes);
  // Advice only: an old kernel answers EINVAL and the pages fault in as they are read.
  ::madvise(data_ + first, last - first, MADV_POPULATE_READ);
#endif
}

}  // namespace wildfire
