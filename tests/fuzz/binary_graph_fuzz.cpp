// libFuzzer target over the .wfg reader: any byte string either loads as a valid CSR or throws
// wildfire::error (the reader's checks must make crafted headers and arrays safe).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wildfire/error.hpp"
#include "wildfire/graph/binary_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wildfire;
  static const std::string path = "/tmp/wf_binary_graph_fuzz_" + std::to_string(::getpid()) + ".wfg";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!written) return 0;
  try {
    const csr_graph g = read_binary_graph(path);
    // A graph that loads must be safe to traverse: every index in range.
    for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
      for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
        if (g.in_sources.at(j) >= g.num_vertices) std::abort();
      }
      for (std::uint64_t k = g.out_offsets[v]; k < g.out_offsets[v + 1]; ++k) {
        if (g.out_targets.at(k) >= g.num_vertices || g.out_edge_ids.at(k) >= g.num_edges) std::abort();
      }
    }
  } catch (const error&) {
  }
  return 0;
}
