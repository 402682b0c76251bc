#!/usr/bin/env bash
# Issue 6's headline comparison on the LiveJournal-sized graph (gen_powerlaw --n 4847571
# --m 68993773 --seed 1), IC, weighted cascade, degree costs, eps 0.5, b = 16, eta 5000: MERIT on
# the GPU and PASTI-16 (ASTI on 16 threads) on the SAME realizations, so that their costs compare
# world by world (docs/amcss.md, "Comparing costs"). One PASTI-16 realization takes minutes here,
# so a call covers realization WF_AMCSS_FIRST (default 0) for PASTI, under a time limit that keeps
# the call inside run_all's limit, and WF_AMCSS_MERIT_R (default 3) realizations from the same
# first one for MERIT. Later calls take the next realizations. Needs build-device built (run_all.sh).
# Writes $OUT/amcss-lj/{lj_like.md,rounds.log} and prints the rows and costs.
set -u
cd "$(dirname "$0")/../.."
out="$OUT/amcss-lj"; mkdir -p "$out"
t0=$(date +%s)
budget=${WF_AMCSS_LJ_SECONDS:-480}
first=${WF_AMCSS_FIRST:-0}
merit_r=${WF_AMCSS_MERIT_R:-3}
graph=/tmp/wf_lj_like.wfg
if [[ ! -s $graph ]]; then
  python3 .carry/tools/gen_powerlaw.py --n 4847571 --m 68993773 --seed 1 --out /tmp/wf_lj_like.txt > "$out/gen.log" 2>&1
  # The binary form loads in seconds, once per row.
  build-device/apps/wildfire/wildfire convert -i /tmp/wf_lj_like.txt -w wc -o "$graph" > "$out/convert.log" 2>&1
  rm -f /tmp/wf_lj_like.txt
fi
echo "graph ready after $(( $(date +%s) - t0 )) s"
bench=build-device/bench/amcss_bench
common=(-i "$graph" -w wc --name lj_like --models IC --batches 16 --etas 5000 -p 16 --round-log --first-realization "$first")
timeout 120 $bench "${common[@]}" --runs merit:gpu -R "$merit_r" --budget 60 > "$out/lj_like_merit.md" 2> "$out/rounds_merit.log"
echo "merit exit $? after $(( $(date +%s) - t0 )) s"
# PASTI gets the rest, less 30 s of slack for the graph load and a last long Generate.
limit=$((budget - ($(date +%s) - t0) - 30))
timeout $((limit + 60)) $bench "${common[@]}" --runs asti -R 1 --budget 1 --time-limit "$limit" \
  > "$out/lj_like_asti.md" 2> "$out/rounds_asti.log"
echo "pasti exit $? after $(( $(date +%s) - t0 )) s (time limit $limit s)"
grep -hE "^\| lj_like" "$out"/lj_like_*.md | cut -d"|" -f2-16,23
grep -hE "realization" "$out"/rounds_*.log
