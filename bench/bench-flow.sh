#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Flow table scale benchmark: build/lanefwd-flowbench (bench/flowbench.c) over
# 64K, 1M, 4M and 16M flows x uniform/Zipf x prefetch 0,2,4,8,16 x the
# hot/cold and fat entry layouts, plus rte_hash as a baseline, on one core.
# Writes docs/flow-scale/results.csv, run.txt, the plots, and the generated
# part of docs/flow-scale.md (bench/flow_report.py). About 5 minutes.
#
#   sudo bench/bench-flow.sh               # the full run behind docs/flow-scale.md
#   sudo bench/bench-flow.sh --quick       # 64K and 1M, 1 round, no docs
#   LCORE=1 REPS=5 LOOKUPS=4M sudo -E bench/bench-flow.sh
#
# Needs root and about 6.5 GiB of free 2 MiB hugepages (both layouts of our
# table, all four flow counts, exist at once; 16M flows take 2.3 GiB each).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
quick=0
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	-h | --help) awk 'NR > 2 && !/^#/ { exit } NR > 2' "$0"; exit 0 ;;
	*) echo "bench-flow.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done
bench_need_root bench-flow.sh "hugepages"
# The last CPU we may run on, unless LCORE says otherwise (CPU 0 often
# carries interrupts and housekeeping).
LCORE=${LCORE:-$(bench_last_cpu)}
REPS=${REPS:-3}
LOOKUPS=${LOOKUPS:-4M}
FLOWS=${FLOWS:-64K,1M,4M,16M}
scripts/deps.sh
# Reserve what the largest table needs on top of what is in use (only ever
# raises the reservation).
bench_reserve_pages bench-flow.sh 3300
bench_build lanefwd-flowbench

eal=(-l "$LCORE" --no-pci --no-telemetry --huge-unlink --file-prefix "flowbench_$$" --log-level 3)
if [ "$quick" -eq 1 ]; then
	exec build/lanefwd-flowbench "${eal[@]}" -- --flows 64K,1M --reps 1 --lookups 2M
fi
out=docs/flow-scale
args=(--flows "$FLOWS" --reps "$REPS" --lookups "$LOOKUPS" --csv "$out/results.csv")
cmd="build/lanefwd-flowbench ${eal[*]} -- ${args[*]}"
echo "$cmd"
build/lanefwd-flowbench "${eal[@]}" -- "${args[@]}" | tee "$out/run.txt"
/usr/bin/python3 bench/flow_report.py --csv "$out/results.csv" --run "$out/run.txt" \
	--cmd "bench/bench-flow.sh (REPS=$REPS LOOKUPS=$LOOKUPS FLOWS=$FLOWS LCORE=$LCORE): $cmd" \
	--doc docs/flow-scale.md --plots "$out"
