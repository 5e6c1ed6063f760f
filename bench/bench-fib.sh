#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FIB lookup benchmark: what [routes] fib_lookup = avx512 (rte_fib's
# AVX-512 DIR24_8 bulk lookup) buys over scalar on the fused fast path
# (parse + FIB + rewrite + TX), one core, no NIC.
#
# build/lanefwd-pipebench (bench/pipebench.c) runs the worker's burst path
# on 64-byte UDP/IPv4 frames of 1M flows (uniform, destinations spread over
# the table's prefixes) at burst 32, into a net_null port, for each of
#   table:  full   the full Internet IPv4 table (901,899 prefixes; its 32 MiB
#                  tbl24 does not fit in the caches, so most lookups miss);
#           cached 256 /16s of 10.0.0.0/8, which stay in L2;
#   lookup: scalar, avx512;
#   data:   hot (frames in L1), cold (--cold-data: each frame's data line
#           flushed, as a NIC's DMA into DRAM leaves it).
# Every combination is one process per round; the order rotates from round
# to round, each process under flock /tmp/lanefwd-bench.lock. The report
# takes the median round and writes docs/fib-lookup.md and docs/fib-lookup/
# (results.csv, run.txt). About 2 minutes with the defaults.
#
#   sudo bench/bench-fib.sh                  # the run behind docs/fib-lookup.md
#   sudo bench/bench-fib.sh --quick          # 1 round, hot data only, no docs
#   sudo bench/bench-fib.sh --routes FILE    # another IPv4 route file (next hops 0-15)
#   ROUNDS=5 PACKETS=4M LCORE=1 sudo -E bench/bench-fib.sh
#
# Without the full table (../shared/data/routes/ipv4-full.txt, see
# bench-pipeline.sh) it runs the cached table only, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
routes=${ROUTES:-$FULL_ROUTES_DEFAULT}
bench_args bench-fib.sh 1 "$@"
bench_need_root bench-fib.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
ROUNDS=${ROUNDS:-5}
PACKETS=${PACKETS:-4M}
LOCK=${LOCK:-/tmp/lanefwd-bench.lock}
datas=(hot cold)
if [ "$quick" -eq 1 ]; then
	ROUNDS=1
	datas=(hot)
fi
scripts/deps.sh
scripts/hugepages.sh >/dev/null
bench_build lanefwd-pipebench lanefwd

work=build/fib-lookup
rm -rf "$work"
mkdir -p "$work/csv"
small_routes > "$work/routes-cached.txt"
tables=(cached)
if [ -r "$routes" ]; then
	tables=(full cached)
	routes=$(readlink -f "$routes")
else
	echo "bench-fib.sh: no full table at $routes: the cached table only" >&2
fi

# conf TABLE LOOKUP
conf() {
	local r=$(pwd)/$work/routes-cached.txt
	[ "$1" = full ] && r=$routes
	{
		echo "# Written by bench/bench-fib.sh for lanefwd-pipebench."
		echo "[pipeline]"
		echo "latency = no"
		echo "[routes]"
		echo "ipv4 = $r"
		echo "fib_lookup = $2"
		echo "[port p0]"
		echo "vdev = net_null0"
		echo "[worker 1]"
		echo "rx = p0:0"
		nexthops_p0 16
	} > "$work/$1-$2.conf"
}

runs=()
for t in "${tables[@]}"; do
	for l in scalar avx512; do
		conf "$t" "$l"
		for d in "${datas[@]}"; do
			runs+=("$t $l $d")
		done
	done
done
out=docs/fib-lookup
[ "$quick" -eq 1 ] && out=$work
mkdir -p "$out"
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
args=(--flows 1M --dist uniform --burst 32 --packets "$PACKETS" --reps 1)
cmd="build/lanefwd-pipebench ${eal[*]} --file-prefix fib_PID_N -- -c $work/TABLE-LOOKUP.conf ${args[*]} --label TABLE-LOOKUP-DATA [--cold-data] --csv FILE"
echo "$cmd"
: > "$out/run.txt"
start=$(date +%s)
n=${#runs[@]}
fail=0
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		read -r t l d <<< "${runs[$(((k + r - 1) % n))]}"
		csv=$work/csv/$t-$l-$d.r$r.csv
		cold=()
		[ "$d" = cold ] && cold=(--cold-data)
		echo "== round $r/$ROUNDS: $t table, $l lookup, $d data, $(($(date +%s) - start)) s so far" |
			tee -a "$out/run.txt"
		bench_pipebench "$out" "$csv" "$r" "$t $l $d round $r" "${eal[@]}" \
			--file-prefix "fib_$$_$k" -- -c "$work/$t-$l.conf" "${args[@]}" \
			--label "$t-$l-$d" "${cold[@]}"
	done
done
echo "== $(($(date +%s) - start)) s in all" | tee -a "$out/run.txt"
csv_merge "$work/csv" > "$out/results.csv"
doc=()
[ "$quick" -eq 0 ] && doc=(--doc docs/fib-lookup.md)
/usr/bin/python3 bench/fib_report.py --csv "$out/results.csv" "${doc[@]}" \
	--cmd "bench/bench-fib.sh (ROUNDS=$ROUNDS PACKETS=$PACKETS LCORE=$LCORE, routes $(basename "$routes")): $cmd"
exit "$fail"
