#!/usr/bin/env bash
# Device-host run for the CPU RIS engine (issue 3, docs/benchmarks/ris-cpu.md): no GPU work, but a
# quiet 16-core host gives timings the shared 2-core workstation cannot. IMM (IC and LT, WC, k = 50,
# eps 0.05 and 0.1) on soc-Epinions1 and NetHEPT with 1, 2 (taskset to two cores) and 16 threads,
# OPIM-C on soc-Epinions1, and fused vs unfused on a 1M-vertex gen_powerlaw.py graph. Writes logs
# and markdown under $OUT/ris-cpu/. Run from the repository root; about 5 minutes.
set -u
source scripts/device/lib/common.sh
out="${OUT:?set OUT}/ris-cpu"
mkdir -p "$out"
graphs=/tmp/wf_ris_graphs
mkdir -p "$graphs"
pl="$graphs/powerlaw_1m_20.txt"
if [ ! -s "$pl" ]; then
  ( python3 .carry/tools/gen_powerlaw.py --n 1000000 --m 20000000 --seed 1 --out "$pl.part" > "$out/gen_powerlaw.log" 2>&1 \
    && mv "$pl.part" "$pl" ) &
  gen_pid=$!
else
  gen_pid=""
fi
{ nproc; lscpu | grep -E "Model name|L3"; git rev-parse --short HEAD; } > "$out/device.txt" 2>&1
wf_build --fatal wildfire imm_bench fused_traversal_bench wildfire_cpu_tests wildfire_algorithms_tests

echo "== CPU sampler tests (exactness on this CPU's kernel)"
timeout 60 build-device/tests/wildfire_cpu_tests > "$out/cpu_tests.log" 2>&1; echo "cpu tests exit $?"
grep -E "PASSED|FAILED" "$out/cpu_tests.log" | head -5

data=.carry/data
W=build-device/apps/wildfire/wildfire
echo "== IMM on soc-Epinions1, 2 cores (the issue's target: under 1.0 s total)"
for s in auto fused unfused; do
  taskset -c 0,1 $W imm -i $data/soc-Epinions1.txt.gz -k 50 -e 0.05 -p 2 --sampler $s -o "$out/imm_epinions_2c_$s.json" \
    && python3 -c "import json; d=json.load(open('$out/imm_epinions_2c_$s.json')); print('$s', d['Total'], d['Times'], d['RRSetsGenerated'], d['EstimatedSpread'])"
done | tee "$out/imm_epinions_2c.txt"
echo "== OPIM-C on soc-Epinions1, 2 cores (authors' code: 0.05 s, 22,368 sets, ratio 0.63)"
for e in 0.1 0.05; do
  taskset -c 0,1 $W opim -i $data/soc-Epinions1.txt.gz -k 50 -e $e -p 2 -o "$out/opim_epinions_$e.json" \
    && python3 -c "import json; d=json.load(open('$out/opim_epinions_$e.json')); print('eps $e', d['Total'], d['Times'], d['RRSetsGenerated'], d['ApproximationRatio'])"
done | tee "$out/opim_epinions.txt"

echo "== imm_bench (1 and 2 threads pinned to two cores; 16 threads)"
taskset -c 0,1 timeout 150 build-device/bench/imm_bench --graphs $data/soc-Epinions1.txt.gz,$data/NetHEPT.txt.gz \
  --models IC,LT --eps 0.05,0.1 --threads 1,2 --mc 10000 > "$out/imm_bench_2cores.md" 2> "$out/imm_bench_2cores.err"
cat "$out/imm_bench_2cores.md"
timeout 60 build-device/bench/imm_bench --graphs $data/soc-Epinions1.txt.gz --models IC --eps 0.05 --threads 16 \
  --mc 10000 --reference-eps 0.01 > "$out/imm_bench_16.md" 2> "$out/imm_bench_16.err"
cat "$out/imm_bench_16.md"

echo "== fused vs unfused, 1M-vertex power-law graph, 16 threads"
if [ -n "$gen_pid" ]; then wait "$gen_pid"; fi
left=$(( 290 - $(elapsed) ))
if [ -s "$pl" ] && [ "$left" -gt 20 ]; then
  timeout "$left" build-device/bench/fused_traversal_bench --graph "$pl" --p 0.01,0.05,0.1,0.2 --colours 1,8,32,64,256 \
    --sets 512 --threads 16 > "$out/fused_traversal.md" 2> "$out/fused_traversal.err"
  cat "$out/fused_traversal.md"
else
  echo "skipped: graph missing or no time left ($left s)"
fi
echo "total $(elapsed) s"
