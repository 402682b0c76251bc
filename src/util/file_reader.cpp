// gzread handles plain and gzip files alike; we read in large blocks and check every error path.
#include "wildfire/util/file_reader.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "wildfire/error.hpp"

namespace wildfire {

bool is_gzip_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  return std::fread(magic, 1, 2, f.get()) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::string read_file_bytes(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> probe(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!probe) throw input_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(::fileno(probe.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw input_error(path, 0, "is a directory, not a graph file");
  }
  // Pipes and other streams go through gzread, which reads them sequentially (plain or gzip);
  // probing their magic bytes first would consume them.
  const bool regular = S_ISREG(info.st_mode);
  std::string bytes;
  if (regular && !is_gzip_file(path)) {
    std::fseek(probe.get(), 0, SEEK_END);
    const long size = std::ftell(probe.get());
    std::fseek(probe.get(), 0, SEEK_SET);
    if (size < 0) throw input_error(path, 0, "cannot determine file size");
    bytes.resize(static_cast<std::size_t>(size));
    if (size > 0 && std::fread(bytes.data(), 1, bytes.size(), probe.get()) != bytes.size()) {
      throw input_error(path, 0, "read failed");
    }
    return bytes;
  }
  // zlib reads through a duplicate of the descriptor already open: reopening a pipe by name could
  // wait forever for a writer that has already written and gone.
  const int fd = ::dup(::fileno(probe.get()));
  probe.reset();
  if (fd < 0) throw input_error(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzdopen(fd, "rb"), &gzclose);
  if (!gz) ::close(fd);
  if (!gz) throw input_error(path, 0, "cannot open gzip file");
  gzbuffer(gz.get(), 1 << 20);
  constexpr std::size_t block = 1 << 22;
  for (;;) {
    const std::size_t old = bytes.size();
    bytes.resize(old + block);
    const int got = gzread(gz.get(), bytes.data() + old, static_cast<unsigned>(block));
    if (got < 0) {
      int code = 0;
      std::string message = gzerror(gz.get(), &code);
      // zlib prefixes the path; the error names the file already.
      if (message.rfind(path + ": ", 0) == 0) message.erase(0, path.size() + 2);
      throw input_error(path, 0, "corrupt gzip data: " + message);
    }
    bytes.resize(old + static_cast<std::size_t>(got));
    if (got == 0) break;
  }
  int code = 0;
  gzerror(gz.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) throw input_error(path, 0, "corrupt gzip data");
  return bytes;
}

}  // namespace wildfire
