// getrusage and /proc/meminfo readers.
#include "wildfire/util/resource_usage.hpp"

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace wildfire {

std::uint64_t peak_memory_bytes() noexcept {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::uint64_t available_memory_bytes() noexcept {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace wildfire
