#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lanefwd latency suite: [pipeline] burst 8-256 (and auto, when lanefwd takes
# it) against throughput and tail latency, and DPDK l3fwd as the peer, over
# memif with lanefwd-gen: MLRsearch NDR and PDR (bench/mlrsearch.py), three
# searches per configuration interleaved, then latency at 50% and 90% of the
# reference NDR. Writes docs/benchmarks-latency.md and its plots and raw
# figures under docs/benchmarks-latency/ (a full run takes about 15 minutes
# on a quiet machine, longer when invalid trials must be re-run). Holds
# /tmp/lanefwd-bench.lock around each search and each forwarder's runs.
#
#   sudo bench/bench-latency.sh            # the full run behind the doc
#   sudo bench/bench-latency.sh --compare docs/benchmarks-latency/run-1.json
#                                          # the same, compared with an earlier run
#   sudo bench/bench-latency.sh --quick    # bursts 32 and 128, short searches, no docs
#   bench/bench-latency.sh --help          # every option (bench/bench_latency.py)
#
# Needs root (hugepages), two CPUs (generator and control on CPU 0, the
# forwarding lcore on CPU 1) and the Debian dpdk, dpdk-dev, dpdk-doc and
# python3-matplotlib packages (scripts/deps.sh). Exit status 1 when a run
# fails or the generator loses packets at the lowest load.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
for a in "$@"; do
	case "$a" in
	-h | --help) exec /usr/bin/python3 bench/bench_latency.py --help ;;
	esac
done
bench_need_root bench-latency.sh "hugepages, vdevs"
if [ "$(nproc --all)" -lt 2 ]; then
	echo "bench-latency.sh: needs at least 2 CPUs (generator on 0, forwarder on 1)" >&2
	exit 1
fi
scripts/deps.sh
scripts/hugepages.sh >/dev/null
bench_build lanefwd lanefwd-gen
exec /usr/bin/python3 bench/bench_latency.py "$@"
