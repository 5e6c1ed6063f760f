# exception_xdp: [port] exception = kernel on AF_XDP ports (docs/exception-path.md).
#
# lanefwd runs in a namespace of its own (LNS) on two veth ends, xp0 and
# xp1, both exception = kernel; their peers xa and xb sit in namespaces A
# and B (hosts 10.20.1.2 / fd20:1::2 and 10.20.2.2 / fd20:2::2, default
# routes via the port addresses .1 / ::1). LNS has IPv4 and IPv6
# forwarding off, so its kernel can answer for the router but forward
# nothing. The test puts no address on xp0/xp1 itself: lanefwd does.
#
# Checks, each with the kernel's own counters as the oracle:
#  1. lanefwd's program is what is attached to xp0 and xp1 (ip -d link:
#     prog/xdp name lanefwd_xdp), and the port addresses are on them;
#  2. ARP: A resolves its gateway 10.20.1.1 with a fresh neighbour table;
#     the answer carries xp0's MAC, and LNS's kernel learnt A from the
#     request (it answered it);
#  3. ping A -> 10.20.1.1 and ping6 A -> fd20:1::1, all answered: LNS's
#     kernel counted every echo in (Icmp InEchos / Icmp6 InEchos) and
#     lanefwd received none of them (rx_packets unchanged);
#  4. TCP: a listener on 10.20.1.1 in LNS receives 1 MiB from A and sends
#     back its SHA-256, which A checks; lanefwd received none of it;
#  5. transit: ping A -> B and ping6 B -> A, all answered, counted by
#     lanefwd (rx and tx each grow by at least 2N), while LNS's kernel
#     forwarded nothing (Ip ForwDatagrams, Ip6 OutForwDatagrams stay 0);
#  6. after SIGINT: the program's counters lanefwd logs agree (ARP and
#     local packets passed, transit redirected, none dropped for want of a
#     socket), and the addresses lanefwd put on xp0/xp1 are gone.
# The namespaces (and with them the veths), the listener and lanefwd are
# removed on every exit.
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
T=xdp$$
LNS=$T-lf NSA=$T-a NSB=$T-b
MAC_P0=02:00:0b:0b:01:01 MAC_A=02:00:0b:0b:01:02
MAC_P1=02:00:0b:0b:02:01 MAC_B=02:00:0b:0b:02:02
PINGS=20
PINGS6=10
TCP_PORT=7000
SRV_PID=""

lf_need_tools ip ping ethtool dpdk-telemetry.py
lf_need_hugepages 128

# The TCP listener in LNS; lf_cleanup then deletes the namespaces.
xdp_cleanup() {
	if [ -n "$SRV_PID" ]; then
		kill "$SRV_PID" 2>/dev/null || true
		wait "$SRV_PID" 2>/dev/null || true
	fi
}
LF_CLEANUP_HOOK=xdp_cleanup

inl() { ip netns exec "$LNS" "$@"; }
ina() { ip netns exec "$NSA" "$@"; }
inb() { ip netns exec "$NSB" "$@"; }

# snmp NS FILE FIELD: one counter of /proc/net/snmp (two-line "Ip:" form) or
# /proc/net/snmp6 (name value) as NS's kernel sees it.
snmp() {
	ip netns exec "$1" awk -v f="$3" '
		FILENAME ~ /snmp6$/ { if ($1 == f) print $2; next }
		{ split(f, p, "."); if ($1 == p[1] ":") {
			if (!(p[1] in hdr)) { for (i = 2; i <= NF; i++) col[$i] = i; hdr[p[1]] = 1 }
			else print $(col[p[2]]) } }' "/proc/net/$2"
}
lf_rx() { lf_tel /lanefwd/stats | $PY -c 'import json,sys; s=json.load(sys.stdin)["/lanefwd/stats"]; print(s["rx_packets"], s["tx_packets"])'; }

# ---------------------------------------------------------------- topology
step "namespaces $LNS (lanefwd), $NSA, $NSB"
lf_netns_add "$LNS" "$NSA" "$NSB"
# side IF PEER_NS PEER_IF IF_MAC PEER_MAC SUBNET
side() {
	local ifc=$1 pns=$2 pif=$3 mac=$4 pmac=$5 x=$6
	# Queue counts of 1: the AF_XDP socket binds queue 0, and veth takes
	# native XDP only with as many RX queues as its peer has TX queues.
	inl ip link add "$ifc" address "$mac" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$pif" address "$pmac" numtxqueues 1 numrxqueues 1 netns "$pns"
	inl ip link set dev "$ifc" up
	ip netns exec "$pns" sh -e -c "
		sysctl -qw net.ipv6.conf.$pif.accept_dad=0 net.ipv6.conf.$pif.accept_ra=0 \
			net.ipv6.conf.$pif.router_solicitations=0
		# Full checksums on the wire: AF_XDP hands lanefwd the bytes as
		# they are (see scripts/topology.sh).
		ethtool -K $pif tx off >/dev/null
		ip addr add 10.20.$x.2/24 dev $pif
		ip -6 addr add fd20:$x::2/64 dev $pif nodad
		ip link set dev $pif up
		ip route add default via 10.20.$x.1 dev $pif
		ip -6 route add default via fd20:$x::1 dev $pif"
}
# The kernel in LNS must not route: whatever crosses it is lanefwd's.
inl sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0 \
	net.ipv6.conf.default.accept_dad=0
side xp0 "$NSA" xa "$MAC_P0" "$MAC_A" 1
side xp1 "$NSB" xb "$MAC_P1" "$MAC_B" 2

printf '10.20.1.0/24 1\n10.20.2.0/24 2\n' > "$D/routes4.txt"
printf 'fd20:1::/64 1\nfd20:2::/64 2\n' > "$D/routes6.txt"
cat > "$D/lanefwd.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = 32

$(lf_conf_routes)

[port p0]
vdev = net_af_xdp0,iface=xp0,start_queue=0,queue_count=1
address = 10.20.1.1/24, fd20:1::1/64
exception = kernel

[port p1]
vdev = net_af_xdp1,iface=xp1,start_queue=0,queue_count=1
address = 10.20.2.1/24, fd20:2::1/64
exception = kernel

$(lf_conf_two_nexthops "$MAC_A" "$MAC_B")
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# ----------------------------------------------------------------- lanefwd
step "lanefwd in $LNS on xp0 and xp1 (AF_XDP, exception = kernel)"
lf_lanefwd_in_netns "$LNS"
lf_start "$D/lanefwd.conf"

for ifc in xp0 xp1; do
	inl ip -d link show dev "$ifc" > "$D/link-$ifc.txt"
	grep -q "prog/xdp id [0-9]* name lanefwd_xdp" "$D/link-$ifc.txt" ||
		die "$ifc: lanefwd's XDP program is not attached: $(cat "$D/link-$ifc.txt")"
done
inl ip -br addr show dev xp0 | grep -q "10.20.1.1/24" || die "xp0 lacks 10.20.1.1/24"
inl ip -br addr show dev xp0 | grep -q "fd20:1::1/64" || die "xp0 lacks fd20:1::1/64"
inl ip -br addr show dev xp1 | grep -q "10.20.2.1/24" || die "xp1 lacks 10.20.2.1/24"
echo "xp0 and xp1 run lanefwd_xdp and carry the port addresses: $(inl ip -br addr show dev xp0)"

# ---------------------------------------------------------------------- ARP
step "ARP: $NSA resolves 10.20.1.1"
ina ip neigh flush dev xa
inl ip neigh flush dev xp0
ina ping -c 1 -W 2 10.20.1.1 > /dev/null || die "no answer from 10.20.1.1"
got=$(ina ip neigh show 10.20.1.1 dev xa)
echo "$NSA: $got"
[[ "$got" == *"lladdr $MAC_P0"* ]] || die "$NSA resolved 10.20.1.1 to '$got', not xp0's $MAC_P0"
learnt=$(inl ip neigh show 10.20.1.2 dev xp0)
echo "$LNS: $learnt"
[[ "$learnt" == *"lladdr $MAC_A"* ]] ||
	die "the kernel in $LNS did not learn 10.20.1.2 from the ARP request it answered: '$learnt'"

# --------------------------------------------------- pings to the port's address
step "ping: $PINGS x $NSA -> 10.20.1.1, $PINGS6 x $NSA -> fd20:1::1 (the kernel answers)"
lf_wait_settled
read -r rx0 tx0 < <(lf_rx)
e4=$(snmp "$LNS" snmp Icmp.InEchos)
e6=$(snmp "$LNS" snmp6 Icmp6InEchos)
ina ping -c "$PINGS" -i 0.05 -W 2 10.20.1.1 > "$D/ping-local.txt" ||
	die "ping 10.20.1.1: $(tail -n 3 "$D/ping-local.txt")"
grep -q "$PINGS packets transmitted, $PINGS received" "$D/ping-local.txt" ||
	die "ping 10.20.1.1: $(grep transmitted "$D/ping-local.txt")"
ina ping -6 -c "$PINGS6" -i 0.05 -W 2 fd20:1::1 > "$D/ping6-local.txt" ||
	die "ping6 fd20:1::1: $(tail -n 3 "$D/ping6-local.txt")"
grep -q "$PINGS6 packets transmitted, $PINGS6 received" "$D/ping6-local.txt" ||
	die "ping6 fd20:1::1: $(grep transmitted "$D/ping6-local.txt")"
lf_wait_settled
read -r rx1 tx1 < <(lf_rx)
d4=$(($(snmp "$LNS" snmp Icmp.InEchos) - e4))
d6=$(($(snmp "$LNS" snmp6 Icmp6InEchos) - e6))
echo "kernel in $LNS: Icmp InEchos +$d4, Icmp6 InEchos +$d6; lanefwd rx +$((rx1 - rx0))"
[ "$d4" -eq "$PINGS" ] || die "the kernel counted $d4 IPv4 echo requests, $PINGS were answered"
[ "$d6" -eq "$PINGS6" ] || die "the kernel counted $d6 IPv6 echo requests, $PINGS6 were answered"
[ "$rx1" -eq "$rx0" ] ||
	die "lanefwd received $((rx1 - rx0)) packets while only its own address was pinged: the program did not pass them all"

# ------------------------------------------------------- TCP to the port's address
step "TCP: 1 MiB $NSA -> 10.20.1.1:$TCP_PORT, a listener in $LNS"
cat > "$D/tcp.py" <<'PYEOF'
"""tcp.py serve ADDR PORT | send ADDR PORT BYTES: the server reads until EOF
and answers the SHA-256 of what it read; the client sends BYTES random
bytes, half-closes and checks the answer."""
import hashlib
import os
import socket
import sys

mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "serve":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(1)
    s.settimeout(60)
    c, _ = s.accept()
    c.settimeout(60)
    h = hashlib.sha256()
    while True:
        b = c.recv(65536)
        if not b:
            break
        h.update(b)
    c.sendall(h.hexdigest().encode())
    c.close()
else:
    data = os.urandom(int(sys.argv[4]))
    c = socket.create_connection((addr, port), timeout=30)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        b = c.recv(256)
        if not b:
            break
        got += b
    want = hashlib.sha256(data).hexdigest()
    if got.decode() != want:
        sys.exit(f"server read {got.decode()!r}, sent {want}")
    print(f"{len(data)} bytes, SHA-256 {want[:16]}... confirmed by the server")
PYEOF
lf_wait_settled
read -r rx0 tx0 < <(lf_rx)
inl $PY "$D/tcp.py" serve 10.20.1.1 "$TCP_PORT" > "$D/tcp-server.log" 2>&1 &
SRV_PID=$!
lf_wait_listen "$LNS" "$TCP_PORT"
ina timeout 60 $PY "$D/tcp.py" send 10.20.1.1 "$TCP_PORT" $((1 << 20)) ||
	die "TCP to 10.20.1.1: $(cat "$D/tcp-server.log")"
wait "$SRV_PID" || die "TCP listener failed: $(cat "$D/tcp-server.log")"
SRV_PID=""
lf_wait_settled
read -r rx1 tx1 < <(lf_rx)
[ "$rx1" -eq "$rx0" ] ||
	die "lanefwd received $((rx1 - rx0)) packets of a TCP connection to its own address"

# ------------------------------------------------------------------ transit
step "transit: $PINGS x $NSA -> 10.20.2.2, $PINGS6 x $NSB -> fd20:1::2 (lanefwd forwards)"
f4=$(snmp "$LNS" snmp Ip.ForwDatagrams)
f6=$(snmp "$LNS" snmp6 Ip6OutForwDatagrams)
lf_wait_settled
read -r rx0 tx0 < <(lf_rx)
ina ping -c "$PINGS" -i 0.05 -W 2 10.20.2.2 > "$D/ping-transit.txt" ||
	die "ping 10.20.2.2 through lanefwd: $(tail -n 3 "$D/ping-transit.txt")"
grep -q "$PINGS packets transmitted, $PINGS received" "$D/ping-transit.txt" ||
	die "ping 10.20.2.2: $(grep transmitted "$D/ping-transit.txt")"
inb ping -6 -c "$PINGS6" -i 0.05 -W 2 fd20:1::2 > "$D/ping6-transit.txt" ||
	die "ping6 fd20:1::2 through lanefwd: $(tail -n 3 "$D/ping6-transit.txt")"
grep -q "$PINGS6 packets transmitted, $PINGS6 received" "$D/ping6-transit.txt" ||
	die "ping6 fd20:1::2: $(grep transmitted "$D/ping6-transit.txt")"
lf_wait_settled
read -r rx1 tx1 < <(lf_rx)
n=$((2 * (PINGS + PINGS6)))
kf4=$(($(snmp "$LNS" snmp Ip.ForwDatagrams) - f4))
kf6=$(($(snmp "$LNS" snmp6 Ip6OutForwDatagrams) - f6))
echo "lanefwd rx +$((rx1 - rx0)) tx +$((tx1 - tx0)) (>= $n each); kernel in $LNS forwarded $kf4 IPv4, $kf6 IPv6"
[ $((rx1 - rx0)) -ge "$n" ] && [ $((tx1 - tx0)) -ge "$n" ] ||
	die "lanefwd rx +$((rx1 - rx0)) tx +$((tx1 - tx0)): fewer than the $n transit packets"
[ "$kf4" -eq 0 ] && [ "$kf6" -eq 0 ] || die "the kernel in $LNS forwarded transit packets"
[ "$(snmp "$LNS" snmp Ip.ForwDatagrams)" -eq 0 ] || die "the kernel in $LNS forwarded IPv4 at some point"
# The program's counters while it runs (/lanefwd/xdp); the final log line
# below may only be as high or higher.
lf_tel /lanefwd/xdp > "$D/tel-xdp.json"
read -r tloc0 tred0 tred1 < <($PY -c '
import json, sys
x = json.load(open(sys.argv[1]))["/lanefwd/xdp"]
print(x["port_p0"]["pass_local"], x["port_p0"]["redirect"], x["port_p1"]["redirect"])' "$D/tel-xdp.json") ||
	die "/lanefwd/xdp: $(cat "$D/tel-xdp.json")"
[ "$tloc0" -ge $((PINGS + PINGS6 + 700)) ] && [ "$tred0" -ge $((PINGS + PINGS6)) ] &&
	[ "$tred1" -ge $((PINGS + PINGS6)) ] ||
	die "/lanefwd/xdp: p0 pass_local $tloc0 redirect $tred0, p1 redirect $tred1: below the pings and the TCP"

# ------------------------------------------------------------- stop, counters
step "stop lanefwd: the program's counters, the addresses taken off"
lf_stop_rc
[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGINT"
for p in p0 p1; do
	line=$(grep "\[port $p\] on xp[01]: XDP pass_arp" "$LF_TMP/lanefwd.log" || true)
	[ -n "$line" ] || die "lanefwd logged no XDP counters for $p"
	echo "$line"
	read -r arp nd loc redir nox < <(echo "$line" |
		sed -n 's/.*pass_arp \([0-9]*\) pass_nd \([0-9]*\) pass_local \([0-9]*\) redirect \([0-9]*\) drop_no_xsk \([0-9]*\).*/\1 \2 \3 \4 \5/p')
	[ -n "$nox" ] || die "cannot read the XDP counters of $p: $line"
	[ "$nox" -eq 0 ] || die "$p: $nox frames dropped for want of a socket on their queue"
	[ "$arp" -ge 1 ] || die "$p: no ARP passed to the kernel"
	[ "$nd" -ge 1 ] || die "$p: no ND passed to the kernel"
	# p0: the pings to 10.20.1.1 and fd20:1::1 and the TCP segments;
	# both: the transit pings in both directions.
	if [ "$p" = p0 ]; then
		[ "$loc" -ge $((PINGS + PINGS6 + 700)) ] ||
			die "p0 passed $loc local packets, below the pings and 1 MiB of TCP"
	fi
	[ "$redir" -ge $((PINGS + PINGS6)) ] || die "$p redirected $redir frames to lanefwd"
	if [ "$p" = p0 ]; then
		[ "$loc" -ge "$tloc0" ] && [ "$redir" -ge "$tred0" ] ||
			die "p0's final counters went below what /lanefwd/xdp said"
	fi
done
inl ip -br addr show dev xp0 > "$D/addr-after.txt"
if grep -q -e "10.20.1.1/" -e "fd20:1::1/" "$D/addr-after.txt"; then
	die "lanefwd left its addresses on xp0: $(cat "$D/addr-after.txt")"
fi
inl ip -d link show dev xp0 | grep -q "prog/xdp" && die "the XDP program is still attached to xp0"
echo "PASS: exception_xdp"
