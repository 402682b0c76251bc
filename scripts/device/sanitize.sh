#!/usr/bin/env bash
# compute-sanitizer over the GPU tests (issue 7's exactness criterion): racecheck (shared-memory
# hazards) and memcheck on every kernel family, each at sanitizer size: the tests run on their
# usual inputs with WF_CUDA_SMS=1 (4 for the Twitter tests, which check that several graphs
# share the cooperative grid), which sizes every persistent and cooperative grid for that many
# multiprocessors (src/cuda/resident_grid.hpp), so the tools do not spend their time on thousands
# of idle blocks. Run from the repository root with build-device built (run_all.sh builds it);
# about 9 minutes (WF_SANITIZE_BUDGET_S, default 540). Writes $OUT/sanitize/*.log and prints one
# line per run: the tool, the tests, the exit code and the tool's summary. WF_SANITIZE_ONLY=REGEX
# runs only the checks whose "tool filter" matches.
set -u
source scripts/device/lib/common.sh
out="$OUT/sanitize"; mkdir -p "$out"
export WF_SHARED_DATA_DIR=${WF_SHARED_DATA_DIR:-.carry/data}
budget=${WF_SANITIZE_BUDGET_S:-540}
failed=0

# $1 tool, $2 test binary, $3 gtest filter, $4 time limit (s), $5 multiprocessors (default 1).
check() {
  local tool=$1 binary=$2 filter=$3 limit=$4 sms=${5:-1}
  local left=$((budget - $(elapsed)))
  [[ -n ${WF_SANITIZE_ONLY:-} && ! "$tool $filter" =~ $WF_SANITIZE_ONLY ]] && return
  local name="${tool}_${binary#wildfire_}_$(echo "$filter" | tr -c 'A-Za-z0-9' '_' | cut -c1-60)"
  if ((left < limit)); then
    echo "$tool $binary $filter: skipped ($left s left)"; failed=1; return
  fi
  WF_CUDA_SMS=$sms timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/$binary" --gtest_filter="$filter" \
    > "$out/$name.log" 2>&1
  local rc=$?
  ((rc == 0)) || failed=1
  echo "$tool $binary $filter: exit $rc; $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$name.log" | tail -1)" \
    "$(grep -cE '^\[       OK \]' "$out/$name.log") tests ok, $(grep -cE '^\[  FAILED  \]' "$out/$name.log") failed"
}

# Racecheck: every kernel that shares memory between threads of a block.
check racecheck wildfire_cuda_gpu_tests 'CudaBlockRule.*' 60               # warp, fused light/heavy, forward
check racecheck wildfire_cuda_gpu_tests 'CudaFused.ManyGroupsPerBatchEqualsReference' 60  # fused queue buffers
# Edge masks (subset table), chunked light (lane ranks) and heavy (the staged chunk), settle pass
# (every region, and the touched ones).
check racecheck wildfire_cuda_gpu_tests 'Graphs/CudaFusedChunked.*/dense_32_colours_31_chunks_pull_off_touch_auto:Graphs/CudaFusedChunked.*/dense_64_colours_32_chunks_pull_off_touch_auto:Graphs/CudaFusedChunked.*/dense_32_colours_32_chunks_pull_off_touch_*' 150
check racecheck wildfire_cuda_gpu_tests 'CudaSmallSets.WeightedCascadeEqualsReference' 30  # lane-per-sample queues
check racecheck wildfire_cuda_gpu_tests 'CudaRrCollection.GreedyEqualsCpuGreedy' 40        # block argmax
check racecheck wildfire_cuda_gpu_tests 'CudaIncremental.CandidateGreedyEqualsCpuGreedy' 120  # candidate filters
check racecheck wildfire_cuda_gpu_tests 'CudaIncremental.OneLaunchGreedyEqualsCpuGreedy' 60 2  # the cooperative greedy
# The staged kernel's chain warp and level helpers meet at named barriers, which racecheck does not
# model as ordering (scripts/device/repro/named_barrier_racecheck.cu): it reports hazards there.
check racecheck wildfire_twitter_gpu_tests 'TwitterGpu.Staged*' 100 4      # the cooperative staged sweep
# Memcheck: the same families plus the retry and error paths.
check memcheck wildfire_cuda_gpu_tests 'CudaBlockRule.*:CudaSmallSets.*:CudaRrCollection.EqualsReferenceUnderTheBlockRule:CudaRrCollection.WholeGraphSetsTakeTheRetryPath' 60
check memcheck wildfire_cuda_gpu_tests 'CudaFused.ManyGroupsPerBatchEqualsReference:CudaBitmap.EqualsFlatAndCpuGreedy:CudaIncremental.DeferredSlicesEqualReference:CudaStreamed.EqualsFlatOnHubGraphs:CudaSpreadSimulator.RejectsBadInput' 60
check memcheck wildfire_cuda_gpu_tests 'Graphs/CudaFusedChunked.*' 120
check memcheck wildfire_cuda_gpu_tests 'CudaFused.EdgeMasksDrawnAheadEqualReference' 60  # two streams, two mask buffers
check memcheck wildfire_cuda_gpu_tests 'CudaIncremental.Candidate*:CudaIncremental.SegmentedIndexEqualsCpuGreedy:CudaIncremental.OneLaunch*' 90
check memcheck wildfire_twitter_gpu_tests 'TwitterGpu.Staged*:TwitterGpu.SharedPull*' 60 4
echo "sanitize: $( ((failed == 0)) && echo 'all clean' || echo 'NOT all clean (see above)') after $(elapsed) s"
exit $failed
