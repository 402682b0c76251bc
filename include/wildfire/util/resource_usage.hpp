// Process-level measurements reported by every command and benchmark: wall time and peak memory.
#pragma once

#include <chrono>
#include <cstdint>

namespace wildfire {

/// Peak resident set size of this process so far, in bytes (getrusage).
std::uint64_t peak_memory_bytes() noexcept;

/// Available physical memory in bytes (MemAvailable), or 0 when unknown.
std::uint64_t available_memory_bytes() noexcept;

/// Wall-clock stopwatch that starts on construction.
class stopwatch {
 public:
  stopwatch() noexcept : start_(std::chrono::steady_clock::now()) {}
  double seconds() const noexcept {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void restart() noexcept { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace wildfire
