#!/usr/bin/env bash
# Dense regime (issue 7): which traversal should feed the bitmap and streamed representations.
# IMM IC, k = 50, eps = 0.1, --reuse-rrsets on topcats-like (gen_powerlaw --n 1791489 --m 28511807
# --seed 1; WF_DENSE_FEED_LIKE=youtube etc. for another size, lib/common.sh), uniform p,
# WF_CUDA_PROFILE=1, with the sampler forced per run. From the repository root with $OUT set; the
# graph is kept under $build/graphs while the machine stays up.
#   WF_DENSE_FEED_RUNS="P:SAMPLER[:LIMIT_S] ..."  (default "0.1:auto 0.1:warp 0.05:warp"; "" runs none)
#   WF_DENSE_FEED_SWEEP="P:SETS ..."  (default none): sampling alone into the bitmap, warp against
#     fused (64 colours), gpu_sampling_bench, to $OUT/dense-feed/sweep_<like>.md
# Writes $OUT/dense-feed/<p>_<sampler>.json|log and feed.md (time by phase, representation,
# memory, and whether every run of the same p chose the same seeds).
set -u
source scripts/device/lib/common.sh
out="$OUT/dense-feed"; mkdir -p "$out"
wf=$build/apps/wildfire/wildfire
like=${WF_DENSE_FEED_LIKE:-topcats}
graph="$build/graphs/${like}_like.wfg"

if [[ ! -s $graph ]]; then
  mkdir -p "$(dirname "$graph")"
  wf_gen_like "$like" "$graph.txt" "$out/gen.log"; gen_pid=$!
fi
wf_build --fatal wildfire gpu_sampling_bench
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
if [[ -n ${gen_pid:-} ]]; then
  wait "$gen_pid"
  $wf convert -i "$graph.txt" -o "$graph" > "$out/convert.log" 2>&1 || { tail -3 "$out/convert.log"; exit 1; }
  rm -f "$graph.txt"
fi
echo "build and graph ready ($(elapsed) s)"

for run in ${WF_DENSE_FEED_RUNS-0.1:auto 0.1:warp 0.05:warp}; do
  IFS=: read -r p sampler limit <<< "$run"
  name="p${p}_${sampler}"
  t=$(date +%s%N)
  WF_CUDA_PROFILE=1 timeout "${limit:-240}" $wf imm -i "$graph" -k 50 --seed 1 -w "uniform:$p" -d IC -e 0.1 \
    --device gpu --sampler "$sampler" --reuse-rrsets -o "$out/$name.json" > "$out/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc, $(( ($(date +%s%N) - t) / 1000000 )) ms wall ($(elapsed) s)"
  grep "^wf-cuda-profile:" "$out/$name.log" | cut -c1-250
  ((rc == 0)) || tail -2 "$out/$name.log"
done

for point in ${WF_DENSE_FEED_SWEEP:-}; do
  IFS=: read -r p sets <<< "$point"
  timeout 120 $build/bench/gpu_sampling_bench "$graph" --weights "uniform:$p" --sets "$sets" --cpu-sets 4 --check 4 \
    --representation bitmap --traversals warp,fused --colours 64 --cpu-threads "$(nproc)" \
    >> "$out/sweep_$like.md" 2>> "$out/sweep_$like.err"
  echo "sweep p=$p: exit $? ($(elapsed) s)"
done
[[ -s $out/sweep_$like.md ]] && grep "^| gpu" "$out/sweep_$like.md"

python3 - "$out" > "$out/feed.md" <<'PY'
import glob, json, os, sys
rows, seeds = [], {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "p*.json"))):
    name = os.path.basename(f)[:-5]
    try:
        r = json.load(open(f))
    except Exception:
        continue
    t = r.get("Times", {})
    p = name.split("_")[0]
    seeds.setdefault(p, []).append(tuple(r.get("Seeds", [])))
    rows.append((name, p, r))
print("| run | representation | sampler | theta | members | sampling s | selection s | Samp+Sel s | peak GB | same seeds for this p |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, p, r in rows:
    t = r.get("Times", {})
    same = "yes" if len(set(seeds[p])) == 1 else "NO"
    print("| %s | %s | %s | %s | %.4g | %.2f | %.2f | %.2f | %.1f | %s |" % (
        name, r.get("Representation"), r.get("Sampler"), r.get("Theta"), float(r.get("RRSetMembersGenerated", 0)),
        t.get("Sampling", 0), t.get("Selection", 0), t.get("Sampling", 0) + t.get("Selection", 0),
        r.get("RRMemoryPeakBytes", 0) / 1e9, same))
PY
cat "$out/feed.md"
echo "done after $(elapsed) s"
