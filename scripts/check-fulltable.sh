#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Load full route tables into lanefwd and report what it installed: the
# check behind the full-table sizing in the README.
#
#   sudo scripts/check-fulltable.sh [ROUTES4 [ROUTES6 [IPV6_TBL8]]]
#
# Defaults: the public full tables in ../shared/data/routes (a checkout with
# the project's shared data beside it) and ipv6_tbl8 = 262144. Prints the
# IPv4 tbl8 groups the table needs (one per /24 holding longer prefixes),
# then starts lanefwd on a null port with every next hop the files use,
# reads /lanefwd/info and stops it. Exit 0 when every route was installed.
set -euo pipefail
cd "$(dirname "$0")/.."
R4=$(realpath "${1:-../shared/data/routes/ipv4-full.txt}")
R6=$(realpath "${2:-../shared/data/routes/ipv6-full.txt}")
TBL8=${3:-262144}
[ "$(id -u)" -eq 0 ] || { echo "check-fulltable: run as root (hugepages)" >&2; exit 1; }
[ -x build/lanefwd ] || { echo "check-fulltable: build first (ninja -C build)" >&2; exit 1; }
scripts/hugepages.sh >/dev/null

n4=$(grep -c '/' "$R4"); n6=$(grep -c '/' "$R6")
tbl8=$(awk '{ split($1, a, "/"); if (a[2] > 24) { split(a[1], o, "."); print o[1] "." o[2] "." o[3] } }' \
	"$R4" | sort -u | wc -l)
echo "IPv4: $n4 routes, $tbl8 tbl8 groups needed; IPv6: $n6 routes, ipv6_tbl8 = $TBL8"

T=$(mktemp -d /tmp/lanefwd-fulltable.XXXXXX)
PREFIX="lffull$$"
PID=""
cleanup() {
	[ -n "$PID" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T" "/var/run/dpdk/$PREFIX"
}
trap cleanup EXIT
{
	printf '[eal]\nfile_prefix = %s\n[routes]\nipv4 = %s\nipv6 = %s\nipv6_tbl8 = %s\n' \
		"$PREFIX" "$R4" "$R6" "$TBL8"
	printf '[port p0]\nvdev = net_null0,no-rx=1\n[worker 1]\nrx = p0:0\n'
	for id in $(cat "$R4" "$R6" | awk '!/^#/ && NF >= 2 { print $2 }' | sort -un); do
		printf '[nexthop %d]\nport = p0\nmac = 02:00:00:00:%02x:%02x\n' \
			"$id" $((id / 256 % 256)) $((id % 256))
	done
} > "$T/full.conf"

build/lanefwd -c "$T/full.conf" > "$T/log" 2>&1 &
PID=$!
for _ in $(seq 1 1200); do
	grep -q '^lanefwd: running' "$T/log" && break
	if ! kill -0 "$PID" 2>/dev/null; then
		PID=""
		grep -E 'lanefwd\.(main|fib)|error' "$T/log" >&2
		echo "check-fulltable: lanefwd did not start" >&2
		exit 1
	fi
	sleep 0.1
done
info=$(echo /lanefwd/info | dpdk-telemetry.py -f "$PREFIX" | tail -n 1)
got=$(/usr/bin/python3 -c 'import json, sys
i = json.loads(sys.argv[1])["/lanefwd/info"]
print(i["ipv4_routes"], i["ipv6_routes"])' "$info")
echo "installed: ${got% *} IPv4, ${got#* } IPv6"
[ "$got" = "$n4 $n6" ]
