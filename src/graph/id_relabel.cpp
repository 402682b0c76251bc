// Dense relabelling of original vertex ids. Dense-ish ids (the SNAP case) use a presence table and
// a prefix sum, O(max_id + m); sparse 64-bit ids sort the distinct ids and binary-search them.
#include "id_relabel.hpp"

#include <algorithm>
#include <atomic>
#include <parallel/algorithm>

#include "wildfire/error.hpp"
#include "parallel_grain.hpp"

namespace wildfire::detail {
namespace {

constexpr std::uint64_t max_vertices = 0xffffffffULL;  // dense ids are uint32

}  // namespace

relabelled_ids relabel_ids(std::vector<std::uint64_t>&& sources, std::vector<std::uint64_t>&& targets,
                           std::uint64_t max_id, const std::string& file) {
  const std::int64_t m = static_cast<std::int64_t>(sources.size());
  relabelled_ids out;
  out.sources.resize(sources.size());
  out.targets.resize(targets.size());
  const std::uint64_t table_limit = std::max<std::uint64_t>(std::uint64_t{1} << 24, 8 * sources.size());
  if (m == 0) return out;
  if (max_id < max_vertices && max_id < table_limit) {
    std::vector<std::uint32_t> dense(max_id + 1, 0);
#pragma omp parallel for schedule(static) if (m > min_parallel_elements)
    for (std::int64_t i = 0; i < m; ++i) {
      std::atomic_ref<std::uint32_t>(dense[sources[i]]).store(1, std::memory_order_relaxed);
      std::atomic_ref<std::uint32_t>(dense[targets[i]]).store(1, std::memory_order_relaxed);
    }
    std::uint32_t next = 0;
    for (std::uint64_t id = 0; id <= max_id; ++id) {
      if (dense[id] != 0) {
        dense[id] = next++;
        out.original_ids.push_back(id);
      }
    }
#pragma omp parallel for schedule(static) if (m > min_parallel_elements)
    for (std::int64_t i = 0; i < m; ++i) {
      out.sources[i] = dense[sources[i]];
      out.targets[i] = dense[targets[i]];
    }
    return out;
  }
  std::vector<std::uint64_t> ids;
  ids.reserve(2 * sources.size());
  ids.insert(ids.end(), sources.begin(), sources.end());
  ids.insert(ids.end(), targets.begin(), targets.end());
  __gnu_parallel::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > max_vertices) {
    throw input_error(file, 0, "more than 2^32-1 distinct vertex ids (" + std::to_string(ids.size()) + ")");
  }
#pragma omp parallel for schedule(static) if (m > min_parallel_elements)
  for (std::int64_t i = 0; i < m; ++i) {
    out.sources[i] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), sources[i]) - ids.begin());
    out.targets[i] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), targets[i]) - ids.begin());
  }
  out.original_ids = std::move(ids);
  std::vector<std::uint64_t>().swap(sources);
  std::vector<std::uint64_t>().swap(targets);
  return out;
}

}  // namespace wildfire::detail
