#!/usr/bin/env bash
# Builds wildfire on the GPU machine and runs the named GPU test and benchmark scripts in one call.
# Usage (from the repository root, $OUT set): [WF_BUILD_TARGETS="..."] scripts/device/run_all.sh COMMIT [script ...|all]
# No script: the build alone; `all`: every scripts/device/<name>.sh except this one (more than one
# call's 10 minutes: a bare call once ran them all by accident and spent a session's device
# time). Everything written under $OUT is packed into $OUT/results.tar.gz at the end (the transfer
# takes only a few files).
set -u
commit=${1:-unknown}; shift || true
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
{ nvidia-smi; echo "commit $commit"; nproc; } > "$OUT/device.txt" 2>&1
start=$(date +%s)
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DWF_GIT_COMMIT_OVERRIDE="$commit" > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
# WF_BUILD_TARGETS="t1 t2": build only those (a call that runs a few scripts need not build all).
targets=()
for t in ${WF_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
if ! cmake --build build-device -j "$(nproc)" "${targets[@]}" -- -k > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40
fi
echo "build: $(( $(date +%s) - start )) s"
scripts=("$@")
if [[ ${scripts[*]} == all ]]; then
  scripts=()
  for f in scripts/device/*.sh; do
    name=$(basename "$f" .sh); [[ $name == run_all ]] || scripts+=("$name")
  done
fi
for name in "${scripts[@]}"; do
  t0=$(date +%s)
  echo "=== $name"
  timeout "${WF_SCRIPT_TIMEOUT:-300}" bash "scripts/device/$name.sh" > "$OUT/$name.console.log" 2>&1
  echo "=== $name: exit $? after $(( $(date +%s) - t0 )) s"
  tail -15 "$OUT/$name.console.log"
done
(cd "$OUT" && tar czf /tmp/results.tar.gz --exclude=results.tar.gz . && find . -mindepth 1 -delete && mv /tmp/results.tar.gz .)
