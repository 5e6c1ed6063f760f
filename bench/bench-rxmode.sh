#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lanefwd rx modes (seed 001): poll, interrupt, hybrid and pmd-mgmt pause at
# 10%, 50% and 90% of poll's no-drop rate, over the same pair of net_tap
# ports (the one port here with RX interrupts), lanefwd-gen on AF_PACKET on
# their kernel side, in a network namespace the script makes and removes:
# the worker's CPU share, wakeups by cause, end-to-end and residence
# percentiles. Writes docs/rx-modes.md and docs/rx-modes/ (about 10 minutes
# on a quiet machine). Holds /tmp/lanefwd-bench.lock around each run.
#
#   sudo bench/bench-rxmode.sh            # the full run behind the doc
#   sudo bench/bench-rxmode.sh --quick    # one search, one round, no docs
#   bench/bench-rxmode.sh --help          # every option (bench/bench_rxmode.py)
#
# Needs root (hugepages, network namespaces, TAP), two CPUs and the Debian
# dpdk, dpdk-dev and python3-matplotlib packages (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
for a in "$@"; do
	case "$a" in
	-h | --help) exec /usr/bin/python3 bench/bench_rxmode.py --help ;;
	esac
done
bench_need_root bench-rxmode.sh "hugepages, network namespaces, TAP"
if [ "$(nproc --all)" -lt 2 ]; then
	echo "bench-rxmode.sh: needs at least 2 CPUs (generator on 0, forwarder on 1)" >&2
	exit 1
fi
[ -c /dev/net/tun ] || {
	echo "bench-rxmode.sh: needs /dev/net/tun (net_tap)" >&2
	exit 1
}
scripts/deps.sh
scripts/hugepages.sh >/dev/null
bench_build lanefwd lanefwd-gen
exec /usr/bin/python3 bench/bench_rxmode.py "$@"
