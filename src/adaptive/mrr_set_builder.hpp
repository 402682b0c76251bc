// One mRR-set on a residual graph, serially on the host (MERIT digest sections 1.6, 2.4, 2.7):
// fresh generation (Alg. 2), extension of a clean set (Lemmas 3.3/3.4) and repair of a polluted
// one (Lemma 3.6, Alg. 5 corrected). The CPU store runs these per set; the CUDA kernels follow the
// same draws, so set s is identical on both.
#pragma once

#include <cstdint>
#include <vector>

#include "wildfire/adaptive/mrr_rules.hpp"
#include "wildfire/adaptive/residual_graph.hpp"
#include "wildfire/diffusion_model.hpp"
#include "wildfire/random/ic_block_rule.hpp"
#include "wildfire/random/live_edge_world.hpp"
#include "wildfire/random/root_draw.hpp"

namespace wildfire::adaptive::detail {

/// One bit per vertex: n / 8 bytes, so a worker's marks stay in its cache on large graphs (a
/// byte per vertex is 4.8 MB per mark array on a LiveJournal-sized graph).
class vertex_bits {
 public:
  explicit vertex_bits(std::uint32_t n = 0) : words_((static_cast<std::size_t>(n) + 63) / 64, 0) {}
  bool operator[](std::uint32_t v) const noexcept { return ((words_[v >> 6] >> (v & 63U)) & 1U) != 0; }
  void set(std::uint32_t v) noexcept { words_[v >> 6] |= std::uint64_t{1} << (v & 63U); }
  void clear(std::uint32_t v) noexcept { words_[v >> 6] &= ~(std::uint64_t{1} << (v & 63U)); }

 private:
  std::vector<std::uint64_t> words_;
};

/// Per-worker marks over all vertices; cleared through the set's own members (O(|R|), digest 4.2
/// item 13), never by a sweep over V.
struct set_scratch {
  vertex_bits visited;
  vertex_bits is_root;
  explicit set_scratch(std::uint32_t n = 0) : visited(n), is_root(n) {}
};

/// Reverse probing from set[from ..] (the set itself is the queue) in the world of `key` on the
/// residual graph; `on_add(v)` is called for each vertex appended. IC: the live in-edges that the
/// graph's rule names (for_each_live_in_edge with `blocks`), skipping those from removed vertices.
/// LT: each new root's backward walk stops at a vertex with no chosen in-edge, a removed vertex or
/// a visited one (digest 4.2 item 10: decide first, then test; the original weights are kept on
/// the residual graph).
template <class OnAdd>
void probe(const residual_view& r, const ic_block_view& blocks, diffusion_model model, std::uint64_t key,
           std::vector<std::uint32_t>& set, std::size_t from, set_scratch& s, OnAdd&& on_add) {
  const graph_view& g = r.graph;
  if (model == diffusion_model::ic) {
    for (std::size_t head = from; head < set.size(); ++head) {
      const std::uint32_t v = member_vertex(set[head]);
      for_each_live_in_edge(key, g, blocks, v, [&](std::uint64_t j) {
        const std::uint32_t u = g.in_sources[j];
        if (s.visited[u] || r.is_removed(u)) return;
        s.visited.set(u);
        set.push_back(u);
        on_add(u);
      });
    }
    return;
  }
  const std::size_t walks_end = set.size();
  for (std::size_t i = from; i < walks_end; ++i) {
    std::uint32_t v = member_vertex(set[i]);
    for (;;) {
      const std::uint64_t j = lt_chosen_in_edge(key, g, v);
      if (j == no_edge) break;
      const std::uint32_t u = g.in_sources[j];
      if (r.is_removed(u) || s.visited[u]) break;
      s.visited.set(u);
      set.push_back(u);
      on_add(u);
      v = u;
    }
  }
}

/// Draws `count` roots that are not yet marked in s.is_root, uniformly without replacement from
/// the remaining vertices by rejection with fill_attempt(fill, a, n_i), a = 0, 1, ...; `on_root(v,
/// was_member)` receives each accepted vertex (was_member: already in the set, a "promoted" root).
template <class OnRoot>
void fill_roots(const residual_view& r, std::uint64_t fill, std::uint32_t count, set_scratch& s, OnRoot&& on_root) {
  for (std::uint64_t attempt = 0; count > 0; ++attempt) {
    const std::uint32_t v = r.remaining[fill_attempt(fill, attempt, r.num_remaining)];
    if (s.is_root[v]) continue;
    s.is_root.set(v);
    --count;
    on_root(v, s.visited[v]);
  }
}

inline void clear_marks(const std::vector<std::uint32_t>& set, set_scratch& s) {
  for (const std::uint32_t m : set) {
    s.visited.clear(member_vertex(m));
    s.is_root.clear(member_vertex(m));
  }
}

/// Fresh set: root_count(key, k, n_i) roots by Floyd over the remaining pool (as
/// reference::rr_roots with pool = V_i), then probing. Equals reference::rr_set when nothing is
/// removed. `on_add` sees every member.
template <class OnAdd>
void generate_set(const residual_view& r, const ic_block_view& blocks, diffusion_model model, std::uint64_t key,
                  double mean_roots, std::vector<std::uint32_t>& set, set_scratch& s, OnAdd&& on_add) {
  set.clear();
  const std::uint32_t count = root_count(key, mean_roots, r.num_remaining);
  draw_distinct_roots(
      key, r.num_remaining, count, [&](std::uint32_t t) { return s.is_root[r.remaining[t]]; },
      [&](std::uint32_t t) {
        const std::uint32_t v = r.remaining[t];
        s.is_root.set(v);
        s.visited.set(v);
        set.push_back(v | root_bit);
        on_add(v);
      });
  probe(r, blocks, model, key, set, 0, s, on_add);
  clear_marks(set, s);
}

/// Clean set (no removed member): keeps every member, tops the roots up to root_count(key, k, n_i)
/// with a uniform subset of V_i minus the old roots (promoted members only gain the root bit,
/// Lemma 3.4), probes from the new non-member roots (Lemma 3.3). Returns the number of members
/// added; `on_add` sees each.
template <class OnAdd>
std::uint64_t extend_clean_set(const residual_view& r, const ic_block_view& blocks, diffusion_model model,
                               std::uint64_t key, double mean_roots, std::uint32_t round,
                               std::vector<std::uint32_t>& set, set_scratch& s, OnAdd&& on_add) {
  std::uint32_t old_roots = 0;
  for (const std::uint32_t m : set) {
    s.visited.set(member_vertex(m));
    if (member_is_root(m)) {
      s.is_root.set(member_vertex(m));
      ++old_roots;
    }
  }
  const std::size_t old_size = set.size();
  const std::uint32_t count = root_count(key, mean_roots, r.num_remaining);
  // root_count is ceil(k - U) for the set's fixed U, so it never decreases as k_i grows.
  std::uint32_t promoted = 0;
  if (count > old_roots) {
    fill_roots(r, fill_key(key, round), count - old_roots, s, [&](std::uint32_t v, bool was_member) {
      if (was_member) {
        ++promoted;
        return;
      }
      s.visited.set(v);
      set.push_back(v | root_bit);
      on_add(v);
    });
  }
  probe(r, blocks, model, key, set, old_size, s, on_add);
  if (promoted > 0) {
    for (std::size_t i = 0; i < old_size; ++i) {
      if (!member_is_root(set[i]) && s.is_root[set[i]]) set[i] |= root_bit;
    }
  }
  clear_marks(set, s);
  return set.size() - old_size;
}

/// Polluted set: keeps the roots still in V_i (K_1), draws the rest of root_count(key, k, n_i)
/// uniformly from V_i minus K_1 and probes afresh from all of them (Lemma 3.6; Alg. 5 lines 21-28
/// with the kept roots marked before any replacement is drawn, digest 4.2 item 8). The old probed
/// members are discarded. `on_add` sees every member of the repaired set.
template <class OnAdd>
void repair_polluted_set(const residual_view& r, const ic_block_view& blocks, diffusion_model model,
                         std::uint64_t key, double mean_roots, std::uint32_t round, std::vector<std::uint32_t>& set,
                         set_scratch& s, OnAdd&& on_add) {
  std::size_t kept = 0;
  for (const std::uint32_t m : set) {
    const std::uint32_t v = member_vertex(m);
    if (member_is_root(m) && !r.is_removed(v)) set[kept++] = m;
  }
  set.resize(kept);
  for (const std::uint32_t m : set) {
    s.visited.set(member_vertex(m));
    s.is_root.set(member_vertex(m));
    on_add(member_vertex(m));
  }
  const std::uint32_t count = root_count(key, mean_roots, r.num_remaining);
  if (count > kept) {
    fill_roots(r, fill_key(key, round), count - static_cast<std::uint32_t>(kept), s,
               [&](std::uint32_t v, bool) {
                 s.visited.set(v);
                 set.push_back(v | root_bit);
                 on_add(v);
               });
  }
  probe(r, blocks, model, key, set, 0, s, on_add);
  clear_marks(set, s);
}

}  // namespace wildfire::adaptive::detail
