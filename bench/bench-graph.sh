#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rte_graph against a fixed stage list: $BUILD/lanefwd-graphbench
# (bench/graphbench.c) on one core, N = 1, 3, 5 stages x burst 32 and 256 x
# trivial and realistic per-stage work x one kind / two kinds (0% and 50%
# kind B), every shape paired within each round. The whole matrix runs RUNS
# times (default 2) as separate processes, to show what is stable. Writes
# docs/graph-vs-stages/results.csv (a 'run' column first), run.txt and
# summary.md (the tables docs/graph-vs-stages.md quotes, with each figure
# as run 1 / run 2, per-stage slopes and the core's clock against the TSC). About a minute of
# CPU, plus the wait for the lock.
#
#   sudo bench/bench-graph.sh              # the run behind docs/graph-vs-stages.md
#   sudo bench/bench-graph.sh --quick      # burst 32, 3 stages, 11 rounds, no docs
#   BUILD=build-x LCORE=1 RUNS=3 sudo -E bench/bench-graph.sh
#
# Needs root: 2 MiB hugepages (32 of them; with --no-huge, 4 KiB pages made
# even the trivial work cost about 10x here) and nice -n -5. Runs under
# /tmp/lf-integ.lock, the lock of everything that takes hugepages.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0"; exit 0 ;;
	*) echo "bench-graph.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done
bench_need_root bench-graph.sh "hugepages, nice -n -5"
BUILD=${BUILD:-build}
LCORE=${LCORE:-$(bench_last_cpu)}
RUNS=${RUNS:-2}
LOCK=${LOCK:-/tmp/lf-integ.lock}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD"
fi
ninja -C "$BUILD" lanefwd-graphbench
free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "${free_pages:-0}" -lt 32 ]; then
	echo "bench-graph.sh: $free_pages free 2 MiB hugepages, 32 needed (scripts/hugepages.sh)" >&2
	exit 1
fi

eal=(-l "$LCORE" --no-pci -m 64 --huge-unlink --file-prefix "graphbench_$$" --no-telemetry
	--log-level 3)
if [ "$quick" -eq 1 ]; then
	exec flock "$LOCK" nice -n -5 "$BUILD/lanefwd-graphbench" "${eal[@]}" -- \
		--burst 32 --stages 3 --rounds 11
fi
out=docs/graph-vs-stages
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmd="flock $LOCK nice -n -5 $BUILD/lanefwd-graphbench ${eal[*]} -- --csv FILE"
{
	echo "# bench/bench-graph.sh (RUNS=$RUNS LCORE=$LCORE), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# $cmd"
	echo "# $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, kernel $(uname -r)"
} > "$out/run.txt"
for run in $(seq 1 "$RUNS"); do
	echo "== run $run" | tee -a "$out/run.txt"
	echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
	flock "$LOCK" nice -n -5 "$BUILD/lanefwd-graphbench" "${eal[@]}" -- \
		--csv "$tmp/run$run.csv" 2>&1 | tee -a "$out/run.txt"
	echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
	sed "s/^/$run,/; 1s/^$run,/run,/" "$tmp/run$run.csv" > "$tmp/tagged$run.csv"
done
head -1 "$tmp/tagged1.csv" > "$out/results.csv"
for run in $(seq 1 "$RUNS"); do
	tail -n +2 "$tmp/tagged$run.csv" >> "$out/results.csv"
done
/usr/bin/python3 - "$out/results.csv" > "$out/summary.md" <<'EOF'
# The tables of docs/graph-vs-stages.md from results.csv: each cell is
# "run 1 / run 2 / ..." of a median (or of a paired median difference).
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
runs = sorted({int(r["run"]) for r in rows})
cell = defaultdict(dict)
for r in rows:
    key = (r["work"], int(r["burst"]), int(r["stages"]), r["mix"], r["shape"])
    cell[key][int(r["run"])] = r

def fmt(key, col):
    got = cell.get(key, {})
    vals = []
    for run in runs:
        v = got.get(run, {}).get(col, "")
        vals.append("-" if v == "" else "%.2f" % float(v))
    return " / ".join(vals)

settings = sorted({k[:3] for k in cell}, key=lambda k: (k[0] != "triv", k[1], k[2]))
mixes = sorted({k[3] for k in cell}, key=lambda m: (m != "single", len(m), m))
print("Cycles/packet (TSC), median of the rounds; runs %s.\n" % " / ".join(map(str, runs)))
print("## One kind (no classifier)\n")
print("| work | burst | stages | list | graph | graph-nostats | fused "
      "| graph - list | graph-nostats - list | fused - list |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for w, b, n in settings:
    k = lambda shape: (w, b, n, "single", shape)
    print("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
        w, b, n, fmt(k("list"), "cpp_median"), fmt(k("graph"), "cpp_median"),
        fmt(k("graph-nostats"), "cpp_median"), fmt(k("fused"), "cpp_median"),
        fmt(k("graph"), "minus_list"), fmt(k("graph-nostats"), "minus_list"),
        fmt(k("fused"), "minus_list")))
for mix in mixes:
    if mix == "single":
        continue
    print("\n## Two kinds, %s%% kind B (%s): the split's cost and graph - list\n"
          % (mix[len("split"):], mix))
    print("| work | burst | stages | list | graph | graph-nostats "
          "| list - single | graph - single | graph-nostats - single "
          "| graph - list | graph-nostats - list |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for w, b, n in settings:
        k = lambda shape: (w, b, n, mix, shape)
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            w, b, n, fmt(k("list"), "cpp_median"), fmt(k("graph"), "cpp_median"),
            fmt(k("graph-nostats"), "cpp_median"),
            fmt(k("list"), "minus_single"), fmt(k("graph"), "minus_single"),
            fmt(k("graph-nostats"), "minus_single"),
            fmt(k("graph"), "minus_list"), fmt(k("graph-nostats"), "minus_list")))
print("\n## Per stage node, one kind: slope of the paired difference over stages 1, 3, 5\n")
print("Least-squares slope of (shape - list) against the number of stages, "
      "cycles/packet per added stage.\n")
print("| work | burst | graph - list | graph-nostats - list | fused - list |")
print("| --- | ---: | ---: | ---: | ---: |")

def slope(w, b, shape, run):
    pts = [(n, float(cell[(w, b, n, "single", shape)][run]["minus_list"]))
           for (w2, b2, n) in settings if (w2, b2) == (w, b)
           and run in cell.get((w, b, n, "single", shape), {})]
    if len(pts) < 2:
        return "-"
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return "%.2f" % (sum((p[0] - mx) * (p[1] - my) for p in pts) / den)

for w, b in sorted({k[:2] for k in settings}, key=lambda k: (k[0] != "triv", k[1])):
    print("| %s | %d | %s |" % (w, b, " | ".join(
        " / ".join(slope(w, b, shape, run) for run in runs)
        for shape in ("graph", "graph-nostats", "fused"))))
print("\n## The core's clock: TSC cycles per core cycle (dependent adds), median per setting\n")
print("| work | burst | stages | TSC per core cycle |")
print("| --- | ---: | ---: | ---: |")
for w, b, n in settings:
    print("| %s | %d | %d | %s |" % (w, b, n, fmt((w, b, n, "single", "list"), "tsc_per_cycle")))
realloc = sum(int(r["timed_reallocs"]) for r in rows)
print("\nGraph stream reallocations during the timed rounds, all settings and runs: %d." % realloc)
EOF
echo "wrote $out/results.csv, $out/run.txt, $out/summary.md"
