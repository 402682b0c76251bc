// Outputs of the preferential-attachment generator: csr conversion, edge-list files read back by
// the graph loader, `gen:pa:` specs, the degree plot and the CLI end to end.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "wildfire/error.hpp"
#include "wildfire/generators/pa_generator.hpp"
#include "wildfire/generators/pa_output.hpp"
#include "wildfire/graph/degree_plot.hpp"
#include "wildfire/graph/graph_loader.hpp"

namespace wildfire {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("wf_generators_" + name)).string();
}

std::string run_command(const std::string& command, int& exit_code) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
  exit_code = WEXITSTATUS(pclose(pipe));
  return out;
}

/// The (source, target) pairs of a csr_graph in original ids.
std::multiset<std::pair<std::uint64_t, std::uint64_t>> edge_set(const csr_graph& g) {
  std::multiset<std::pair<std::uint64_t, std::uint64_t>> edges;
  for (std::uint32_t v = 0; v < g.num_vertices; ++v) {
    for (std::uint64_t j = g.in_offsets[v]; j < g.in_offsets[v + 1]; ++j) {
      edges.emplace(g.original_ids[g.in_sources[j]], g.original_ids[v]);
    }
  }
  return edges;
}

std::multiset<std::pair<std::uint64_t, std::uint64_t>> edge_set(const pa_graph& g, bool undirected) {
  std::multiset<std::pair<std::uint64_t, std::uint64_t>> edges;
  for (std::uint32_t v = g.out_degree; v < g.num_vertices; ++v) {
    for (std::uint32_t l = 0; l < g.out_degree; ++l) {
      edges.emplace(v, g.target(v, l));
      if (undirected) edges.emplace(g.target(v, l), v);
    }
  }
  return edges;
}

TEST(PaOutput, CsrGraphHoldsEveryEdgeOnceOrBothWays) {
  const pa_params params{500, 3, 0.5, 8};
  const pa_graph g = generate_pa_cpu(params);
  for (bool undirected : {false, true}) {
    const csr_graph csr = pa_to_csr_graph(g, undirected);
    EXPECT_EQ(csr.num_vertices, 500U);
    EXPECT_EQ(csr.num_edges, g.num_edges() * (undirected ? 2 : 1));
    EXPECT_EQ(edge_set(csr), edge_set(g, undirected));
    EXPECT_EQ(csr.provenance.undirected_input, undirected);
  }
}

TEST(PaOutput, GzipEdgeListReadsBackAsTheSameGraph) {
  const pa_params params{3000, 4, 0.3, 2};
  const pa_graph g = generate_pa_cpu(params);
  const std::string path = temp_path("edges.txt.gz");
  write_pa_edge_list(g, path, false, "test graph");
  graph_load_options options;
  options.path = path;
  const csr_graph loaded = load_graph(options);
  EXPECT_EQ(loaded.num_vertices, 3000U);
  EXPECT_EQ(edge_set(loaded), edge_set(g, false));
  std::remove(path.c_str());
  EXPECT_THROW(write_pa_edge_list(g, "/nonexistent-dir/x.txt", false, "x"), input_error);
}

TEST(PaSpec, ParsesKeysDefaultsAndScientificCounts) {
  const pa_params a = parse_pa_spec("gen:pa:n=1e6,d=4");
  EXPECT_EQ(a.num_vertices, 1000000U);
  EXPECT_EQ(a.out_degree, 4U);
  EXPECT_EQ(a.copy_probability, 0.5);
  EXPECT_EQ(a.seed, 0U);
  const pa_params b = parse_pa_spec("gen:pa:d=2,n=50,p=0.25,seed=9");
  EXPECT_EQ(b.num_vertices, 50U);
  EXPECT_EQ(b.copy_probability, 0.25);
  EXPECT_EQ(b.seed, 9U);
  EXPECT_TRUE(is_pa_spec("gen:pa:n=5,d=1"));
  EXPECT_FALSE(is_pa_spec("gen:pax"));
  EXPECT_FALSE(is_pa_spec("graph.txt"));
}

TEST(PaSpec, RejectsBadSpecsNamingTheInputFlag) {
  for (const char* spec : {"gen:pa:n=100", "gen:pa:d=3", "gen:pa:n=100,d=3,q=1", "gen:pa:n=abc,d=3",
                           "gen:pa:n=1.5e3,d=3,p=x", "gen:pa:n=2.5,d=1", "gen:pa:n=3,d=3", "gen:pa:n=10,d=2,p=1.5",
                           "gen:pa:n=10,d", "gen:pa:n=1e10,d=2"}) {
    try {
      parse_pa_spec(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const config_error& e) {
      EXPECT_EQ(e.parameter(), "-i") << spec;
      EXPECT_NE(std::string(e.what()).find(spec), std::string::npos) << e.what();
    }
  }
}

TEST(PaSpec, GraphLoaderBuildsTheGeneratedGraph) {
  graph_load_options options;
  options.path = "gen:pa:n=2000,d=3,p=0.4,seed=5";
  options.undirected = true;
  const csr_graph loaded = load_graph(options);
  const pa_graph g = generate_pa_cpu({2000, 3, 0.4, 5});
  EXPECT_EQ(edge_set(loaded), edge_set(g, true));
  EXPECT_EQ(loaded.provenance.weight_model.substr(0, 2), "wc");
}

TEST(DegreePlot, WritesPngAndSvgAndRejectsOtherNames) {
  if (!degree_plot_available()) GTEST_SKIP() << "built without cairo";
  const std::vector<value_count> counts{{0, 3}, {1, 500}, {2, 130}, {3, 60}, {5, 20}, {9, 6}, {40, 1}};
  power_law_fit_result fit;
  fit.alpha = 2.5;
  fit.alpha_stderr = 0.1;
  fit.x_min = 1;
  fit.tail_count = 717;
  fit.total_count = 717;
  degree_plot_options options;
  options.title = "test";
  options.fit = fit;
  const std::string png = temp_path("plot.png");
  const std::string svg = temp_path("plot.svg");
  write_degree_plot(counts, png, options);
  write_degree_plot(counts, svg, options);
  std::ifstream png_in(png, std::ios::binary);
  std::string magic(8, '\0');
  png_in.read(magic.data(), 8);
  EXPECT_EQ(magic, "\x89PNG\r\n\x1a\n");
  std::stringstream svg_text;
  svg_text << std::ifstream(svg).rdbuf();
  EXPECT_NE(svg_text.str().find("<svg"), std::string::npos);
  EXPECT_GT(svg_text.str().size(), 2000U);
  std::remove(png.c_str());
  std::remove(svg.c_str());
  EXPECT_THROW(write_degree_plot(counts, temp_path("plot.jpg")), config_error);
  EXPECT_THROW(write_degree_plot(std::vector<value_count>{{0, 5}}, png), config_error);
}

TEST(PaCli, GenerateThenInfoDegreesEndToEnd) {
  const std::string cli = WF_CLI_PATH;
  const std::string out = temp_path("cli.wfg");
  int code = 0;
  const std::string generated =
      run_command(cli + " generate pa -n 20000 -d 3 --copy-p 0.5 --seed 4 --device cpu --verify -o " + out, code);
  ASSERT_EQ(code, 0) << generated;
  EXPECT_NE(generated.find("verification: PASS"), std::string::npos) << generated;
  const std::string info = run_command(cli + " info -i " + out + " --degrees --json", code);
  ASSERT_EQ(code, 0) << info;
  const auto json = nlohmann::json::parse(info);
  EXPECT_EQ(json["Vertices"], 20000);
  EXPECT_EQ(json["Edges"], 3 * 19997);
  const auto& fit = json["DegreeDistribution"]["PowerLawFit"];
  ASSERT_FALSE(fit.is_null());
  EXPECT_GT(fit["Alpha"].get<double>(), 2.0);
  EXPECT_LT(fit["Alpha"].get<double>(), 4.0);
  const std::string spec_info = run_command(cli + " info -i gen:pa:n=20000,d=3,seed=4 --degrees", code);
  ASSERT_EQ(code, 0) << spec_info;
  EXPECT_NE(spec_info.find("power-law fit"), std::string::npos);
  const std::string bad = run_command(cli + " generate pa -n 10 -d 0 -o " + out, code);
  EXPECT_NE(code, 0);
  EXPECT_NE(bad.find("(-d)"), std::string::npos) << bad;
  std::remove(out.c_str());
}

}  // namespace
}  // namespace wildfire
