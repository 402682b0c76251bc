// Original (file) ids -> dense uint32 ids, assigned in ascending order of original id so the
// numbering is deterministic and independent of the edge order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wildfire::detail {

struct relabelled_ids {
  std::vector<std::uint64_t> original_ids;  // dense id -> original id, ascending
  std::vector<std::uint32_t> sources;       // dense, aligned with the input edges
  std::vector<std::uint32_t> targets;
};

/// Relabels the endpoints (consumed). `max_id` is the largest id present. Uses a direct table
/// when ids are dense-ish (max_id small compared with the edge count), else a parallel sort.
/// Throws input_error(file, 0) when there are more than 2^32-1 distinct ids.
relabelled_ids relabel_ids(std::vector<std::uint64_t>&& sources, std::vector<std::uint64_t>&& targets,
                           std::uint64_t max_id, const std::string& file);

}  // namespace wildfire::detail
