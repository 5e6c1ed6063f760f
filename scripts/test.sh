#!/usr/bin/env bash
# The whole test suite: installs what is missing, reserves hugepages, builds,
# and runs every test (unit, pcap integration, telemetry, AF_XDP end to end,
# style), then a short run of each libFuzzer harness (suite 'fuzz', in a
# clang build in build-fuzz). Run as root. A skipped test fails the run: each
# test's needs are met here, so a skip would only hide a missing piece.
#
#   scripts/test.sh [MESON-TEST-ARGS...]
#   scripts/test.sh --sanitize [MESON-TEST-ARGS...]
#
# --sanitize builds in build-asan with AddressSanitizer and
# UndefinedBehaviorSanitizer (every UB report fatal) and runs the same
# suite there; LeakSanitizer reads tests/lsan.supp. Arguments after it (or
# without it) go to meson test, e.g. --suite unit; then the fuzz suite only
# runs when asked for (--suite fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=0
if [ "${1:-}" = "--sanitize" ]; then
	sanitize=1
	shift
fi

scripts/deps.sh
scripts/hugepages.sh 1024 >/dev/null

# setup DIR [MESON-OPTIONS...]: configure DIR once, reconfigure afterwards.
setup() {
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@"
	else
		meson setup --reconfigure "$dir" "$@" >/dev/null
	fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# suite DIR [MESON-TEST-ARGS...]: run the tests, fail on a failure or a skip.
suite() {
	local dir=$1 rc
	shift
	set +e
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" -eq 0 ] && grep -Eq '^Skipped: +[1-9]' "$log"; then
		echo "test.sh: some tests were skipped; the full suite must run them all" >&2
		return 1
	fi
	return "$rc"
}

# The fuzz suite: libFuzzer needs clang; ASan and UBSan watch the runs.
fuzz_suite() {
	CC=clang setup build-fuzz -Dfuzz=true -Dtests=false -Dcpu=native \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all
	ninja -C build-fuzz
	suite build-fuzz --suite fuzz
}

want_fuzz=0
if [ "$#" -eq 0 ]; then
	want_fuzz=1
elif printf '%s\n' "$@" | grep -qx -- 'fuzz\|--suite=fuzz'; then
	fuzz_suite
	exit 0
fi

if [ "$sanitize" -eq 1 ]; then
	# -fno-sanitize-recover=all: a UB report ends the process, so a test
	# cannot pass over one. halt_on_error says the same to the runtime.
	setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all
	ninja -C build-asan
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
	export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
	suite build-asan "$@"
	exit 0
fi

setup build
ninja -C build
suite build "$@"
if [ "$want_fuzz" -eq 1 ]; then
	fuzz_suite
fi
