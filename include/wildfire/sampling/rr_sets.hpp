// Flat storage of reverse-reachable sets: set i holds members[offsets[i] .. offsets[i+1]),
// sorted ascending by dense vertex id. Workers append whole chunks, never single elements.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace wildfire {

struct rr_sets {
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> members;

  std::uint64_t size() const noexcept { return offsets.size() - 1; }
  std::uint64_t num_members() const noexcept { return members.size(); }
  std::span<const std::uint32_t> operator[](std::uint64_t i) const noexcept {
    return {members.data() + offsets[i], members.data() + offsets[i + 1]};
  }
  void clear() {
    offsets.assign(1, 0);
    members.clear();
  }
  /// Appends all sets of `other` after the sets held here.
  void append(const rr_sets& other);
  std::uint64_t memory_bytes() const noexcept {
    return offsets.capacity() * sizeof(std::uint64_t) + members.capacity() * sizeof(std::uint32_t);
  }
};

}  // namespace wildfire
