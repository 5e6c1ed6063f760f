#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Whole-pipeline benchmark: build/lanefwd-pipebench (bench/pipebench.c) runs
# the worker's burst path on one core from lanefwd config files that this
# script writes, with the full Internet IPv4 table and the 10K-rule
# ClassBench ACL (tests/data/acl/acl1_10k), into a net_null port.
#
#  (a) flow scale: [flow] with 64K, 1M, 4M, 16M flows (as many entries) x
#      uniform/Zipf x prefetch 0,2,4,8,16 x layout hotcold/fat, measuring
#      the flow cache's hit path;
#  (b) full pipeline: ACL 10K + full table + [flow] (1M entries, 1M flows)
#      against the same traffic through the full table alone (no [acl], no
#      [flow]: the fused fast path) and through ACL + full table without
#      [flow].
#
# Rounds: every configuration runs once per round, in an order that rotates
# from round to round, each process under flock /tmp/lanefwd-bench.lock (one
# benchmark at a time on the machine); the report takes the median round.
# Writes docs/pipeline-scale/ (results.csv, run.txt, plots) and the
# generated part of docs/pipeline-scale.md (bench/pipeline_report.py),
# and prints the headline ratios. About 7 minutes with the defaults.
#
#   sudo bench/bench-pipeline.sh                  # the run behind docs/pipeline-scale.md
#   sudo bench/bench-pipeline.sh --quick          # 64K and 1M flows, 1 round, no docs
#   sudo bench/bench-pipeline.sh --routes FILE    # another IPv4 route file
#   ROUNDS=5 PACKETS=4M LCORE=1 sudo -E bench/bench-pipeline.sh
#
# The route file holds 'prefix/len nexthop' lines with next hops 0-15
# (tests/data/README.md says how ipv4-full.txt is made from the iprbench
# prefixes). Needs root and about 3.6 GiB of free 2 MiB hugepages (one
# 16M-flow table at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
root=$(pwd)
quick=0
routes=${ROUTES:-$FULL_ROUTES_DEFAULT}
bench_args bench-pipeline.sh 1 "$@"
if [ ! -r "$routes" ]; then
	cat >&2 <<EOF
bench-pipeline.sh: no IPv4 route file at $routes.
  It is the full Internet IPv4 table (901,899 prefixes) as 'prefix/len nexthop'
  lines, made from testdata/prefixes.txt.gz of github.com/gaissmai/iprbench
  (commit d59cbbd7215db0d93d4ca7a88abaad99745190c5) as tests/data/README.md
  describes (next hop = crc32(prefix) % 16; sha256 8bbd3d0b6fe9d26b...).
  Give another file with --routes FILE (next hops 0-15) or ROUTES=FILE.
EOF
	exit 1
fi
routes=$(readlink -f "$routes")
bench_need_root bench-pipeline.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
ROUNDS=${ROUNDS:-3}
PACKETS=${PACKETS:-2M}
FLOWS=${FLOWS:-64K,1M,4M,16M}
PREFETCH=${PREFETCH:-0,2,4,8,16}
FULL_FLOWS=${FULL_FLOWS:-1M}
LOCK=${LOCK:-/tmp/lanefwd-bench.lock}
if [ "$quick" -eq 1 ]; then
	ROUNDS=1
	FLOWS=64K,1M
	PACKETS=1M
fi
scripts/deps.sh
# Reserve what the largest run needs on top of what is in use (only ever
# raises the reservation): the 16M-flow table (2,368 MiB), the full FIB and
# the ACL. 1,400 pages were short for it on one host (the table's
# allocation failed); 1,800 ran.
bench_reserve_pages bench-pipeline.sh 1800
bench_build lanefwd-pipebench

work=build/pipebench
rm -rf "$work"
mkdir -p "$work/csv"
# ClassBench sets carry no actions and lanefwd reads a rule without one as
# deny, so acl1_10k's last rule (0.0.0.0/0 to 0.0.0.0/0, any protocol)
# would deny everything: the benchmark gives that one rule 'permit', which
# makes the file a 9,773-rule block list in front of a default permit.
acl=$root/$work/acl1_10k_permit_last
sed '$ s/[[:space:]]*$/\tpermit/' tests/data/acl/acl1_10k > "$acl"

# A route table the FIB holds in cache whatever the destinations: 256 /16s
# of 10.0.0.0/8, next hops 0-15. FIB-only on it is what a packet costs
# besides its lookups (parse, rewrite, TX, the null port freeing it).
small=$root/$work/routes-small.txt
small_routes > "$small"

# conf NAME ACL(0/1) FLOW_ENTRIES(0: no [flow]) LAYOUT [ROUTES]
conf() {
	local f=$work/$1.conf
	{
		echo "# Written by bench/bench-pipeline.sh for lanefwd-pipebench."
		echo "[pipeline]"
		echo "burst = 32"
		echo "prefetch_distance = 16"
		echo "latency = no"
		echo "[routes]"
		echo "ipv4 = ${5:-$routes}"
		if [ "$2" -eq 1 ]; then
			echo "[acl]"
			echo "ipv4 = $acl"
		fi
		if [ "$3" != 0 ]; then
			echo "[flow]"
			echo "entries = $3"
			# No flow may age out during a run; aging still runs its slices.
			echo "idle_timeout_ms = 3600000"
			echo "layout = $4"
		fi
		echo "[port p0]"
		echo "vdev = net_null0"
		echo "[worker 1]"
		echo "rx = p0:0"
		nexthops_p0 16
	} > "$f"
}

num() { # 64K -> 65536
	/usr/bin/python3 -c 'import sys; s=sys.argv[1]; m={"K":1<<10,"M":1<<20}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))' "$1"
}

# The runs: "label flows config".
runs=()
IFS=, read -r -a flow_list <<< "$FLOWS"
for f in "${flow_list[@]}"; do
	for layout in hotcold fat; do
		conf "scale_${layout}_$f" 1 "$(num "$f")" "$layout"
		runs+=("scale $f scale_${layout}_$f")
	done
done
# (b): the full pipeline is the hot/cold (a) run with FULL_FLOWS flows when
# (a) has that flow count; its references see the same flows.
if [[ ",$FLOWS," != *",$FULL_FLOWS,"* ]]; then
	conf full 1 "$(num "$FULL_FLOWS")" hotcold
	runs+=("full $FULL_FLOWS full")
fi
conf fibonly 0 0 -
conf aclfib 1 0 -
conf fibcached 0 0 - "$small"
runs+=("fibonly $FULL_FLOWS fibonly" "aclfib $FULL_FLOWS aclfib" "fibcached $FULL_FLOWS fibcached")

out=docs/pipeline-scale
[ "$quick" -eq 1 ] && out=$work
mkdir -p "$out"
args=(--dist uniform,zipf --prefetch "$PREFETCH" --packets "$PACKETS" --reps 1 --traffic-acl "$acl")
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
cmd="build/lanefwd-pipebench ${eal[*]} --file-prefix pipebench_PID_N -- -c $work/CONFIG.conf --flows FLOWS --label LABEL ${args[*]} --csv FILE"
echo "$cmd"
: > "$out/run.txt"
start=$(date +%s)
n=${#runs[@]}
fail=0
for r in $(seq 1 "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		# Rotate the order every round.
		read -r label flows cf <<< "${runs[$(((k + (r - 1) * 3) % n))]}"
		csv=$work/csv/$cf.r$r.csv
		echo "== round $r/$ROUNDS: $cf ($label, $flows flows), $(($(date +%s) - start)) s so far" | tee -a "$out/run.txt"
		bench_pipebench "$out" "$csv" "$r" "$cf round $r" "${eal[@]}" \
			--file-prefix "pipebench_$$_$k" -- -c "$work/$cf.conf" --flows "$flows" \
			--label "$label" "${args[@]}"
	done
done
echo "== $(($(date +%s) - start)) s in all" | tee -a "$out/run.txt"
# One CSV, rows of every round.
csv_merge "$work/csv" > "$out/results.csv"
report=(--csv "$out/results.csv" --run "$out/run.txt" --full-flows "$(num "$FULL_FLOWS")"
	--cmd "bench/bench-pipeline.sh (ROUNDS=$ROUNDS PACKETS=$PACKETS FLOWS=$FLOWS PREFETCH=$PREFETCH LCORE=$LCORE, routes $(basename "$routes")): $cmd")
if [ "$quick" -eq 1 ]; then
	/usr/bin/python3 bench/pipeline_report.py "${report[@]}" --summary-only
else
	/usr/bin/python3 bench/pipeline_report.py "${report[@]}" --doc docs/pipeline-scale.md --plots "$out"
fi
exit "$fail"
