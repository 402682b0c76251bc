#!/usr/bin/env python3
"""Summarises a GPU timeline (bench/gpu_timeline.cpp's CSV) run by run.

A run is what lies between two host-to-device copies of at least 1 MB (each run uploads its
graph); its window goes from its first kernel's start to its last kernel's end. For each run with
sampling kernels: the GPU's busy and idle time in the window, time by kernel, the runtime calls
made in the window, and the longest idle gaps with the runtime calls that overlap them (what the
host was doing while the GPU waited). Prints markdown.

usage: timeline_summary.py TRACE.csv [--gaps N] [--runs LABEL,LABEL,...]
"""
import argparse
import collections
import csv

SAMPLING = ("warp_rr_sets", "small_rr_sets", "fused")
QUIET_APIS = ("cudaLaunchKernel", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetDevice", "cudaSetDevice")


def load(path):
    with open(path) as f:
        rows = []
        for r in csv.DictReader(f):
            rows.append((r["what"], int(r["start_ns"]), int(r["end_ns"]), int(r["stream"]), int(r["bytes"]), r["name"]))
    rows.sort(key=lambda r: r[1])
    return rows


def split_runs(rows):
    runs, current = [], []
    for r in rows:
        if r[0] == "copy" and r[5] == "HtoD" and r[4] >= (1 << 20):
            if current:
                runs.append(current)
            current = []
        current.append(r)
    if current:
        runs.append(current)
    return runs


def union(intervals):
    """Merged [start, end) intervals of the GPU's activities, in order."""
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def summarise(run, label, gaps_shown):
    kernels = [r for r in run if r[0] == "kernel"]
    if not any(any(k in r[5] for k in SAMPLING) for r in kernels):
        return False
    lo = min(r[1] for r in kernels)
    hi = max(r[2] for r in kernels)
    device = [r for r in run if r[0] != "api" and r[1] >= lo and r[2] <= hi]
    apis = [r for r in run if r[0] == "api" and r[2] > lo and r[1] < hi]
    busy = union([(r[1], r[2]) for r in device])
    busy_ns = sum(e - s for s, e in busy)
    window = hi - lo
    print(f"### {label}: window {window / 1e6:.2f} ms, GPU busy {busy_ns / 1e6:.2f} ms, "
          f"idle {(window - busy_ns) / 1e6:.2f} ms ({len(busy) - 1} gaps)\n")

    by_kernel = collections.defaultdict(lambda: [0, 0])
    for r in device:
        key = r[5] if r[0] == "kernel" else f"{r[0]} {r[5]}"
        by_kernel[key][0] += 1
        by_kernel[key][1] += r[2] - r[1]
    print("| GPU activity | count | ms |\n|---|---|---|")
    for name, (count, ns) in sorted(by_kernel.items(), key=lambda x: -x[1][1])[:25]:
        print(f"| {name} | {count} | {ns / 1e6:.3f} |")

    by_api = collections.defaultdict(lambda: [0, 0])
    for r in apis:
        by_api[r[5]][0] += 1
        by_api[r[5]][1] += min(r[2], hi) - max(r[1], lo)
    print("\n| runtime call (in the window) | count | ms |\n|---|---|---|")
    for name, (count, ns) in sorted(by_api.items(), key=lambda x: -x[1][1])[:15]:
        print(f"| {name} | {count} | {ns / 1e6:.3f} |")

    # Idle gaps: between consecutive busy intervals; what came before and after, and which
    # runtime calls (other than launches) overlap the gap.
    ends = {}
    starts = {}
    for r in device:
        ends.setdefault(r[2], r[5])
        starts.setdefault(r[1], r[5])
    gaps = []
    for (s0, e0), (s1, _) in zip(busy, busy[1:]):
        overlapping = collections.defaultdict(int)
        for r in apis:
            if r[2] > e0 and r[1] < s1 and r[5] not in QUIET_APIS:
                overlapping[r[5]] += min(r[2], s1) - max(r[1], e0)
        gaps.append((s1 - e0, e0 - lo, ends.get(e0, "?"), starts.get(s1, "?"), overlapping))
    by_cause = collections.defaultdict(lambda: [0, 0])
    for gap, _, _, _, overlapping in gaps:
        cause = max(overlapping.items(), key=lambda x: x[1])[0] if overlapping else "host (no runtime call)"
        by_cause[cause][0] += 1
        by_cause[cause][1] += gap
    print("\n| idle gaps by the runtime call that overlaps them most | gaps | ms |\n|---|---|---|")
    for cause, (count, ns) in sorted(by_cause.items(), key=lambda x: -x[1][1]):
        print(f"| {cause} | {count} | {ns / 1e6:.3f} |")
    print(f"\n| longest gaps (us) | at (ms) | GPU activity before | GPU activity after | runtime calls in the gap (us) |\n|---|---|---|---|---|")
    for gap, at, before, after, overlapping in sorted(gaps, reverse=True)[:gaps_shown]:
        calls = ", ".join(f"{n} {ns / 1e3:.0f}" for n, ns in sorted(overlapping.items(), key=lambda x: -x[1]))
        print(f"| {gap / 1e3:.1f} | {at / 1e6:.2f} | {before} | {after} | {calls} |")
    print()
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--gaps", type=int, default=20)
    parser.add_argument("--runs", default="", help="labels of the runs with sampling kernels, in order")
    args = parser.parse_args()
    labels = [l for l in args.runs.split(",") if l]
    shown = 0
    for run in split_runs(load(args.trace)):
        label = labels[shown] if shown < len(labels) else f"run {shown + 1}"
        if summarise(run, label, args.gaps):
            shown += 1


if __name__ == "__main__":
    main()
