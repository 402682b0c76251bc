#!/usr/bin/env bash
# Dense regime (issue 7) on one H200 (p = 0.05 holds ~110 GB of bitmap: an H100 gives a
# resource_error there), from the repository root with $OUT set; at most WF_DENSE_BUDGET_S (300)
# seconds after the build (a no-op after run_all.sh's), every section checks the time left;
# through run_all.sh give it WF_SCRIPT_TIMEOUT=330. The last 15 lines are the summary.
# Writes under $OUT/dense/:
#  - gpu_tests.log: fused (one and 128 groups per batch, late buffer flushes, deep levels), block-rule,
#    bitmap and reference-equality GPU tests;
#  - imm/*.json|log, imm.md: IMM IC, k = 50, eps = 0.1, --reuse-rrsets on topcats-like
#    (gen_powerlaw --n 1791489 --m 28511807 --seed 1), uniform p = 0.1 with WF_CUDA_PROFILE=1
#    (p0.1_profiled.log ends with the "wf-cuda-profile:" lines: levels, slots, items, kernel
#    seconds; "(so far)" lines after each flush), then (after the sweep) p = 0.05 and, with time
#    left, p = 0.1 unprofiled;
#  - groups_p0.1.md: fused sampling into the bitmap at p = 0.1 (4096 sets), 32 and 64 colours, 1 to
#    64 groups in flight (WF_FUSED_GROUPS);
#  - sampling_p0.2.md: fused (32, 64 colours) against warp per sample at p = 0.2, flat store.
# WF_DENSE_ONLY_P005_S=S runs the p = 0.05 IMM alone with S seconds (on an H100 its bitmap
# outgrows the GPU and the sets go on streamed), then the summary.
set -u
source scripts/device/lib/common.sh
out="$OUT/dense"; mkdir -p "$out/imm"
gen=${WF_GEN_POWERLAW:-.carry/tools/gen_powerlaw.py}
wf=$build/apps/wildfire/wildfire
bench=$build/bench/gpu_sampling_bench
budget=${WF_DENSE_BUDGET_S:-300}
left() { echo $(( budget - $(elapsed) )); }

graph_txt="$out/topcats_like.txt"
wf_gen_like topcats "$graph_txt" "$out/gen.log"; gen_pid=$!

wf_build wildfire_cuda_gpu_tests gpu_sampling_bench wildfire
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
echo "build checked ($(elapsed) s; the budget counts from here)"
t0=$(date +%s)
export CUDA_MODULE_LOADING=EAGER
export WF_SHARED_DATA_DIR=${WF_SHARED_DATA_DIR:-.carry/data}

only_p005=${WF_DENSE_ONLY_P005_S:-}
echo "== GPU tests: fused, block rule, bitmap ($(elapsed) s)"
[[ -n $only_p005 ]] && echo "skipped (WF_DENSE_ONLY_P005_S)" > "$out/gpu_tests.log" ||
timeout 120 $build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 \
  --gtest_filter='CudaFused.*:CudaBlockRule.*:CudaBitmap.*:CudaRrCollection.EqualsReferenceUnderTheBlockRule:CudaRrCollection.EqualsReferenceOnHubGraphs' \
  > "$out/gpu_tests.log" 2>&1
tests_rc=$?
echo "gpu tests exit $tests_rc"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|first differing" "$out/gpu_tests.log" | head -20

wait $gen_pid
$wf convert -i "$graph_txt" -o "$out/topcats_like.wfg" > "$out/convert.log" 2>&1 || tail -3 "$out/convert.log"
rm -f "$graph_txt"
graph="$out/topcats_like.wfg"

# imm_run NAME P LIMIT [ENV...]: IMM IC k = 50, eps = 0.1, reused sets, automatic representation.
imm_run() {
  local name=$1 p=$2 limit=$3; shift 3
  local t; t=$(date +%s%N)
  env "$@" timeout "$limit" $wf imm -i "$graph" -k 50 --seed 1 -w uniform:$p -d IC -e 0.1 --device gpu --reuse-rrsets \
    -o "$out/imm/$name.json" > "$out/imm/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms wall"
  ((rc == 0)) || { tail -2 "$out/imm/$name.log"; echo "{\"Error\": \"exit $rc: $(tail -1 "$out/imm/$name.log" | tr -d '"\\' | cut -c1-240)\"}" > "$out/imm/$name.json"; }
}
capped() { local l; l=$(left); (( l > $1 )) && l=$1; echo "$l"; }

if [[ -n $only_p005 ]]; then
  echo "== IMM p=0.05 alone, $only_p005 s ($(elapsed) s)"
  imm_run p0.05 0.05 "$only_p005" WF_CUDA_PROFILE=1
  budget=0  # every later section is skipped
fi
echo "== IMM IC k=50 eps=0.1 --reuse-rrsets, topcats-like, uniform p ($(elapsed) s)"
(( budget > 0 )) && imm_run p0.1_profiled 0.1 "$(capped 130)" WF_CUDA_PROFILE=1
grep "^wf-cuda-profile:" "$out/imm/p0.1_profiled.log" || grep "wf-cuda-profile" "$out/imm/p0.1_profiled.log" | tail -5

echo "== fused into the bitmap at p=0.1, 4096 sets: colours x groups in flight ($(elapsed) s)"
if have_time $((budget - 40)); then
  timeout "$(capped 70)" $bench "$graph" --weights uniform:0.1 --sets 4096 --cpu-sets 8 --check 8 --representation bitmap \
    --traversals fused --colours 32,64 --groups 1,4,16,64 --cpu-threads "$(nproc)" > "$out/groups_p0.1.md" 2> "$out/groups_p0.1.err"
  echo "groups: exit $?"
fi

echo "== IMM p=0.05 ($(elapsed) s)"
if have_time $((budget - 60)); then imm_run p0.05 0.05 "$(capped 100)"; else echo "p0.05: skipped (time)"; fi

echo "== sampling p=0.2: fused (32/64 colours) vs warp, flat store ($(elapsed) s)"
if have_time $((budget - 40)); then
  timeout "$(capped 60)" $bench "$graph" --weights uniform:0.2 --sets 2048 --cpu-sets 16 --check 16 \
    --colours 32,64 --traversals warp,fused --cpu-threads "$(nproc)" > "$out/sampling_p0.2.md" 2> "$out/sampling_p0.2.err"
  echo "p=0.2: exit $?"
fi

if have_time $((budget - 50)); then imm_run p0.1 0.1 "$(capped 100)"; else echo "p0.1 unprofiled: skipped (time)"; fi

python3 - "$out/imm" > "$out/imm.md" <<'PY'
import json, os, sys
d = sys.argv[1]
print("| run | outcome | representation | sampler | theta | members generated | sampling s | selection s | total s | peak GB |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name in ("p0.1_profiled", "p0.1", "p0.05"):
    f = os.path.join(d, name + ".json")
    if not os.path.exists(f):
        print("| %s | not run | | | | | | | | |" % name); continue
    try:
        r = json.load(open(f))
    except Exception as e:
        print("| %s | unreadable JSON: %s | | | | | | | | |" % (name, e)); continue
    if "Error" in r:
        print("| %s | %s | | | | | | | | |" % (name, r["Error"])); continue
    t = r.get("Times", {})
    print("| %s | completed | %s | %s | %s | %.4g | %.2f | %.2f | %.2f | %.1f |" % (
        name, r.get("Representation", "?"), r.get("Sampler", ""), r.get("Theta", ""),
        float(r.get("RRSetMembersGenerated", 0)), t.get("Sampling", 0), t.get("Selection", 0), r.get("Total", 0),
        r.get("RRMemoryPeakBytes", 0) / 1e9))
PY
rm -f "$graph"

echo "== summary ($(elapsed) s)"
python3 - "$out" "$tests_rc" <<'PY'
import json, os, sys
out, tests_rc = sys.argv[1], sys.argv[2]
log = open(os.path.join(out, "gpu_tests.log")).read() if os.path.exists(os.path.join(out, "gpu_tests.log")) else ""
passed = [l for l in log.splitlines() if l.startswith("[  PASSED  ]") or l.startswith("[  FAILED  ]")]
print("tests: exit %s; %s" % (tests_rc, "; ".join(passed[:2])))
for name in ("p0.1_profiled", "p0.1", "p0.05"):
    f = os.path.join(out, "imm", name + ".json")
    if not os.path.exists(f): print("imm %s: not run" % name); continue
    try: r = json.load(open(f))
    except Exception as e: print("imm %s: unreadable (%s)" % (name, e)); continue
    if "Error" in r: print("imm %s: %s" % (name, r["Error"][:150])); continue
    t = r.get("Times", {})
    print("imm %s: sampling %.2f s, selection %.2f s, theta %s, members %.4g, %s/%s, peak %.1f GB" % (
        name, t.get("Sampling", 0), t.get("Selection", 0), r.get("Theta"), float(r.get("RRSetMembersGenerated", 0)),
        r.get("Representation"), r.get("Sampler"), r.get("RRMemoryPeakBytes", 0) / 1e9))
f = os.path.join(out, "imm", "p0.1_profiled.log")
if os.path.exists(f):  # the final profile, else the last one printed after a flush (a killed run)
    lines = [l.strip() for l in open(f) if l.startswith("wf-cuda-profile")]
    final = [l for l in lines if l.startswith("wf-cuda-profile:")]
    last = {}
    for l in (final or lines):
        body = l.split(":", 1)[1].strip()
        if body.startswith(("fused", "warp")): last[" ".join(body.split()[:2])] = body
    tag = "" if final else "(so far) "
    for body in last.values(): print(tag + body[:230])
def rows(name):
    f = os.path.join(out, name)
    return [[c.strip() for c in l.split("|")[1:-1]] for l in open(f) if l.startswith("| gpu")] if os.path.exists(f) else []
cells = []
for r in rows("groups_p0.1.md"):
    if len(r) < 12 or r[4].startswith("refused"): cells.append(r[2] + " refused"); continue
    cells.append("%s %s s%s" % (r[2], r[5], "" if r[11] == "yes" else " SETS DIFFER"))
if cells: print("p=0.1 bitmap 4096 sets, colours/groups: " + ", ".join(cells))
cells = []
for r in rows("sampling_p0.2.md"):
    if len(r) < 12 or r[4].startswith("refused"): cells.append("%s/%s refused" % (r[1], r[2])); continue
    cells.append("%s/%s %s s%s" % (r[1], r[2], r[5], "" if r[11] == "yes" else " SETS DIFFER"))
if cells: print("p=0.2 flat 2048 sets: " + ", ".join(cells))
PY
echo "done after $(elapsed) s"
