#!/usr/bin/env bash
# Where the warp-per-sample traversal's time goes (issue 7): Nsight Compute on launches of the
# lane-per-sample pass and the warp kernel, with duration, occupancy, lanes active per
# instruction, memory throughput, L2 hit rate and warp stall reasons (cycles per issue).
# WF_PROFILE_GRAPH=lj (the default: gpu_sampling_bench samples 500,000 IC/WC sets of the LJ-sized
# graph, the first four launches) or epinions (soc-Epinions1 in GPU IMM, k = 50, eps 0.05, reused final sets: the four
# launches after the first batch's two, where each launch is bound by its longest set). About 2
# minutes on one H100/H200; needs build-device built (run_all.sh). Writes
# $OUT/profile-warp/ncu.txt and prints the key lines.
set -u
source scripts/device/lib/common.sh
out="$OUT/profile-warp"; mkdir -p "$out"
kernels=(--kernel-name regex:'warp_rr_sets|small_rr_sets')
sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats
  --metrics "smsp__thread_inst_executed_per_inst_executed.ratio,lts__t_sector_hit_rate.pct,$(
    for r in long_scoreboard lg_throttle membar short_scoreboard wait barrier mio_throttle no_instruction math_pipe_throttle; do
      printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' $r
    done | sed 's/,$//')")
if [[ ${WF_PROFILE_GRAPH:-lj} == epinions ]]; then
  timeout 240 ncu "${kernels[@]}" --launch-skip 2 --launch-count 4 "${sections[@]}" \
    $build/bench/gpu_sampling_bench .carry/data/soc-Epinions1.txt.gz --imm 0.05 --imm-runs 0 --imm-final reused \
    > "$out/ncu.txt" 2>&1
else
  graph=$lj_like_wfg
  wf_wc_graph lj "$graph" "$out"
  echo "graph ready after $(elapsed) s"
  timeout 240 ncu "${kernels[@]}" --launch-count 4 "${sections[@]}" \
    $build/bench/gpu_sampling_bench "$graph" --traversals warp --sets 500000 --cpu-sets 1000 --check 1000 \
    > "$out/ncu.txt" 2>&1
fi
echo "ncu exit $? after $(elapsed) s"
grep -E "warp_rr_sets|small_rr_sets|Duration|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|thread_inst_executed_per_inst|lts__t_sector_hit_rate|stalled|Warp Cycles Per Issued|Registers Per|Block Limit" \
  "$out/ncu.txt" | sed 's/  */ /g' | head -160
