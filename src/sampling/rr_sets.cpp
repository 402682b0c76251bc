// Appending whole blocks of RR sets (offsets rebased onto the existing members).
#include "wildfire/sampling/rr_sets.hpp"

namespace wildfire {

void rr_sets::append(const rr_sets& other) {
  const std::uint64_t base = members.size();
  members.insert(members.end(), other.members.begin(), other.members.end());
  offsets.reserve(offsets.size() + other.size());
  for (std::uint64_t i = 1; i < other.offsets.size(); ++i) offsets.push_back(base + other.offsets[i]);
}

}  // namespace wildfire
