#!/usr/bin/env bash
# Graph-loading benchmark (issue 2) on the device machine (16 cores, no network), run from the
# repository root with $OUT set: text parse MB/s on 2 threads, full text load, gzip load, .wfg
# load and speed-up, peak memory, for the shared data sets and a synthetic 50M-edge list.
# Writes the logs and markdown tables under $OUT/graph/. At most ~4.5 minutes.
set -u
source scripts/device/lib/common.sh
out="$OUT/graph"
mkdir -p "$out"
data=${WF_SHARED_DATA_DIR:-.carry/data}

wf_build --fatal graph_load_bench

scratch=$(mktemp -d /tmp/wf_graph_bench_XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# soc-Epinions1 alone first, best of many repeats: its loads take milliseconds, where two
# repeats are at the mercy of a single slow run (the 10x .wfg target is judged on this one).
echo "== graph_load_bench, 2 threads, soc-Epinions1, best of 40 ($(elapsed) s)"
timeout 60 $build/bench/graph_load_bench --data "$data" --scratch "$scratch" --threads 2 --repeat 40 \
  --only soc-Epinions1 --synthetic-edges 0 --markdown "$out/graph_load_epinions_2threads.md" 2>&1 |
  tee "$out/graph_load_epinions_2threads.log"
echo "exit ${PIPESTATUS[0]}"

echo "== graph_load_bench, 2 threads, 50M-edge synthetic ($(elapsed) s)"
timeout 200 $build/bench/graph_load_bench --data "$data" --scratch "$scratch" --threads 2 --repeat 2 \
  --synthetic-edges 50000000 --markdown "$out/graph_load_2threads.md" 2>&1 | tee "$out/graph_load_2threads.log"
echo "exit ${PIPESTATUS[0]}"

if (($(elapsed) < 150)); then
  echo "== graph_load_bench, all $(nproc) cores, 20M-edge synthetic ($(elapsed) s)"
  timeout 80 $build/bench/graph_load_bench --data "$data" --scratch "$scratch" --threads "$(nproc)" --repeat 2 \
    --synthetic-edges 20000000 --markdown "$out/graph_load_allcores.md" 2>&1 | tee "$out/graph_load_allcores.log"
  echo "exit ${PIPESTATUS[0]}"
fi
echo "== done ($(elapsed) s)"
