// libFuzzer target over the edge-list text parser: any input either parses into a consistent edge
// list or throws wildfire::error; never a crash, hang, sanitizer report or other exception.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "wildfire/error.hpp"
#include "wildfire/graph/edge_list_parser.hpp"

namespace {

/// Aborts (a finding) when an invariant of a successful parse fails.
void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace wildfire;
  if (size == 0) return 0;
  // The first byte picks the options; the rest is the text.
  const std::uint8_t control = data[0];
  edge_list_parse_options options;
  options.format = static_cast<text_format>(control % 5);
  options.skip_invalid_lines = (control & 8) != 0;
  options.num_threads = (control & 16) != 0 ? 2 : 1;
  options.file_name = "fuzz";
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const parsed_edge_list p = parse_edge_list(text, options);
    check(p.sources.size() == p.targets.size());
    check(p.probabilities.empty() || p.probabilities.size() == p.sources.size());
    for (const double q : p.probabilities) check(q >= 0.0 && q <= 1.0);
    for (std::size_t i = 0; i < p.size(); ++i) check(p.sources[i] <= p.max_id && p.targets[i] <= p.max_id);
    if (p.has_counts_header) {
      check(p.declared_vertices <= 0xffffffffULL);
      for (std::size_t i = 0; i < p.size(); ++i) {
        check(p.sources[i] < p.declared_vertices && p.targets[i] < p.declared_vertices);
      }
      check(p.size() == p.declared_edges || p.size() + p.invalid_lines_skipped == p.declared_edges);
    } else {
      check(p.size() > 0);
    }
  } catch (const error&) {
    // Rejected input: the expected outcome for most fuzz inputs.
  }
  return 0;
}
