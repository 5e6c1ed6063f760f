# netlink: routes from the kernel's table in lanefwd's FIB ([netlink],
# docs/control-plane.md "Routes from the kernel").
#
# lanefwd runs in a namespace of its own (LNS) on two veth ends, xp0 and
# xp1 (AF_XDP, exception = kernel, so the kernel interfaces netlink follows
# are xp0 and xp1 themselves); their peers xa and xb sit in namespaces A
# (10.30.1.2) and B (10.30.2.2, with 198.51.100.1 and 2001:db8:77::1 on
# lo). LNS's kernel forwards nothing. The kernel's routing table is the
# oracle: routes are added and removed with ip(8) in LNS, and lanefwd's
# view is read through /lanefwd/fib/lookup and /lanefwd/netlink:
#  1. at start: a resync was done, the connected routes of xp0/xp1 ignored;
#  2. ip route add 198.51.100.0/24 via 10.30.2.2 dev xp1 (and an IPv6 /48)
#     shows in the FIB within 20 s, as a kernel route on port p1;
#  3. traffic A -> 198.51.100.1 and 2001:db8:77::1 crosses lanefwd on the
#     learnt routes (gateway resolved by the neighbour code), all answered,
#     counted by lanefwd, LNS's kernel forwarding nothing;
#  4. a route via another interface (a veth inside LNS) and one in table 100 are
#     ignored and counted; a kernel route on a route file's prefix is
#     shadowed by the file's (priority = file);
#  5. 3000 IPv4 and 500 IPv6 routes added with ip -batch while the event
#     socket's buffer is small (LANEFWD_NETLINK_RCVBUF, test only): the
#     socket overflows (ENOBUFS counted, rounds repeated until it does),
#     lanefwd resyncs, and its view equals the kernel's table route by
#     route (check below); then they are deleted and gone from the FIB;
#  6. a reload (SIGHUP) keeps the kernel's routes in the new generation.
# Namespaces, veths and lanefwd are removed on every exit.
#
# Needs root, iproute2, ping, ethtool, dpdk-telemetry.py and 128 MiB of free
# hugepages; exits 77 (SKIP) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: needs root (network namespaces, AF_XDP)" >&2
	exit 77
fi
. "$(dirname "$0")/lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
T=nl$$
LNS=$T-lf NSA=$T-a NSB=$T-b
MAC_P0=02:00:0c:0c:01:01 MAC_A=02:00:0c:0c:01:02
MAC_P1=02:00:0c:0c:02:01 MAC_B=02:00:0c:0c:02:02
BULK4=3000
BULK6=500
NS_UP=0

for t in ip ping ethtool dpdk-telemetry.py; do
	command -v "$t" >/dev/null || lf_skip "$t is not installed (scripts/deps.sh)"
done
free_mb=$(lf_hugepages_free_mb)
[ "$free_mb" -ge 128 ] ||
	lf_skip "needs 128 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"

nl_cleanup() {
	if [ "$NS_UP" -eq 1 ]; then
		# Deleting LNS deletes xp0/xp1 and with them their peers.
		ip netns del "$LNS" 2>/dev/null || true
		ip netns del "$NSA" 2>/dev/null || true
		ip netns del "$NSB" 2>/dev/null || true
	fi
}
LF_CLEANUP_HOOK=nl_cleanup

step() { echo "---- $*"; }
inl() { ip netns exec "$LNS" "$@"; }
ina() { ip netns exec "$NSA" "$@"; }

# ---------------------------------------------------------------- topology
step "namespaces $LNS (lanefwd), $NSA, $NSB"
NS_UP=1
ip netns add "$LNS"
ip netns add "$NSA"
ip netns add "$NSB"
# side IF PEER_NS PEER_IF IF_MAC PEER_MAC SUBNET
side() {
	local ifc=$1 pns=$2 pif=$3 mac=$4 pmac=$5 x=$6
	# One queue each: the AF_XDP socket binds queue 0, and veth takes
	# native XDP only with as many RX queues as its peer has TX queues.
	inl ip link add "$ifc" address "$mac" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$pif" address "$pmac" numtxqueues 1 numrxqueues 1 netns "$pns"
	inl ip link set dev "$ifc" up
	ip netns exec "$pns" sh -e -c "
		ip link set dev lo up
		sysctl -qw net.ipv6.conf.$pif.accept_dad=0 net.ipv6.conf.$pif.accept_ra=0 \
			net.ipv6.conf.$pif.router_solicitations=0
		ethtool -K $pif tx off >/dev/null
		ip addr add 10.30.$x.2/24 dev $pif
		ip -6 addr add fd30:$x::2/64 dev $pif nodad
		ip link set dev $pif up
		ip route add default via 10.30.$x.1 dev $pif
		ip -6 route add default via fd30:$x::1 dev $pif"
}
inl ip link set dev lo up
inl sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0 \
	net.ipv6.conf.default.accept_dad=0
side xp0 "$NSA" xa "$MAC_P0" "$MAC_A" 1
side xp1 "$NSB" xb "$MAC_P1" "$MAC_B" 2
ip netns exec "$NSB" ip addr add 198.51.100.1/32 dev lo
ip netns exec "$NSB" ip -6 addr add 2001:db8:77::1/128 dev lo
# An interface lanefwd does not mirror, for a route it must ignore (a
# veth pair inside LNS: no dummy module in every kernel).
inl ip link add oth0 type veth peer name oth1
inl ip addr add 10.99.0.1/24 dev oth0
inl ip link set dev oth1 up
inl ip link set dev oth0 up

# The subnets through static next hops; 198.18.0.0/24 only to see the
# route file win over the kernel on the same prefix.
printf '10.30.1.0/24 1\n10.30.2.0/24 2\n198.18.0.0/24 2\n' > "$D/routes4.txt"
printf 'fd30:1::/64 1\nfd30:2::/64 2\n' > "$D/routes6.txt"
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = 32

[routes]
ipv4 = routes4.txt
ipv6 = routes6.txt
ipv4_max_routes = 8192
ipv4_tbl8 = 1024
ipv6_max_routes = 4096
ipv6_tbl8 = 4096

[port p0]
vdev = net_af_xdp0,iface=xp0,start_queue=0,queue_count=1
address = 10.30.1.1/24, fd30:1::1/64
exception = kernel

[port p1]
vdev = net_af_xdp1,iface=xp1,start_queue=0,queue_count=1
address = 10.30.2.1/24, fd30:2::1/64
exception = kernel

[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p0
mac = $MAC_A

[nexthop 2]
port = p1
mac = $MAC_B

[netlink]
table = 254
priority = file
max_routes = 20000
max_nexthops = 64
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# ----------------------------------------------------------------- checker
cat > "$D/check.py" <<'PYEOF'
"""netlink.sh's checks against the kernel's table: check.py MODE PREFIX LNS ..."""
import ipaddress
import json
import subprocess
import sys
import time

sys.path.insert(0, sys.argv[-1])
sys.dont_write_bytecode = True
from upf import Tel  # noqa: E402  (the telemetry socket client)

mode, prefix, lns = sys.argv[1], sys.argv[2], sys.argv[3]
tel = Tel(prefix)
PORT_OF = {"xp0": "p0", "xp1": "p1"}


def kernel_routes():
    """The routes lanefwd must hold: table main, a gateway, on xp0/xp1."""
    out = {}
    for fam in ("-4", "-6"):
        txt = subprocess.run(["ip", "-n", lns, "-j", fam, "route", "show", "table", "main"],
                             check=True, capture_output=True, text=True).stdout
        for r in json.loads(txt or "[]"):
            if r.get("dev") not in PORT_OF or "gateway" not in r:
                continue
            if r.get("protocol") == "kernel" or r.get("type", "unicast") != "unicast":
                continue
            dst = r["dst"]
            if dst == "default":
                dst = "0.0.0.0/0" if fam == "-4" else "::/0"
            net = ipaddress.ip_network(dst if "/" in dst else
                                       dst + ("/32" if fam == "-4" else "/128"))
            out[str(net)] = PORT_OF[r["dev"]]
    return out


def lookup(net):
    return tel("/lanefwd/fib/lookup," + str(ipaddress.ip_network(net)[0]))


def compare(shadowed):
    """Every kernel route is in the FIB as lanefwd's, on its port; the count held matches."""
    want = kernel_routes()
    bad = []
    for net, port in want.items():
        r = lookup(net)
        if net in shadowed:
            ok = r.get("prefix") == net and r.get("source") == "file"
        else:
            ok = r.get("prefix") == net and r.get("source") == "kernel" and r.get("port") == port
        if not ok:
            bad.append((net, port, r))
    nl = tel("/lanefwd/netlink")
    return want, bad, nl


if mode == "wait-consistent":
    # wait-consistent PREFIX LNS TIMEOUT SHADOWED,... LIBDIR
    deadline = time.time() + float(sys.argv[4])
    shadowed = set(x for x in sys.argv[5].split(",") if x)
    while True:
        want, bad, nl = compare(shadowed)
        if not bad and nl["routes_held"] == len(want):
            print("consistent: %d kernel routes, lanefwd holds %d (installed %d, shadowed %d), "
                  "resyncs %d, enobufs %d" % (len(want), nl["routes_held"], nl["routes_installed"],
                                             nl["routes_shadowed"], nl["resyncs"], nl["enobufs"]))
            sys.exit(0)
        if time.time() > deadline:
            print("not consistent after %s s: %d kernel routes, lanefwd holds %d; %d differ, "
                  "first: %s" % (sys.argv[4], len(want), nl["routes_held"], len(bad), bad[:3]))
            sys.exit(1)
        time.sleep(1)
elif mode == "absent":
    # absent PREFIX LNS NET,... LIBDIR: no kernel route of lanefwd's at these prefixes
    bad = []
    for net in sys.argv[4].split(","):
        r = lookup(net)
        if r.get("prefix") == net and r.get("source") == "kernel":
            bad.append((net, r))
    if bad:
        print("still in the FIB: %s" % bad[:3])
        sys.exit(1)
    print("none of %d prefixes in the FIB" % len(sys.argv[4].split(",")))
PYEOF
check() { $PY "$D/check.py" "$@" "$LF_SRCDIR/tests/integration"; }
nl_get() {
	lf_tel /lanefwd/netlink | $PY -c '
import json, sys
d = json.load(sys.stdin)["/lanefwd/netlink"]
for k in sys.argv[1:]:
    v = d
    for p in k.split("."):
        v = v[p]
    print(v)' "$@"
}
# wait_lookup ADDR PREFIX SOURCE: until /lanefwd/fib/lookup,ADDR matches (20 s).
wait_lookup() {
	local i r
	for i in $(seq 1 100); do
		r=$(lf_tel "/lanefwd/fib/lookup,$1")
		if $PY -c '
import json, sys
d = json.loads(sys.argv[1])["/lanefwd/fib/lookup"]
sys.exit(0 if d.get("prefix") == sys.argv[2] and d.get("source") == sys.argv[3] else 1)' \
			"$r" "$2" "$3" 2>/dev/null; then
			echo "$1: $r"
			return 0
		fi
		sleep 0.2
	done
	die "/lanefwd/fib/lookup,$1 is not $2 from $3 after 20 s: $r"
}

# ----------------------------------------------------------------- lanefwd
step "lanefwd in $LNS on xp0 and xp1, [netlink] table 254"
# lf_start runs "$LANEFWD": a wrapper that enters LNS with a small netlink
# receive buffer (ip netns exec and env exec: the pid is lanefwd's).
REAL_LANEFWD=$LANEFWD
cat > "$D/lanefwd-in-ns" <<EOF
#!/bin/sh
exec ip netns exec $LNS env LANEFWD_NETLINK_RCVBUF=16384 $REAL_LANEFWD "\$@"
EOF
chmod +x "$D/lanefwd-in-ns"
LANEFWD=$D/lanefwd-in-ns
lf_start "$D/lanefwd.conf"

read -r en rs conn < <(nl_get enabled resyncs ignored.connected | paste -sd' ')
echo "netlink: enabled $en, resyncs $rs, connected routes ignored $conn"
[ "$en" = 1 ] || die "/lanefwd/netlink: not enabled"
[ "$rs" -ge 1 ] || die "/lanefwd/netlink: no resync at start"
[ "$conn" -ge 2 ] || die "/lanefwd/netlink: the connected routes of xp0/xp1 were not counted ($conn)"

# ------------------------------------------------------------ single route
step "ip route add 198.51.100.0/24 via 10.30.2.2 dev xp1"
inl ip route add 198.51.100.0/24 via 10.30.2.2 dev xp1
inl ip -6 route add 2001:db8:77::/48 via fd30:2::2 dev xp1
wait_lookup 198.51.100.1 198.51.100.0/24 kernel
wait_lookup 2001:db8:77::1 2001:db8:77::/48 kernel
r=$(lf_tel /lanefwd/fib/lookup,198.51.100.1)
[[ "$r" == *'"port": "p1"'* ]] || [[ "$r" == *'"kind": "neigh"'* ]] ||
	die "198.51.100.1: neither on port p1 nor waiting for its neighbour: $r"

# ----------------------------------------------------------------- traffic
step "traffic $NSA -> 198.51.100.1 and 2001:db8:77::1 through the learnt routes"
read -r rx0 tx0 < <(lf_tel /lanefwd/stats | $PY -c 'import json,sys; s=json.load(sys.stdin)["/lanefwd/stats"]; print(s["rx_packets"], s["tx_packets"])')
ok=0
for i in $(seq 1 10); do
	if ina ping -n -c 1 -W 1 198.51.100.1 >/dev/null 2>&1; then ok=1; break; fi
done
[ "$ok" -eq 1 ] || die "198.51.100.1 never answered (the neighbour 10.30.2.2 unresolved?): $(lf_tel /lanefwd/fib/lookup,198.51.100.1)"
ina ping -n -c 10 -i 0.2 -W 2 198.51.100.1 > "$D/ping4.txt" || true
grep -q "^10 packets transmitted, 10 received" "$D/ping4.txt" ||
	die "pings to 198.51.100.1 lost: $(grep transmitted "$D/ping4.txt")"
ok=0
for i in $(seq 1 10); do
	if ina ping -6 -n -c 1 -W 1 2001:db8:77::1 >/dev/null 2>&1; then ok=1; break; fi
done
[ "$ok" -eq 1 ] || die "2001:db8:77::1 never answered: $(lf_tel /lanefwd/fib/lookup,2001:db8:77::1)"
ina ping -6 -n -c 10 -i 0.2 -W 2 2001:db8:77::1 > "$D/ping6.txt" || true
grep -q "^10 packets transmitted, 10 received" "$D/ping6.txt" ||
	die "pings to 2001:db8:77::1 lost: $(grep transmitted "$D/ping6.txt")"
read -r rx1 tx1 < <(lf_tel /lanefwd/stats | $PY -c 'import json,sys; s=json.load(sys.stdin)["/lanefwd/stats"]; print(s["rx_packets"], s["tx_packets"])')
echo "lanefwd rx $rx0 -> $rx1, tx $tx0 -> $tx1"
[ $((tx1 - tx0)) -ge 40 ] || die "lanefwd sent $((tx1 - tx0)) packets for 20 answered pings each way (>= 40 expected)"
fwd=$(inl awk '$1 == "Ip:" && !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next } $1 == "Ip:" { print $c["ForwDatagrams"] }' /proc/net/snmp)
[ "$fwd" = 0 ] || die "$LNS's kernel forwarded $fwd datagrams: the pings did not go through lanefwd alone"

# ----------------------------------------------------------------- ignored
step "ignored: another interface, another table; shadowed: the route file's prefix"
read -r if0 tb0 < <(nl_get ignored.interface ignored.table | paste -sd' ')
inl ip route add 203.0.113.0/24 via 10.99.0.2 dev oth0
inl ip route add 192.0.2.0/24 via 10.30.2.2 dev xp1 table 100
inl ip route add 198.18.0.0/24 via 10.30.1.2 dev xp0
for i in $(seq 1 100); do
	read -r if1 tb1 sh1 < <(nl_get ignored.interface ignored.table routes_shadowed | paste -sd' ')
	[ "$if1" -gt "$if0" ] && [ "$tb1" -gt "$tb0" ] && [ "$sh1" -ge 1 ] && break
	sleep 0.2
done
echo "ignored: interface $if0 -> $if1, table $tb0 -> $tb1; shadowed $sh1"
[ "$if1" -gt "$if0" ] || die "the route via oth0 was not counted as ignored (interface)"
[ "$tb1" -gt "$tb0" ] || die "the route of table 100 was not counted as ignored (table)"
[ "$sh1" -ge 1 ] || die "198.18.0.0/24 is not shadowed by the route file"
check absent "$LF_PREFIX" "$LNS" "203.0.113.0/24,192.0.2.0/24" || die "an ignored route is in the FIB"
r=$(lf_tel /lanefwd/fib/lookup,198.18.0.1)
$PY -c '
import json, sys
d = json.loads(sys.argv[1])["/lanefwd/fib/lookup"]
sys.exit(0 if d.get("source") == "file" and d.get("nh") == 2 else 1)' "$r" ||
	die "198.18.0.1 does not use the route file's next hop 2: $r"

# -------------------------------------------------- thousands, and ENOBUFS
# bulk add|del: BULK4 IPv4 /24s in 100.64.0.0/10 and BULK6 IPv6 /64s.
bulk() {
	local i
	for i in $(seq 0 $((BULK4 - 1))); do
		echo "route $1 100.$((64 + i / 256)).$((i % 256)).0/24 via 10.30.2.2 dev xp1"
	done
	for i in $(seq 0 $((BULK6 - 1))); do
		printf 'route %s 2001:db8:1:%x::/64 via fd30:2::2 dev xp1\n' "$1" "$i"
	done
}
bulk add > "$D/add.batch"
bulk del > "$D/del.batch"
bulk_nets() {
	local i
	for i in $(seq 0 $((BULK4 - 1)) | awk 'NR % 97 == 1'); do
		printf '100.%d.%d.0/24,' $((64 + i / 256)) $((i % 256))
	done
	printf '2001:db8:1::/64,2001:db8:1:1f3::/64'
}

step "ip -batch: $BULK4 IPv4 and $BULK6 IPv6 routes with a 16 KiB event buffer"
for round in 1 2 3; do
	inl ip -batch "$D/add.batch" || die "ip -batch (add) failed"
	enobufs=$(nl_get enobufs)
	echo "round $round: enobufs $enobufs"
	[ "$enobufs" -ge 1 ] && break
	inl ip -batch "$D/del.batch" || die "ip -batch (del) failed"
done
[ "$enobufs" -ge 1 ] || die "three floods of $((BULK4 + BULK6)) routes never overflowed a 16 KiB buffer"
check wait-consistent "$LF_PREFIX" "$LNS" 120 198.18.0.0/24 ||
	die "lanefwd's FIB differs from the kernel's table after the flood"
read -r rs en inst < <(nl_get resyncs enobufs routes_installed | paste -sd' ')
[ "$rs" -ge 2 ] || die "ENOBUFS $en times but $rs resyncs (the one at start included)"
[ "$inst" -ge $((BULK4 + BULK6 + 2)) ] || die "only $inst routes installed"

step "ip -batch: the $((BULK4 + BULK6)) routes deleted"
inl ip -batch "$D/del.batch" || die "ip -batch (del) failed"
check wait-consistent "$LF_PREFIX" "$LNS" 120 198.18.0.0/24 ||
	die "lanefwd's FIB differs from the kernel's table after the deletions"
check absent "$LF_PREFIX" "$LNS" "$(bulk_nets)" || die "deleted routes are still in the FIB"
lf_tel /lanefwd/netlink

step "a reload (SIGHUP): the kernel's routes are in the new generation"
kill -HUP "$LF_PID"
for i in $(seq 1 100); do
	r=$(lf_tel /lanefwd/fib/lookup,198.51.100.1)
	$PY -c '
import json, sys
d = json.loads(sys.argv[1])["/lanefwd/fib/lookup"]
sys.exit(0 if d.get("gen") == 2 and d.get("source") == "kernel" and d.get("port") == "p1" else 1)' \
		"$r" 2>/dev/null && break
	sleep 0.2
done
echo "after the reload: $r"
[[ "$r" == *'"gen": 2'* ]] && [[ "$r" == *'"source": "kernel"'* ]] ||
	die "after a reload, 198.51.100.0/24 is not in generation 2 as the kernel's: $r"
check wait-consistent "$LF_PREFIX" "$LNS" 60 198.18.0.0/24 ||
	die "lanefwd's FIB differs from the kernel's table after a reload"

step "the single route deleted"
inl ip route del 198.51.100.0/24 via 10.30.2.2 dev xp1
for i in $(seq 1 100); do
	check absent "$LF_PREFIX" "$LNS" 198.51.100.0/24 >/dev/null && break
	sleep 0.2
done
check absent "$LF_PREFIX" "$LNS" 198.51.100.0/24 || die "198.51.100.0/24 outlived its deletion"

lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with $LF_EXIT"
grep -q "netlink: following table 254" "$LF_TMP/lanefwd.log" || die "no netlink start line in the log"
echo "PASS: netlink"
