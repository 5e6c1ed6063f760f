#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Paired A/B of two builds of lanefwd-pipebench under a punt flood: the
# measurement behind a change to what a flood packet costs (the fused
# check's set-aside, the neighbour or exception stages). Each process runs
# bench-punt.sh's small table (256 routes, the FIB in cache, where the
# flood's share of the cycles is largest) with every (kind, share) of
# KINDS x SHARES and the no-flood reference paired in each round, as
# bench-punt.sh does. The two binaries alternate, PAIRS times (base first
# in odd pairs, exp first in even ones), each process under flock $LOCK.
# Prints, per (kind, share), each side's median transit ratio (transit
# packets per second under the flood over without it) and median cycles
# per flood packet, the median of the within-pair differences (exp - base)
# of the cycles per flood packet, and in how many pairs exp was cheaper.
#
#   sudo bench/bench-punt-ab.sh BASE_BUILDDIR EXP_BUILDDIR [OUT.txt]
#   PAIRS=6 KINDS=arp,syn,echo SHARES=0.002,0.005,0.01,0.02 ROUNDS=11 \
#       PACKETS=2M FLOWS=64K sudo -E bench/bench-punt-ab.sh ../base/build build
#
# A build of another commit for BASE: see bench-pipe-ab.sh. About 20 s per
# process with the defaults: 6 pairs take 4 min.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
bench_ab_builds bench-punt-ab.sh lanefwd-pipebench 21 "$@"
LCORE=${LCORE:-$(bench_last_cpu)}
PAIRS=${PAIRS:-6}
KINDS=${KINDS:-arp,syn,echo}
SHARES=${SHARES:-0.002,0.005,0.01,0.02}
ROUNDS=${ROUNDS:-11}
PACKETS=${PACKETS:-2M}
FLOWS=${FLOWS:-64K}
LOCK=${LOCK:-/tmp/lanefwd-bench.lock}

bench_reserve_pages bench-punt-ab.sh 256
work=$(mktemp -d /tmp/punt-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
small_routes > "$work/routes.txt"
punt_conf "$work/small.conf" "$work/routes.txt"
args=(--flows "$FLOWS" --packets "$PACKETS" --reps "$ROUNDS" --flood-kind "$KINDS"
	--flood-share "$SHARES")
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
log=$work/run.txt
{
	echo "# bench/bench-punt-ab.sh $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)"
	echo "# base: $base"
	echo "# exp:  $exp"
	echo "# PAIRS=$PAIRS KINDS=$KINDS SHARES=$SHARES ROUNDS=$ROUNDS PACKETS=$PACKETS FLOWS=$FLOWS LCORE=$LCORE"
	echo "# each: lanefwd-pipebench ${eal[*]} -- -c small.conf ${args[*]}"
} > "$log"
mkdir -p "$work/csv"
fail=0
for pair in $(seq 1 "$PAIRS"); do
	read -r -a order <<< "$(bench_ab_order "$pair")"
	for v in "${order[@]}"; do
		bin=$base
		[ "$v" = exp ] && bin=$exp
		if ! flock "$LOCK" "$bin" "${eal[@]}" --file-prefix "puntab_$$" -- \
			-c "$work/small.conf" --label "$v" "${args[@]}" \
			--csv "$work/csv/$v.$pair.csv" >> "$log" 2>&1; then
			echo "bench-punt-ab.sh: $v, pair $pair failed:" >&2
			tail -5 "$log" >&2
			fail=1
		fi
	done
done
report() {
	/usr/bin/python3 - "$work/csv" <<'EOF'
import csv, glob, os, statistics as st, sys

runs = {}  # (kind, share, pair) -> {side: (transit_ratio, flood_cycles)}
bad = 0
for path in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    side, pair = os.path.basename(path)[:-4].split(".")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or any(r.get("check", "ok") != "ok" for r in rows):
        bad += 1
        continue
    for r in rows:
        if r["flood"] == "none":
            continue
        key = (r["flood"], float(r["share"]), int(pair))
        runs.setdefault(key, {})[side] = (float(r["transit_ratio"]), float(r["flood_cycles"]))
print("%-5s %6s %5s %8s %8s %10s %10s %12s %10s" % (
    "flood", "share", "pairs", "x base", "x exp", "cyc base", "cyc exp", "exp - base",
    "exp lower"))
for kind, share in sorted({(k, s) for k, s, _ in runs}):
    pairs = [v for (k, s, _), v in sorted(runs.items()) if (k, s) == (kind, share) and len(v) == 2]
    if not pairs:
        continue
    d = [p["exp"][1] - p["base"][1] for p in pairs]
    print("%-5s %6g %5d %8.3f %8.3f %10.0f %10.0f %+12.0f %7d/%d" % (
        kind, share, len(pairs), st.median(p["base"][0] for p in pairs),
        st.median(p["exp"][0] for p in pairs), st.median(p["base"][1] for p in pairs),
        st.median(p["exp"][1] for p in pairs), st.median(d), sum(x < 0 for x in d), len(d)))
print("x: transit kept (packets/s under the flood over without it), median per side;")
print("cyc: cycles per flood packet, median per side; exp - base: median of the within-pair differences")
if bad:
    print("%d run(s) without a passed check" % bad)
    sys.exit(1)
EOF
}
if ! report | tee -a "$log"; then
	fail=1
fi
bench_ab_save bench-punt-ab.sh "$log" "$out"
exit "$fail"
