#!/usr/bin/env bash
# Dense regime of issue 7 on one H200 (the p = 0.05 bitmap needs ~110 GB: an H100 gives a
# resource_error there), from the repository root with $OUT set; at most WF_DENSE_BUDGET_S
# (340) seconds after the build (a no-op after run_all.sh's), every section checks the time
# left: through run_all.sh give it WF_SCRIPT_TIMEOUT=360 (its default of 300 would cut the
# summary). Writes under $OUT/dense/:
#  - gpu_tests.log: the bitmap representation's GPU tests (and the streamed ones, whose automatic
#    case now lands on the bitmap);
#  - imm/*.json|log and imm.md: IMM IC, k = 50, eps = 0.1, --reuse-rrsets on topcats-like
#    (gen_powerlaw --n 1791489 --m 28511807 --seed 1), uniform p = 0.01, 0.05, 0.1, automatic
#    representation: time, peak device bytes, representation, traversal;
#  - sampling_p*.md: fused (8, 32, 64 colours) against warp-per-sample at p = 0.05, 0.1, 0.2
#    (gpu_sampling_bench, flat store; "traversal s" = sampler kernels alone);
#  - with time left, p = 0.1 again with --sampler warp (the bitmap fed by warp chunks), then
#    two bitmap tests under compute-sanitizer memcheck.
set -u
export PATH=/usr/local/cuda/bin:$PATH
out="$OUT/dense"; mkdir -p "$out/imm"
gen=${WF_GEN_POWERLAW:-.carry/tools/gen_powerlaw.py}
build=build-device
wf=$build/apps/wildfire/wildfire
budget=${WF_DENSE_BUDGET_S:-340}
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
have_time() { (( $(elapsed) < $1 )); }
left() { echo $(( budget - $(elapsed) )); }

graph_txt="$out/topcats_like.txt"
( python3 "$gen" --n 1791489 --m 28511807 --seed 1 --out "$graph_txt" > "$out/gen.log" 2>&1 ) &
gen_pid=$!

[[ -f $build/CMakeCache.txt ]] || cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1
cmake --build $build -j "$(nproc)" --target wildfire_cuda_gpu_tests gpu_sampling_bench wildfire > "$out/build.log" 2>&1 \
  || { grep -E "error" "$out/build.log" | head -30; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
echo "build checked ($(elapsed) s; the budget counts from here)"
t0=$(date +%s)
export CUDA_MODULE_LOADING=EAGER
export WF_SHARED_DATA_DIR=${WF_SHARED_DATA_DIR:-.carry/data}

echo "== GPU tests: bitmap representation ($(elapsed) s)"
timeout 150 $build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 \
  --gtest_filter='CudaBitmap.*:CudaStreamed.*:CudaRrCollection.RejectsUnsupportedParameters' > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|first differing" "$out/gpu_tests.log" | head -30

wait $gen_pid
$wf convert -i "$graph_txt" -o "$out/topcats_like.wfg" > "$out/convert.log" 2>&1 || tail -3 "$out/convert.log"
rm -f "$graph_txt"
graph="$out/topcats_like.wfg"

echo "== IMM IC k=50 eps=0.1 --reuse-rrsets, topcats-like, uniform p, automatic representation ($(elapsed) s)"
for p in 0.01 0.05 0.1; do
  have_time $((budget - 30)) || { echo "p=$p: skipped (time)"; continue; }
  limit=$(left); (( limit > 150 )) && limit=150
  t=$(date +%s%N)
  timeout "$limit" $wf imm -i "$graph" -k 50 --seed 1 -w uniform:$p -d IC -e 0.1 --device gpu --reuse-rrsets \
    -o "$out/imm/p$p.json" > "$out/imm/p$p.log" 2>&1
  rc=$?
  echo "p=$p: exit $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms wall"
  ((rc == 0)) || { tail -2 "$out/imm/p$p.log"; echo "{\"Error\": \"exit $rc: $(tail -1 "$out/imm/p$p.log" | tr -d '"\\' | cut -c1-240)\"}" > "$out/imm/p$p.json"; }
done
python3 - "$out/imm" > "$out/imm.md" <<'PY'
import json, os, sys
d = sys.argv[1]
print("| p | outcome | representation | sampler | theta | members generated | sampling s | selection s | Samp+Sel s | total s | peak RR bytes (GB) | est. spread |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for p in ("0.01", "0.05", "0.1"):
    f = os.path.join(d, "p%s.json" % p)
    if not os.path.exists(f):
        print("| %s | not run | | | | | | | | | | |" % p); continue
    try:
        r = json.load(open(f))
    except Exception as e:
        print("| %s | unreadable JSON: %s | | | | | | | | | | |" % (p, e)); continue
    if "Error" in r:
        print("| %s | %s | | | | | | | | | | |" % (p, r["Error"])); continue
    t = r.get("Times", {})
    ss = t.get("Sampling", 0) + t.get("Selection", 0)
    print("| %s | completed | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f |" % (
        p, r.get("Representation", "?"), r.get("Sampler", ""), r.get("Theta", ""), r.get("RRSetMembersGenerated", ""),
        t.get("Sampling", 0), t.get("Selection", 0), ss, r.get("Total", 0), r.get("RRMemoryPeakBytes", 0) / 1e9,
        r.get("EstimatedSpread", 0)))
PY
cat "$out/imm.md"

echo "== sampling: fused (8/32/64 colours) vs warp, uniform p, flat store ($(elapsed) s)"
# Sets per p so that each cell stays within a few seconds (mean sets of ~125k, ~540k, ~1.1M).
for spec in 0.2:2048 0.1:4096 0.05:8192; do
  p=${spec%%:*}; sets=${spec##*:}
  have_time $((budget - 20)) || { echo "p=$p: skipped (time)"; continue; }
  limit=$(left); (( limit > 90 )) && limit=90
  timeout "$limit" $build/bench/gpu_sampling_bench "$graph" --weights uniform:$p --sets $sets --cpu-sets 32 --check 32 \
    --colours 8,32,64 --traversals warp,fused --cpu-threads "$(nproc)" > "$out/sampling_p$p.md" 2> "$out/sampling_p$p.err"
  echo "p=$p ($sets sets): exit $?"; grep -E "^\| (gpu|cpu)" "$out/sampling_p$p.md"; tail -2 "$out/sampling_p$p.err"
done

# With time left: p = 0.1 with the bitmap fed by the warp path (chunks of flat sets, scattered),
# against the automatic run's fused feed.
if have_time $((budget - 60)); then
  limit=$(( $(left) - 10 )); (( limit > 120 )) && limit=120
  t=$(date +%s%N)
  timeout "$limit" $wf imm -i "$graph" -k 50 --seed 1 -w uniform:0.1 -d IC -e 0.1 --device gpu --reuse-rrsets \
    --sampler warp -o "$out/imm/p0.1_warp.json" > "$out/imm/p0.1_warp.log" 2>&1
  echo "p=0.1 --sampler warp: exit $?, $(( ($(date +%s%N) - t) / 1000000 )) ms wall"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); t=r['Times']; print('  representation', r.get('Representation'), 'sampling %.2f s selection %.2f s peak %.1f GB' % (t['Sampling'], t['Selection'], r['RRMemoryPeakBytes']/1e9))" "$out/imm/p0.1_warp.json" 2>/dev/null
fi

# With time left: the bitmap paths (warp scatter, fused OR-in, greedy, copy) under memcheck.
if have_time $((budget - 45)); then
  timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $build/tests/wildfire_cuda_gpu_tests \
    --gtest_filter='CudaBitmap.LtSetsOnTheWarpPath:CudaBitmap.AutomaticChoiceFollowsTheMeanSetSize' \
    > "$out/sanitizer_memcheck_bitmap.log" 2>&1
  echo "memcheck (bitmap) exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/sanitizer_memcheck_bitmap.log" | head -4
fi

rm -f "$graph"
echo "== summary ($(elapsed) s)"
grep -E "^\[  (PASSED|FAILED) " "$out/gpu_tests.log" | head -3
cat "$out/imm.md"
for p in 0.2 0.1 0.05; do
  [[ -f $out/sampling_p$p.md ]] || continue
  python3 - "$out/sampling_p$p.md" "$p" <<'PY'
import sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| gpu")]
warp = [r for r in rows if r[1].strip() == "warp"]
base = float(warp[0][5]) if warp and warp[0][5].strip() else None
out = []
for r in rows:
    name = r[1].strip() + ("" if r[2].strip() == "-" else "/" + r[2].strip())
    try:
        secs = float(r[5]); trav = float(r[6])
    except ValueError:
        out.append("%s refused" % name); continue
    speed = " (%.1fx warp)" % (base / secs) if base else ""
    out.append("%s %.2f s, kernels %.2f s%s, same=%s" % (name, secs, trav, speed, r[11].strip()))
print("sampling p=%s: " % sys.argv[2] + "; ".join(out))
PY
done
echo "done after $(elapsed) s"
