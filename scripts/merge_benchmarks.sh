#!/usr/bin/env bash
# Rebuilds docs/benchmarks.md from the per-area tables in docs/benchmarks/*.md (each benchmark
# writes its own file; this page is what readers open).
set -euo pipefail
cd "$(dirname "$0")/.."
{
  echo "# wildfire benchmarks"
  echo
  echo "The latest tables of every benchmark, one section per area, assembled by"
  echo "\`scripts/merge_benchmarks.sh\` from \`docs/benchmarks/*.md\`. Each table says what it ran"
  echo "(graph, n, m, parameters, device, commit). GPU figures come from the lent device machine"
  echo "(the H100 the issues name for the latest CUDA and adaptive tables, an H200 in earlier rounds), CPU figures from this"
  echo "project's 2-core development machine unless a table says otherwise."
  for f in graph ris-cpu cuda generators twitter adaptive; do
    [[ -f docs/benchmarks/$f.md ]] || continue
    echo
    # The file's title becomes a section, its sections subsections; the "# ..." configuration
    # lines that benchmarks print above their tables become plain lines.
    sed -e '1s/^# /@@TITLE@@ /' -e 's/^## \(.*\)/### \1/' -e 's/^# \(.*\)/\1  /' -e '1s/^@@TITLE@@ /## /' "docs/benchmarks/$f.md"
  done
} > docs/benchmarks.md
