#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DRAFT, to be finished with bench/bench-upf.sh: lanefwd as a UPF end to end,
# driven over PFCP, with lanefwd-gen over memif (the generator on CPU 0,
# lanefwd's worker on the last CPU). For each session count and PDRs per
# direction, and each direction: start lanefwd with [upf] (memif port a is
# N3, port b is N6), establish the sessions with bench/upf_sessions.py
# (establishments per second), then one lanefwd-gen process: an NDR search
# on GTP-U traffic (--gtpu-ul or --gtpu-dl, 64-byte inner frames, one flow
# per session) and the latency at 50% and 90% of that NDR (--ndr-at).
# lanefwd is restarted for every generator process (a memif peer going away
# can crash the side still polling: docs/generator.md), so the sessions are
# established once per direction. Each lanefwd runs under flock $LOCK.
#
# Writes OUT (default /tmp/bench-upf-e2e): for each run NAME =
# N-PDRS-DIR: NAME.sess.json (upf_sessions.py), NAME.gen.json (lanefwd-gen),
# NAME.upf.json (/lanefwd/upf after the traffic), NAME.lanefwd.log, and
# summary.csv (establishments/s, NDR, latency at 50% and 90%).
#
#   sudo bench/bench-upf-e2e.sh                 # 1K and 100K sessions x 1 and 4 PDRs
#   sudo bench/bench-upf-e2e.sh --quick         # 1K sessions, 1 PDR, short trials
#   SESSIONS=1K,100K,1M PDRS=1,4 BUILD=/path/to/builddir sudo -E bench/bench-upf-e2e.sh
#
# Not done yet (the lead's part): hugepages instead of huge = no, IMIX
# (memif takes frames up to 1518 bytes: an inner IMIX 1518 is 1562 on N3),
# plain L3 forwarding in the same run for the ratio, plots and docs.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/bench-lib.sh
root=$(pwd)
quick=0
bench_args bench-upf-e2e.sh 0 "$@"
bench_need_root bench-upf-e2e.sh "vdevs, telemetry socket"
LCORE=${LCORE:-$(bench_last_cpu)}
SESSIONS=${SESSIONS:-1K,100K}
PDRS=${PDRS:-1,4}
DIRS=${DIRS:-ul,dl}
TRIAL=${TRIAL:-2}
DURATION=${DURATION:-5}
LOCK=${LOCK:-/tmp/lf-integ.lock}
BUILD=${BUILD:-build}
OUT=${OUT:-/tmp/bench-upf-e2e}
PFCP_PORT=${PFCP_PORT:-18805}
if [ "$quick" -eq 1 ]; then
	SESSIONS=1K
	PDRS=1
	TRIAL=0.5
	DURATION=1
fi
if [ "$BUILD" = build ]; then
	bench_build lanefwd lanefwd-gen
fi
LANEFWD=$(readlink -f "$BUILD/lanefwd")
GEN=$(readlink -f "$BUILD/lanefwd-gen")
mkdir -p "$OUT"
OUT=$(readlink -f "$OUT")
PREFIX=lfupfe2e$$

# count 1K -> 1000, 1M -> 1000000
count() {
	case "$1" in
	*K) echo $((${1%K} * 1000)) ;;
	*M) echo $((${1%M} * 1000000)) ;;
	*) echo "$1" ;;
	esac
}

# write_conf N: lanefwd.conf for N sessions (UEs from 10.32.0.1: a /11 pool).
write_conf() {
	printf '10.1.0.0/16 2\n192.168.3.0/24 1\n' > "$OUT/routes4.txt"
	printf '2001:db8:1::/48 2\nfd00:3::/64 1\n' > "$OUT/routes6.txt"
	cat > "$OUT/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $PREFIX
huge = no
memory = $((1024 + $1 / 256))
[pipeline]
burst = 32
latency = yes
[routes]
ipv4 = routes4.txt
ipv6 = routes6.txt
ipv4_max_routes = 1024
ipv4_tbl8 = 256
ipv6_max_routes = 1024
ipv6_tbl8 = 256
# The generator sends to 02:00:00:00:00:01 in both directions: the ports
# take it as switch ports do (routed ports take only their own MAC).
[port a]
vdev = net_memif0,role=server,socket=$OUT/a.sock,socket-abstract=no
promiscuous = yes
[port b]
vdev = net_memif1,role=server,socket=$OUT/b.sock,socket-abstract=no
promiscuous = yes
[worker $LCORE]
rx = a:0 b:0
[nexthop 1]
port = a
mac = 02:00:00:00:0a:01
[nexthop 2]
port = b
mac = 02:00:00:00:0b:01
[upf]
n3_ipv4 = 192.168.3.1
pfcp_addr = 127.0.0.1
pfcp_port = $PFCP_PORT
max_sessions = $1
[network_instance internet]
ue_pool = 10.32.0.0/11
EOF
}

LF_PID=
GEN_PID=
cleanup() {
	[ -n "$LF_PID" ] && kill -INT "$LF_PID" 2>/dev/null && wait "$LF_PID" 2>/dev/null
	[ -n "$GEN_PID" ] && kill "$GEN_PID" 2>/dev/null && wait "$GEN_PID" 2>/dev/null
	rm -rf "/var/run/dpdk/$PREFIX" "/var/run/dpdk/${PREFIX}g"
	return 0
}
trap cleanup EXIT

# run_one N PDRS DIR: one lanefwd, its sessions, one generator process.
run_one() {
	local n=$1 pdrs=$2 dir=$3 name="$1-$2-$3" ports i
	rm -f "$OUT/a.sock" "$OUT/b.sock" "$OUT/$name.gen.json"
	"$LANEFWD" -c "$OUT/lanefwd.conf" > "$OUT/$name.lanefwd.log" 2>&1 &
	LF_PID=$!
	for i in $(seq 1 600); do
		grep -q "^lanefwd: running" "$OUT/$name.lanefwd.log" && break
		kill -0 "$LF_PID" 2>/dev/null || { cat "$OUT/$name.lanefwd.log" >&2; return 1; }
		sleep 0.1
	done
	/usr/bin/python3 "$root/bench/upf_sessions.py" --port "$PFCP_PORT" --sessions "$n" \
		--pdrs "$pdrs" --ue-ip 10.32.0.1 --quiet --json "$OUT/$name.sess.json" || return 1
	if [ "$dir" = ul ]; then ports="--tx-port 0 --rx-port 1"; else ports="--tx-port 1 --rx-port 0"; fi
	"$GEN" -l 0 --no-pci --no-huge -m 1024 --file-prefix "${PREFIX}g" --log-level=error \
		--vdev "net_memif0,role=client,socket=$OUT/a.sock,socket-abstract=no,rsize=12" \
		--vdev "net_memif1,role=client,socket=$OUT/b.sock,socket-abstract=no,rsize=12" \
		-- $ports --gtpu-$dir "$n" --ue-ip 10.32.0.1 --size 64 --search --trial "$TRIAL" \
		--search-precision 5 --ndr-at 50,90 --duration "$DURATION" --warmup 0.5 \
		--linger 60 --json "$OUT/$name.gen.json" > "$OUT/$name.gen.log" 2>&1 &
	GEN_PID=$!
	for i in $(seq 1 36000); do
		[ -s "$OUT/$name.gen.json" ] && break
		kill -0 "$GEN_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo /lanefwd/upf | dpdk-telemetry.py -f "$PREFIX" > "$OUT/$name.upf.json" 2>/dev/null || true
	kill -INT "$LF_PID"
	wait "$LF_PID" || true
	LF_PID=
	wait "$GEN_PID" || { cat "$OUT/$name.gen.log" >&2; GEN_PID=; return 1; }
	GEN_PID=
	grep -E "NDR|mismatch" "$OUT/$name.gen.log" || true
}

fail=0
exec 9> "$LOCK"
for s in ${SESSIONS//,/ }; do
	n=$(count "$s")
	write_conf "$n"
	for p in ${PDRS//,/ }; do
		for d in ${DIRS//,/ }; do
			echo "bench-upf-e2e: $n sessions, $p PDRs per direction, $d"
			flock 9
			run_one "$n" "$p" "$d" || { echo "bench-upf-e2e: $n-$p-$d failed" >&2; fail=1; }
			flock -u 9
		done
	done
done

/usr/bin/python3 - "$OUT" <<'PY'
import csv, glob, json, os, sys
out = sys.argv[1]
rows = []
for g in sorted(glob.glob(os.path.join(out, "*.gen.json"))):
    name = os.path.basename(g)[:-len(".gen.json")]
    n, pdrs, d = name.split("-")
    gen = json.load(open(g))
    sess = json.load(open(os.path.join(out, name + ".sess.json")))
    at = {x["pct"]: x["latency"] for x in gen.get("ndr_at", [])}
    lat = lambda p, q: at.get(p, {}).get(q, "")
    rows.append([n, pdrs, d, round(sess["phases"][0]["rate_per_s"]), round(gen["ndr_pps"]),
                 lat(50, "p50_ns"), lat(50, "p99_ns"), lat(90, "p50_ns"), lat(90, "p99_ns"),
                 gen["result"].get("rx_mismatch", "")])
with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["sessions", "pdrs", "dir", "establish_per_s", "ndr_pps", "p50_ns_at50",
                "p99_ns_at50", "p50_ns_at90", "p99_ns_at90", "rx_mismatch"])
    w.writerows(rows)
for r in rows:
    print("bench-upf-e2e: %s sessions %s PDRs %s: %s establishments/s, NDR %s pps, "
          "latency p50/p99 %s/%s ns at 50%%, %s/%s ns at 90%%" % tuple(r[:9]))
PY
exit "$fail"
