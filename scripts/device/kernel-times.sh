#!/usr/bin/env bash
# Where GPU IMM's time goes, kernel by kernel: Nsight Compute's gpu__time_duration of every launch
# of one IMM run (IC WC k = 50, eps 0.05, reused final sets) on soc-Epinions1 and LJ-like, summed
# per kernel name, against the run's wall-clock Samp+Sel (the difference is launch gaps and host
# work). About 2 minutes on one H100/H200; needs build-device (run_all.sh). Writes
# $OUT/kernel-times/{epinions,lj}.{csv,md} and prints the tables.
set -u
source scripts/device/lib/common.sh
out="$OUT/kernel-times"; mkdir -p "$out"
wf_wc_graph lj "$lj_like_wfg" "$out"
export CUDA_MODULE_LOADING=EAGER
for graph in epinions lj; do
  input=$lj_like_wfg; [[ $graph == epinions ]] && input=.carry/data/soc-Epinions1.txt.gz
  # One profiled run (every part synchronised), reused final sets.
  timeout 200 ncu --csv --metrics gpu__time_duration.sum --clock-control none \
    $build/bench/gpu_sampling_bench "$input" --imm 0.05 --imm-runs 0 --imm-final reused > "$out/$graph.csv" 2> "$out/$graph.err"
  echo "$graph: ncu exit $? after $(elapsed) s"
  python3 - "$out/$graph.csv" > "$out/$graph.md" <<'EOF'
import csv, sys, collections
rows = []
with open(sys.argv[1]) as f:
    lines = [l for l in f if l.startswith('"')]
for r in csv.DictReader(lines):
    if r.get("Metric Name") == "gpu__time_duration.sum":
        rows.append((r["Kernel Name"].split("(")[0].split("<")[0], float(r["Metric Value"].replace(",", "")), r["Metric Unit"]))
scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3}
total = collections.defaultdict(float); count = collections.Counter()
for name, value, unit in rows:
    total[name] += value * scale.get(unit, 1e-6); count[name] += 1
print("| kernel | launches | ms | ms per launch |")
print("|---|---|---|---|")
for name, ms in sorted(total.items(), key=lambda x: -x[1]):
    print(f"| {name} | {count[name]} | {ms:.2f} | {ms / count[name]:.4f} |")
print(f"| all | {sum(count.values())} | {sum(total.values()):.2f} | |")
EOF
  head -30 "$out/$graph.md"
  grep -E "reused|fresh" "$out/$graph.csv" | grep -v '^"' | head -4
done
