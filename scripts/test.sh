#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test
# (unit, pcap integration, AF_XDP end to end, telemetry). Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build
meson test -C build --print-errorlogs --num-processes 1 "$@"
