// A visited set over vertex ids that clears in O(1): a vertex is marked iff its stamp equals the
// current epoch, so one traversal per sample costs no per-sample allocation or reset.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wildfire::cpu {

class epoch_marker {
 public:
  explicit epoch_marker(std::uint32_t size = 0) : stamps_(size, 0) {}

  /// Unmarks everything (a full reset only when the 32-bit epoch wraps).
  void clear() noexcept {
    if (++epoch_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0);
      epoch_ = 1;
    }
  }
  bool test(std::uint32_t v) const noexcept { return stamps_[v] == epoch_; }
  void set(std::uint32_t v) noexcept { stamps_[v] = epoch_; }
  /// Marks v; true iff it was not marked before.
  bool test_and_set(std::uint32_t v) noexcept {
    if (stamps_[v] == epoch_) return false;
    stamps_[v] = epoch_;
    return true;
  }
  std::uint64_t memory_bytes() const noexcept { return stamps_.capacity() * sizeof(std::uint32_t); }

 private:
  std::vector<std::uint32_t> stamps_;
  std::uint32_t epoch_ = 1;
};

}  // namespace wildfire::cpu
