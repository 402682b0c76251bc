#!/usr/bin/env bash
# Device run for the preferential-attachment generators (issue 4, docs/generators.md): the GPU
# tests (GPU graph == CPU graph for every launch shape), the GPU throughput grid up to
# n = 2.5e8, the CPU rows with 16 threads up to n = 1e8, and one CLI run with --verify on the GPU.
# Writes logs and markdown tables under $OUT/generators/. Run from the repository root on the
# GPU machine; about 3 minutes (every step has its own timeout, 6.5 minutes at worst).
set -u
source scripts/device/lib/common.sh
out="${OUT:?set OUT}/generators"
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; git rev-parse --short HEAD; } > "$out/device.txt" 2>&1
wf_build --fatal wildfire_generators_gpu_tests pa_generator_bench wildfire

echo "== GPU tests"
timeout 100 build-device/tests/wildfire_generators_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; grep -E "OK|PASSED|FAILED|SKIPPED|Failure" "$out/gpu_tests.log" | head -12

bench=build-device/bench/pa_generator_bench
echo "== GPU grid"
: > "$out/gpu_bench.md"
# Each group has its own timeout so one slow group cannot sink the rest; p = 0 (every edge a copy,
# d H_d attempts per vertex) comes last within a group because it is the slowest.
for group in "1e6 25" "1e7 25" "1e8 40" "2.5e8 70"; do
  set -- $group; n=$1; limit=$2
  timeout $limit $bench --device gpu -n $n -d 1,4,16 -p 0.5,0.9,0 --reps 2 --max-edges 4.1e9 > "$out/gpu_$n.md" 2>&1
  echo "gpu n=$n exit $?"
  if [ ! -s "$out/gpu_bench.md" ]; then cat "$out/gpu_$n.md" >> "$out/gpu_bench.md"; else grep '^| gpu' "$out/gpu_$n.md" >> "$out/gpu_bench.md"; fi
done
cat "$out/gpu_bench.md"

echo "== CPU grid, 16 threads"
timeout 30 $bench --device cpu --threads 16 -n 1e6,1e7 -d 1,4,16 -p 0.5,0.9,0 --reps 2 > "$out/cpu16_small.md" 2>&1
echo "cpu small exit $?"
timeout 60 $bench --device cpu --threads 16 -n 1e8 -d 1,4,16 -p 0.5,0.9,0 --reps 1 > "$out/cpu16_1e8.md" 2>&1
echo "cpu 1e8 exit $?"
# Two threads on the quiet device host: the "2 cores" rows (igraph's anchor is n = 1e6, m = 5).
timeout 40 $bench --device cpu --threads 2 -n 1e6,1e7 -d 1,4,5,16 -p 0.5 --reps 3 > "$out/cpu2.md" 2>&1
echo "cpu 2 threads exit $?"
{ cat "$out/cpu16_small.md"; grep '^| cpu' "$out/cpu16_1e8.md"; } > "$out/cpu_bench.md"
cat "$out/cpu2.md"
cat "$out/cpu_bench.md"

echo "== CLI on the GPU with --verify"
timeout 30 build-device/apps/wildfire/wildfire generate pa -n 1e7 -d 4 --copy-p 0.5 --seed 1 --device gpu --verify \
  -o /tmp/wf_pa_1e7.wfg > "$out/cli_gpu.log" 2>&1
echo "cli exit $?"; tail -3 "$out/cli_gpu.log"
timeout 30 build-device/apps/wildfire/wildfire info -i /tmp/wf_pa_1e7.wfg --degrees > "$out/info_degrees.txt" 2>&1
grep -E "power-law fit" "$out/info_degrees.txt"
rm -f /tmp/wf_pa_1e7.wfg
