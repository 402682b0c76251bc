#!/usr/bin/env bash
# A/B of the fused traversal on one device: the bench of this tree ("new") against that of each
# source tree under .carry/ab/NAME (put a commit there with `git archive COMMIT | tar -x -C
# .carry/ab/NAME`), all built here (imm-ab.sh shares the builds), on topcats-like (gen_powerlaw
# --n 1791489 --m 28511807 --seed 1) at uniform p (WF_FAB_PS="P:SETS ...", default 0.2:4096), fused
# with 32 and 64 colours (WF_FAB_COLOURS), masks automatic, WF_CUDA_PROFILE=1, the first set of
# every row checked against the CPU backend. WF_FAB_ROUNDS rounds (default 2), the sides
# interleaved within each, so that a drift of the machine hits them alike; the warp path runs once,
# on this tree, in the first round. The graph is kept in $build/graphs for the next call. Writes
# $OUT/fused-ab/SIDE_pP_rR.{md,err} and prints per run the fused seconds and the profile's kernel
# times, levels and work items.
set -u
source scripts/device/lib/common.sh
out="$OUT/fused-ab"; mkdir -p "$out"
graph="$build/graphs/topcats_like.wfg"
wf_ab_build_start "$out"
if [[ ! -s $graph ]]; then
  mkdir -p "$(dirname "$graph")"
  wf_gen_like topcats "$graph.txt" "$out/gen_topcats.log"; gen=$!
fi
wf_build --fatal gpu_sampling_bench wildfire
wf_ab_build_finish "$out"
if [[ -n ${gen:-} ]]; then
  wait "$gen"
  $build/apps/wildfire/wildfire convert -i "$graph.txt" -o "$graph" > "$out/convert.log" 2>&1 || tail -3 "$out/convert.log"
  rm -f "$graph.txt"
fi
export CUDA_MODULE_LOADING=EAGER
for round in $(seq "${WF_FAB_ROUNDS:-2}"); do
  for p_sets in ${WF_FAB_PS:-0.2:4096}; do
    p=${p_sets%%:*} sets=${p_sets##*:}
    for side in "${variants[@]}" new; do
      bench=$build/bench/gpu_sampling_bench traversals=fused
      [[ $side != new ]] && bench=build-ab-$side/bench/gpu_sampling_bench
      [[ $side == new && $round == 1 ]] && traversals=warp,fused
      [[ -x $bench ]] || continue
      log="$out/${side}_p${p}_r$round"
      WF_CUDA_PROFILE=1 timeout 120 "$bench" "$graph" --weights "uniform:$p" --sets "$sets" --cpu-sets 1 --check 1 \
        --colours "${WF_FAB_COLOURS:-32,64}" --traversals $traversals --masks auto > "$log.md" 2> "$log.err"
      echo "$side p=$p round $round (exit $?): $(awk -F'|' '$2 ~ /gpu/ { split($4, c, " "); printf "%s/%s %s s (same sets%s, levels%s); ", $3, c[1], $7, $13, $14 }' "$log.md")"
      grep -E "wf-cuda-profile: fused (kernels|slots|[0-9]+ colours)" "$log.err" | grep -v "so far" |
        sed -e 's/wf-cuda-profile: fused kernels (cudaEvent, profiling on)/  kernels/' -e 's/wf-cuda-profile: fused/ /' | cut -c1-200
    done
  done
done
echo "fused-ab done after $(elapsed) s"
