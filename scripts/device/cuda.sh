#!/usr/bin/env bash
# Benchmarks of the CUDA backend (issue 7), for one H100/H200 with 16 cores and no network, run
# from the repository root with $OUT set; under 5 minutes (every section checks the time left;
# the IMM tables for soc-Epinions1, LJ-like and Orkut-like come first, and the dense regime takes
# what is left). Writes logs, JSON results and markdown tables under $OUT/cuda/. The GPU tests
# themselves are scripts/device/gpu_tests.sh (here too with WF_CUDA_RUN_TESTS=1), the
# sanitizers scripts/device/sanitize.sh.
set -u
source scripts/device/lib/common.sh
out="$OUT/cuda"; mkdir -p "$out" "$out/graphs" "$out/imm"
data=${WF_SHARED_DATA_DIR:-.carry/data}
gen=.carry/tools/gen_powerlaw.py
wf=$build/apps/wildfire/wildfire
budget=${WF_CUDA_BUDGET_S:-280}

# Synthetic graphs take ~30 s per 70M edges: generate them now, in the background.
wf_gen_like lj "$out/graphs/lj_like.txt" "$out/gen_lj.log"; gen_lj=$!
wf_gen_like orkut "$out/graphs/orkut_like.txt" "$out/gen_orkut.log"; gen_orkut=$!
wf_gen_like topcats "$out/graphs/topcats_like.txt" "$out/gen_topcats.log"; gen_topcats=$!

# run_all.sh has normally built everything; this is a no-op then (and builds what is missing).
wf_build wildfire_cuda_gpu_tests gpu_sampling_bench wildfire
echo "build checked ($(elapsed) s)"
export WF_SHARED_DATA_DIR=$data
# Load every kernel when the CUDA context is created (outside the timed phases), not at its first
# launch inside IMM's first generate/select: the timed region then matches gIM's (graph on the
# GPU, context ready).
export CUDA_MODULE_LOADING=EAGER

if [[ ${WF_CUDA_RUN_TESTS:-0} == 1 ]]; then
  echo "== GPU tests ($(elapsed) s)"
  timeout 150 $build/tests/wildfire_cuda_gpu_tests --gtest_brief=1 > "$out/gpu_tests.log" 2>&1
  echo "gpu tests exit $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|first differing|differs" "$out/gpu_tests.log" | head -40
fi

# One IMM run: $1 tag, $2 graph file, $3 timeout (s), the rest go to wildfire imm.
imm() {
  local tag=$1 graph=$2 limit=$3; shift 3
  local t=$(date +%s%N)
  timeout "$limit" $wf imm -i "$graph" -k 50 --seed 1 -o "$out/imm/$tag.json" "$@" > "$out/imm/$tag.log" 2>&1
  local rc=$?
  echo "$tag: exit $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms wall"
  ((rc == 0)) || { tail -3 "$out/imm/$tag.log"; echo "{\"Error\": \"exit $rc: $(tail -1 "$out/imm/$tag.log" | tr -d '"\\' | cut -c1-200)\"}" > "$out/imm/$tag.json"; }
}

echo "== IMM soc-Epinions1, WC: GPU and CPU (16 threads) ($(elapsed) s)"
for model in IC LT; do
  for eps in 0.05 0.1; do
    for mode in reuse fresh; do
      flag=""; [[ $mode == reuse ]] && flag="--reuse-rrsets"
      imm "epinions_${model}_${eps}_${mode}_gpu" "$data/soc-Epinions1.txt.gz" 60 -d $model -e $eps --device gpu $flag
      imm "epinions_${model}_${eps}_${mode}_cpu" "$data/soc-Epinions1.txt.gz" 60 -d $model -e $eps --device cpu -p 16 $flag
    done
  done
done
echo "== IMM profile, soc-Epinions1 WC IC k=50 eps=0.05: where the milliseconds go ($(elapsed) s)"
# Three unprofiled runs per mode (first one cold), then one with a stream synchronisation after
# every part: generate/select calls, sampler batches, index segments, traversal/store/index/greedy.
timeout 60 $build/bench/gpu_sampling_bench "$data/soc-Epinions1.txt.gz" --imm 0.05,0.1 --imm-runs 3 \
  > "$out/imm_profile_epinions.md" 2> "$out/imm_profile_epinions.err"
echo "exit $?"; cat "$out/imm_profile_epinions.md"; tail -3 "$out/imm_profile_epinions.err"
echo "== sampling throughput, soc-Epinions1 WC IC: warp, fused, auto ($(elapsed) s)"
timeout 40 $build/bench/gpu_sampling_bench "$data/soc-Epinions1.txt.gz" --sets 1000000 --colours 32,64 \
  --traversals warp,fused,auto --cpu-threads 16 > "$out/sampling_epinions.md" 2> "$out/sampling_epinions.err"
cat "$out/sampling_epinions.md"

for big in lj orkut; do
  echo "== IMM ${big}-like, WC ($(elapsed) s)"
  if [[ $big == lj ]]; then wait $gen_lj; else wait $gen_orkut; fi
  $wf convert -i "$out/graphs/${big}_like.txt" -w wc -o "$out/graphs/${big}_like.wfg" > "$out/convert_$big.log" 2>&1
  rm -f "$out/graphs/${big}_like.txt"
  for model in IC LT; do
    for eps in 0.05 0.1; do
      for mode in reuse fresh; do
        have_time $((budget - 40)) || { echo "skipped ${big} $model $eps $mode (time)"; continue; }
        flag=""; [[ $mode == reuse ]] && flag="--reuse-rrsets"
        imm "${big}_${model}_${eps}_${mode}_gpu" "$out/graphs/${big}_like.wfg" 40 -d $model -e $eps --device gpu $flag
      done
    done
  done
  if have_time $((budget - 100)); then
    timeout 40 $build/bench/gpu_sampling_bench "$out/graphs/${big}_like.wfg" --imm 0.05 --imm-runs 1 \
      > "$out/imm_profile_${big}.md" 2> "$out/imm_profile_${big}.err"
    echo "profile exit $?"; cat "$out/imm_profile_${big}.md"; tail -3 "$out/imm_profile_${big}.err"
  fi
  # The headline run on the CPU too (same seeds expected).
  have_time $((budget - 90)) && imm "${big}_IC_0.05_reuse_cpu" "$out/graphs/${big}_like.wfg" 30 -d IC -e 0.05 --device cpu -p 16 --reuse-rrsets
  rm -f "$out/graphs/${big}_like.wfg"
done

# Sanitizers: scripts/device/sanitize.sh.

echo "== dense regime: IMM IC k=50 eps=0.1 on topcats-like, uniform p ($(elapsed) s)"
wait $gen_topcats
$wf convert -i "$out/graphs/topcats_like.txt" -o "$out/graphs/topcats_like.wfg" > "$out/convert_topcats.log" 2>&1
rm -f "$out/graphs/topcats_like.txt"
# Automatic representation: flat for small sets, the bitmap for dense ones (docs/gpu.md). Smallest
# p first; WF_DENSE_PS picks a subset (scripts/device/dense.sh measures p = 0.05 and 0.1 in full).
for p in ${WF_DENSE_PS:-0.01 0.05 0.1}; do
  have_time $((budget - 25)) || { echo "skipped p=$p (time)"; continue; }
  limit=$(( budget - 15 - $(elapsed) )); (( limit > 120 )) && limit=120
  imm "dense_p${p}_gpu" "$out/graphs/topcats_like.wfg" $limit -w uniform:$p -d IC -e 0.1 --device gpu --reuse-rrsets
done

echo "== tables ($(elapsed) s)"
python3 - "$out/imm" > "$out/imm.md" <<'PY'
import json, os, sys
d = sys.argv[1]
runs = {}
for f in sorted(os.listdir(d)):
    if f.endswith('.json'):
        try:
            runs[f[:-5]] = json.load(open(os.path.join(d, f)))
        except Exception as e:
            runs[f[:-5]] = {"Error": "unreadable JSON: %s" % e}
print("IMM, k = 50, seed 1 (`wildfire imm`). Samp+Sel = sampling + selection seconds (estimation included, "
      "graph already on the device): the region gIM's timer covers. Total = the whole command; load = parsing, "
      "context = CUDA context creation, setup = graph upload and allocations. Edges examined count whole in-degrees, also where the IC block rule draws per block. "
      "`=CPU`: the GPU seeds equal the CPU run's (same graph, model, eps, mode).\n")
print("| run | device | sampler | representation | theta | sets generated | members generated | edges examined | edges/s | sampling s | selection s | Samp+Sel s | total s | load s | context s | setup s | est. spread | peak RR bytes | =CPU |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for tag, r in runs.items():
    dev = tag.rsplit('_', 1)[-1]
    base = tag.rsplit('_', 1)[0]
    if "Error" in r:
        print("| %s | %s | | | | | | | | | | | | | | | | | error: %s |" % (base, dev, r["Error"]))
        continue
    t = r.get("Times", {})
    same = ""
    if dev == "gpu" and (base + "_cpu") in runs and "Seeds" in runs[base + "_cpu"]:
        same = "yes" if runs[base + "_cpu"]["Seeds"] == r.get("Seeds") else "NO"
    ss = t.get("Sampling", 0) + t.get("Selection", 0)
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %.3g | %.4f | %.4f | %.4f | %.3f | %.3f | %.3f | %.3f | %.1f | %s | %s |" % (
        base, dev, r.get("Sampler", ""), r.get("Representation", ""), r.get("Theta", ""), r.get("RRSetsGenerated", ""),
        r.get("RRSetMembersGenerated", ""), r.get("EdgesExamined", ""), r.get("EdgesPerSecond", 0),
        t.get("Sampling", 0), t.get("Selection", 0), ss, r.get("Total", 0), t.get("Load", 0),
        t.get("DeviceContext", 0), t.get("Setup", 0), r.get("EstimatedSpread", 0), r.get("RRMemoryPeakBytes", ""), same))
PY
cat "$out/imm.md"
rm -rf "$out/graphs"
echo "done after $(elapsed) s"
