#!/usr/bin/env bash
# run.sh HARNESS SEED_DIR RUNS [SECONDS]: one libFuzzer run of HARNESS from the
# seed corpus, RUNS inputs or SECONDS (default 15), whichever ends first. New
# inputs go to a scratch corpus, never into the repository's seeds; a crash
# leaves its input in the working directory and fails the test.
set -euo pipefail
harness=$1 seeds=$2 runs=$3 secs=${4:-15}
[ -x "$harness" ] || { echo "run.sh: no harness $harness" >&2; exit 1; }
[ -d "$seeds" ] || { echo "run.sh: no seed corpus $seeds" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The sanitizers' reports are the point: make UB fatal and leaks count.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
exec "$harness" -runs="$runs" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=4096 -print_final_stats=1 "$work" "$seeds"
