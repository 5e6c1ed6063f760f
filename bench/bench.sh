#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lanefwd benchmark: lanefwd vs DPDK l3fwd (LPM) vs dpdk-testpmd (io) on one
# forwarding core, pcap RX / null TX virtual devices. Prints a table and
# writes docs/benchmarks.md (a full run takes about 3-4 minutes).
#
#   sudo bench/bench.sh            # 3 interleaved repetitions, medians, docs
#   sudo bench/bench.sh --quick    # 1 short repetition, no docs: iteration
#   bench/bench.sh --help          # every option (bench/bench.py)
#
# Needs root (hugepages), two CPUs (lcore 0 control, lcore 1 forwarding) and
# the Debian dpdk, dpdk-dev and dpdk-doc packages (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
for a in "$@"; do
	case "$a" in
	-h | --help) exec /usr/bin/python3 bench/bench.py --help ;;
	esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "bench.sh: run as root (hugepages, vdevs)" >&2
	exit 1
fi
if [ "$(nproc --all)" -lt 2 ]; then
	echo "bench.sh: needs at least 2 CPUs (lcore 0 control, lcore 1 forwarding)" >&2
	exit 1
fi
scripts/deps.sh
scripts/hugepages.sh >/dev/null
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build lanefwd
exec /usr/bin/python3 bench/bench.py "$@"
