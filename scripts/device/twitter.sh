#!/usr/bin/env bash
# Twitter influence on the GPU machine (one H100 or H200), about 4 minutes: GPU and CPU tests of
# the twitter layer, then the backward phase on a full-size RSG set generated there, shared-pull
# (one block per graph) against staged (the cooperative grid for the Large graphs), each split by
# category and with the largest graph alone (the critical path), and one Nsight Compute profile of
# each variant's Large-graph kernel (stall reasons per warp state). Run from the repository root
# with $OUT set; writes logs, markdown and profiles under $OUT/twitter/, a summary on stdout.
set -u
cd "$(dirname "$0")/../.."
source scripts/device/lib/common.sh
out="$OUT/twitter"
mkdir -p "$out"
wf_build --fatal wildfire_twitter_tests wildfire_twitter_gpu_tests twitter_backward_bench
echo "build: $(elapsed) s"
tests=build-device/tests
timeout 150 "$tests/wildfire_twitter_gpu_tests" > "$out/gpu_tests.log" 2>&1
echo "GPU tests: exit $? ($(grep -cE '^\[       OK \]' "$out/gpu_tests.log") ok, $(grep -cE '^\[  FAILED  \]' "$out/gpu_tests.log") failed lines)"
grep -E '^\[  FAILED  \]|Failure|error' "$out/gpu_tests.log" | head -20
timeout 120 "$tests/wildfire_twitter_tests" > "$out/cpu_tests.log" 2>&1
echo "CPU tests: exit $?"
bench=build-device/bench/twitter_backward_bench
# Full size (the thesis's ~15,435 graphs, 467M edges). The thesis, topological and queue variants
# (55, 44 and 55 ms on the b140e6c run) are left out to keep the script short.
# WF_TWITTER_VARIANTS narrows the bench (e.g. "staged" for a quick call); WF_TWITTER_NCU lists the
# variants to profile ("" for none).
timeout 150 "$bench" --scale 1 --reps 5 --variants "${WF_TWITTER_VARIANTS:-shared-pull,staged}" > "$out/rsg_full.md" 2>&1
echo "rsg full: exit $? ($(elapsed) s so far)"
grep -E "^RSG|^largest|^staged layout|^GPU staged:|FAILED|^device:" "$out/rsg_full.md"
grep -A 10 "^per category" "$out/rsg_full.md"
grep -E "us per$|us per level" "$out/rsg_full.md"
sed -n '/^staged timeline/,/^| all/p' "$out/rsg_full.md"
tail -8 "$out/rsg_full.md"
# WF_TWITTER_TOGETHER=1: the staged variant again with every Large graph starting at step 0 (the
# layout before balanced starts), for the comparison in the same call.
if [ "${WF_TWITTER_TOGETHER:-0}" = 1 ]; then
  timeout 150 "$bench" --scale 1 --reps 5 --variants staged --staged-starts together > "$out/rsg_together.md" 2>&1
  echo "rsg full, starts together: exit $? ($(elapsed) s so far)"
  grep -A 10 "^per category" "$out/rsg_together.md"
  sed -n '/^staged timeline/,/^| all/p' "$out/rsg_together.md"
  tail -8 "$out/rsg_together.md"
fi
# One launch of each Large-graph kernel under Nsight Compute at the application's clocks: where a
# level's time goes (warp states, memory, occupancy). --profile runs the GPU part only.
ncu_bin=$(command -v ncu || true)
if [ -n "$ncu_bin" ]; then
  for variant in ${WF_TWITTER_NCU-staged shared-pull}; do
    kernel=backward_staged
    [ "$variant" = shared-pull ] && kernel=backward_pipelined_pull
    timeout 150 "$ncu_bin" --clock-control none -k "regex:$kernel" -c 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
      --section Occupancy --section LaunchStats --section SourceCounters \
      -o "$out/ncu_$variant" -f "$bench" --scale 1 --profile 1 --variants "$variant" > "$out/ncu_$variant.log" 2>&1
    echo "ncu $variant: exit $?"
    if [ -f "$out/ncu_$variant.ncu-rep" ]; then
      "$ncu_bin" -i "$out/ncu_$variant.ncu-rep" --page details > "$out/ncu_$variant.txt" 2>&1
      grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy|Stall|Issue Slot" \
        "$out/ncu_$variant.txt" | head -14
      # The SASS instructions with the most stall samples (the source page, where this ncu has it).
      if "$ncu_bin" -i "$out/ncu_$variant.ncu-rep" --page source --csv --print-source sass > "$out/ncu_${variant}_sass.csv" 2>&1; then
        python3 scripts/device/lib/top_stalls.py "$out/ncu_${variant}_sass.csv" 25 > "$out/ncu_${variant}_hot.txt" 2>&1
        head -30 "$out/ncu_${variant}_hot.txt"
      else
        head -3 "$out/ncu_${variant}_sass.csv"
      fi
    else
      tail -5 "$out/ncu_$variant.log"
    fi
  done
else
  echo "ncu: not found"
fi
# The last lines are what run_all.sh shows: the summary again, compactly.
echo "=== twitter summary"
grep -E "^\[  PASSED|^\[  FAILED  \] [0-9]+ test" "$out/gpu_tests.log" | sed 's/^/GPU tests: /'
grep -E "^\| (large|all \(one run)" "$out/rsg_full.md" | cut -d'|' -f1-7 | sed 's/^| //'
grep -E "us per level" "$out/rsg_full.md" | sed 's/ (that graph is the critical path)//'
grep -E "^\| GPU" "$out/rsg_full.md" | cut -d'|' -f1-4,9
for v in staged shared-pull; do
  [ -f "$out/ncu_$v.txt" ] && echo "ncu $v: $(grep -E "^ +Duration" "$out/ncu_$v.txt" | head -1 | tr -s ' ')," \
    "$(grep -E "Warp Cycles Per Issued Instruction" "$out/ncu_$v.txt" | head -1 | tr -s ' ')"
done
echo "total: $(elapsed) s"
