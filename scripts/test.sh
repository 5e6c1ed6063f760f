#!/usr/bin/env bash
# The whole test suite: installs what is missing, reserves hugepages, builds,
# and runs every test (unit, pcap integration, telemetry, AF_XDP end to end,
# style). Run as root. A skipped test fails the run: each test's needs are
# met here, so a skip would only hide a missing piece.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/hugepages.sh 1024 >/dev/null
if [ ! -f build/build.ninja ]; then
	meson setup build
else
	meson setup --reconfigure build >/dev/null
fi
ninja -C build
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
meson test -C build --print-errorlogs "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -eq 0 ] && grep -Eq '^Skipped: +[1-9]' "$log"; then
	echo "test.sh: some tests were skipped; the full suite must run them all" >&2
	exit 1
fi
exit "$rc"
