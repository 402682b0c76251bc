// The backend flags every sampling command shares: --device, -p/--threads, --sampler, --colours,
// --memory-budget and --seed, parsed into a backend_config.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "wildfire/backend.hpp"

namespace wildfire::cli {

struct backend_cli_options {
  std::string device = "auto";
  int threads = 0;
  std::string sampler = "auto";
  std::uint32_t colours = 64;
  std::string memory_budget;  // bytes, or with a K/M/G/T suffix (powers of 1024); empty = available
  std::uint64_t seed = 0;
};

/// Registers the flags on `cmd`, writing into `options` (which must outlive the parse).
void add_backend_options(CLI::App& cmd, backend_cli_options& options);

/// The backend_config the flags describe. Throws config_error naming the bad flag.
backend_config to_backend_config(const backend_cli_options& options);

/// Parses "4096", "512M", "2G", ... (K/M/G/T are powers of 1024). Throws config_error("--memory-budget").
std::uint64_t parse_byte_size(const std::string& text);

/// Threads a run with `config` uses on the CPU (the OpenMP default when 0).
int effective_threads(const backend_config& config);

}  // namespace wildfire::cli
