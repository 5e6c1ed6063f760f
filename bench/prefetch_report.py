#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Report of bench/bench-prefetch.sh: cycles/packet by burst, packet data
(hot, cold) and prefetch distance, median round; printed, and written to
docs/prefetch.md with --doc.

usage: prefetch_report.py --csv results.csv --cmd TEXT --default D [--doc FILE]
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_lib import pipebench_rows, write_doc  # noqa: E402


def load(path):
    cyc = defaultdict(list)   # (data, burst, prefetch) -> cycles per round
    meta = {}
    for row in pipebench_rows(path, "prefetch_report"):
        key = (row["label"], int(row["burst"]), int(row["prefetch"]))
        cyc[key].append(float(row["cycles"]))
        meta = {"routes": row["routes"], "flows": row["flows"], "packets": row["packets"]}
    return {k: statistics.median(v) for k, v in cyc.items()}, \
        {k: len(v) for k, v in cyc.items()}, meta


def analyse(med):
    """Per burst: the table rows and the findings."""
    out = {}
    for burst in sorted({b for _, b, _ in med}):
        dists = sorted({p for d, b, p in med if b == burst})
        hot = {p: med.get(("hot", burst, p)) for p in dists}
        cold = {p: med.get(("cold", burst, p)) for p in dists}
        f = {"dists": dists, "hot": hot, "cold": cold}
        if all(v is not None for v in cold.values()) and 0 in cold:
            f["cold_best"] = min(dists, key=lambda p: cold[p])
        if all(v is not None for v in hot.values()) and 0 in hot:
            f["hot_best"] = min(dists, key=lambda p: hot[p])
        out[burst] = f
    return out


def default_for(default, burst):
    """lanefwd's distance at this burst: a number, or auto (half the burst,
    at most 32, on a port that DMAs its packet data, as pipebench's does)."""
    return min(burst // 2, 32) if default == "auto" else int(default)


def lines(res, default):
    L = []
    for burst, f in res.items():
        dflt = default_for(default, burst)
        L.append("### Burst %d" % burst)
        L.append("")
        L.append("| prefetch | hot cycles/pkt | cold cycles/pkt | cold vs prefetch 0 |")
        L.append("|---:|---:|---:|---:|")
        c0 = f["cold"].get(0)
        for p in f["dists"]:
            h, c = f["hot"][p], f["cold"][p]
            rel = "%+.1f%%" % ((c / c0 - 1) * 100) if c is not None and c0 else "-"
            mark = " (default)" if p == dflt else ""
            L.append("| %d%s | %s | %s | %s |" % (
                p, mark, "%.1f" % h if h is not None else "-",
                "%.1f" % c if c is not None else "-", rel))
        L.append("")
        if "cold_best" in f and "hot_best" in f and dflt in f["dists"]:
            cb, hb = f["cold_best"], f["hot_best"]
            L.append("Cold data: fewest cycles at prefetch %d (%.1f, %.1f%% below prefetch 0); "
                     "the default %d is %.1f%% above that. Hot data: fewest at prefetch %d "
                     "(%.1f); the default costs %+.1f cycles/packet over prefetch 0." % (
                         cb, f["cold"][cb], (1 - f["cold"][cb] / f["cold"][0]) * 100,
                         dflt, (f["cold"][dflt] / f["cold"][cb] - 1) * 100,
                         hb, f["hot"][hb], f["hot"][dflt] - f["hot"][0]))
            L.append("")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--default", required=True,
                    help="lanefwd's default prefetch_distance, a number or auto "
                    "(from --check-config)")
    ap.add_argument("--doc")
    a = ap.parse_args()
    med, count, meta = load(a.csv)
    if not med:
        sys.exit("prefetch_report: no results in %s" % a.csv)
    rounds = max(count.values())
    res = analyse(med)
    body = lines(res, a.default)
    print("\n".join(body))
    if not a.doc:
        return
    intro = [
         "What `[pipeline] prefetch_distance` buys when packet data is cold and what it "
         "costs when it is hot, on the fused fast path (parse, FIB, rewrite, TX) of one "
         "core, without a NIC. `lanefwd-pipebench` writes 64-byte UDP/IPv4 frames "
         "(%s flows) into mbufs and times `pipeline_run` on them, through a "
         "%s-route table that stays in the cache, into a `net_null` port that frees "
         "them." % (meta["flows"], meta["routes"]), "",
         "* **hot**: the frames as just written, in L1, as a software port leaves "
         "them (the pcap, memif and TAP drivers copy each frame into its mbuf on the "
         "polling core): prefetches can only cost instructions. The benchmark harness "
         "of docs/benchmarks.md is this case.",
         "* **cold**: each frame's data line flushed from every cache level (`clflush`) "
         "before its burst (`--cold-data`), as a NIC's DMA into DRAM leaves it (no DDIO, "
         "or its LLC ways used up). The mbuf headers stay hot, as the driver's own RX "
         "writes leave them. With DDIO the data sits in the LLC instead, a shorter wait "
         "than this one.", "",
         "Cycles per packet of the timed region (the pipeline and the null port's TX), "
         "median of %d rounds of %s packets per configuration. The eight-packet check "
         "of AVX-512 builds prefetches max(distance, 8) ahead, so 2, 4 and 8 differ "
         "only in the scalar tail of a burst." % (rounds, meta["packets"]), ""] + (
         ["lanefwd's default, `prefetch_distance = auto`, is half the burst (marked "
          "below) on a port whose packet data arrives by DMA, the cold case, and no "
          "packet-data prefetch on a port whose driver copies each frame into its "
          "mbuf, the hot case.", ""] if a.default == "auto" else [])
    write_doc(a.doc, "Packet-data prefetch", "bench-prefetch.sh", intro, body, a.cmd, "prefetch")


if __name__ == "__main__":
    main()
