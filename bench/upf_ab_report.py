#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summary of bench-upf-ab.sh: merged lanefwd-upfbench CSVs (label base or
exp, 'round' the pair) -> per PDRs x mode x distribution, the medians of
each side's per-process figures (the median of its repetitions), the
median of the within-pair differences exp - base, and in how many pairs exp
was the cheaper. Exits 1 when a process's check failed."""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    per = defaultdict(list)  # (label, pdrs, mode, dist, pair) -> cycles of each rep
    bad = 0
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            if r["check"] != "ok":
                bad += 1
            per[(r["label"], int(r["pdrs"]), r["mode"], r["dist"], int(r["round"]))].append(
                float(r["cycles"]))
    proc = {k: statistics.median(v) for k, v in per.items()}
    cells = sorted({k[1:4] for k in proc}, key=lambda c: (c[0], c[2], ["l3", "ul", "dl"].index(c[1])
                                                         if c[1] in ("l3", "ul", "dl") else 9, c[1]))
    print("# cycles/packet of the pipeline: side medians over the pairs, exp - base")
    print(f"{'PDRs':>4} {'mode':<5} {'dist':<8} {'n':>2} {'base med':>9} {'exp med':>9} "
          f"{'diff':>7} {'diff%':>6} {'pair diffs med':>14} {'exp faster':>10}")
    for c in cells:
        pairs = sorted({k[4] for k in proc if k[1:4] == c and k[0] == "base"}
                       & {k[4] for k in proc if k[1:4] == c and k[0] == "exp"})
        if not pairs:
            continue
        b = [proc[("base",) + c + (p,)] for p in pairs]
        e = [proc[("exp",) + c + (p,)] for p in pairs]
        bm, em = statistics.median(b), statistics.median(e)
        d = [y - x for x, y in zip(b, e)]
        faster = sum(1 for x in d if x < 0)
        print(f"{c[0]:>4} {c[1]:<5} {c[2]:<8} {len(pairs):>2} {bm:>9.1f} {em:>9.1f} "
              f"{em - bm:>7.1f} {100 * (em - bm) / bm:>6.1f} {statistics.median(d):>14.1f} "
              f"{faster:>7}/{len(pairs)}")
    if bad:
        print(f"# {bad} rows with a FAILED check", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
