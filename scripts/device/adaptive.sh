#!/usr/bin/env bash
# Device run for adaptive minimum-cost seeding (issue 6, docs/amcss.md): the MERIT GPU tests
# (GPU store == CPU store, whole runs equal), then MERIT on the GPU against ASTI/PASTI on 16 CPU
# threads: soc-Epinions1 and NetHEPT (WC, degree costs, eps 0.5) and the LiveJournal-sized
# synthetic graph of .carry/tools/gen_powerlaw.py. Writes logs and markdown under $OUT/adaptive/.
# Run from the repository root on the GPU machine; about 5 minutes.
set -u
t_start=$(date +%s)
deadline=$((t_start + ${WF_ADAPTIVE_SECONDS:-290}))
out="${OUT:?set OUT}/adaptive"
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
graphs=/tmp/wf_adaptive_graphs
mkdir -p "$graphs"
lj="$graphs/lj_like.txt"
# The 69M-edge graph takes a minute or two to write: start it before building.
if [ ! -s "$lj" ]; then
  ( python3 .carry/tools/gen_powerlaw.py --n 4847571 --m 68993773 --seed 1 --out "$lj.part" > "$out/gen_lj.log" 2>&1 \
    && mv "$lj.part" "$lj" ) &
  gen_pid=$!
else
  gen_pid=""
fi
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; git rev-parse --short HEAD; } > "$out/device.txt" 2>&1
if [ ! -f build-device/CMakeCache.txt ]; then
  cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 \
    || { tail -20 "$out/cmake.log"; exit 1; }
fi
cmake --build build-device -j "$(nproc)" --target wildfire_adaptive_gpu_tests wildfire_adaptive_tests amcss_bench wildfire \
  > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -20; exit 1; }

echo "== GPU tests"
timeout 90 build-device/tests/wildfire_adaptive_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"; grep -E "PASSED|FAILED|SKIPPED" "$out/gpu_tests.log" | head -12

bench=build-device/bench/amcss_bench
threads=16
data=.carry/data
echo "== small graphs"
timeout 40 $bench -i $data/soc-Epinions1.txt.gz -w wc --name soc-Epinions1 --models IC --batches 16 \
  --etas 1000,2000 --runs merit:gpu,asti -R 3 -p $threads --budget 2 > "$out/epinions.md" 2> "$out/epinions.err"
echo "epinions IC exit $?"
timeout 25 $bench -i $data/soc-Epinions1.txt.gz -w wc --name soc-Epinions1 --models LT --batches 4 \
  --etas 1000 --runs merit:gpu,asti -R 3 -p $threads --budget 2 > "$out/epinions_lt.md" 2> "$out/epinions_lt.err"
echo "epinions LT exit $?"
timeout 30 $bench -i $data/NetHEPT.txt.gz -w wc --name NetHEPT --models IC,LT --batches 4 \
  --etas 1000 --runs merit:gpu,asti -R 3 -p $threads --budget 2 > "$out/nethept.md" 2> "$out/nethept.err"
echo "nethept exit $?"

echo "== LiveJournal-sized synthetic graph"
if [ -n "$gen_pid" ]; then wait "$gen_pid"; fi
if [ -s "$lj" ]; then
  # MERIT first so its row is in even if ASTI runs out of time; one realization per row.
  left=$((deadline - $(date +%s)))
  echo "lj_like: ${left} s left"
  if [ "$left" -lt 20 ]; then echo "no time left for lj_like"; cat "$out"/*.md; exit 0; fi
  timeout "$left" $bench -i "$lj" -w wc --name lj_like --models IC --batches 16 --etas 5000 \
    --runs merit:gpu,asti -R 1 -p $threads --budget 1 > "$out/lj_like.md" 2> "$out/lj_like.err"
  echo "lj_like exit $?"
else
  echo "lj_like.txt was not generated"; tail -5 "$out/gen_lj.log"
fi
cat "$out"/*.md
