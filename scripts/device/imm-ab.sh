#!/usr/bin/env bash
# A/B of GPU IMM speed on one device: the bench of this tree ("new") against that of each source
# tree under .carry/ab/NAME (put a commit there with `git archive COMMIT | tar -x -C .carry/ab/NAME`),
# all built here, on soc-Epinions1 and LJ-like (IMM IC WC k = 50, eps 0.05, reused and fresh final
# sets; gpu_sampling_bench --imm). WF_AB_ENVS="VAR=VALUE[+VAR=VALUE] ..." adds sides that run this
# tree's bench under each setting (e.g. WF_GREEDY_CANDIDATES=0); WF_GRAPHS="epinions" leaves
# LJ-like out. The sides run interleaved, graph by graph, so that a drift of the machine hits them
# alike. About 3 minutes plus 1 per variant on one H100/H200 with 16 cores (the
# builds are most of it; the LJ-like graph is kept in $build/graphs for the next call). Writes
# $OUT/imm-ab/{NAME,new}_{epinions,lj}.md and prints the unprofiled Samp+Sel times and the
# profiled breakdown of each.
set -u
source scripts/device/lib/common.sh
out="$OUT/imm-ab"; mkdir -p "$out"
lj=$lj_like_wfg
wf_ab_build_start "$out"
read -r -a settings <<< "${WF_AB_ENVS:-}"
((${#variants[@]} + ${#settings[@]} > 0)) || { echo "no .carry/ab/NAME trees or WF_AB_ENVS: nothing to compare with"; exit 1; }
graphs=${WF_GRAPHS:-epinions lj}
[[ $graphs == *lj* ]] && wf_wc_graph_start lj "$lj" "$out"
wf_build --fatal gpu_sampling_bench wildfire
wf_ab_build_finish "$out"
[[ $graphs == *lj* ]] && wf_wc_graph_finish "$lj" "$out"
export CUDA_MODULE_LOADING=EAGER
for graph in $graphs; do
  input=$lj; runs=3
  [[ $graph == epinions ]] && { input=.carry/data/soc-Epinions1.txt.gz; runs=9; }
  for side in "${variants[@]}" "${settings[@]}" new; do
    bench=$build/bench/gpu_sampling_bench setting=WF_AB_SIDE=new
    if [[ $side == *=* ]]; then setting=$side
    elif [[ $side != new ]]; then bench=build-ab-$side/bench/gpu_sampling_bench
    fi
    [[ -x $bench ]] || continue
    side=$(echo "$side" | tr -c 'A-Za-z0-9_\n' '_')
    # shellcheck disable=SC2086  # one word per assignment
    env ${setting//+/ } timeout 90 "$bench" "$input" --imm 0.05 --imm-runs $runs > "$out/${side}_$graph.md" 2> "$out/${side}_$graph.err"
    echo "$side $graph (exit $?): reused Samp+Sel ms" \
      "$(awk -F'|' '$3 ~ /reused/ && $4 !~ /profiled/ { printf "%s", $6 }' "$out/${side}_$graph.md");" \
      "fresh $(awk -F'|' '$3 ~ /fresh/ && $4 !~ /profiled/ { printf "%s", $6 }' "$out/${side}_$graph.md")"
    awk -F'|' '$4 ~ /profiled/ { printf "  %s profiled: Samp+Sel%s, traversal%s, store%s, index%s, greedy%s ms; seeds%s; warp vertices/round%s; relaunches%s; candidate selects%s\n", $3, $6, $18, $19, $20, $21, $22, $23, $24, $25 }' \
      "$out/${side}_$graph.md"
  done
done
echo "imm-ab done after $(elapsed) s"
