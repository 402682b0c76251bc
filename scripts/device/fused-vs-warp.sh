#!/usr/bin/env bash
# Issue 7's sampling benchmarks that IMM runs do not cover, from the repository root with $OUT set
# (through run_all.sh give it WF_SCRIPT_TIMEOUT of about 420; at most WF_FVW_BUDGET_S, default
# 400, seconds after the build):
#  - fused against warp per sample on topcats-like (gen_powerlaw --n 1791489 --m 28511807
#    --seed 1) at uniform p = 0.05, 0.1 and 0.2 with 16,384, 8,192 and 4,096 sets (WF_FVW_PS="P:SETS
#    ..."; 8,192 sets at p = 0.2 may not fit an H100), 8, 32 and 64 colours (WF_FVW_COLOURS),
#    traversals warp and fused (WF_FVW_TRAVERSALS), flat store, the first 16 sets checked against the 16-thread CPU
#    backend: $OUT/fused-vs-warp/sampling_p*.md. Enough sets to fill the GPU: with a set per
#    resident warp or fewer, a warp launch lasts as long as its longest set;
#  - raw IC sampling under weighted cascade on LJ-like and Orkut-like (WF_FVW_BIG, default
#    "lj orkut"; empty: none), 1M sets per traversal, with the bytes-read lower bound over the measured copy
#    bandwidth: $OUT/fused-vs-warp/sampling_{lj,orkut}.md.
# Prints every table, then one summary line per p: warp seconds over fused seconds per colour count.
set -u
source scripts/device/lib/common.sh
out="$OUT/fused-vs-warp"; mkdir -p "$out/graphs"
budget=${WF_FVW_BUDGET_S:-400}
bench=$build/bench/gpu_sampling_bench
wf=$build/apps/wildfire/wildfire

wf_gen_like topcats "$out/graphs/topcats_like.txt" "$out/gen_topcats.log"; gen_topcats=$!
big_graphs=${WF_FVW_BIG-lj orkut}
for big in $big_graphs; do wf_wc_graph_start "$big" "$build/graphs/${big}_like.wfg" "$out"; eval "gen_$big=\$wf_wc_graph_pid"; done
wf_build --fatal gpu_sampling_bench wildfire
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1
t0=$(date +%s)
echo "build checked; the budget counts from here"
export CUDA_MODULE_LOADING=EAGER

wait $gen_topcats
$wf convert -i "$out/graphs/topcats_like.txt" -o "$out/graphs/topcats_like.wfg" > "$out/convert_topcats.log" 2>&1 ||
  tail -3 "$out/convert_topcats.log"
rm -f "$out/graphs/topcats_like.txt"
for p_sets in ${WF_FVW_PS:-0.05:16384 0.1:8192 0.2:4096}; do
  p=${p_sets%%:*} sets=${p_sets##*:}
  have_time $((budget - 60)) || { echo "p=$p skipped (time)"; continue; }
  echo "== topcats-like, uniform p = $p, $sets sets ($(elapsed) s)"
  timeout 120 $bench "$out/graphs/topcats_like.wfg" --weights uniform:$p --sets "$sets" --cpu-sets 16 --check 16 \
    --colours ${WF_FVW_COLOURS:-8,32,64} --traversals ${WF_FVW_TRAVERSALS:-warp,fused} --cpu-threads "$(nproc)" > "$out/sampling_p$p.md" 2> "$out/sampling_p$p.err"
  echo "exit $?"; cat "$out/sampling_p$p.md"; tail -3 "$out/sampling_p$p.err"
done
# WF_FVW_KEEP_GRAPH=1 keeps topcats-like for a later step of the same call (not brought back: too large).
[[ ${WF_FVW_KEEP_GRAPH:-0} == 1 ]] || rm -f "$out/graphs/topcats_like.wfg"

for big in $big_graphs; do
  have_time $((budget - 45)) || { echo "$big skipped (time)"; continue; }
  wf_wc_graph_pid=$(eval "echo \${gen_$big:-}")
  wf_wc_graph_finish "$build/graphs/${big}_like.wfg" "$out"
  echo "== ${big}-like, weighted cascade, IC: warp and fused (32, 64 colours), 1M sets ($(elapsed) s)"
  timeout 90 $bench "$build/graphs/${big}_like.wfg" --sets 1000000 --cpu-sets 20000 --check 2000 --colours 32,64 \
    --traversals warp,fused --cpu-threads "$(nproc)" > "$out/sampling_$big.md" 2> "$out/sampling_$big.err"
  echo "exit $?"; cat "$out/sampling_$big.md"; tail -3 "$out/sampling_$big.err"
done

# Summary: the seconds column (upload excluded) of the GPU rows, the least per traversal and colour
# count (the first GPU row of a process allocates from a cold memory pool), warp over fused.
for p_sets in ${WF_FVW_PS:-0.05:16384 0.1:8192 0.2:4096}; do
  p=${p_sets%%:*}
  f="$out/sampling_p$p.md"; [[ -s $f ]] || continue
  # The colours column reads "32 (3/3 batches masked, ...)": its first word is the count.
  awk -F"|" -v p="$p" '$2 ~ /gpu/ { gsub(/ /, "", $3); split($4, word, " "); k = $3 "_" word[1]; if (!(k in t) || $7 + 0 < t[k]) t[k] = $7 + 0 }
    END { line = "p = " p ": warp " t["warp_-"] " s"; for (c = 8; c <= 64; c *= 2) if (("fused_" c) in t && t["fused_" c] > 0)
            line = line sprintf(", fused %d colours %.3f s (%.1fx)", c, t["fused_" c], t["warp_-"] / t["fused_" c]); print line }' "$f"
done
