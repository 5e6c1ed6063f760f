# SPDX-License-Identifier: BSD-3-Clause
# Shell helpers of the benchmark scripts (bench-pipeline.sh, bench-prefetch.sh,
# bench-fib.sh, bench-flow.sh, bench-latency.sh, bench-upf.sh,
# bench-upf-ab.sh, bench-pipe-ab.sh). Sourced; runs nothing itself.

# A route table the FIB holds in cache whatever the destinations: the 256
# /16s of 10.0.0.0/8, next hops 0-15.
small_routes() {
	local i
	for i in $(seq 0 255); do echo "10.$i.0.0/16 $((i % 16))"; done
}

# [nexthop 0] to [nexthop N-1], all on port p0, MAC 02:00:00:00:01:<id>.
nexthops_p0() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf '[nexthop %d]\nport = p0\nmac = 02:00:00:00:01:%02x\n' "$i" "$i"
	done
}

# upf_bench_conf ROUTES MAX_SESSIONS: the lanefwd configuration of
# lanefwd-upfbench (bench-upf.sh, bench-upf-ab.sh) on stdout: N3 address
# 192.168.3.1, the UE pool 100.64.0.0/10 (all of it ue_alloc), ROUTES
# (small_routes) on 16 next hops of one net_null port.
upf_bench_conf() {
	echo "# Written by bench/bench-lib.sh for lanefwd-upfbench."
	echo "[pipeline]"
	echo "burst = 32"
	echo "prefetch_distance = 16"
	echo "latency = no"
	echo "[routes]"
	echo "ipv4 = $1"
	echo "[upf]"
	echo "n3_ipv4 = 192.168.3.1"
	echo "max_sessions = $2"
	echo "[network_instance internet]"
	echo "ue_pool = 100.64.0.0/10"
	# CHOOSE hands out the pool from its start: the UEs upfbench gives
	# sessions are those, in the UE table's direct array (--ues given: not).
	echo "ue_alloc = 100.64.0.0/10"
	echo "[port p0]"
	echo "vdev = net_null0"
	echo "[worker 1]"
	echo "rx = p0:0"
	nexthops_p0 16
}

# csv_tag_round FILE ROUND: put the round in front of every row of FILE
# (the header gets 'round').
csv_tag_round() {
	sed "s/^/$2,/; 1s/^$2,/round,/" "$1" > "$1.tmp" && mv "$1.tmp" "$1"
}

# csv_merge DIR: DIR/*.csv as one CSV on stdout, the first file's header once.
csv_merge() {
	local first=1 f
	for f in "$1"/*.csv; do
		if [ "$first" -eq 1 ]; then head -1 "$f"; first=0; fi
		tail -n +2 "$f"
	done
}

# punt_conf FILE ROUTES: the punt-flood configuration (bench-punt.sh,
# bench-punt-ab.sh): one port with an address outside every route (the
# flood's target), 16 next hops on it, the [icmp], [exception] and
# [neighbour] rates at their defaults.
punt_conf() {
	{
		echo "# Written by bench/bench-lib.sh (punt_conf) for lanefwd-pipebench."
		echo "[pipeline]"
		echo "burst = 32"
		echo "prefetch_distance = 16"
		echo "latency = no"
		echo "[routes]"
		echo "ipv4 = $2"
		echo "[port p0]"
		echo "vdev = net_null0"
		echo "address = 192.0.2.1/24"
		echo "exception = tap"
		echo "[worker 1]"
		echo "rx = p0:0"
		nexthops_p0 16
	} > "$1"
}

# The full Internet IPv4 table the benchmarks use by default (../shared,
# not in the repository: bench-pipeline.sh says how it is made).
FULL_ROUTES_DEFAULT=/work/shared/data/routes/ipv4-full.txt

# bench_need_root NAME WHY: exit 1 unless run as root.
bench_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$1: run as root ($2)" >&2
		exit 1
	fi
}

# bench_reserve_pages NAME N [WHAT]: raise the 2 MiB huge page reservation to
# what is in use plus N (it is only ever raised), and exit 1 unless N are
# free then. WHAT says in the error what needs them.
bench_reserve_pages() {
	local used free_pages
	used=$(awk '/HugePages_Total/ {t = $2} /HugePages_Free/ {f = $2} END {print t - f}' /proc/meminfo)
	scripts/hugepages.sh $((used + $2)) >/dev/null
	free_pages=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free_pages:-0}" -lt "$2" ]; then
		echo "$1: $free_pages free 2 MiB hugepages, $2 needed${3:+ ($3)}: not enough memory to reserve them" >&2
		exit 1
	fi
}

# bench_ab_builds NAME PROGRAM USAGE_LAST_LINE ARGS...: the start of an A/B
# script (bench-upf-ab.sh, bench-pipe-ab.sh) run as NAME BASE_BUILDDIR
# EXP_BUILDDIR [OUT]. Fewer than two arguments print the script's header
# comment (lines 3 to USAGE_LAST_LINE) and exit 2; then it needs root and
# both builds of PROGRAM. Sets base and exp (the two binaries) and out.
bench_ab_builds() {
	local name=$1 prog=$2 last=$3 b
	shift 3
	if [ $# -lt 2 ]; then
		sed -n "3,${last}p" "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
	fi
	bench_need_root "$name" "hugepages"
	base=$(readlink -f "$1")/$prog
	exp=$(readlink -f "$2")/$prog
	out=${3:-}
	for b in "$base" "$exp"; do
		[ -x "$b" ] || { echo "$name: $b: not built" >&2; exit 1; }
	done
}

# bench_ab_order PAIR: the sides in the order pair PAIR runs them, base first
# in odd pairs and exp first in even ones, so neither always runs warm.
bench_ab_order() {
	if [ $(($1 % 2)) -eq 0 ]; then echo "exp base"; else echo "base exp"; fi
}

# bench_ab_save NAME LOG OUT: the A/B script's log to OUT, when one was given.
bench_ab_save() {
	if [ -n "$3" ]; then
		cp "$2" "$3"
		echo "$1: wrote $3"
	fi
}

# The highest CPU this process may run on: the default forwarding lcore.
bench_last_cpu() {
	/usr/bin/python3 -c 'import os; print(max(os.sched_getaffinity(0)))'
}

# bench_build TARGET...: configure build/ if it is not, then build TARGETs.
bench_build() {
	if [ ! -f build/build.ninja ]; then
		meson setup build
	fi
	ninja -C build "$@"
}

# bench_args NAME ROUTES ARGS...: the options of the pipebench benchmarks.
# --quick sets quick=1; -h/--help prints the script's header comment (after
# the SPDX line) and exits; with ROUTES=1, --routes FILE (or --routes=FILE)
# sets routes. Anything else exits 2.
bench_args() {
	local name=$1 with_routes=$2
	shift 2
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) quick=1 ;;
		-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0"; exit 0 ;;
		--routes | --routes=*)
			if [ "$with_routes" -ne 1 ]; then
				echo "$name: unknown argument $1" >&2
				exit 2
			fi
			if [ "$1" = --routes ]; then
				if [ $# -lt 2 ]; then
					echo "$name: --routes needs a file" >&2
					exit 2
				fi
				routes=$2
				shift
			else
				routes=${1#--routes=}
			fi
			;;
		*) echo "$name: unknown argument $1" >&2; exit 2 ;;
		esac
		shift
	done
}

# bench_pipebench OUT CSV ROUND WHAT PIPEBENCH_ARGS...: one lanefwd-pipebench
# process under the benchmark lock ($LOCK), its output appended to
# OUT/run.txt and its CSV (--csv CSV) tagged with ROUND. If it fails, says
# that WHAT failed and sets fail=1; the caller goes on with the next run.
bench_pipebench() {
	local out=$1 csv=$2 round=$3 what=$4
	shift 4
	if ! flock "$LOCK" build/lanefwd-pipebench "$@" --csv "$csv" 2>&1 | tee -a "$out/run.txt"; then
		echo "$(basename "$0"): $what failed" >&2
		fail=1
	fi
	if [ -f "$csv" ]; then
		csv_tag_round "$csv" "$round"
	fi
}
