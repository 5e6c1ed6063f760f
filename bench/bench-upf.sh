#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# UPF benchmark: lanefwd-upfbench (bench/upfbench.c) runs the worker's
# burst pipeline on one core from a lanefwd config this script writes
# ([upf] with an N3 address, a network instance with a /10 UE pool, 256
# routes of 10.0.0.0/8 on 16 next hops) into a net_null port, with
# sessions put straight into the session store (no PFCP).
#
# The matrix: 1K, 100K and 1M sessions x 1 and 4 PDRs per direction (the
# 3 extra ones with SDF filters the traffic fails on their last test,
# the match last: the worst case), each process measuring plain L3
# forwarding (l3), the uplink (ul: G-PDU with a PDU Session Container in,
# decapsulated and routed) and the downlink (dl: routed to a UE,
# encapsulated toward its gNB) of the same 50-byte user packets,
# interleaved, with uniform and Zipf session popularity. Ratios to l3 are
# taken within each process and round. Every run checks every frame it
# sends in a sample and exits 3 on a wrong one (no number then).
#
# Rounds: every (sessions, PDRs) process runs once per round in an order
# that rotates, each under flock $LOCK (the integration tests' hugepage
# lock: nothing else reserving hugepages runs at the same time). Writes
# docs/upf-bench/ (results.csv, run.txt, plots) and the generated part of
# docs/upf-bench.md (bench/upf_report.py), and prints the headlines.
# About 6 minutes with the defaults.
#
#   sudo bench/bench-upf.sh                # the run behind docs/upf-bench.md
#   sudo bench/bench-upf.sh --quick        # 1K and 100K sessions, 1 round, no docs
#   ROUNDS=5 REPS=3 PACKETS=2M LCORE=1 BUILD=/path/to/builddir sudo -E bench/bench-upf.sh
#
# Needs root and free 2 MiB hugepages: 1M sessions with 4 PDRs take about
# 2.4 GiB of rte_malloc heap (docs/upf-bench.md has the figures per
# session); the script reserves HUGEPAGES (default 2200 pages, 4.4 GiB) on
# top of what is in use, and says so if the memory is not there.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
bench_args bench-upf.sh 0 "$@"
bench_need_root bench-upf.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-3}
PACKETS=${PACKETS:-2M}
SESSIONS=${SESSIONS:-1K,100K,1M}
PDRS=${PDRS:-1,4}
DISTS=${DISTS:-uniform,zipf}
HUGEPAGES=${HUGEPAGES:-2200}
LOCK=${LOCK:-/tmp/lf-integ.lock}
BUILD=${BUILD:-build}
if [ "$quick" -eq 1 ]; then
	ROUNDS=1
	SESSIONS=1K,100K
	PACKETS=1M
fi

bench_reserve_pages bench-upf.sh "$HUGEPAGES" "1M sessions with 4 PDRs"
# The tree the binary is built from, for the report.
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no src include bench 2>/dev/null)" ]; then
	rev="$rev+changes"
fi
if [ "$BUILD" = build ]; then
	bench_build lanefwd-upfbench
else
	ninja -C "$BUILD" lanefwd-upfbench
fi
bin=$BUILD/lanefwd-upfbench

work=$BUILD/upfbench
rm -rf "$work"
mkdir -p "$work/csv"
work=$(readlink -f "$work")
small_routes > "$work/routes.txt"

num() { # 100K -> 100000 (sessions count in thousands, as upfbench reads them)
	/usr/bin/python3 -c 'import sys; s=sys.argv[1]; m={"K":10**3,"M":10**6}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))' "$1"
}

runs=()
IFS=, read -r -a sess_list <<< "$SESSIONS"
IFS=, read -r -a pdr_list <<< "$PDRS"
for s in "${sess_list[@]}"; do
	upf_bench_conf "$work/routes.txt" "$(num "$s")" > "$work/s$s.conf"
	for p in "${pdr_list[@]}"; do
		runs+=("$s $p")
	done
done

out=docs/upf-bench
[ "$quick" -eq 1 ] && out=$work
mkdir -p "$out"
args=(--mode l3,ul,dl,lk_ul,lk_dl --dist "$DISTS" --packets "$PACKETS" --reps "$REPS")
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
cmd="$bin ${eal[*]} --file-prefix upfbench_PID_N -- -c CONFIG --sessions S --pdrs P --label S/P ${args[*]} --csv FILE"
echo "$cmd"
: > "$out/run.txt"
start=$(date +%s)
n=${#runs[@]}
fail=0
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		# Rotate the order every round.
		read -r s p <<< "${runs[$(((k + (r - 1)) % n))]}"
		csv=$work/csv/s$s-p$p.r$r.csv
		echo "== round $r/$ROUNDS: $s sessions, $p PDR(s), $(($(date +%s) - start)) s so far" | tee -a "$out/run.txt"
		if ! flock "$LOCK" nice -n -5 "$bin" "${eal[@]}" --file-prefix "upfbench_$$_$k" -- \
			-c "$work/s$s.conf" --sessions "$(num "$s")" --pdrs "$p" --label "$s/$p" \
			"${args[@]}" --csv "$csv" 2>&1 | tee -a "$out/run.txt"; then
			echo "bench-upf.sh: $s sessions, $p PDR(s), round $r failed" >&2
			fail=1
		fi
		[ -f "$csv" ] && csv_tag_round "$csv" "$r"
	done
done
echo "== $(($(date +%s) - start)) s in all" | tee -a "$out/run.txt"
csv_merge "$work/csv" > "$out/results.csv"
report=(--csv "$out/results.csv" --run "$out/run.txt" --rev "$rev"
	--cmd "bench/bench-upf.sh (ROUNDS=$ROUNDS REPS=$REPS PACKETS=$PACKETS SESSIONS=$SESSIONS PDRS=$PDRS DISTS=$DISTS LCORE=$LCORE): $cmd")
if [ "$quick" -eq 1 ]; then
	/usr/bin/python3 bench/upf_report.py "${report[@]}" --summary-only || fail=1
else
	/usr/bin/python3 bench/upf_report.py "${report[@]}" --doc docs/upf-bench.md --plots "$out" || fail=1
fi
exit "$fail"
