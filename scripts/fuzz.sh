#!/usr/bin/env bash
# Longer libFuzzer runs of every harness in tests/fuzz (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
#
# Runs each harness for SECONDS (default 300) at nice 19 from its seed
# corpus plus what earlier runs found (build-fuzz/fuzz-corpus/NAME, kept
# between runs, never written into the repository). FUZZ_RUNS=N stops each
# after N inputs instead, FUZZ_JOBS=N runs N processes of each (libFuzzer
# -jobs/-workers). A crash leaves its input in build-fuzz/fuzz-artifacts/NAME
# and makes the script fail; the last lines of each log say how many inputs
# ran. Builds build-fuzz (clang, ASan and UBSan) like scripts/test.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-300}
shift || true
harnesses=("$@")
[ "${#harnesses[@]}" -gt 0 ] || harnesses=(config route acl acl6 parse pfcp gtpu)

scripts/deps.sh
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false -Dcpu=native \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all
fi
ninja -C build-fuzz

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
jobs=${FUZZ_JOBS:-1}
fail=0
for h in "${harnesses[@]}"; do
	exe=build-fuzz/tests/fuzz/fuzz_$h
	corpus=build-fuzz/fuzz-corpus/$h
	art=build-fuzz/fuzz-artifacts/$h
	logf=build-fuzz/fuzz-$h.log
	[ -x "$exe" ] || { echo "fuzz.sh: no harness $h" >&2; exit 1; }
	mkdir -p "$corpus" "$art"
	args=(-max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=4096
		-print_final_stats=1 -artifact_prefix="$art/")
	[ -z "${FUZZ_RUNS:-}" ] || args+=(-runs="$FUZZ_RUNS")
	[ "$jobs" -le 1 ] || args+=(-jobs="$jobs" -workers="$jobs")
	echo "fuzz.sh: $h for ${secs}s (log $logf)"
	start=$(date +%s)
	rc=0
	nice -n 19 "$exe" "${args[@]}" "$corpus" "tests/fuzz/corpus/$h" > "$logf" 2>&1 || rc=$?
	# With -jobs each worker logs to fuzz-N.log; add their counts up.
	runs=$(awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}' \
		"$logf" $(ls fuzz-*.log 2>/dev/null || true))
	echo "fuzz.sh: $h: exit $rc, $runs inputs in $(($(date +%s) - start)) s"
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logf" >&2
		fail=1
	fi
	rm -f fuzz-*.log
done
exit "$fail"
