// Sequential references for the preferential-attachment generators (cuPPA sections 2.3-2.4):
// Batagelj-Brandes for BA and the plain copy model, drawn from std::mt19937_64.
#include "wildfire/generators/pa_reference.hpp"

#include <algorithm>
#include <random>
#include <vector>

namespace wildfire::reference {
namespace {

pa_graph empty_graph(std::uint32_t n, std::uint32_t d) {
  pa_graph graph;
  graph.num_vertices = n;
  graph.out_degree = d;
  graph.targets.resize(static_cast<std::size_t>(n - d) * d);
  return graph;
}

bool contains(const std::uint32_t* row, std::uint32_t count, std::uint32_t x) {
  return std::find(row, row + count, x) != row + count;
}

}  // namespace

pa_graph barabasi_albert(std::uint32_t num_vertices, std::uint32_t out_degree, std::uint64_t seed) {
  validate_pa_params(pa_params{num_vertices, out_degree, 0.5, seed});
  const std::uint32_t n = num_vertices;
  const std::uint32_t d = out_degree;
  pa_graph graph = empty_graph(n, d);
  std::mt19937_64 rng(seed);
  // endpoints[2 i] = owner of slot i, endpoints[2 i + 1] = its target; slot i = u d + l.
  std::vector<std::uint32_t> endpoints(2 * static_cast<std::size_t>(n) * d);
  for (std::uint32_t u = 0; u < d; ++u) {
    std::fill_n(endpoints.begin() + 2 * static_cast<std::size_t>(u) * d, 2 * d, u);
  }
  for (std::uint32_t v = d; v < n; ++v) {
    std::uint32_t* row = graph.targets.data() + static_cast<std::size_t>(v - d) * d;
    std::uniform_int_distribution<std::uint64_t> entry(0, 2 * static_cast<std::uint64_t>(v) * d - 1);
    for (std::uint32_t l = 0; l < d; ++l) {
      std::uint32_t x;
      do {
        x = endpoints[entry(rng)];
      } while (contains(row, l, x));
      row[l] = x;
    }
    for (std::uint32_t l = 0; l < d; ++l) {
      const std::size_t slot = static_cast<std::size_t>(v) * d + l;
      endpoints[2 * slot] = v;
      endpoints[2 * slot + 1] = row[l];
    }
  }
  return graph;
}

pa_graph copy_model(const pa_params& params) {
  validate_pa_params(params);
  const std::uint32_t n = params.num_vertices;
  const std::uint32_t d = params.out_degree;
  pa_graph graph = empty_graph(n, d);
  std::mt19937_64 rng(params.seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<std::uint32_t> slot_of(0, d - 1);
  for (std::uint32_t v = d; v < n; ++v) {
    std::uint32_t* row = graph.targets.data() + static_cast<std::size_t>(v - d) * d;
    std::uniform_int_distribution<std::uint32_t> earlier(0, v - 1);
    for (std::uint32_t l = 0; l < d; ++l) {
      std::uint32_t x;
      do {
        const std::uint32_t u = earlier(rng);
        const bool direct = coin(rng) < params.copy_probability;
        x = u;
        if (!direct) {
          const std::uint32_t k = slot_of(rng);
          if (u >= d) x = graph.target(u, k);  // a seed vertex's slots all hold itself
        }
      } while (contains(row, l, x));
      row[l] = x;
    }
  }
  return graph;
}

}  // namespace wildfire::reference
