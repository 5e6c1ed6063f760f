#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Paired A/B of two builds of lanefwd-pipebench (bench/pipebench.c): the
# measurement behind a change to the forwarding pipeline. pipebench runs
# the real pipeline_run on one lcore into a net_null port, with no RX
# driver and no worker loop, so it resolves a few tenths of a cycle where
# the bench.sh harness (pcap in, null out, the whole loop) cannot
# (docs/perf-history.md, "Drift since the benchmarks.md run"). The two
# binaries run alternately, PAIRS times per configuration (base first in
# odd pairs, exp first in even ones), each process under flock $LOCK on
# the same configuration and traffic (4096 uniform UDP flows, 256 routes,
# 16 next hops on one port). Prints, per configuration, the medians of each
# side's per-process cycles/packet (each the median of its repetitions),
# the median of the within-pair differences (exp - base) and in how many
# pairs exp was the cheaper. Every process checks what it forwarded; a
# failed check fails the script.
#
#   sudo bench/bench-pipe-ab.sh BASE_BUILDDIR EXP_BUILDDIR [OUT.txt]
#   PAIRS=16 CONFIGS=fused,promisc,flow FLOWS=4096 PACKETS=4M REPS=3 \
#       sudo -E bench/bench-pipe-ab.sh ../base/build build
#
# Configurations: fused (a routed port: the fused IPv4 path with the
# link-layer check), promisc (the port promiscuous, as the bench.sh
# harness runs it), flow (a one-rule permit ACL with [flow] in front of it:
# the flow cache's hit path). A build of another commit for BASE:
#   git worktree add ../base COMMIT && (cd ../base && meson setup build -Dtests=false \
#       && ninja -C build lanefwd-pipebench)
# About 1 s per process: 16 pairs of the three configurations take 2 min.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
bench_ab_builds bench-pipe-ab.sh lanefwd-pipebench 28 "$@"
LCORE=${LCORE:-$(bench_last_cpu)}
PAIRS=${PAIRS:-16}
CONFIGS=${CONFIGS:-fused,promisc,flow}
FLOWS=${FLOWS:-4096}
PACKETS=${PACKETS:-4M}
REPS=${REPS:-3}
LOCK=${LOCK:-/tmp/lanefwd-bench.lock}

bench_reserve_pages bench-pipe-ab.sh 256
work=$(mktemp -d /tmp/pipe-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
small_routes > "$work/routes.txt"
printf '@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\tpermit\n' \
	> "$work/permit.acl"
# conf NAME: the configuration of one of CONFIGS.
conf() {
	{
		echo "# Written by bench/bench-pipe-ab.sh for lanefwd-pipebench."
		echo "[pipeline]"
		echo "burst = 32"
		echo "prefetch_distance = 16"
		echo "latency = no"
		echo "[routes]"
		echo "ipv4 = $work/routes.txt"
		if [ "$1" = flow ]; then
			echo "[acl]"
			echo "ipv4 = $work/permit.acl"
			echo "[flow]"
			echo "entries = 65536"
			echo "idle_timeout_ms = 3600000"
		fi
		echo "[port p0]"
		echo "vdev = net_null0"
		[ "$1" = promisc ] && echo "promiscuous = yes"
		echo "[worker 1]"
		echo "rx = p0:0"
		nexthops_p0 16
	} > "$work/$1.conf"
}
IFS=, read -r -a conf_list <<< "$CONFIGS"
for c in "${conf_list[@]}"; do
	case "$c" in
	fused | promisc | flow) conf "$c" ;;
	*) echo "bench-pipe-ab.sh: unknown configuration $c (fused, promisc, flow)" >&2; exit 2 ;;
	esac
done
args=(--flows "$FLOWS" --dist uniform --prefetch 16 --packets "$PACKETS" --reps "$REPS")
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
log=$work/run.txt
{
	echo "# bench/bench-pipe-ab.sh $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)"
	echo "# base: $base"
	echo "# exp:  $exp"
	echo "# PAIRS=$PAIRS CONFIGS=$CONFIGS FLOWS=$FLOWS PACKETS=$PACKETS REPS=$REPS LCORE=$LCORE"
	echo "# each: lanefwd-pipebench ${eal[*]} -- -c CONF ${args[*]}"
} > "$log"
mkdir -p "$work/csv"
fail=0
for pair in $(seq 1 "$PAIRS"); do
	read -r -a order <<< "$(bench_ab_order "$pair")"
	for c in "${conf_list[@]}"; do
		for v in "${order[@]}"; do
			bin=$base
			[ "$v" = exp ] && bin=$exp
			csv=$work/csv/$c.$v.$pair.csv
			if ! flock "$LOCK" "$bin" "${eal[@]}" --file-prefix "pipeab_$$" -- \
				-c "$work/$c.conf" --label "$v" "${args[@]}" --csv "$csv" >> "$log" 2>&1; then
				echo "bench-pipe-ab.sh: $c, $v, pair $pair failed:" >&2
				tail -5 "$log" >&2
				fail=1
			fi
		done
	done
done
report() {
	/usr/bin/python3 - "$work/csv" <<'EOF'
import csv, glob, os, statistics as st, sys

runs = {}  # (config, pair) -> {side: cycles}
bad = 0
for path in glob.glob(os.path.join(sys.argv[1], "*.csv")):
    config, side, pair = os.path.basename(path)[:-4].split(".")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows or any(r.get("check", "ok") != "ok" for r in rows):
        bad += 1
        continue
    runs.setdefault((config, int(pair)), {})[side] = float(rows[0]["cycles"])
print("%-8s %6s %10s %10s %12s %10s" % ("config", "pairs", "base", "exp", "exp - base", "exp lower"))
for config in sorted({c for c, _ in runs}):
    pairs = [v for (c, _), v in sorted(runs.items()) if c == config and len(v) == 2]
    if not pairs:
        continue
    d = [p["exp"] - p["base"] for p in pairs]
    print("%-8s %6d %10.2f %10.2f %+12.2f %7d/%d" % (
        config, len(pairs), st.median(p["base"] for p in pairs),
        st.median(p["exp"] for p in pairs), st.median(d), sum(x < 0 for x in d), len(d)))
print("cycles/packet of the pipeline (median per side); exp - base: median of the within-pair differences")
if bad:
    print("%d run(s) without a passed check" % bad)
    sys.exit(1)
EOF
}
if ! report | tee -a "$log"; then
	fail=1
fi
bench_ab_save bench-pipe-ab.sh "$log" "$out"
exit "$fail"
