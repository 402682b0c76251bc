// The skeleton that `imm`, `opim` and `simulate` share: load the graph for a diffusion model,
// describe the backend that ran, and finish the JSON (verification, memory, time, metadata).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "backend_options.hpp"
#include "wildfire/algorithms/spread_check.hpp"
#include "wildfire/backend.hpp"
#include "wildfire/graph/csr_graph.hpp"
#include "wildfire/graph/graph_loader.hpp"
#include "wildfire/sampling/sampling_params.hpp"
#include "wildfire/util/resource_usage.hpp"

namespace wildfire::cli {

/// A loaded graph with the backend and sampling parameters of one command.
struct ris_run {
  stopwatch total;
  backend_config config;
  sampling_params params;
  csr_graph graph;
  double load_seconds = 0;
  double context_seconds = 0;  // CUDA context creation (0 on the CPU)
};

/// Parses the model (flag `-d`) and the backend, loads the graph, checks LT in-weights and
/// creates the CUDA context when the run goes to the GPU (timed apart from the load).
ris_run start_ris_run(const graph_load_options& graph, const backend_cli_options& backend, const std::string& model);

/// `-d,--model`, `-o,--output` and, where `verify_worlds` is given, `--verify R`.
void add_ris_run_options(CLI::App& cmd, std::string& model, std::string& output, std::uint64_t* verify_worlds);

/// Device, Sampler, NumThreads and Seed of the run.
void add_backend_json(nlohmann::json& out, const ris_run& run, const std::string& sampler);

/// Times: Load (parse), DeviceContext (CUDA context), Setup (the backend's construction: graph
/// upload and allocations on the GPU), then the command's own `phases`.
nlohmann::json times_json(const ris_run& run, double setup_seconds, const nlohmann::json& phases);

/// Records the verification (if any), peak memory, total time and build metadata, writes the JSON
/// and then reports the verification; a failed check throws after the JSON is written.
void finish_ris_run(nlohmann::json& out, const ris_run& run, const std::optional<spread_check>& check,
                    std::uint64_t verify_worlds, const std::string& output);

}  // namespace wildfire::cli
