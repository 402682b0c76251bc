#!/usr/bin/env bash
# Runs every GPU test binary (label "gpu") of build-device and prints a one-line summary each.
set -u
export WF_SHARED_DATA_DIR=${WF_SHARED_DATA_DIR:-.carry/data}
status=0
for t in build-device/tests/*_gpu_tests; do
  [[ -x $t ]] || continue
  name=$(basename "$t")
  start=$(date +%s)
  timeout 240 "$t" --gtest_brief=1 > "$OUT/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc after $(( $(date +%s) - start )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/$name.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "$OUT/$name.log" | head -20
  grep -E 'first differing|differs|Failure$' -A2 "$OUT/$name.log" | head -12
  ((rc == 0)) || status=1
done
exit $status
