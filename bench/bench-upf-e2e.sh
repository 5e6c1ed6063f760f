#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lanefwd as a UPF end to end (issue 14), on the memif harness of
# bench-latency.sh: for 1K and 100K sessions with 1 and 4 PDRs per
# direction, bench/upf_sessions.py establishes the sessions over PFCP
# (establishments per second), then lanefwd-gen --gtpu-ul / --gtpu-dl finds
# the no-drop rate (MLRsearch) and measures the latency and the worker's
# cycles per packet at 50% and 90% of it; plain L3 forwarding by the same
# lanefwd is the peer, measured in the same run. Writes docs/upf-e2e.md and
# docs/upf-e2e/ (about 25 minutes on a quiet machine). Holds
# /tmp/lanefwd-bench.lock around each run.
#
#   sudo bench/bench-upf-e2e.sh                       # the full run behind the doc
#   sudo bench/bench-upf-e2e.sh --quick               # 1K sessions, 1 PDR, no docs
#   sudo bench/bench-upf-e2e.sh --sessions 1K,100K,1M # 1M: about 1 GiB more hugepages
#   bench/bench-upf-e2e.sh --help                     # every option (bench/bench_upf_e2e.py)
#
# Needs root (hugepages, vdevs, telemetry socket), two CPUs and the Debian
# dpdk, dpdk-dev, python3-scapy and python3-matplotlib packages
# (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
for a in "$@"; do
	case "$a" in
	-h | --help) exec /usr/bin/python3 bench/bench_upf_e2e.py --help ;;
	esac
done
bench_need_root bench-upf-e2e.sh "hugepages, vdevs, telemetry socket"
if [ "$(nproc --all)" -lt 2 ]; then
	echo "bench-upf-e2e.sh: needs at least 2 CPUs (generator on 0, forwarder on 1)" >&2
	exit 1
fi
scripts/deps.sh
scripts/hugepages.sh >/dev/null
bench_build lanefwd lanefwd-gen
exec /usr/bin/python3 bench/bench_upf_e2e.py "$@"
