#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Transit forwarding under a punt flood (issue 15, "Bad input and safety"):
# build/lanefwd-pipebench (bench/pipebench.c) runs the worker's burst path
# on one core with the router's own side set up, and makes a share of each
# burst's packets a flood at the router's address: TCP SYNs (punted to the
# kernel mirror until [exception] punt_pps runs out, then dropped), ICMP
# echo requests (answered until [icmp] rate_pps runs out) or ARP requests
# (to the control thread's ring until [neighbour] punt_pps runs out). The
# buckets keep their defaults: the flood is far above them, so they are
# empty almost all the time, the attack case.
#
# Two route tables: "small" (256 /16s of 10/8: the FIB in cache, transit at
# its cheapest, so the flood's share of the cycles at its largest) and
# "full" (the full Internet IPv4 table, as docs/pipeline-scale.md).
# Each process runs every (kind, share) and the no-flood reference side by
# side in each round (paired), in a rotating order; both processes run
# under one flock of $LOCK. Writes docs/punt-flood/ (results.csv, run.txt,
# transit.png) and docs/punt-flood.md (bench/punt_report.py). About a
# minute and a half of CPU once it has the lock.
#
#   sudo bench/bench-punt.sh                # the run behind docs/punt-flood.md
#   sudo bench/bench-punt.sh --quick        # small table only, 3 rounds, no docs
#   ROUNDS=9 PACKETS=4M LCORE=1 sudo -E bench/bench-punt.sh
#   BUILD=/path/to/builddir bench/bench-punt.sh  # another build directory
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
routes=${ROUTES:-$FULL_ROUTES_DEFAULT}
bench_args bench-punt.sh 1 "$@"
bench_need_root bench-punt.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
ROUNDS=${ROUNDS:-11}
PACKETS=${PACKETS:-2M}
FLOWS=${FLOWS:-64K}
SHARES=${SHARES:-0.002,0.005,0.01,0.02,0.05,0.1,0.5,0.9}
KINDS=${KINDS:-syn,echo,arp}
LOCK=${LOCK:-/tmp/lf-integ.lock}
BUILD=${BUILD:-build}
tables=(small)
[ -r "$routes" ] && tables+=(full)
if [ "$quick" -eq 1 ]; then
	ROUNDS=3
	tables=(small)
fi
if [ "$BUILD" = build ]; then
	bench_build lanefwd-pipebench
else
	ninja -C "$BUILD" lanefwd-pipebench
fi

work=$BUILD/puntbench
rm -rf "$work"
mkdir -p "$work/csv"
small=$(readlink -f "$work")/routes-small.txt
small_routes > "$small"

punt_conf "$work/small.conf" "$small"
[ -r "$routes" ] && punt_conf "$work/full.conf" "$(readlink -f "$routes")"

out=docs/punt-flood
[ "$quick" -eq 1 ] && out=$work
mkdir -p "$out"
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
args=(--flows "$FLOWS" --packets "$PACKETS" --reps "$ROUNDS" --flood-kind "$KINDS" --flood-share "$SHARES")
cmd="$BUILD/lanefwd-pipebench ${eal[*]} --file-prefix puntbench_PID_T -- -c $work/TABLE.conf --label TABLE ${args[*]} --csv FILE"
echo "$cmd"
: > "$out/run.txt"
start=$(date +%s)
# One lock for both processes: the benchmark waits once for the machine.
runs=""
for t in "${tables[@]}"; do
	runs+="echo '== $t table'; $BUILD/lanefwd-pipebench ${eal[*]} --file-prefix puntbench_$$_$t -- -c $work/$t.conf --label $t ${args[*]} --csv $work/csv/$t.csv || fail=1; "
done
fail=0
flock "$LOCK" bash -c "fail=0; $runs exit \$fail" 2>&1 | tee -a "$out/run.txt" || fail=1
echo "== $(($(date +%s) - start)) s in all (lock wait included)" | tee -a "$out/run.txt"
csv_merge "$work/csv" > "$out/results.csv"
report=(--csv "$out/results.csv" --run "$out/run.txt"
	--cmd "bench/bench-punt.sh (ROUNDS=$ROUNDS PACKETS=$PACKETS FLOWS=$FLOWS SHARES=$SHARES KINDS=$KINDS LCORE=$LCORE): $cmd")
if [ "$quick" -eq 1 ]; then
	/usr/bin/python3 bench/punt_report.py "${report[@]}" --summary-only
else
	/usr/bin/python3 bench/punt_report.py "${report[@]}" --doc docs/punt-flood.md --plots "$out"
fi
exit "$fail"
