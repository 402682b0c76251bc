#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD/tests/fuzz for SECONDS each: first replays the saved
# regression inputs (tests/fuzz/regressions/<fuzzer>/), then fuzzes from a seed corpus made of
# tests/data. Exits non-zero on any crash; the crashing input is kept in BUILD/fuzz-artifacts/.
# Usage: bash scripts/run_fuzzers.sh BUILD SECONDS
set -euo pipefail

build=${1:?usage: run_fuzzers.sh BUILD SECONDS}
seconds=${2:?usage: run_fuzzers.sh BUILD SECONDS}
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"

status=0
found=0
for fuzzer in "$build"/tests/fuzz/*_fuzz; do
  [[ -x $fuzzer ]] || continue
  found=1
  name=$(basename "$fuzzer" _fuzz)
  regressions="$root/tests/fuzz/regressions/$name"
  corpus=$(mktemp -d)
  trap 'rm -rf "$corpus"' EXIT
  # Seeds: the tiny graphs (text fuzzer: a control byte of 0 = auto format, then the file), or
  # the binary graphs for the .wfg fuzzer.
  for seed in "$root"/tests/data/*; do
    [[ -f $seed ]] || continue
    case "$name:$seed" in
      binary_graph:*.wfg) cp "$seed" "$corpus/" ;;
      edge_list_parser:*.wfg | edge_list_parser:*.gz) ;;
      edge_list_parser:*) { printf '\0'; cat "$seed"; } >"$corpus/$(basename "$seed")" ;;
    esac
  done
  if compgen -G "$regressions/*" >/dev/null; then
    echo "run_fuzzers: $name: replaying $(ls "$regressions" | wc -l) regression inputs"
    if ! "$fuzzer" -runs=0 "$regressions"/* >"$artifacts/$name.replay.log" 2>&1; then
      echo "run_fuzzers: $name: a regression input fails again; see $artifacts/$name.replay.log"
      status=1
    fi
  fi
  echo "run_fuzzers: $name: fuzzing for $seconds s"
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$artifacts/$name-" -print_final_stats=1 "$corpus" >"$artifacts/$name.log" 2>&1; then
    echo "run_fuzzers: $name: CRASH; input saved under $artifacts/ (log: $artifacts/$name.log)"
    tail -n 30 "$artifacts/$name.log"
    status=1
  else
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$artifacts/$name.log" | tail -n 2 || true
  fi
  rm -rf "$corpus"
  trap - EXIT
done
if ((found == 0)); then
  echo "run_fuzzers: no fuzzers in $build/tests/fuzz (build the fuzz_targets target first)" >&2
  exit 1
fi
exit $status
