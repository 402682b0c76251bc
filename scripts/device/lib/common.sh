# shellcheck shell=bash disable=SC2154  # `out` and `gen` are the sourcing script's
# The preamble the scripts of scripts/device/ share; they source it (from the repository root) and
# then set `out` (and may set `gen`, the generator wf_gen_like runs). Lives in lib/ so that
# run_all.sh, which runs every scripts/device/*.sh, skips it.
export PATH=/usr/local/cuda/bin:$PATH
build="build-device"
t0=$(date +%s)
# Seconds since t0 (a script may reset t0, e.g. once its build is done).
elapsed() { echo $(( $(date +%s) - t0 )); }
# True while fewer than $1 seconds have passed since t0.
have_time() { (( $(elapsed) < $1 )); }

# wf_build [--fatal] TARGET...: configures $build when it has no cache yet ($out/cmake.log) and
# builds the targets ($out/build.log). On a failure prints the errors and, with --fatal, exits 1
# (without it the script goes on, and the steps whose binaries are missing fail on their own).
# WF_COMMIT=COMMIT names the measured commit in the binaries' output (run_all.sh's argument): the
# device's copy of .git can be older than the working tree it builds, whose `git rev-parse` then
# names that older commit, "-dirty".
wf_build() {
  local fatal=0
  if [[ ${1:-} == --fatal ]]; then fatal=1; shift; fi
  local commit=()
  [[ -n ${WF_COMMIT:-} ]] && commit=(-DWF_GIT_COMMIT_OVERRIDE="$WF_COMMIT")
  if [[ ! -f $build/CMakeCache.txt ]]; then
    if ! cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${commit[@]}" > "$out/cmake.log" 2>&1; then
      if ((fatal)); then tail -30 "$out/cmake.log"; exit 1; fi
    fi
  fi
  if ! cmake --build $build -j "$(nproc)" --target "$@" > "$out/build.log" 2>&1; then
    grep -E "error" "$out/build.log" | head -30
    if ((fatal)); then exit 1; fi
  fi
  return 0
}

# wf_gen_like NAME FILE LOG: starts gen_powerlaw.py ($gen, seed 1) in the background, writing a
# graph the size of the SNAP graph NAME (lj, orkut, topcats, dblp, youtube) to FILE; $! is its pid.
wf_gen_like() {
  local size
  case $1 in
    lj) size="4847571 68993773" ;;
    orkut) size="3072441 117185083" ;;
    topcats) size="1791489 28511807" ;;
    dblp) size="317080 2099732" ;;
    youtube) size="1134890 5975248" ;;
    *) echo "wf_gen_like: no graph named $1" >&2; return 1 ;;
  esac
  set -- "$2" "$3" $size
  ( python3 "${gen:-.carry/tools/gen_powerlaw.py}" --n "$3" --m "$4" --seed 1 --out "$1" > "$2" 2>&1 ) &
}

# The graph the size of NAME with weighted-cascade weights in the binary format, made once per
# machine (kept under $build/graphs while the machine stays up; LJ-like's at $lj_like_wfg):
#   wf_wc_graph_start NAME WFG LOGDIR   starts the generator unless WFG exists (overlap a build)
#   wf_wc_graph_finish WFG LOGDIR       waits for it and converts with $build's wildfire
#   wf_wc_graph NAME WFG LOGDIR         both, one after the other
lj_like_wfg="$build/graphs/lj_like.wfg"
wf_wc_graph_start() {
  wf_wc_graph_pid=
  [[ -s $2 ]] && return 0
  mkdir -p "$(dirname "$2")"
  wf_gen_like "$1" "$2.txt" "$3/gen_$1.log"; wf_wc_graph_pid=$!
}
wf_wc_graph_finish() {
  [[ -n ${wf_wc_graph_pid:-} ]] || return 0
  wait "$wf_wc_graph_pid"
  $build/apps/wildfire/wildfire convert -i "$1.txt" -w wc -o "$1" > "$2/convert.log" 2>&1
  rm -f "$1.txt"
  wf_wc_graph_pid=
}
wf_wc_graph() { wf_wc_graph_start "$1" "$2" "$3"; wf_wc_graph_finish "$2" "$3"; }

# The source trees the A/B scripts (imm-ab.sh, fused-ab.sh) compare with this one: .carry/ab/NAME
# (put a commit there with `git archive COMMIT | tar -x -C .carry/ab/NAME`), each built here into
# build-ab-NAME (gpu_sampling_bench only):
#   wf_ab_build_start LOGDIR    sets `variants` to their names and starts their builds
#   wf_ab_build_finish LOGDIR   waits for them, naming the trees that failed
# flock: several scripts of one call may build the same trees (the same lines, the same lock).
wf_ab_build_start() {
  variants=() ab_pids=()
  local dir name
  for dir in .carry/ab/*/; do [[ -d $dir ]] && variants+=("$(basename "$dir")"); done
  for name in "${variants[@]}"; do
    ( flock 9
      cmake -S ".carry/ab/$name" -B "build-ab-$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        > "$1/cmake_$name.log" 2>&1 &&
      cmake --build "build-ab-$name" -j "$(nproc)" --target gpu_sampling_bench > "$1/build_$name.log" 2>&1
    ) 9> "build-ab-$name.lock" &
    ab_pids+=($!)
  done
}
wf_ab_build_finish() {
  local i
  for i in "${!variants[@]}"; do
    wait "${ab_pids[$i]}" || { echo "variant ${variants[$i]} failed to build"; grep -E "error" "$1/build_${variants[$i]}.log" | head; }
  done
  echo "variants built after $(elapsed) s"
}
