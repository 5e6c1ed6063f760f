#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report of bench/bench-ue6.sh: docs/upf-delegated-bench.md (IPv6,
delegated prefixes) or docs/upf-framed-bench.md (--family 4, framed routes)
and its plot from lanefwd-uebench's CSV (one row per session count, case and
round)."""
import argparse
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_lib import write_doc  # noqa: E402

CASES6 = ["s64", "s64+dlg", "dlg56"]
CASES4 = ["a32", "a32+fr", "fr28"]
LABELS = {"s64": "UE /64s",
          "s64+dlg": "UE /64s, a delegated prefix held elsewhere",
          "dlg56": "addresses in delegated /56s (one key each)",
          "a32": "UE addresses (direct array)",
          "a32+fr": "UE addresses, a framed route held elsewhere",
          "fr28": "addresses in framed /28s (one key each)"}

INTRO6 = [
    "What a prefix delegated to a UE (PFCP UE IP Address with IPv6D, "
    "TS 23.501 5.8.2.2.4) costs the downlink's session lookup. The UE "
    "table holds such a prefix as one key tagged with its length; an "
    "IPv6 key that misses as a /64 is looked up again at each delegated "
    "length in use, the longest prefix first (lib/upf_uetab.h, "
    "[docs/upf.md](upf.md)). Three cases on stores filled through "
    "upf_store_put, the keys built from a uniform random trace of "
    "session ids, only the lookup timed (bench/uebench.c):", "",
    "- **s64**: every session a UE /64, the keys those /64s: an IPv6 "
    "UE's downlink lookup without delegation;",
    "- **s64+dlg**: the same, while one more session holds a delegated "
    "/56: the second pass is armed, and no key needs it;",
    "- **dlg56**: every session a delegated /56, the keys random /64s "
    "inside them: each misses as a /64 and is found at its /56.", "",
    "Before each timed case the harness reads a 256 MiB buffer through, "
    "so that no case starts with the cache its predecessor left. Without "
    "it, at 1M sessions, whichever of s64 and s64+dlg ran right after "
    "the other (the same keys in the same table) came out 3-5% cheaper: "
    "an A/A run, s64+dlg without its extra session (`lanefwd-uebench "
    "--sessions 1000000 --reps 11 --lookups 2000000 --aa --no-flush`), "
    "gave 0.971 and 0.951; with the flush (`--aa` alone) the same A/A "
    "gave 0.998 and 1.004.", "",
    "The alternative, a key per /64 of the prefix, would keep delegated "
    "traffic at the s64 cost but take 256 keys per /56 session (65,536 "
    "per /48): 1M fixed-wireless sessions with a /56 each would need a "
    "256M-key table. One key per prefix keeps the table the size of the "
    "session count (the keys column of run.txt) and costs delegated "
    "traffic one more bulk probe.", ""]

INTRO4 = [
    "What framed routes (PFCP Framed-Route, UP Function Features FRRT: "
    "networks behind a UE) cost the downlink's session lookup for IPv4. "
    "A framed route is one UE table key tagged with its length, as a "
    "delegated IPv6 prefix is; an IPv4 key that misses is looked up again "
    "at each framed length in use, the longest prefix first "
    "(lib/upf_uetab.h, [docs/upf.md](upf.md)). No route may overlap a "
    "direct array (the first IPv4 ue_alloc prefix of an instance), so a "
    "miss there is final and only hash misses take the second pass. Three "
    "cases on stores filled through upf_store_put, the keys built from a "
    "uniform random trace of session ids, only the lookup (and a read of "
    "what it found) timed (bench/uebench.c `--family 4`):", "",
    "- **a32**: every session a UE address in the direct array of "
    "10.0.0.0/10 (as the addresses lanefwd hands out are), the keys those "
    "addresses;",
    "- **a32+fr**: the same, while one more session holds a framed /28: "
    "the second pass is armed, and no key needs it;",
    "- **fr28**: every session a framed /28 and no UE address (one hash "
    "key each), the keys addresses inside them: each misses as an address "
    "and is found at its /28.", "",
    "Before each timed case the harness reads a 256 MiB buffer through, "
    "so that no case starts with the cache its predecessor left.", "",
    "A first version ran the second pass for every IPv4 burst while a route "
    "was held (a route could then lie in a direct array, whose misses were "
    "not counted): a32+fr cost 1.29x a32 at 1K sessions and 1.76x at 1M "
    "(+1.6 and +6.5 cycles per lookup). Routes over a direct array are now "
    "refused instead (the agent already refused routes over any allocating "
    "pool), and the pass is for hash misses only.", ""]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--plots", required=True)
    ap.add_argument("--family", type=int, choices=(4, 6), default=6)
    a = ap.parse_args()
    cases = CASES4 if a.family == 4 else CASES6
    base = cases[0]

    cyc, ratio = {}, {}
    with open(a.csv) as f:
        for row in csv.DictReader(f):
            k = (int(row["sessions"]), row["case"])
            cyc.setdefault(k, []).append(float(row["cycles_per_lookup"]))
            ratio.setdefault(k, []).append(float(row["ratio_to_" + base]))
    sizes = sorted({s for s, _ in cyc})
    if not sizes or any((s, c) not in cyc for s in sizes for c in cases):
        sys.exit("ue6_report.py: %s lacks a case" % a.csv)
    with open(a.run) as f:
        head = f.readline().lstrip("# ").strip()
    reps = len(cyc[(sizes[0], base)])
    name = "upf-framed-bench" if a.family == 4 else "upf-delegated-bench"

    body = ["%s (%s), one core. Cycles per lookup: the median of %d rounds; "
            "ratio: the median of the rounds' ratios to %s in the same round."
            % (cpu_model(), head, reps, base), "",
            "| sessions | case | cycles / lookup | ratio to %s | min..max ratio |" % base,
            "|---:|---|---:|---:|---|"]
    for s in sizes:
        for c in cases:
            r = ratio[(s, c)]
            body.append("| %s | %s | %.1f | %.3f | %.3f..%.3f |" % (
                "{:,}".format(s), LABELS[c], statistics.median(cyc[(s, c)]),
                statistics.median(r), min(r), max(r)))
    body += ["", "![cycles per lookup](%s/lookup.png)" % name, ""]

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    w = 0.8 / len(cases)
    for i, c in enumerate(cases):
        xs = [j + (i - 1) * w for j in range(len(sizes))]
        ax.bar(xs, [statistics.median(cyc[(s, c)]) for s in sizes], w, label=LABELS[c])
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(["{:,} sessions".format(s) for s in sizes])
    ax.set_ylabel("TSC cycles per lookup (median)")
    ax.set_title("Downlink UE lookup, IPv%d (upf_ue_lookup_bulk, bursts of 32)" % a.family)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(a.plots, "lookup.png"), dpi=110)
    plt.close(fig)

    title = ("IPv4 framed routes: the downlink UE lookup" if a.family == 4 else
             "IPv6 delegated prefixes: the downlink UE lookup")
    write_doc(a.doc, title, "bench-ue6.sh", INTRO4 if a.family == 4 else INTRO6, body, a.cmd,
              name)


if __name__ == "__main__":
    main()
