#!/usr/bin/env bash
# A/B of GPU IMM speed on one device: the bench of this tree against that of a baseline source
# tree in .carry/base (put there with `git archive BASE | tar -x -C .carry/base`), both built
# here, on soc-Epinions1 and LJ-like (IMM IC WC k = 50, eps 0.05, reused and fresh final sets;
# gpu_sampling_bench --imm). About 4 minutes on one H100/H200 with 16 cores (the second build is
# most of it). Writes $OUT/imm-ab/{base,new}_{epinions,lj}.md and prints the unprofiled Samp+Sel
# times and the profiled breakdown of each.
set -u
source scripts/device/lib/common.sh
out="$OUT/imm-ab"; mkdir -p "$out"
gen=.carry/tools/gen_powerlaw.py
[[ -d .carry/base ]] || { echo "no .carry/base: nothing to compare with"; exit 1; }
wf_gen_like lj /tmp/wf_ab_lj.txt "$out/gen_lj.log"; gen_pid=$!
cmake -S .carry/base -B build-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake_base.log" 2>&1
cmake --build build-base -j "$(nproc)" --target gpu_sampling_bench > "$out/build_base.log" 2>&1 \
  || { grep -E "error" "$out/build_base.log" | head; exit 1; }
echo "baseline built after $(elapsed) s"
wait $gen_pid
$build/apps/wildfire/wildfire convert -i /tmp/wf_ab_lj.txt -w wc -o /tmp/wf_ab_lj.wfg > "$out/convert.log" 2>&1
rm -f /tmp/wf_ab_lj.txt
export CUDA_MODULE_LOADING=EAGER
for graph in epinions lj; do
  input=/tmp/wf_ab_lj.wfg; runs=3
  [[ $graph == epinions ]] && { input=.carry/data/soc-Epinions1.txt.gz; runs=9; }
  for side in base new; do
    bench=$build/bench/gpu_sampling_bench; [[ $side == base ]] && bench=build-base/bench/gpu_sampling_bench
    timeout 90 $bench "$input" --imm 0.05 --imm-runs $runs > "$out/${side}_$graph.md" 2> "$out/${side}_$graph.err"
    echo "$side $graph (exit $?): reused Samp+Sel ms" \
      "$(awk -F'|' '$3 ~ /reused/ && $4 !~ /profiled/ { printf "%s", $6 }' "$out/${side}_$graph.md");" \
      "fresh $(awk -F'|' '$3 ~ /fresh/ && $4 !~ /profiled/ { printf "%s", $6 }' "$out/${side}_$graph.md")"
    awk -F'|' '$4 ~ /profiled/ { printf "  %s profiled: Samp+Sel%s, traversal%s, store%s, index%s, greedy%s ms; seeds%s\n", $3, $6, $18, $19, $20, $21, $22 }' \
      "$out/${side}_$graph.md"
  done
done
rm -f /tmp/wf_ab_lj.wfg
echo "imm-ab done after $(elapsed) s"
