# exception_tap: the kernel TAP mirrors of [port] exception = tap.
#
# lanefwd runs inside a network namespace the test makes (LFNS), so its TAP
# mirrors and their addresses never appear on the host. Its two AF_XDP ports
# are veth ends in LFNS whose peers sit in namespaces A and B:
#
#   A: xA 10.20.1.2/24 ---- LFNS: p0 [lanefwd] p1 ---- B: xB 10.20.2.2/24
#                              mirrors: t0 (p0)  t1 (p1)
#
# p0 has address 10.20.1.1/24 and fd00:20:1::1/64, MTU 1400; p1 10.20.2.1/24.
# Both have exception = tap. Checks:
#  1. lanefwd refuses to start when the mirror's name is taken, naming the
#     port and the interface;
#  2. the mirrors exist in LFNS and not on the host, each with its port's MAC
#     (the veth end's), MTU, addresses (IPv4 with its broadcast) and up;
#  3. TCP from A to 10.20.1.1 and from B to 10.20.2.1: a listener in LFNS
#     (the kernel's own stack on the mirror) gets 64 KiB from the client and
#     sends them back; the client compares. Every segment crosses lanefwd:
#     peer -> port -> LOCAL stage -> mirror -> kernel, and kernel -> mirror
#     -> worker 0 -> port -> peer;
#  4. lanefwd's events: punt_exception equals what the kernel counted in on
#     the mirrors (rx_packets), exception_rx what it counted out (tx_packets),
#     both at least the TCP segments the kernel's socket statistics report;
#  5. transit: 10 pings A -> B all answered (forwarded, not punted);
#  6. on SIGINT lanefwd exits 0 and the mirrors are gone.
#
# Neighbours: the peers resolve lanefwd's addresses and the mirrors resolve
# the peers through static entries (ip neigh replace ... nud permanent), so
# the test does not depend on ARP/ND; the exception path itself never needs
# them either way (the kernel sends out of the mirror to the MAC it knows).
#
# Needs root, iproute2, python3, ping, ethtool, dpdk-telemetry.py and 128 MiB
# of free hugepages; exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces, AF_XDP, TAP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
T=xt$$
LFNS=$T-lf NSA=$T-a NSB=$T-b
P0=$T-p0 P1=$T-p1 XA=$T-xa XB=$T-xb
T0=$T-t0 T1=$T-t1
MAC_P0=02:00:0a:14:01:01 MAC_XA=02:00:0a:14:01:02
MAC_P1=02:00:0a:14:02:01 MAC_XB=02:00:0a:14:02:02
MTU0=1400
TCP_PORT=7001
TCP_BYTES=65536
SERVER_PIDS=""

lf_need_tools ip ping ethtool dpdk-telemetry.py
[ -c /dev/net/tun ] || lf_skip "no /dev/net/tun"
lf_need_hugepages 128

# The TCP servers in LFNS; lf_cleanup then deletes the namespaces.
exc_cleanup() {
	local pid
	for pid in $SERVER_PIDS; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}
LF_CLEANUP_HOOK=exc_cleanup

inlf() { ip netns exec "$LFNS" "$@"; }

# ---------------------------------------------------------------- topology
step "namespaces $LFNS, $NSA, $NSB"
lf_netns_add "$LFNS" "$NSA" "$NSB"
# side NS LF_IF PEER_IF LF_MAC PEER_MAC SUBNET: one veth pair LFNS <-> NS,
# with the settings scripts/topology.sh explains (one queue for the XSK,
# complete checksums from the peer, no IPv6 on lanefwd's end).
side() {
	local ns=$1 lif=$2 pif=$3 lmac=$4 pmac=$5 x=$6
	ip link add "$lif" netns "$LFNS" address "$lmac" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$pif" netns "$ns" address "$pmac" numtxqueues 1 numrxqueues 1
	inlf sysctl -qw "net.ipv6.conf.$lif.disable_ipv6=1"
	inlf ip link set "$lif" up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 \
		"net.ipv6.conf.$pif.accept_dad=0" "net.ipv6.conf.$pif.router_solicitations=0"
	ip netns exec "$ns" ethtool -K "$pif" tx off >/dev/null
	ip netns exec "$ns" ip link set "$pif" up
	ip netns exec "$ns" ip addr add "10.20.$x.2/24" dev "$pif"
	ip netns exec "$ns" ip route add default via "10.20.$x.1"
	ip netns exec "$ns" ip neigh replace "10.20.$x.1" lladdr "$lmac" dev "$pif" nud permanent
}
side "$NSA" "$P0" "$XA" "$MAC_P0" "$MAC_XA" 1
side "$NSB" "$P1" "$XB" "$MAC_P1" "$MAC_XB" 2

printf '10.20.1.0/24 1\n10.20.2.0/24 2\n' > "$D/routes4.txt"
printf 'fd00:20:1::/64 1\n' > "$D/routes6.txt"
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
iova_mode = va

$(lf_conf_routes)

[port p0]
vdev = net_af_xdp0,iface=$P0,start_queue=0,queue_count=1
mtu = $MTU0
address = 10.20.1.1/24, fd00:20:1::1/64
exception = tap
exception_if = $T0

[port p1]
vdev = net_af_xdp1,iface=$P1,start_queue=0,queue_count=1
address = 10.20.2.1/24
exception = tap
exception_if = $T1

$(lf_conf_two_nexthops "$MAC_XA" "$MAC_XB")
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# lanefwd inside LFNS from here on.
lf_lanefwd_in_netns "$LFNS"

# ------------------------------------------------------ 1. name collision
step "a mirror name that is taken: lanefwd refuses to start"
inlf ip link add "$T1" type veth peer name "$T-c1"
set +e
timeout 60 "$LANEFWD" -c "$D/lanefwd.conf" > "$D/collide.log" 2>&1
rc=$?
set -e
inlf ip link del "$T1"
[ "$rc" -ne 0 ] || die "lanefwd started although $T1 exists: $(tail -n 5 "$D/collide.log")"
grep -q "\[port p1\] exception_if = $T1: an interface of that name exists already" \
	"$D/collide.log" || die "no error naming [port p1] and $T1: $(tail -n 5 "$D/collide.log")"
inlf ip link show "$T0" >/dev/null 2>&1 &&
	die "after the failed start, $T0 (made before p1's mirror failed) is still there"
echo "refused with exit status $rc: $(grep -o "\[port p1\] exception_if.*" "$D/collide.log")"

# ------------------------------------------------------- 2. the mirrors
step "lanefwd in $LFNS with mirrors $T0 and $T1"
lf_start "$D/lanefwd.conf"
ip link show "$T0" >/dev/null 2>&1 && die "$T0 appeared in the host's namespace"
ip link show "$T1" >/dev/null 2>&1 && die "$T1 appeared in the host's namespace"
inlf ip -j addr show dev "$T0" > "$D/t0.json" || die "no mirror $T0 in $LFNS"
inlf ip -j addr show dev "$T1" > "$D/t1.json" || die "no mirror $T1 in $LFNS"
$PY - "$D/t0.json" "$D/t1.json" "$MAC_P0" "$MAC_P1" "$MTU0" <<'PYEOF' || die "mirror check failed"
import json, sys
want = {
    0: {"mac": sys.argv[3], "mtu": int(sys.argv[5]),
        "addrs": {("inet", "10.20.1.1", 24, "10.20.1.255"), ("inet6", "fd00:20:1::1", 64, None)}},
    1: {"mac": sys.argv[4], "mtu": 1500, "addrs": {("inet", "10.20.2.1", 24, "10.20.2.255")}},
}
bad = []
for i in (0, 1):
    (link,) = json.load(open(sys.argv[1 + i]))
    w, name = want[i], link["ifname"]
    if link["address"] != w["mac"]:
        bad.append(f"{name}: MAC {link['address']}, port's {w['mac']}")
    if link["mtu"] != w["mtu"]:
        bad.append(f"{name}: MTU {link['mtu']}, port's {w['mtu']}")
    if "UP" not in link["flags"] or "LOWER_UP" not in link["flags"]:
        bad.append(f"{name}: flags {link['flags']}, not up")
    have = {(a["family"], a["local"], a["prefixlen"], a.get("broadcast"))
            for a in link["addr_info"] if a.get("scope") == "global"}
    if have != w["addrs"]:
        bad.append(f"{name}: global addresses {sorted(have, key=str)}, expected {sorted(w['addrs'], key=str)}")
    ll = [a for a in link["addr_info"] if a["family"] == "inet6" and a.get("scope") == "link"]
    if not ll:
        bad.append(f"{name}: no IPv6 link-local address")
    print(f"{name}: {link['address']} mtu {link['mtu']} {','.join(link['flags'])} "
          + " ".join(f"{a['local']}/{a['prefixlen']}" for a in link["addr_info"]))
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
# The mirrors reach the peers through lanefwd without ARP/ND (see the header).
inlf ip neigh replace 10.20.1.2 lladdr "$MAC_XA" dev "$T0" nud permanent
inlf ip neigh replace 10.20.2.2 lladdr "$MAC_XB" dev "$T1" nud permanent

# ---------------------------------------------------- counters (oracle)
# snap NAME: lanefwd's /lanefwd/stats and the kernel's counters of both
# mirrors, once they agree or after 10 s (the check then says what differs).
tcnt() { inlf cat "/sys/class/net/$1/statistics/$2"; }
snap() {
	local i rc
	for i in $(seq 1 50); do
		lf_tel_save /lanefwd/stats "$D/tel.json"
		cat > "$D/snap-$1.json" <<EOF
{"lf": $(cat "$D/tel.json"),
 "tap": {"rx": $(( $(tcnt "$T0" rx_packets) + $(tcnt "$T1" rx_packets) )),
         "tx": $(( $(tcnt "$T0" tx_packets) + $(tcnt "$T1" tx_packets) )),
         "tx_dropped": $(( $(tcnt "$T0" tx_dropped) + $(tcnt "$T1" tx_dropped) ))}}
EOF
		rc=0
		$PY "$D/check.py" agree "$D/snap-$1.json" >/dev/null 2>&1 || rc=$?
		# 0: they agree; 2: no events to compare (check.py tcp says so).
		[ "$rc" -eq 1 ] || return 0
		sleep 0.2
	done
	return 0
}
cat > "$D/check.py" <<'PYEOF'
"""Event checks of exception_tap.sh: check.py MODE ARGS."""
import json
import sys

errors = []


def need(cond, msg):
    if not cond:
        errors.append(msg)


def load(path):
    return json.load(open(path))


def events(s):
    st = s["lf"]["/lanefwd/stats"]
    for k in ("punt_exception", "exception_rx"):
        if k not in st:
            print(f"FAIL: /lanefwd/stats has no {k}: telemetry does not expose the events "
                  f"(keys: {sorted(st)})", file=sys.stderr)
            sys.exit(2)
    return st["punt_exception"], st["exception_rx"]


mode = sys.argv[1]
if mode == "agree":
    # agree SNAP: lanefwd's events equal the kernel's count of the mirrors.
    s = load(sys.argv[2])
    punt, exc_rx = events(s)
    need(punt == s["tap"]["rx"],
         f"punt_exception {punt} != the mirrors' kernel rx_packets {s['tap']['rx']}")
    need(exc_rx == s["tap"]["tx"],
         f"exception_rx {exc_rx} != the mirrors' kernel tx_packets {s['tap']['tx']}")
elif mode == "tcp":
    # tcp BEFORE AFTER SEGS_IN SEGS_OUT: the kernel socket's segment counts.
    a, b = load(sys.argv[2]), load(sys.argv[3])
    segs_in, segs_out = int(sys.argv[4]), int(sys.argv[5])
    (pa, ea), (pb, eb) = events(a), events(b)
    need(b["tap"]["rx"] == pb and b["tap"]["tx"] == eb,
         f"after: punt_exception {pb} / exception_rx {eb} vs the mirrors' kernel rx {b['tap']['rx']} "
         f"/ tx {b['tap']['tx']}")
    need(b["tap"]["tx_dropped"] == a["tap"]["tx_dropped"],
         f"the mirrors dropped {b['tap']['tx_dropped'] - a['tap']['tx_dropped']} frames lanefwd did not read")
    need(pb - pa >= segs_in, f"punt_exception +{pb - pa}, the server's socket got {segs_in} segments")
    need(eb - ea >= segs_out, f"exception_rx +{eb - ea}, the server's socket sent {segs_out} segments")
    if not errors:
        print(f"punt_exception +{pb - pa} (socket segments in {segs_in}), exception_rx +{eb - ea} "
              f"(socket segments out {segs_out}); equal to the mirrors' kernel counters")
else:
    sys.exit(f"check.py: unknown mode {mode}")
for e in errors:
    print("FAIL: " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PYEOF

# ------------------------------------------------------------------ 3. TCP
# The server in LFNS: one connection, reads TCP_BYTES, sends them back, and
# prints its socket's segs_in/segs_out (tcp_info) before closing.
cat > "$D/server.py" <<'PYEOF'
import socket, struct, sys
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
ls = socket.socket(fam, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((addr, port))
ls.listen(1)
ls.settimeout(30)
c, peer = ls.accept()
c.settimeout(30)
data = b""
while len(data) < n:
    chunk = c.recv(n - len(data))
    if not chunk:
        sys.exit(f"server: connection closed after {len(data)} bytes")
    data += chunk
c.sendall(data)
c.shutdown(socket.SHUT_WR)
c.recv(1)
# struct tcp_info: tcpi_segs_out and tcpi_segs_in are the u32s at 136/140.
ti = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
segs_out, segs_in = struct.unpack_from("II", ti, 136)
print(f"peer {peer[0]} bytes {len(data)} segs_in {segs_in} segs_out {segs_out}", flush=True)
PYEOF
cat > "$D/client.py" <<'PYEOF'
import os, socket, sys
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = os.urandom(n)
c = socket.create_connection((addr, port), timeout=10)
c.sendall(data)
back = b""
while True:
    chunk = c.recv(65536)
    if not chunk:
        break
    back += chunk
c.close()
if back != data:
    sys.exit(f"client: sent {n} bytes, got {len(back)} back, equal: {back == data}")
print(f"client: {n} bytes sent and received back intact")
PYEOF

# tcp_run NAME CLIENT_NS ADDRESS: one connection through a mirror.
tcp_run() {
	local name=$1 ns=$2 addr=$3 pid i segs_in segs_out
	inlf "$PY" "$D/server.py" "$addr" "$TCP_PORT" "$TCP_BYTES" > "$D/$name-server.txt" 2>&1 &
	pid=$!
	SERVER_PIDS="$SERVER_PIDS $pid"
	lf_wait_listen "$LFNS" "$TCP_PORT"
	snap "$name-before"
	ip netns exec "$ns" timeout 60 "$PY" "$D/client.py" "$addr" "$TCP_PORT" "$TCP_BYTES" \
		> "$D/$name-client.txt" 2>&1 ||
		die "TCP $name to $addr:$TCP_PORT: $(cat "$D/$name-client.txt") (server: $(cat "$D/$name-server.txt"))"
	wait "$pid" || die "TCP server $name failed: $(cat "$D/$name-server.txt")"
	SERVER_PIDS=${SERVER_PIDS% $pid}
	cat "$D/$name-client.txt" "$D/$name-server.txt"
	read -r segs_in segs_out < <(sed -n 's/.* segs_in \([0-9]*\) segs_out \([0-9]*\)$/\1 \2/p' \
		"$D/$name-server.txt")
	[ -n "$segs_out" ] || die "TCP server $name printed no segment counts"
	snap "$name-after"
	$PY "$D/check.py" tcp "$D/snap-$name-before.json" "$D/snap-$name-after.json" \
		"$segs_in" "$segs_out" || die "TCP $name: events do not match"
}

step "TCP $NSA -> 10.20.1.1 (p0's mirror), $TCP_BYTES bytes each way"
tcp_run tcp-p0 "$NSA" 10.20.1.1
step "TCP $NSB -> 10.20.2.1 (p1's mirror), $TCP_BYTES bytes each way"
tcp_run tcp-p1 "$NSB" 10.20.2.1

# --------------------------------------------------------------- 5. transit
step "transit: 10 pings $NSA -> 10.20.2.2"
rx0=$(ip netns exec "$NSB" cat "/sys/class/net/$XB/statistics/rx_packets")
ip netns exec "$NSA" ping -c 10 -i 0.05 -W 2 10.20.2.2 > "$D/ping.txt" ||
	die "transit ping: $(tail -n 3 "$D/ping.txt")"
grep -q "10 packets transmitted, 10 received" "$D/ping.txt" ||
	die "transit ping: $(grep transmitted "$D/ping.txt")"
rx1=$(ip netns exec "$NSB" cat "/sys/class/net/$XB/statistics/rx_packets")
[ $((rx1 - rx0)) -ge 10 ] || die "$XB received $((rx1 - rx0)) packets for 10 echo requests"
echo "10/10 replies; $XB received $((rx1 - rx0)) packets"

# ------------------------------------------------------------ 6. shutdown
step "stop lanefwd: the mirrors go"
lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGINT"
for t in "$T0" "$T1"; do
	inlf ip link show "$t" >/dev/null 2>&1 && die "$t is still there after lanefwd exited"
done
echo "PASS: exception_tap"
