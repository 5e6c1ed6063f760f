#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packet-data prefetch benchmark: what [pipeline] prefetch_distance buys
# when the packet data is cold and what it costs when it is hot, on the
# fused fast path (parse + FIB + rewrite + TX), one core, no NIC.
#
# build/lanefwd-pipebench (bench/pipebench.c) runs the worker's burst path
# on 64-byte UDP/IPv4 frames it writes into mbufs, through a 256-route
# table that stays in the cache (10.0.0.0/8 split in /16s), into a net_null
# port, at bursts 16, 32 and 64 and prefetch distances 0-32:
#   hot:  the frames as just written (in L1), as a software port (pcap,
#         memif, TAP copies) leaves them: the prefetches can only cost;
#   cold: each frame's data line flushed from every cache level before the
#         burst (--cold-data), as a NIC's DMA into DRAM leaves it (no DDIO,
#         or its LLC ways used up); the mbuf headers stay hot, as the
#         driver's own RX writes leave them.
# Every (burst, data) pair is one process that runs every distance, once per
# round; the order rotates from round to round, each process under flock
# /tmp/lanefwd-bench.lock. The report takes the median round and writes
# docs/prefetch.md and docs/prefetch/ (results.csv, run.txt). About a
# minute with the defaults.
#
#   sudo bench/bench-prefetch.sh            # the run behind docs/prefetch.md
#   sudo bench/bench-prefetch.sh --quick    # 1 round, burst 32, no docs
#   ROUNDS=5 PACKETS=8M LCORE=1 sudo -E bench/bench-prefetch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
bench_args bench-prefetch.sh 0 "$@"
bench_need_root bench-prefetch.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
ROUNDS=${ROUNDS:-5}
PACKETS=${PACKETS:-4M}
BURSTS=${BURSTS:-16,32,64}
PREFETCH=${PREFETCH:-0,2,4,8,16,32}
LOCK=${LOCK:-/tmp/lanefwd-bench.lock}
if [ "$quick" -eq 1 ]; then
	ROUNDS=1
	BURSTS=32
fi
scripts/deps.sh
scripts/hugepages.sh >/dev/null
bench_build lanefwd-pipebench

work=build/prefetch
rm -rf "$work"
mkdir -p "$work/csv"
routes=$(pwd)/$work/routes.txt
small_routes > "$routes"
{
	echo "# Written by bench/bench-prefetch.sh for lanefwd-pipebench."
	echo "[pipeline]"
	echo "latency = no"
	echo "[routes]"
	echo "ipv4 = $routes"
	echo "[port p0]"
	echo "vdev = net_null0"
	echo "[worker 1]"
	echo "rx = p0:0"
	nexthops_p0 16
} > "$work/fib.conf"

runs=()
IFS=, read -r -a burst_list <<< "$BURSTS"
for b in "${burst_list[@]}"; do
	runs+=("hot $b" "cold $b")
done
out=docs/prefetch
[ "$quick" -eq 1 ] && out=$work
mkdir -p "$out"
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
args=(--flows 64K --dist uniform --prefetch "$PREFETCH" --packets "$PACKETS" --reps 1)
cmd="build/lanefwd-pipebench ${eal[*]} --file-prefix prefetch_PID_N -- -c $work/fib.conf ${args[*]} --burst BURST --label hot|cold [--cold-data] --csv FILE"
echo "$cmd"
: > "$out/run.txt"
start=$(date +%s)
n=${#runs[@]}
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		read -r data burst <<< "${runs[$(((k + r - 1) % n))]}"
		csv=$work/csv/$data.$burst.r$r.csv
		cold=()
		[ "$data" = cold ] && cold=(--cold-data)
		echo "== round $r/$ROUNDS: $data data, burst $burst, $(($(date +%s) - start)) s so far" |
			tee -a "$out/run.txt"
		flock "$LOCK" build/lanefwd-pipebench "${eal[@]}" --file-prefix "prefetch_$$_$k" -- \
			-c "$work/fib.conf" "${args[@]}" --burst "$burst" --label "$data" "${cold[@]}" \
			--csv "$csv" 2>&1 | tee -a "$out/run.txt"
		csv_tag_round "$csv" "$r"
	done
done
echo "== $(($(date +%s) - start)) s in all" | tee -a "$out/run.txt"
csv_merge "$work/csv" > "$out/results.csv"
doc=()
[ "$quick" -eq 0 ] && doc=(--doc docs/prefetch.md)
ninja -C build lanefwd >/dev/null
default=$(build/lanefwd -c "$work/fib.conf" --check-config | awk -F' = ' '$1 == "prefetch_distance" {print $2}')
/usr/bin/python3 bench/prefetch_report.py --csv "$out/results.csv" --default "$default" "${doc[@]}" \
	--cmd "bench/bench-prefetch.sh (ROUNDS=$ROUNDS PACKETS=$PACKETS BURSTS=$BURSTS PREFETCH=$PREFETCH LCORE=$LCORE): $cmd"
