// The two diffusion models of the product: independent cascade and linear threshold.
#pragma once

#include <string>
#include <string_view>

#include "wildfire/error.hpp"

namespace wildfire {

enum class diffusion_model { ic, lt };

inline std::string_view to_string(diffusion_model m) noexcept { return m == diffusion_model::ic ? "IC" : "LT"; }

/// Parses "IC" or "LT" (any case); throws config_error naming `parameter` otherwise.
inline diffusion_model parse_diffusion_model(std::string_view text, const std::string& parameter = "-d") {
  std::string upper(text);
  for (auto& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  if (upper == "IC") return diffusion_model::ic;
  if (upper == "LT") return diffusion_model::lt;
  throw config_error(parameter, "unknown diffusion model \"" + std::string(text) + "\", expected IC or LT");
}

}  // namespace wildfire
