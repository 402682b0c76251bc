#!/usr/bin/env bash
# Where GPU IMM leaves the GPU idle: two unprofiled IMM runs (IC WC k = 50, eps 0.05, reused final
# sets) on soc-Epinions1 and LJ-like under the CUPTI timeline library (bench/gpu_timeline.cpp),
# summarised run by run (scripts/device/lib/timeline_summary.py: busy and idle time, kernels,
# runtime calls, the longest gaps and what the host did in them). About a minute on one H100/H200;
# needs build-device with gpu_sampling_bench, wildfire and wf_gpu_timeline (run_all.sh). Writes
# $OUT/timeline/{epinions,lj}.{csv.gz,md}. WF_TIMELINE_ENVS="VAR=V ..." is set for the runs;
# WF_GRAPHS="epinions" leaves LJ-like out.
set -u
source scripts/device/lib/common.sh
out="$OUT/timeline"; mkdir -p "$out"
library=$build/bench/libwf_gpu_timeline.so
[[ -f $library ]] || { echo "no $library (the device's toolkit has no CUPTI?)"; exit 1; }
[[ ${WF_GRAPHS:-epinions lj} == *lj* ]] && wf_wc_graph lj "$lj_like_wfg" "$out"
export CUDA_MODULE_LOADING=EAGER
for graph in ${WF_GRAPHS:-epinions lj}; do
  input=$lj_like_wfg; [[ $graph == epinions ]] && input=.carry/data/soc-Epinions1.txt.gz
  # shellcheck disable=SC2086  # the settings are words
  env ${WF_TIMELINE_ENVS:-} CUDA_INJECTION64_PATH=$library WF_TIMELINE="$out/$graph.csv" timeout 120 \
    $build/bench/gpu_sampling_bench "$input" --imm 0.05 --imm-runs 2 --imm-final reused > "$out/$graph.bench.md" 2> "$out/$graph.err"
  echo "$graph: exit $? after $(elapsed) s; Samp+Sel (ms) of the runs:"
  awk -F'|' '$2 ~ /0\.05/ { print "  run" $4 ":" $6 }' "$out/$graph.bench.md"
  python3 scripts/device/lib/timeline_summary.py "$out/$graph.csv" --runs "run 1,run 2,profiled" > "$out/$graph.md"
  sed -n '/^### run 2/,/^### profiled/p' "$out/$graph.md" | head -90
  gzip -f "$out/$graph.csv"
done
