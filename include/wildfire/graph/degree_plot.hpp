// A log-log picture of a degree distribution with its fitted power law, as PNG or SVG (cairo),
// for people checking a graph by eye (`wildfire info --degrees --plot FILE`).
#pragma once

#include <optional>
#include <span>
#include <string>

#include "wildfire/graph/power_law_fit.hpp"

namespace wildfire {

struct degree_plot_options {
  std::string title;                          // drawn above the plot
  std::string x_label = "degree k";
  std::optional<power_law_fit_result> fit;    // drawn as a line over k >= x_min when present
};

/// True when this build can draw plots (cairo was found at configure time).
bool degree_plot_available() noexcept;

/// Draws P(k), the fraction of vertices of degree k (k >= 1; zero degrees cannot sit on a log
/// axis and are left out), as points, their logarithmically binned average, and the fitted
/// power law, to `path`: PNG or SVG by its extension. Throws config_error("--plot") for another
/// extension, no data or a build without cairo, and input_error naming the file when it cannot
/// be written. Blocking.
void write_degree_plot(std::span<const value_count> degree_counts, const std::string& path,
                       const degree_plot_options& options = {});

}  // namespace wildfire
