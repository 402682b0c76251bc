#!/usr/bin/env bash
# GPU IMM speed (issue 7): the CUDA GPU tests, then `gpu_sampling_bench --imm 0.05` (IMM k = 50,
# WC, IC, seed 1; reused and fresh final sets; unprofiled runs and one profiled run) on
# soc-Epinions1, LJ-like and Orkut-like; GPU seeds against the CPU's on soc-Epinions1.
# For one H100/H200 with 16 cores, run from the repository root with $OUT set; about 4 minutes
# (each large graph checks the time left). Writes under $OUT/imm-speed/ and prints a summary.
set -u
source scripts/device/lib/common.sh
out="$OUT/imm-speed"; mkdir -p "$out" "$out/graphs"
data=${WF_SHARED_DATA_DIR:-.carry/data}
gen=.carry/tools/gen_powerlaw.py
wf=$build/apps/wildfire/wildfire
bench=$build/bench/gpu_sampling_bench
budget=${WF_IMM_SPEED_BUDGET_S:-230}

# The synthetic graphs take ~30-50 s each: generate them while the tests and Epinions run.
wf_gen_like lj "$out/graphs/lj_like.txt" "$out/gen_lj.log"; gen_lj=$!
wf_gen_like orkut "$out/graphs/orkut_like.txt" "$out/gen_orkut.log"; gen_orkut=$!

wf_build wildfire_cuda_gpu_tests gpu_sampling_bench wildfire
echo "build checked ($(elapsed) s)"
export WF_SHARED_DATA_DIR=$data
export CUDA_MODULE_LOADING=EAGER  # kernels load with the context, outside the timed region

echo "== GPU tests ($(elapsed) s)"
timeout 150 $build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 > "$out/gpu_tests.log" 2>&1
echo "wildfire_cuda_gpu_tests exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|first differing" "$out/gpu_tests.log" | head -30

# Samp+Sel (ms) of the unprofiled runs of one bench table: "reused: a b c; fresh: ...".
samp_sel() {
  awk -F'|' '$2 ~ /0\.05/ && $4 !~ /profiled/ { gsub(/ /, "", $3); v[$3] = v[$3] " " $6 }
             END { printf "reused:%s; fresh:%s", v["reused"], v["fresh"] }' "$1"
}
# The profiled rows' breakdown: theta, small/deferred sets, traversal, store, index, greedy ms.
breakdown() {
  awk -F'|' '$4 ~ /profiled/ { gsub(/ /, "", $3); printf "  %s profiled: theta%s, Samp+Sel%s ms, small sets%s, deferred%s, traversal%s, store%s, index%s, greedy%s ms; seeds%s\n", $3, $5, $6, $12, $13, $18, $19, $20, $21, $22 }' "$1"
}
summary=()

# $1 tag, $2 graph, $3 timeout, $4 runs, rest: env assignments.
imm_bench() {
  local tag=$1 graph=$2 limit=$3 runs=$4; shift 4
  env "$@" timeout "$limit" $bench "$graph" --imm 0.05 --imm-runs "$runs" > "$out/$tag.md" 2> "$out/$tag.err"
  local rc=$?
  local line="$tag (exit $rc): Samp+Sel ms $(samp_sel "$out/$tag.md")"
  echo "$line"; breakdown "$out/$tag.md"; tail -2 "$out/$tag.err"
  summary+=("$line")
}

echo "== soc-Epinions1 ($(elapsed) s)"
epinions="$data/soc-Epinions1.txt.gz"
imm_bench epinions "$epinions" 60 9
# Seeds against the CPU (16 threads), reused and fresh final sets.
for mode in reuse fresh; do
  flag=""; [[ $mode == reuse ]] && flag="--reuse-rrsets"
  for dev in gpu cpu; do
    threads=""; [[ $dev == cpu ]] && threads="-p 16"
    timeout 60 $wf imm -i "$epinions" -k 50 -e 0.05 -d IC -w wc --seed 1 --device $dev $threads $flag \
      -o "$out/epinions_${mode}_$dev.json" > "$out/epinions_${mode}_$dev.log" 2>&1 || echo "imm $mode $dev failed"
  done
  same=$(python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print('yes' if a.get('Seeds')==b.get('Seeds') and a.get('Theta')==b.get('Theta') else 'NO')" \
    "$out/epinions_${mode}_gpu.json" "$out/epinions_${mode}_cpu.json" 2>&1 | tail -1)
  echo "epinions $mode: GPU seeds and theta equal the CPU's: $same"
  summary+=("epinions $mode seeds = CPU: $same")
done

for big in lj orkut; do
  echo "== ${big}-like ($(elapsed) s)"
  if [[ $big == lj ]]; then wait $gen_lj; else wait $gen_orkut; fi
  $wf convert -i "$out/graphs/${big}_like.txt" -w wc -o "$out/graphs/${big}_like.wfg" > "$out/convert_$big.log" 2>&1
  rm -f "$out/graphs/${big}_like.txt"
  if have_time $((budget - 30)); then imm_bench "$big" "$out/graphs/${big}_like.wfg" 60 3; else echo "skipped $big (time)"; fi
  rm -f "$out/graphs/${big}_like.wfg"
done
rm -rf "$out/graphs"

echo "== summary after $(elapsed) s (targets: Epinions 6 ms, LJ-like 150 ms, Orkut-like 280 ms, reused)"
grep -E "^\[  (PASSED|FAILED) " "$out/gpu_tests.log" | head -3
printf '%s\n' "${summary[@]}"
