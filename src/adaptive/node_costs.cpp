// Node costs: degree-based (the paper's setting), uniform, or read from a file; normalised to (0, 1].
#include "wildfire/adaptive/node_costs.hpp"

#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "wildfire/error.hpp"
#include "wildfire/util/file_reader.hpp"

namespace wildfire::adaptive {

void normalise_costs(std::vector<double>& costs) {
  double largest = 0;
  for (std::size_t v = 0; v < costs.size(); ++v) {
    WF_EXPECTS(std::isfinite(costs[v]) && costs[v] > 0, "--cost",
               "cost of vertex " + std::to_string(v) + " is not a positive finite number");
    largest = std::max(largest, costs[v]);
  }
  for (double& c : costs) c /= largest;
}

std::vector<double> degree_costs(const csr_graph& graph) {
  std::vector<double> costs(graph.num_vertices);
  for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
    costs[v] = 0.01 + 0.01 * static_cast<double>(graph.out_degree(v));
  }
  if (!costs.empty()) normalise_costs(costs);
  return costs;
}

std::vector<double> uniform_costs(const csr_graph& graph) { return std::vector<double>(graph.num_vertices, 1.0); }

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<double> read_costs(const csr_graph& graph, const std::string& path) {
  const std::string bytes = read_file_bytes(path);
  std::unordered_map<std::uint64_t, std::uint32_t> dense_of;
  dense_of.reserve(graph.num_vertices * 2ULL);
  for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
    dense_of.emplace(graph.original_ids.empty() ? v : graph.original_ids[v], v);
  }
  std::vector<double> costs(graph.num_vertices, 0.0);
  std::uint64_t line_number = 0;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    const std::string_view line = trim(std::string_view(bytes).substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#' || line.front() == '%') continue;
    const std::size_t split = line.find_first_of(" \t,");
    if (split == std::string_view::npos) throw input_error(path, line_number, "expected \"id cost\"");
    const std::string_view id_text = trim(line.substr(0, split));
    const std::string id_copy(id_text);
    std::string cost_text(trim(line.substr(split + 1)));
    if (!cost_text.empty() && cost_text.front() == ',') cost_text = std::string(trim(std::string_view(cost_text).substr(1)));
    std::uint64_t id = 0;
    const auto [id_end, id_err] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
    if (id_err != std::errc() || id_end != id_text.data() + id_text.size()) {
      throw input_error(path, line_number, "expected a vertex id, got \"" + id_copy + "\"");
    }
    char* cost_end = nullptr;
    const double cost = std::strtod(cost_text.c_str(), &cost_end);
    if (cost_text.empty() || cost_end != cost_text.c_str() + cost_text.size()) {
      throw input_error(path, line_number, "expected a cost, got \"" + cost_text + "\"");
    }
    if (!std::isfinite(cost) || cost <= 0) throw input_error(path, line_number, "cost must be positive and finite");
    const auto it = dense_of.find(id);
    if (it == dense_of.end()) throw input_error(path, line_number, "vertex " + id_copy + " is not in the graph");
    if (costs[it->second] != 0) throw input_error(path, line_number, "vertex " + id_copy + " has a second cost");
    costs[it->second] = cost;
  }
  for (std::uint32_t v = 0; v < graph.num_vertices; ++v) {
    if (costs[v] == 0) {
      const std::uint64_t original = graph.original_ids.empty() ? v : graph.original_ids[v];
      throw input_error(path, 0, "vertex " + std::to_string(original) + " has no cost");
    }
  }
  if (!costs.empty()) normalise_costs(costs);
  return costs;
}

std::vector<double> make_costs(const csr_graph& graph, const std::string& kind, const std::string& path) {
  if (kind == "degree") return degree_costs(graph);
  if (kind == "uniform") return uniform_costs(graph);
  if (kind == "file") {
    WF_EXPECTS(!path.empty(), "--cost-file", "--cost file needs --cost-file PATH");
    return read_costs(graph, path);
  }
  throw config_error("--cost", "unknown cost model \"" + kind + "\", expected degree, uniform or file");
}

}  // namespace wildfire::adaptive
