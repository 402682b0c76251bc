#!/usr/bin/env bash
# The MERIT paper's grid (section 5) on the graphs sized like its undirected datasets: DBLP-like
# (com-DBLP, 317,080 nodes, 1,049,866 undirected edges = 2,099,732 arcs) and YouTube-like
# (com-Youtube, 1,134,890 / 2,987,624 = 5,975,248 arcs), both from gen_powerlaw.py --seed 1.
# WC weights, degree costs, eps 0.5; IC with b = 4 (DBLP) and 16 (YouTube), LT with b = 4; eta at
# both ends of the paper's grids (IC 1K and 5K, LT 1K and 3K); MERIT on the GPU, PASTI-16 and the
# degree baseline, up to 10 realizations per row within a per-row budget. About 4 minutes on one
# H100/H200 with 16 cores; writes $OUT/amcss-grid/*.md and prints the tables.
set -u
cd "$(dirname "$0")/../.."
source scripts/device/lib/common.sh
out="$OUT/amcss-grid"
mkdir -p "$out"
gen=${WF_GEN_POWERLAW:-.carry/tools/gen_powerlaw.py}
wf_gen_like dblp "$out/dblp_like.txt" "$out/gen_dblp.log"; gen_dblp=$!
wf_gen_like youtube "$out/youtube_like.txt" "$out/gen_youtube.log"; gen_youtube=$!
wf_build amcss_bench
bench=$build/bench/amcss_bench
# $1 name, $2 graph file, $3 IC batch size.
grid() {
  local name=$1 graph=$2 b_ic=$3
  timeout 150 $bench -i "$graph" -w wc --name "$name" --models IC --batches "$b_ic" --etas 1000,5000 \
    --runs merit:gpu,asti,degree -R 10 -p 16 --budget 6 --time-limit 30 > "$out/${name}_IC.md" 2> "$out/${name}_IC.err"
  echo "$name IC exit $? ($(elapsed) s)"
  timeout 150 $bench -i "$graph" -w wc --name "$name" --models LT --batches 4 --etas 1000,3000 \
    --runs merit:gpu,asti,degree -R 10 -p 16 --budget 6 --time-limit 30 > "$out/${name}_LT.md" 2> "$out/${name}_LT.err"
  echo "$name LT exit $? ($(elapsed) s)"
}
wait $gen_dblp && grid dblp_like "$out/dblp_like.txt" 4
wait $gen_youtube && grid youtube_like "$out/youtube_like.txt" 16
rm -f "$out"/*.txt
cat "$out"/*.md | grep -E "^\| (graph|---|[a-z])" | awk '!/^\| graph/ || !seen++'
