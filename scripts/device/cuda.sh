#!/usr/bin/env bash
# GPU tests, sanitizers and benchmarks of the CUDA RR backend (issue 7), for one H100 with 16
# cores and no network, run from the repository root with $OUT set; at most ~5 minutes.
# Writes logs and markdown tables under $OUT/cuda/ as each one is measured.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out="$OUT/cuda"; mkdir -p "$out" "$out/graphs"
data=${WF_SHARED_DATA_DIR:-.carry/data}
gen=.carry/tools/gen_powerlaw.py
build=build-device
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }

# Large synthetic graphs take ~30 s per 70M edges: start them now, in the background.
( python3 "$gen" --n 1791489 --m 28511807 --seed 1 --out "$out/graphs/topcats_like.txt" > "$out/gen_topcats.log" 2>&1 ) &
gen_topcats=$!
( python3 "$gen" --n 4847571 --m 68993773 --seed 1 --out "$out/graphs/lj_like.txt" > "$out/gen_lj.log" 2>&1 ) &
gen_lj=$!

if [[ ! -x $build/tests/wildfire_cuda_gpu_tests ]]; then
  cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1
  cmake --build $build -j "$(nproc)" --target wildfire_cuda_gpu_tests gpu_sampling_bench wildfire > "$out/build.log" 2>&1 \
    || { grep -E "error" "$out/build.log" | head -30; }
fi
export WF_SHARED_DATA_DIR=$data

echo "== GPU tests ($(elapsed) s)"
$build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; tail -5 "$out/gpu_tests.log"

echo "== compute-sanitizer ($(elapsed) s)"
filter='CudaRrCollection.EmptyRequestAndSingleVertex:CudaRrCollection.GreedyEqualsCpuGreedy:CudaRrCollection.TooSmallBudgetIsAResourceError'
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $build/tests/wildfire_cuda_gpu_tests \
    --gtest_filter="$filter" > "$out/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer_$tool.log" | head -5
done

bench=$build/bench/gpu_sampling_bench
echo "== sampling: soc-Epinions1, WC ($(elapsed) s)"
$bench "$data/soc-Epinions1.txt.gz" --weights wc --model IC --sets 1000000 --colours 32,64 \
  --traversals warp,fused,auto --cpu-threads 16 > "$out/epinions_ic.md" 2>&1; cat "$out/epinions_ic.md"
$bench "$data/soc-Epinions1.txt.gz" --weights wc --model LT --sets 1000000 --colours 64 \
  --traversals warp,fused --cpu-threads 16 > "$out/epinions_lt.md" 2>&1; cat "$out/epinions_lt.md"

# IMM end to end through the CLI, when the imm command is built.
if $build/apps/wildfire/wildfire imm --help > /dev/null 2>&1; then
  echo "== imm soc-Epinions1 ($(elapsed) s)"
  for model in IC LT; do
    for eps in 0.05 0.1; do
      for dev in gpu cpu; do
        timeout 60 $build/apps/wildfire/wildfire imm -i "$data/soc-Epinions1.txt.gz" -k 50 -e $eps -d $model \
          --device $dev -p 16 --seed 1 > "$out/imm_epinions_${model}_${eps}_${dev}.json" 2>&1
      done
    done
  done
fi

echo "== fused vs warp: topcats-like, uniform p ($(elapsed) s)"
wait $gen_topcats
for p in 0.05 0.1 0.2; do
  timeout 60 $bench "$out/graphs/topcats_like.txt" --weights uniform:$p --model IC --sets 4096 --colours 32,64,128 \
    --traversals fused,warp --cpu-threads 16 --check 256 > "$out/topcats_p$p.md" 2>&1; cat "$out/topcats_p$p.md"
done

echo "== LJ-like, WC ($(elapsed) s)"
wait $gen_lj
timeout 90 $bench "$out/graphs/lj_like.txt" --weights wc --model IC --sets 1000000 --traversals warp,auto \
  --cpu-threads 16 --check 1000 > "$out/lj_ic.md" 2>&1; cat "$out/lj_ic.md"
rm -rf "$out/graphs"
echo "done after $(elapsed) s"
