#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The exception path's kernel-facing device, net_tap against virtio-user on
# vhost-net (docs/exception-path.md): bench/excbench.c sends UDP datagrams
# from a DPDK lcore through the device into a kernel socket, a thread echoes
# them, the lcore reads them back. For each device, REPS runs of
#   pps 64 B and 1024 B frames, WINDOW datagrams in flight, SECS seconds;
#   rtt 64 B, one datagram at a time, COUNT samples;
# in a network namespace of its own (the device and its address never show
# on the host). Results: one JSON line per run in OUT/runs.jsonl, medians and
# the virtio/tap ratios of the same run in OUT/summary.txt.
#
# usage: bench/bench-exception.sh [OUT]   (default docs/exception-path)
#   env: REPS (3), SECS (5), WINDOW (256), COUNT (3000), LCORE (1), ECHO_CPU (0),
#        DEVS ("tap virtio")
# virtio needs /dev/vhost-net (the kernel's CONFIG_VHOST_NET, module
# vhost_net); without it the device is reported as unavailable, with why.
# Needs root, a C compiler, pkg-config libdpdk and 256 MiB of hugepages.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/docs/exception-path}
REPS=${REPS:-3} SECS=${SECS:-5} WINDOW=${WINDOW:-256} COUNT=${COUNT:-3000}
LCORE=${LCORE:-1} ECHO_CPU=${ECHO_CPU:-0} DEVS=${DEVS:-tap virtio}
NS=exb$$
TMP=$(mktemp -d /tmp/bench-exception.XXXXXX)

[ "$(id -u)" -eq 0 ] || { echo "bench-exception: needs root" >&2; exit 1; }
cleanup() {
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$TMP" "/var/run/dpdk/$NS"
}
trap cleanup EXIT
mkdir -p "$OUT"

# meson builds it as lanefwd-excbench; BUILD names the build directory.
BUILD=${BUILD:-$SRC/build}
[ -x "$BUILD/lanefwd-excbench" ] ||
	{ echo "bench-exception: no $BUILD/lanefwd-excbench: ninja -C $BUILD first" >&2; exit 1; }
cp "$BUILD/lanefwd-excbench" "$TMP/excbench"

ip netns add "$NS"
ip -n "$NS" link set lo up

# The kernel side of the device (run by excbench once the device is up).
SETUP="ip link set dev exb0 address 02:00:00:99:00:01 mtu 1500 up &&
sysctl -qw net.ipv6.conf.exb0.disable_ipv6=1 &&
ip addr replace 10.99.0.1/24 dev exb0 &&
ip neigh replace 10.99.0.2 lladdr 02:00:00:99:00:02 dev exb0 nud permanent"

run() {
	ip netns exec "$NS" "$TMP/excbench" -l "$LCORE" --in-memory -m 256 --no-pci \
		--file-prefix "$NS" --log-level 3 -- --ifname exb0 --echo-cpu "$ECHO_CPU" \
		--setup "$SETUP" "$@"
}

: > "$OUT/runs.jsonl"
{
	echo "# bench-exception.sh on $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "# kernel $(uname -r), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "# DPDK lcore on CPU $LCORE, echo thread on CPU $ECHO_CPU; REPS=$REPS SECS=$SECS WINDOW=$WINDOW COUNT=$COUNT"
	echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/summary.txt"

for dev in $DEVS; do
	if [ "$dev" = virtio ] && [ ! -c /dev/vhost-net ]; then
		why="no /dev/vhost-net on this host"
		if [ -r /proc/config.gz ] && zcat /proc/config.gz | grep -q '^# CONFIG_VHOST_NET is not set'; then
			why="$why (kernel $(uname -r) is built without CONFIG_VHOST_NET)"
		fi
		echo "{\"dev\": \"virtio\", \"unavailable\": \"$why\"}" >> "$OUT/runs.jsonl"
		echo "virtio: unavailable: $why" >&2
		continue
	fi
	for rep in $(seq 1 "$REPS"); do
		for size in 64 1024; do
			run --dev "$dev" --mode pps --size "$size" --window "$WINDOW" --secs "$SECS" |
				tee -a "$OUT/runs.jsonl"
		done
		run --dev "$dev" --mode rtt --size 64 --count "$COUNT" | tee -a "$OUT/runs.jsonl"
	done
done

echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/summary.txt"
/usr/bin/python3 - "$OUT/runs.jsonl" >> "$OUT/summary.txt" <<'PYEOF'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
med = {}
for r in runs:
    if "unavailable" in r:
        print(f"{r['dev']}: not measured: {r['unavailable']}")
        continue
    if r["mode"] == "pps":
        med.setdefault((r["dev"], f"pps {r['size']} B"), []).append(r["echoes_per_s"])
        med.setdefault((r["dev"], f"lost {r['size']} B"), []).append(r["lost"])
    else:
        for q in ("p50_us", "p99_us", "min_us"):
            med.setdefault((r["dev"], f"rtt {q}"), []).append(r[q])
keys = sorted({k for _, k in med})
devs = sorted({d for d, _ in med})
print("metric".ljust(16) + "".join(d.rjust(26) for d in devs) + ("  virtio/tap" if len(devs) == 2 else ""))
for k in keys:
    row = k.ljust(16)
    vals = {}
    for d in devs:
        v = med.get((d, k))
        if v:
            vals[d] = statistics.median(v)
            row += f"{vals[d]:>12.2f} ({min(v):.1f}-{max(v):.1f})".rjust(26)
        else:
            row += "-".rjust(26)
    if len(vals) == 2 and vals.get("tap"):
        row += f"  {vals['virtio'] / vals['tap']:.2f}"
    print(row)
PYEOF
cat "$OUT/summary.txt"
