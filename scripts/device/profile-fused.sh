#!/usr/bin/env bash
# Where the fused traversal's time goes (issue 7): topcats-like (gen_powerlaw --n 1791489 --m
# 28511807 --seed 1) at uniform p = WF_PROFILE_P (0.2), from the repository root with $OUT set.
#  1. gpu_sampling_bench, 4096 sets, fused 32 and 64 colours and warp, with WF_CUDA_PROFILE=1
#     (levels, slots, items, light and heavy kernel seconds): $OUT/profile-fused/bench.md|err;
#  2. Nsight Compute, full set, on one launch of each kernel of WF_PROFILE_KERNELS ("NAME:SKIP ...",
#     default fused_ic_light:6, the light kernel at level 6; with the edge masks, e.g.
#     "fused_draw_edge_masks:0 fused_mask_light:6") in a 2048-set run at 32 colours: duration,
#     occupancy, lanes active per instruction, memory throughput, L2 hit rate, warp stall reasons,
#     and the 40 SASS lines with the most stall samples: $OUT/profile-fused/NAME/ncu.txt (every
#     section, tables included), raw.csv (every metric), sass_top.txt.
# WF_PROFILE_BENCH=0 or WF_PROFILE_NCU=0 skips a part; WF_FUSED_MASKS (on|off) reaches both. About
# 2 minutes a kernel on one H100 after the build.
set -u
source scripts/device/lib/common.sh
out="$OUT/profile-fused"; mkdir -p "$out"
p=${WF_PROFILE_P:-0.2}
graph_txt="$build/graphs/topcats_like.txt"; graph="$build/graphs/topcats_like.wfg"
mkdir -p "$build/graphs"
[[ -s $graph ]] || { wf_gen_like topcats "$graph_txt" "$out/gen.log"; gen_pid=$!; }
wf_build --fatal gpu_sampling_bench wildfire
if [[ ! -s $graph ]]; then
  wait "$gen_pid"
  $build/apps/wildfire/wildfire convert -i "$graph_txt" -o "$graph" > "$out/convert.log" 2>&1 || tail -3 "$out/convert.log"
  rm -f "$graph_txt"
fi
echo "graph ready after $(elapsed) s"
export CUDA_MODULE_LOADING=EAGER
bench=$build/bench/gpu_sampling_bench
[[ ${WF_PROFILE_BENCH:-1} == 1 ]] && WF_CUDA_PROFILE=1 timeout 150 $bench "$graph" --weights uniform:$p --sets 4096 --cpu-sets 16 --check 16 \
  --colours 32,64 --traversals fused,warp --cpu-threads "$(nproc)" > "$out/bench.md" 2> "$out/bench.err"
echo "bench exit $? after $(elapsed) s"
grep -E "^\| (gpu|cpu)" "$out/bench.md"; grep -E "wf-cuda-profile: fused|wf-cuda-profile: warp" "$out/bench.err" | head -12

[[ ${WF_PROFILE_NCU:-1} == 1 ]] || exit 0
for kernel_skip in ${WF_PROFILE_KERNELS:-fused_ic_light:6}; do
  kernel=${kernel_skip%%:*} skip=${kernel_skip##*:}
  kout="$out/$kernel"; mkdir -p "$kout"; echo "== $kernel, launch $skip"
  timeout 300 ncu --kernel-name "regex:^${kernel}" --launch-skip "$skip" --launch-count 1 --set full \
    --import-source no -f -o "$kout/fused" $bench "$graph" --weights uniform:$p --sets 2048 --cpu-sets 1 --check 1 \
    --colours 32 --traversals fused > "$kout/ncu_run.log" 2>&1
  echo "ncu exit $? after $(elapsed) s"; tail -3 "$kout/ncu_run.log"
  ncu -i "$kout/fused.ncu-rep" --page details --print-details all > "$kout/ncu.txt" 2>&1
  ncu -i "$kout/fused.ncu-rep" --page raw --csv > "$kout/raw.csv" 2>&1  # every metric of the full set
  grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Executed Ipc|Issue Slots Busy|Warp Cycles Per Issued|Avg. Active Threads|Avg. Not Predicated|Local Memory|Branch Efficiency|Divergent" \
    "$kout/ncu.txt" | sed 's/  */ /g' | head -60
  ncu -i "$kout/fused.ncu-rep" --page raw --csv --metrics "regex:smsp__pcsamp_warps_issue_stalled_.*" > "$kout/stalls.csv" 2>&1
  python3 - "$kout/stalls.csv" <<'EOF' || true
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) >= 3:
    pairs = sorted(((float(v.replace(',', '')), k) for k, v in zip(rows[0], rows[2]) if 'stalled' in k and v.replace(',', '').replace('.', '').isdigit()), reverse=True)
    total = sum(v for v, k in pairs if not k.endswith('_not_issued'))
    for v, k in pairs[:14]: print(f"{k.replace('smsp__pcsamp_warps_issue_stalled_', 'stall ')}: {v:.0f} ({100 * v / max(total, 1):.1f}%)")
EOF
  ncu -i "$kout/fused.ncu-rep" --page source --csv --print-source sass > "$kout/sass.csv" 2> "$kout/sass.err"
  python3 - "$kout/sass.csv" > "$kout/sass_top.txt" <<'EOF' || true
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if any('Source' == c for c in r)), None)
if head is None: print("no source table"); sys.exit()
cols = rows[head]; src = cols.index('Source')
samp = next((i for i, c in enumerate(cols) if c.startswith('Warp Stall Sampling (All')), None)
if samp is None: print("columns:", cols); sys.exit()
body = [r for r in rows[head + 1:] if len(r) == len(cols)]
num = lambda s: float(s.replace(',', '') or 0)
total = sum(num(r[samp]) for r in body)
print(f"{len(body)} SASS lines, {total:.0f} stall samples")
for i, r in sorted(enumerate(body), key=lambda t: -num(t[1][samp]))[:40]:
    print(f"{i:5d} {num(r[samp]):8.0f} {100 * num(r[samp]) / max(total, 1):5.1f}%  {r[src][:110]}")
EOF
  head -25 "$kout/sass_top.txt"
  rm -f "$kout/fused.ncu-rep" "$kout/sass.csv" "$kout/sass.err" "$kout/stalls.csv"
done
