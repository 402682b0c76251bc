// mrr_snapshot::append_set (see wildfire/adaptive/mrr_store.hpp), shared by the CPU and GPU stores.
#include <algorithm>
#include <vector>

#include "wildfire/adaptive/mrr_rules.hpp"
#include "wildfire/adaptive/mrr_store.hpp"

namespace wildfire::adaptive {

void mrr_snapshot::append_set(std::span<const std::uint32_t> encoded) {
  std::vector<std::uint32_t> vertices, set_roots;
  for (const std::uint32_t m : encoded) {
    vertices.push_back(member_vertex(m));
    if (member_is_root(m)) set_roots.push_back(member_vertex(m));
  }
  std::sort(vertices.begin(), vertices.end());
  std::sort(set_roots.begin(), set_roots.end());
  members.members.insert(members.members.end(), vertices.begin(), vertices.end());
  members.offsets.push_back(members.members.size());
  roots.members.insert(roots.members.end(), set_roots.begin(), set_roots.end());
  roots.offsets.push_back(roots.members.size());
}

}  // namespace wildfire::adaptive
