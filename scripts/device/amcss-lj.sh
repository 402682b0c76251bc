#!/usr/bin/env bash
# Issue 6's headline comparison on the LiveJournal-sized graph (gen_powerlaw --n 4847571
# --m 68993773 --seed 1), IC, weighted cascade, degree costs, eps 0.5, b = 16, eta 5000
# (WF_AMCSS_ETA sets another): MERIT on
# the GPU and PASTI-16 (ASTI on 16 threads) on the SAME realizations, so that their costs compare
# world by world (docs/amcss.md, "Comparing costs"). One PASTI-16 realization takes minutes here,
# so a call covers realizations WF_AMCSS_FIRST (default 0), WF_AMCSS_FIRST + 1, ... for PASTI, one
# row each, while the time left allows (at least WF_AMCSS_MIN_SECONDS, default 120, for the next;
# each under a time limit that keeps the whole script within WF_AMCSS_LJ_SECONDS, default 540,
# build included), and WF_AMCSS_MERIT_R (default 2) realizations from the same first one for
# MERIT; later calls take the next realizations. Run it alone (it builds what it needs):
# `bash scripts/device/amcss-lj.sh`. Writes $OUT/amcss-lj/{lj_like_*.md,rounds_*.log} and
# prints the rows and the per-round costs.
set -u
source scripts/device/lib/common.sh
out="$OUT/amcss-lj"; mkdir -p "$out"
budget=${WF_AMCSS_LJ_SECONDS:-540}
first=${WF_AMCSS_FIRST:-0}
merit_r=${WF_AMCSS_MERIT_R:-2}
graph=$lj_like_wfg  # the binary form loads in seconds, once per row
wf_wc_graph_start lj "$graph" "$out"
wf_build --fatal amcss_bench wildfire
wf_wc_graph_finish "$graph" "$out"
echo "built and graph ready after $(elapsed) s"
bench=$build/bench/amcss_bench
common=(-i "$graph" -w wc --name lj_like --models IC --batches 16 --etas "${WF_AMCSS_ETA:-5000}" -p 16 --round-log)
# A row per realization, so that each world's time compares with PASTI's.
for ((realization = first; realization < first + merit_r; ++realization)); do
  timeout 60 $bench "${common[@]}" --first-realization "$realization" --runs merit:gpu -R 1 \
    > "$out/lj_like_merit_$realization.md" 2> "$out/rounds_merit_$realization.log"
  echo "merit realization $realization exit $? after $(elapsed) s"
done
# PASTI gets the rest, a realization at a time, less slack for the graph load and a last long
# Generate (~25 s a round).
realization=$first
while limit=$((budget - $(elapsed) - 45)); ((limit >= ${WF_AMCSS_MIN_SECONDS:-120})); do
  timeout $((limit + 40)) $bench "${common[@]}" --first-realization "$realization" --runs asti -R 1 --budget 1 \
    --time-limit "$limit" > "$out/lj_like_asti_$realization.md" 2> "$out/rounds_asti_$realization.log"
  echo "pasti realization $realization exit $? after $(elapsed) s (time limit $limit s)"
  realization=$((realization + 1))
done
grep -hE "^\| lj_like" "$out"/lj_like_*.md | cut -d"|" -f2-16,23
grep -hE "realization" "$out"/rounds_*.log
