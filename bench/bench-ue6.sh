#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 UE lookups with prefixes delegated to UEs: build/lanefwd-uebench
# (bench/uebench.c) at 1K, 100K and 1M sessions, one core: the downlink's UE
# lookup for UE /64s, for the same while a delegated prefix is held, and for
# addresses inside delegated /56s (one key per prefix). Writes
# docs/upf-delegated-bench/results.csv, run.txt, the plot, and
# docs/upf-delegated-bench.md (bench/ue6_report.py). About 2 minutes.
# FAMILY=4 measures IPv4 UE addresses and framed routes instead (a framed
# /28 per session; uebench.c says what each case is) into
# docs/upf-framed-bench.md and docs/upf-framed-bench/.
#
#   sudo bench/bench-ue6.sh               # the run behind docs/upf-delegated-bench.md
#   sudo FAMILY=4 bench/bench-ue6.sh      # the run behind docs/upf-framed-bench.md
#   sudo bench/bench-ue6.sh --quick       # 1K and 100K, 3 rounds, no docs
#   LCORE=1 REPS=15 LOOKUPS=4000000 SESSIONS=1000,1000000 sudo -E bench/bench-ue6.sh
#
# Needs root and about 3 GiB of free 2 MiB hugepages (two stores of 1M
# sessions exist at once).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0"; exit 0 ;;
	*) echo "bench-ue6.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done
bench_need_root bench-ue6.sh "hugepages"
LCORE=${LCORE:-$(bench_last_cpu)}
REPS=${REPS:-21}
LOOKUPS=${LOOKUPS:-4000000}
SESSIONS=${SESSIONS:-1000,100000,1000000}
FAMILY=${FAMILY:-6}
case "$FAMILY" in
4) out=docs/upf-framed-bench ;;
6) out=docs/upf-delegated-bench ;;
*) echo "bench-ue6.sh: FAMILY=$FAMILY: want 4 or 6" >&2; exit 2 ;;
esac
scripts/deps.sh
bench_reserve_pages bench-ue6.sh 1600
bench_build lanefwd-uebench

eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --file-prefix "uebench_$$" --log-level 3)
if [ "$quick" -eq 1 ]; then
	exec build/lanefwd-uebench "${eal[@]}" -- --sessions 1000,100000 --reps 3 --lookups 1000000 \
		--family "$FAMILY"
fi
mkdir -p "$out"
args=(--sessions "$SESSIONS" --reps "$REPS" --lookups "$LOOKUPS" --family "$FAMILY"
	--csv "$out/results.csv")
cmd="build/lanefwd-uebench ${eal[*]} -- ${args[*]}"
echo "$cmd"
build/lanefwd-uebench "${eal[@]}" -- "${args[@]}" | tee "$out/run.txt"
/usr/bin/python3 bench/ue6_report.py --family "$FAMILY" --csv "$out/results.csv" \
	--run "$out/run.txt" \
	--cmd "bench/bench-ue6.sh (FAMILY=$FAMILY REPS=$REPS LOOKUPS=$LOOKUPS SESSIONS=$SESSIONS LCORE=$LCORE): $cmd" \
	--doc "$out.md" --plots "$out"
