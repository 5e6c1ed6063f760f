#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Paired A/B of two builds of lanefwd-upfbench (bench/upfbench.c): the
# measurement behind a change to the UPF stage or the session store. The
# two binaries run alternately, PAIRS times per PDR count (base first in
# odd pairs, exp first in even ones), each process as bench-upf.sh runs
# it (one lcore, nice -n -5, under flock $LOCK) on the same configuration
# (bench-lib.sh's upf_bench_conf). Prints, per PDRs x mode x distribution,
# the medians of each side's per-process figures (each the median of its
# repetitions), the median of the within-pair differences, and in how many
# pairs exp was the cheaper: bench/upf_ab_report.py. Every process checks
# its frames; a failed check fails the script. BASE_ARGS and EXP_ARGS add
# options to one side, so one build can be set against itself (the TEID
# table: BASE_ARGS="--teids given" EXP_ARGS="--teids chosen").
#
#   sudo bench/bench-upf-ab.sh BASE_BUILDDIR EXP_BUILDDIR [OUT.txt]
#   PAIRS=8 SESSIONS=100K PDRS=1,4 DISTS=uniform,zipf MODES=l3,ul,dl PACKETS=2M REPS=3 \
#       BASE_ARGS= EXP_ARGS= sudo -E bench/bench-upf-ab.sh ../base/build build docs/upf-bench/x-ab.txt
#
# About 25 s per process at 100K sessions: 8 pairs of 2 PDR counts take 14 min.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
bench_ab_builds bench-upf-ab.sh lanefwd-upfbench 19 "$@"
LCORE=${LCORE:-$(bench_last_cpu)}
PAIRS=${PAIRS:-8}
SESSIONS=${SESSIONS:-100K}
PDRS=${PDRS:-1,4}
DISTS=${DISTS:-uniform,zipf}
MODES=${MODES:-l3,ul,dl}
PACKETS=${PACKETS:-2M}
REPS=${REPS:-3}
LOCK=${LOCK:-/tmp/lf-integ.lock}
read -r -a base_args <<< "${BASE_ARGS:-}"
read -r -a exp_args <<< "${EXP_ARGS:-}"
sessions=$(/usr/bin/python3 -c 'import sys; s=sys.argv[1]; m={"K":10**3,"M":10**6}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))' "$SESSIONS")

# As bench-upf.sh: enough for 1M sessions with 4 PDRs.
bench_reserve_pages bench-upf-ab.sh "${HUGEPAGES:-2200}" "1M sessions with 4 PDRs"
work=$(mktemp -d /tmp/upf-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
small_routes > "$work/routes.txt"
upf_bench_conf "$work/routes.txt" "$sessions" > "$work/s.conf"
mkdir -p "$work/csv"
args=(--mode "$MODES" --dist "$DISTS" --packets "$PACKETS" --reps "$REPS")
eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --log-level 3)
IFS=, read -r -a pdr_list <<< "$PDRS"
log=$work/run.txt
{
	echo "# bench/bench-upf-ab.sh $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1 /proc/loadavg)"
	echo "# base: $base"
	echo "# exp:  $exp"
	echo "# PAIRS=$PAIRS SESSIONS=$SESSIONS PDRS=$PDRS DISTS=$DISTS MODES=$MODES PACKETS=$PACKETS REPS=$REPS LCORE=$LCORE"
	echo "# each: lanefwd-upfbench ${eal[*]} -- -c CONF --sessions $sessions --pdrs P ${args[*]}"
	echo "# base adds: ${BASE_ARGS:-(nothing)}; exp adds: ${EXP_ARGS:-(nothing)}"
} > "$log"
fail=0
for pair in $(seq 1 "$PAIRS"); do
	read -r -a order <<< "$(bench_ab_order "$pair")"
	for p in "${pdr_list[@]}"; do
		for v in "${order[@]}"; do
			bin=$base
			side=("${base_args[@]}")
			if [ "$v" = exp ]; then
				bin=$exp
				side=("${exp_args[@]}")
			fi
			echo "== pair $pair/$PAIRS, $p PDR(s), $v" | tee -a "$log"
			csv=$work/csv/$v-p$p-$pair.csv
			if ! flock "$LOCK" nice -n -5 "$bin" "${eal[@]}" --file-prefix "upfab_$$" -- \
				-c "$work/s.conf" --sessions "$sessions" --pdrs "$p" --label "$v" \
				"${args[@]}" "${side[@]}" --csv "$csv" >> "$log" 2>&1; then
				echo "bench-upf-ab.sh: $v, $p PDR(s), pair $pair failed (see below)" >&2
				tail -5 "$log" >&2
				fail=1
			fi
			[ -f "$csv" ] && csv_tag_round "$csv" "$pair"
		done
	done
done
csv_merge "$work/csv" > "$work/all.csv"
/usr/bin/python3 bench/upf_ab_report.py "$work/all.csv" | tee -a "$log"
bench_ab_save bench-upf-ab.sh "$log" "$out"
exit "$fail"
