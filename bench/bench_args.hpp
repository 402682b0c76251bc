// Command-line helpers the benchmarks share: a flag's value and comma-separated lists.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace wildfire::bench {

/// The value after `--name` (or `-name`), or `fallback` when the flag is absent.
inline std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == "--" + name || argv[i] == "-" + name) return argv[i + 1];
  }
  return fallback;
}

/// The non-empty items of a comma-separated list.
inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace wildfire::bench
