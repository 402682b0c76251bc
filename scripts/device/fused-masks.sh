#!/usr/bin/env bash
# The fused traversal with IC edge masks (src/cuda/fused_mask_kernels.cuh) against the per-item
# draws and the warp path, from the repository root with $OUT set (under 9 minutes):
#  - the fused GPU tests (CudaFused.*, CudaBlockRule.*), or every GPU test binary when
#    WF_MASKS_ALL_TESTS=1 (scripts/device/gpu_tests.sh); with WF_MASKS_SANITIZE=1 then
#    compute-sanitizer memcheck on CudaFused.EdgeMasks* and Graphs/CudaFusedChunked.*;
#  - topcats-like (gen_powerlaw --n 1791489 --m 28511807 --seed 1) at uniform p (WF_MASKS_PS,
#    "P:SETS ...", default 0.2:4096 0.1:8192 0.05:16384; empty: none): warp, and fused with 32 and 64 colours
#    (WF_MASKS_COLOURS) with masks off, on and auto (WF_MASKS_MODES), the first 16 sets of every
#    row checked against the 16-thread CPU backend: $OUT/masks/sampling_p*.md;
#  - with WF_MASKS_IMM="P ...": dense IMM on topcats-like (IC, uniform:P, k = 50, eps = 0.1,
#    reused sets, --sampler auto) with the masks off and automatic: $OUT/masks/imm_p*_{off,auto}.
# Prints every table, then per p: warp seconds over each fused row's.
set -u
source scripts/device/lib/common.sh
out="$OUT/masks"; mkdir -p "$out/graphs"
bench=$build/bench/gpu_sampling_bench
wf=$build/apps/wildfire/wildfire

points=${WF_MASKS_PS-0.2:4096 0.1:8192 0.05:16384}
[[ -n $points || -n ${WF_MASKS_IMM:-} ]] && { wf_gen_like topcats "$out/graphs/topcats_like.txt" "$out/gen_topcats.log"; gen_topcats=$!; }
tests=wildfire_cuda_gpu_tests
[[ ${WF_MASKS_ALL_TESTS:-0} == 1 ]] && tests="wildfire_cuda_gpu_tests wildfire_adaptive_gpu_tests wildfire_generators_gpu_tests wildfire_twitter_gpu_tests"
# shellcheck disable=SC2086  # one target a word
wf_build --fatal $tests gpu_sampling_bench wildfire
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
echo "build done ($(elapsed) s)"
export CUDA_MODULE_LOADING=EAGER
export WF_SHARED_DATA_DIR=${WF_SHARED_DATA_DIR:-.carry/data}

if [[ ${WF_MASKS_ALL_TESTS:-0} == 1 ]]; then
  OUT=$out bash scripts/device/gpu_tests.sh; echo "all GPU tests: exit $? ($(elapsed) s)"
else
  timeout 240 $build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 --gtest_filter='CudaFused.*:CudaBlockRule*' > "$out/gpu_tests.log" 2>&1
  echo "fused GPU tests: exit $? ($(elapsed) s)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|first differing|differs" "$out/gpu_tests.log" | head -40
fi
if [[ ${WF_MASKS_SANITIZE:-0} == 1 ]]; then
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 $build/tests/wildfire_cuda_gpu_tests \
    --gtest_brief=1 --gtest_filter='CudaFused.EdgeMasks*:Graphs/CudaFusedChunked.*' > "$out/memcheck.log" 2>&1
  echo "memcheck CudaFused.EdgeMasks* and CudaFusedChunked.*: exit $? ($(elapsed) s)"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck.log" | head -5
fi

[[ -n ${gen_topcats:-} ]] || exit 0
wait "$gen_topcats"
$wf convert -i "$out/graphs/topcats_like.txt" -o "$out/graphs/topcats_like.wfg" > "$out/convert_topcats.log" 2>&1 ||
  tail -3 "$out/convert_topcats.log"
rm -f "$out/graphs/topcats_like.txt"
for p_sets in $points; do
  p=${p_sets%%:*} sets=${p_sets##*:}
  have_time 400 || { echo "p=$p skipped (time)"; continue; }
  echo "== topcats-like, uniform p = $p, $sets sets ($(elapsed) s)"
  timeout 150 $bench "$out/graphs/topcats_like.wfg" --weights uniform:$p --sets "$sets" --cpu-sets 16 --check 16 \
    --colours "${WF_MASKS_COLOURS:-32,64}" --traversals warp,fused --masks "${WF_MASKS_MODES:-off,on,auto}" \
    --cpu-threads "$(nproc)" > "$out/sampling_p$p.md" 2> "$out/sampling_p$p.err"
  echo "exit $?"; cat "$out/sampling_p$p.md"; grep -E "error|refused" "$out/sampling_p$p.err" | head -3
  # with WF_CUDA_PROFILE=1: each fused row's kernel times
  grep -E "wf-cuda-profile: fused kernels" "$out/sampling_p$p.err" | sed 's/wf-cuda-profile: fused kernels (cudaEvent, profiling on)//'
  # warp seconds (upload excluded) over each fused row's
  awk -F"|" '$2 ~ /gpu/ { gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4); if ($3 == "warp") w = $7 + 0; else r[$4] = $7 + 0 }
    END { for (k in r) if (r[k] > 0) printf "  fused %s: %.3f s, %.1fx over warp\n", k, r[k], w / r[k] }' "$out/sampling_p$p.md"
done
for p in ${WF_MASKS_IMM:-}; do
  for masks in off auto; do
    t=$(date +%s%N)
    WF_FUSED_MASKS=$masks WF_CUDA_PROFILE=1 timeout 200 $wf imm -i "$out/graphs/topcats_like.wfg" -k 50 --seed 1 \
      -w "uniform:$p" -d IC -e 0.1 --device gpu --sampler auto --reuse-rrsets -o "$out/imm_p${p}_$masks.json" \
      > "$out/imm_p${p}_$masks.log" 2>&1
    echo "dense IMM p = $p, masks $masks: exit $?, $(( ($(date +%s%N) - t) / 1000000 )) ms wall ($(elapsed) s)"
    grep "^wf-cuda-profile:" "$out/imm_p${p}_$masks.log" | grep -v "so far" | cut -c1-260
  done
  python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print('same seeds:', a['Seeds']==b['Seeds'], 'Theta', a.get('Theta'), b.get('Theta'))" \
    "$out/imm_p${p}_off.json" "$out/imm_p${p}_auto.json" 2>&1 | tail -1
done
rm -f "$out/graphs/topcats_like.wfg"
