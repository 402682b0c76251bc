// Shared backend flags (see backend_options.hpp).
#include "backend_options.hpp"

#include <omp.h>

#include <cctype>

#include "wildfire/error.hpp"

namespace wildfire::cli {

void add_backend_options(CLI::App& cmd, backend_cli_options& options) {
  cmd.add_option("--device", options.device, "Where to sample: cpu, gpu or auto")->capture_default_str();
  cmd.add_option("-p,--threads", options.threads, "CPU threads (0: all cores)")->capture_default_str();
  cmd.add_option("--sampler", options.sampler, "Traversal: auto, fused, unfused (CPU) or warp (GPU)")
      ->capture_default_str();
  cmd.add_option("--colours", options.colours, "Samples per fused traversal: a multiple of 32, at most 1024")
      ->capture_default_str();
  cmd.add_option("--memory-budget", options.memory_budget,
                 "Most memory the RR sets may use, e.g. 8G (default: what is available)");
  cmd.add_option("--seed", options.seed, "Run seed: the same seed gives the same sets and seeds")->capture_default_str();
}

std::uint64_t parse_byte_size(const std::string& text) {
  if (text.empty()) return 0;
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    throw config_error("--memory-budget", "expected a byte count such as 512M or 8G, got \"" + text + "\"");
  }
  const std::string suffix = text.substr(used);
  int shift = 0;
  if (suffix.size() > 1 && !(suffix.size() == 2 && (suffix[1] == 'B' || suffix[1] == 'b')))
    throw config_error("--memory-budget", "unknown size suffix \"" + suffix + "\"");
  if (!suffix.empty()) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'B': shift = 0; break;
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: throw config_error("--memory-budget", "unknown size suffix \"" + suffix + "\"");
    }
  }
  return static_cast<std::uint64_t>(value) << shift;
}

backend_config to_backend_config(const backend_cli_options& options) {
  backend_config config;
  config.device = parse_device_kind(options.device);
  WF_EXPECTS(options.threads >= 0, "-p", "the thread count cannot be negative");
  config.num_threads = options.threads;
  config.traversal = parse_traversal_kind(options.sampler);
  WF_EXPECTS(options.colours >= 32 && options.colours <= 1024 && options.colours % 32 == 0, "--colours",
             "colours must be a multiple of 32 between 32 and 1024, got " + std::to_string(options.colours));
  config.colours = options.colours;
  config.memory_budget_bytes = parse_byte_size(options.memory_budget);
  return config;
}

int effective_threads(const backend_config& config) {
  return config.num_threads > 0 ? config.num_threads : omp_get_max_threads();
}

}  // namespace wildfire::cli
