#!/usr/bin/env bash
# Where the warp-per-sample traversal's time goes on the LJ-sized graph (issue 7: the LJ-like
# target is bound by it): Nsight Compute on the first launches of the lane-per-sample pass and
# the warp kernel while gpu_sampling_bench samples 500,000 IC/WC sets (duration, occupancy, lanes
# active per instruction, memory throughput, L2 hit rate, warp stall reasons). About 2 minutes
# on one H100/H200; needs build-device built (run_all.sh). Writes $OUT/profile-warp/ncu.txt and
# prints the key lines.
set -u
source scripts/device/lib/common.sh
out="$OUT/profile-warp"; mkdir -p "$out"
graph=$lj_like_wfg
wf_wc_graph lj "$graph" "$out"
echo "graph ready after $(elapsed) s"
timeout 240 ncu --kernel-name regex:'warp_rr_sets|small_rr_sets' --launch-count 4 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --metrics smsp__thread_inst_executed_per_inst_executed.ratio,lts__t_sector_hit_rate.pct \
  $build/bench/gpu_sampling_bench "$graph" --traversals warp --sets 500000 --cpu-sets 1000 --check 1000 \
  > "$out/ncu.txt" 2>&1
echo "ncu exit $? after $(elapsed) s"
grep -E "warp_rr_sets|small_rr_sets|Duration|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|DRAM Throughput|thread_inst_executed_per_inst|lts__t_sector_hit_rate|Stall Long Scoreboard|Warp Cycles Per Issued|Registers Per|Block Limit" \
  "$out/ncu.txt" | sed 's/  */ /g' | head -80
