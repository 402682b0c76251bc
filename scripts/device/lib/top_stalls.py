"""Prints the SASS instructions with the most warp-stall samples from `ncu --page source --csv
--print-source sass` output: python3 top_stalls.py FILE [COUNT]. Column names differ between ncu
versions, so the sample column is the first whose name mentions stall sampling."""
import csv
import sys


def main() -> int:
    path, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
    with open(path, newline="") as f:
        lines = [line for line in f if line.count(",") > 2]
    rows = list(csv.reader(lines))
    if not rows:
        print("top_stalls: no CSV rows")
        return 1
    # A "Kernel Name" row comes first in recent versions.
    while rows and "Source" not in rows[0]:
        rows.pop(0)
    if not rows:
        print("top_stalls: no header row")
        return 1
    header = rows[0]
    sampled = [i for i, name in enumerate(header) if "Sampling" in name and "Not" not in name]
    source = next((i for i, name in enumerate(header) if name.strip() in ("Source", "# Source")), None)
    address = next((i for i, name in enumerate(header) if "Address" in name), None)
    if not sampled or source is None:
        print("top_stalls: columns not found:", header)
        return 1
    col = sampled[0]

    def number(text: str) -> float:
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return 0.0

    body = [r for r in rows[1:] if len(r) > max(col, source)]
    total = sum(number(r[col]) for r in body) or 1.0
    print(f"{header[col]}: {total:.0f} samples over {len(body)} instructions")
    for r in sorted(body, key=lambda r: -number(r[col]))[:count]:
        where = r[address] if address is not None and address < len(r) else ""
        print(f"{100 * number(r[col]) / total:5.1f}%  {where}  {r[source].strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
