// Developer settings of the CUDA backend read from the environment: they force a path for the
// tests and select variants for A/B runs on the device (fused_sampler.hpp lists the fused
// traversal's). Host code without CUDA, so that the CPU tests cover the parsing.
#pragma once

#include <cstdlib>
#include <string_view>

namespace wildfire::cuda {

/// Whether the environment variable `name` is set to `value`.
inline bool environment_is(const char* name, std::string_view value) {
  const char* text = std::getenv(name);
  return text != nullptr && std::string_view(text) == value;
}

/// A share setting (WF_FUSED_PULL, WF_FUSED_TOUCH): "on" gives `on`, "off" gives `off`, a number
/// in (0, 1] (the whole text) gives itself, and anything else, or no variable, gives `unset`.
inline double share_from_environment(const char* name, double on, double off, double unset) {
  const char* text = std::getenv(name);
  if (text == nullptr) return unset;
  const std::string_view mode(text);
  if (mode == "on") return on;
  if (mode == "off") return off;
  char* end = nullptr;
  const double share = std::strtod(text, &end);
  return end != text && *end == '\0' && share > 0 && share <= 1 ? share : unset;
}

}  // namespace wildfire::cuda
