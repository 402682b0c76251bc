// Log-log degree-distribution plot (cairo): raw P(k) points, log-binned averages (bins growing by
// 2^(1/4), the usual remedy for the noisy tail; Clauset et al. 2009, section 2) and the fitted
// discrete power law P(k) = (n_tail / n) k^-alpha / zeta(alpha, x_min) for k >= x_min.
#include "wildfire/graph/degree_plot.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/core.h>

#include "wildfire/error.hpp"

#ifdef WF_HAVE_CAIRO
#include <cairo-svg.h>
#include <cairo.h>
#endif

namespace wildfire {

bool degree_plot_available() noexcept {
#ifdef WF_HAVE_CAIRO
  return true;
#else
  return false;
#endif
}

#ifdef WF_HAVE_CAIRO
namespace {

constexpr double width = 900;
constexpr double height = 650;
constexpr double left = 95;
constexpr double right = 30;
constexpr double top = 60;
constexpr double bottom = 75;

struct point {
  double x;
  double y;
};

/// Maps log10 data coordinates to the canvas.
struct axes {
  double x_lo, x_hi, y_lo, y_hi;  // decades
  double px(double x) const { return left + (std::log10(x) - x_lo) / (x_hi - x_lo) * (width - left - right); }
  double py(double y) const { return height - bottom - (std::log10(y) - y_lo) / (y_hi - y_lo) * (height - top - bottom); }
};

std::string decade_label(int e) {
  if (e >= 0 && e <= 4) return fmt::format("{}", static_cast<long long>(std::pow(10.0, e) + 0.5));
  return fmt::format("1e{}", e);
}

void draw(cairo_t* cr, std::span<const value_count> counts, const degree_plot_options& options) {
  double total = 0;
  for (const auto& vc : counts) total += static_cast<double>(vc.count);
  std::vector<point> raw;
  for (const auto& vc : counts) {
    if (vc.value >= 1 && vc.count > 0) raw.push_back({static_cast<double>(vc.value), static_cast<double>(vc.count) / total});
  }
  // Log bins [b, b * 2^(1/4)): average P(k) over the integers the bin covers.
  std::vector<point> binned;
  const double max_k = raw.back().x;
  std::size_t next = 0;
  for (double lo = 1.0; lo <= max_k; lo *= std::pow(2.0, 0.25)) {
    const double hi = lo * std::pow(2.0, 0.25);
    const double first = std::ceil(lo);
    const double last = std::ceil(hi) - 1.0;
    if (last < first) continue;
    double mass = 0;
    double weighted_k = 0;
    while (next < raw.size() && raw[next].x <= last) {
      mass += raw[next].y;
      weighted_k += raw[next].y * raw[next].x;
      ++next;
    }
    if (mass > 0) binned.push_back({weighted_k / mass, mass / (last - first + 1.0)});
  }
  double y_min = 1.0;
  for (const auto& p : raw) y_min = std::min(y_min, p.y);
  for (const auto& p : binned) y_min = std::min(y_min, p.y);
  const axes ax{0.0, std::max(1.0, std::ceil(std::log10(max_k * 1.05))), std::floor(std::log10(y_min)), 0.0};

  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  // Grid, ticks and labels at every decade.
  cairo_set_font_size(cr, 14);
  cairo_text_extents_t ext;
  for (int e = static_cast<int>(ax.x_lo); e <= static_cast<int>(ax.x_hi); ++e) {
    const double x = ax.px(std::pow(10.0, e));
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, x, top);
    cairo_line_to(cr, x, height - bottom);
    cairo_stroke(cr);
    const std::string label = decade_label(e);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_text_extents(cr, label.c_str(), &ext);
    cairo_move_to(cr, x - ext.width / 2, height - bottom + 22);
    cairo_show_text(cr, label.c_str());
  }
  for (int e = static_cast<int>(ax.y_lo); e <= static_cast<int>(ax.y_hi); ++e) {
    const double y = ax.py(std::pow(10.0, e));
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, width - right, y);
    cairo_stroke(cr);
    const std::string label = decade_label(e);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_text_extents(cr, label.c_str(), &ext);
    cairo_move_to(cr, left - ext.width - 10, y + ext.height / 2);
    cairo_show_text(cr, label.c_str());
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_set_line_width(cr, 1.5);
  cairo_rectangle(cr, left, top, width - left - right, height - top - bottom);
  cairo_stroke(cr);

  // Axis titles and the plot title.
  cairo_set_font_size(cr, 16);
  cairo_text_extents(cr, options.x_label.c_str(), &ext);
  cairo_move_to(cr, left + (width - left - right - ext.width) / 2, height - 25);
  cairo_show_text(cr, options.x_label.c_str());
  cairo_save(cr);
  cairo_move_to(cr, 30, top + (height - top - bottom) / 2 + 60);
  cairo_rotate(cr, -M_PI / 2);
  cairo_show_text(cr, "P(k), fraction of vertices");
  cairo_restore(cr);
  cairo_set_font_size(cr, 17);
  cairo_text_extents(cr, options.title.c_str(), &ext);
  cairo_move_to(cr, left + (width - left - right - ext.width) / 2, 35);
  cairo_show_text(cr, options.title.c_str());

  cairo_rectangle(cr, left, top, width - left - right, height - top - bottom);
  cairo_save(cr);
  cairo_clip(cr);
  cairo_set_source_rgba(cr, 0.25, 0.45, 0.85, 0.55);  // raw points
  for (const auto& p : raw) {
    cairo_arc(cr, ax.px(p.x), ax.py(p.y), 2.2, 0, 2 * M_PI);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0.9, 0.45, 0.05);  // log bins
  for (const auto& p : binned) {
    cairo_rectangle(cr, ax.px(p.x) - 4, ax.py(p.y) - 4, 8, 8);
    cairo_fill(cr);
  }
  if (options.fit) {
    const auto& f = *options.fit;
    const double scale = static_cast<double>(f.tail_count) / total / hurwitz_zeta(f.alpha, static_cast<double>(f.x_min));
    const double k0 = static_cast<double>(f.x_min);
    cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, ax.px(k0), ax.py(scale * std::pow(k0, -f.alpha)));
    cairo_line_to(cr, ax.px(max_k), ax.py(scale * std::pow(max_k, -f.alpha)));
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
  cairo_restore(cr);

  // Legend.
  cairo_set_font_size(cr, 14);
  double ly = top + 25;
  const double lx = width - right - 330;
  cairo_set_source_rgba(cr, 0.25, 0.45, 0.85, 0.8);
  cairo_arc(cr, lx, ly - 5, 3, 0, 2 * M_PI);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, lx + 15, ly);
  cairo_show_text(cr, "P(k) per degree");
  ly += 22;
  cairo_set_source_rgb(cr, 0.9, 0.45, 0.05);
  cairo_rectangle(cr, lx - 4, ly - 9, 8, 8);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, lx + 15, ly);
  cairo_show_text(cr, "log-binned average");
  if (options.fit) {
    ly += 22;
    cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, lx - 8, ly - 5);
    cairo_line_to(cr, lx + 8, ly - 5);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_move_to(cr, lx + 15, ly);
    const std::string text = fmt::format("MLE fit: alpha = {:.3f} +- {:.3f}, k >= {}", options.fit->alpha,
                                         options.fit->alpha_stderr, options.fit->x_min);
    cairo_show_text(cr, text.c_str());
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace
#endif

void write_degree_plot(std::span<const value_count> degree_counts, const std::string& path,
                       const degree_plot_options& options) {
#ifdef WF_HAVE_CAIRO
  const bool png = ends_with(path, ".png");
  const bool svg = ends_with(path, ".svg");
  WF_EXPECTS(png || svg, "--plot", "the plot file must end in .png or .svg, got \"" + path + "\"");
  const bool any_positive = std::any_of(degree_counts.begin(), degree_counts.end(),
                                        [](const value_count& vc) { return vc.value >= 1 && vc.count > 0; });
  WF_EXPECTS(any_positive, "--plot", "no vertex has a positive degree, so there is nothing to plot");
  cairo_surface_t* surface = png ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width),
                                                              static_cast<int>(height))
                                 : cairo_svg_surface_create(path.c_str(), width, height);
  cairo_t* cr = cairo_create(surface);
  draw(cr, degree_counts, options);
  cairo_destroy(cr);
  cairo_status_t status = CAIRO_STATUS_SUCCESS;
  if (png) status = cairo_surface_write_to_png(surface, path.c_str());
  cairo_surface_finish(surface);
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    throw input_error(path, 0, std::string("cannot write the plot: ") + cairo_status_to_string(status));
  }
#else
  (void)degree_counts;
  (void)path;
  (void)options;
  throw config_error("--plot", "this build has no plotting (cairo was not found at configure time)");
#endif
}

}  // namespace wildfire
