#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Report of bench/bench-fib.sh: cycles/packet of the fused fast path by
route table (full, cached), FIB lookup (scalar, avx512) and packet data
(hot, cold), median round; printed, and written to docs/fib-lookup.md with
--doc.

usage: fib_report.py --csv results.csv --cmd TEXT [--doc FILE]
"""
import argparse
import os
import re
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_lib import pipebench_rows, write_doc  # noqa: E402

TABLES = {"full": "full Internet table", "cached": "cached table (256 /16s)"}


def load(path):
    cyc = defaultdict(list)   # (table, lookup, data) -> cycles per round
    routes, meta = {}, {}
    for row in pipebench_rows(path, "fib_report"):
        table, lookup, data = row["label"].split("-")
        cyc[(table, lookup, data)].append(float(row["cycles"]))
        routes[table] = row["routes"]
        meta = {"flows": row["flows"], "packets": row["packets"], "burst": row["burst"]}
    return cyc, routes, meta


def cpu_avx512f():
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^flags\s*:(.*)$", f.read(), re.M)
    return m is not None and "avx512f" in m[1].split()


def lines(cyc, routes):
    med = {k: statistics.median(v) for k, v in cyc.items()}
    L = ["| table | routes | data | scalar cycles/pkt | avx512 cycles/pkt | avx512 - scalar "
         "| avx512 faster in |",
         "|---|---:|---|---:|---:|---:|---:|"]
    for table in [t for t in TABLES if t in routes]:
        for data in ("hot", "cold"):
            s, v = med.get((table, "scalar", data)), med.get((table, "avx512", data))
            if s is None or v is None:
                continue
            rs, rv = cyc[(table, "scalar", data)], cyc[(table, "avx512", data)]
            wins = sum(1 for a, b in zip(rs, rv) if b < a)
            L.append("| %s | %s | %s | %.1f | %.1f | %+.1f (%+.1f%%) | %d of %d rounds |" % (
                TABLES[table], routes[table], data, s, v, v - s, (v / s - 1) * 100, wins,
                min(len(rs), len(rv))))
    L.append("")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True)
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--doc")
    a = ap.parse_args()
    cyc, routes, meta = load(a.csv)
    if not cyc:
        sys.exit("fib_report: no results in %s" % a.csv)
    rounds = max(len(v) for v in cyc.values())
    body = lines(cyc, routes)
    print("\n".join(body))
    if not a.doc:
        return
    here = "has" if cpu_avx512f() else "does not have"
    intro = [
         "What `[routes] fib_lookup` changes on the fused fast path (parse, FIB, rewrite, "
         "TX) of one core, without a NIC. `lanefwd-pipebench` writes 64-byte UDP/IPv4 "
         "frames of %s flows (uniform, destinations spread over the table's prefixes) "
         "into mbufs and times `pipeline_run` on them at burst %s, into a "
         "`net_null` port that frees them. `scalar` is rte_fib's scalar DIR24_8 bulk "
         "lookup, `avx512` its AVX-512 one (sixteen addresses per gather). The default, "
         "`auto`, is `avx512` on a CPU with AVX-512F; this machine's CPU %s it."
         % (meta["flows"], meta["burst"], here), "",
         "* **full**: the full Internet IPv4 table. Its tbl24 (2-byte entries, 32 MiB) "
         "does not fit in the caches, so most lookups wait for memory.",
         "* **cached**: 256 /16s of 10.0.0.0/8, whose 128 KiB of tbl24 entries stay in L2.",
         "* **hot**: the frames as just written, in L1, as a software port leaves them.",
         "* **cold**: each frame's data line flushed (`clflush`) before its burst "
         "(`--cold-data`), as a NIC's DMA into DRAM leaves it.", "",
         "Cycles per packet of the timed region (the pipeline and the null port's TX), "
         "median of %d rounds of %s packets per configuration; \"faster in\" counts the "
         "rounds (run back to back) in which avx512 took fewer cycles." % (
             rounds, meta["packets"]), ""]
    write_doc(a.doc, "FIB lookup: scalar against AVX-512", "bench-fib.sh", intro, body, a.cmd,
              "fib-lookup")


if __name__ == "__main__":
    main()
