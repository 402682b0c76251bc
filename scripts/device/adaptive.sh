#!/usr/bin/env bash
# Device run for adaptive minimum-cost seeding (issue 6, docs/amcss.md): the MERIT GPU tests
# (GPU store == CPU store, whole runs equal), then MERIT on the GPU against PASTI-16 (ASTI on 16
# CPU threads), IC, weighted cascade, degree costs, eps 0.5, b = 16: soc-Epinions1 (eta 1000,
# several realizations) and the LiveJournal-sized synthetic graph of .carry/tools/gen_powerlaw.py
# (n 4847571, m 68993773, seed 1; eta 5000): MERIT for as many realizations as fit, then one
# PASTI-16 realization under a time limit (if it does not finish, its time so far is a lower
# bound). Writes logs and markdown under $OUT/adaptive/ and prints a summary with the speedups.
# Run from the repository root on the GPU machine; about 6 minutes (WF_ADAPTIVE_SECONDS, default
# 345: run_all.sh needs WF_SCRIPT_TIMEOUT=360 for it).
set -u
t_start=$(date +%s)
deadline=$((t_start + ${WF_ADAPTIVE_SECONDS:-345}))
left() { echo $((deadline - $(date +%s))); }
out="${OUT:?set OUT}/adaptive"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
graphs=/tmp/wf_adaptive_graphs
mkdir -p "$graphs"
lj="$graphs/lj_like.txt"
# The 69M-edge graph takes a minute or two to write: start it before building.
gen_pid=""
if [ ! -s "$lj" ]; then
  ( python3 .carry/tools/gen_powerlaw.py --n 4847571 --m 68993773 --seed 1 --out "$lj.part" > "$out/gen_lj.log" 2>&1 \
    && mv "$lj.part" "$lj" ) &
  gen_pid=$!
fi
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; git rev-parse --short HEAD; } > "$out/device.txt" 2>&1
if [ ! -f build-device/CMakeCache.txt ]; then
  cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 \
    || { tail -20 "$out/cmake.log"; exit 1; }
fi
cmake --build build-device -j "$(nproc)" --target wildfire_adaptive_gpu_tests wildfire_adaptive_tests amcss_bench \
  > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }
echo "build done at $(( $(date +%s) - t_start )) s"

echo "== GPU tests"
timeout 120 build-device/tests/wildfire_adaptive_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/gpu_tests.log" | head -12
grep -E "Failure|Expected|Which is|actual" "$out/gpu_tests.log" | head -12

bench=build-device/bench/amcss_bench
threads=16
data=.carry/data
echo "== soc-Epinions1 (IC, b 16, eta 1000) at $(( $(date +%s) - t_start )) s"
timeout 40 $bench -i $data/soc-Epinions1.txt.gz -w wc --name soc-Epinions1 --models IC --batches 16 \
  --etas 1000 --runs merit:gpu -R 10 -p $threads --budget 15 > "$out/epinions_merit.md" 2> "$out/epinions_merit.err"
echo "epinions merit exit $?"
timeout 40 $bench -i $data/soc-Epinions1.txt.gz -w wc --name soc-Epinions1 --models IC --batches 16 \
  --etas 1000 --runs asti -R 10 -p $threads --budget 15 --time-limit 30 > "$out/epinions_asti.md" 2> "$out/epinions_asti.err"
echo "epinions pasti exit $?"

echo "== LiveJournal-sized synthetic graph at $(( $(date +%s) - t_start )) s"
if [ -n "$gen_pid" ]; then wait "$gen_pid"; fi
if [ -s "$lj" ]; then
  # One load (~40 s) for both rows: MERIT first (realizations until 20 s have passed), then one
  # PASTI-16 realization stopped at the time limit (checked between its rounds and Generate
  # calls, so the hard timeout keeps 40 s of slack for a last long step). PASTI gets the most
  # time: if it does not finish, its time so far bounds the speedup from below.
  budget_left=$(left)
  limit=$((budget_left - 40 - 30 - 40))
  echo "lj_like: ${budget_left} s left, PASTI time limit ${limit} s"
  if [ "$budget_left" -lt 90 ] || [ "$limit" -lt 20 ]; then
    echo "no time left for lj_like"
  else
    timeout "$budget_left" $bench -i "$lj" -w wc --name lj_like --models IC --batches 16 --etas 5000 \
      --runs merit:gpu,asti -R 10 -p $threads --budget 20 --time-limit "$limit" > "$out/lj_like.md" 2> "$out/lj_like.err"
    echo "lj_like exit $?"; tail -3 "$out/lj_like.err"
  fi
else
  echo "lj_like.txt was not generated"; tail -5 "$out/gen_lj.log"
fi

echo "== tables"
cat "$out"/*.md | grep -E "^\| [a-zA-Z]" | grep -v "^| graph"
echo "== summary (time per realization; speedup = PASTI-16 / MERIT GPU; cost difference of MERIT vs PASTI)"
cat "$out"/*.md | awk -F'|' '/^\| [a-zA-Z]/ && $2 !~ /graph/ {
    key = $2 "|" $3 "|" $5; gsub(/ /, "", key); alg = $6; gsub(/ /, "", alg); t = $15; gsub(/[ >]/, "", t)
    if (alg == "merit") { mt[key] = t; mc[key] = $9 + 0; mr[key] = $8 }
    if (alg == "asti") { at[key] = t; ac[key] = $9 + 0; ar[key] = $8; lower[key] = ($15 ~ />/) }
  } END {
    for (k in mt) {
      line = sprintf("%s: MERIT gpu %.3f s (R %s)", k, mt[k], mr[k])
      if (k in at) {
        line = line sprintf(", PASTI-16 %s%.3f s (R %s), speedup %s%.1fx", lower[k] ? ">" : "", at[k], ar[k],
                            lower[k] ? ">=" : "", at[k] / mt[k])
        if (!lower[k] && ac[k] > 0) line = line sprintf(", cost %.4f vs %.4f (%+.1f%%)", mc[k], ac[k], 100 * (mc[k] - ac[k]) / ac[k])
      }
      print line
    }
  }'
echo "adaptive.sh done in $(( $(date +%s) - t_start )) s"
