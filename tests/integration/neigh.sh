# neigh: ARP and ND resolution through lanefwd, with no static MAC anywhere.
#
# scripts/topology.sh builds two namespaces behind two veth pairs; the
# permanent neighbour entries it gives the namespaces for their gateway
# (lanefwd) are deleted, and lanefwd's [nexthop] sections name the
# namespaces' addresses (via) instead of their MACs. So nothing reaches the
# other namespace unless lanefwd answers ARP / NS for its own addresses and
# resolves its next hops by ARP / NS itself. The test checks, with the
# kernels as the oracle:
#   1. ns1 pings ns2 through lanefwd, IPv4 and IPv6, every reply needed;
#   2. both namespaces' kernels hold lanefwd's port MAC for their gateway,
#      learnt (REACHABLE/STALE/DELAY, not PERMANENT);
#   3. /lanefwd/neigh lists the four next hops' neighbours with the
#      namespaces' MACs, and counted the requests, replies, NS and NA it
#      answered and sent;
#   4. a spoofer in ns2 sends gratuitous ARP claiming 10.10.2.2 for other
#      MACs (scapy): refused and counted (spoof_refused), lanefwd keeps
#      ns2's MAC and pings keep working;
#   5. an ARP flood (1000 requests for lanefwd's address from 200 senders):
#      the table stays within max_entries (16), unused entries aged out,
#      the next hops' neighbours kept, pings keep working;
#   6. ns2 changes its MAC (ip link set address): pings from ns1 get through
#      again within 30 s (lanefwd probes, fails, resolves again), and
#      /lanefwd/neigh then holds the new MAC for both families;
#   7. lanefwd's counters: nothing malformed, nothing it could not send.
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
TOPO=$LF_SRCDIR/scripts/topology.sh
TP=nb$$
NS1=$TP-ns1 NS2=$TP-ns2
P0=$TP-p0 P1=$TP-p1 N1=$TP-n1 N2=$TP-n2
MAC_P0=02:00:0a:0a:01:01 MAC_N1=02:00:0a:0a:01:02
MAC_P1=02:00:0a:0a:02:01 MAC_N2=02:00:0a:0a:02:02
MAC_N2_NEW=02:00:0a:0a:02:99
TOPO_UP=0

for t in ip ping ethtool dpdk-telemetry.py; do
	command -v "$t" >/dev/null || lf_skip "$t is not installed (scripts/deps.sh)"
done
free_mb=$(lf_hugepages_free_mb)
[ "$free_mb" -ge 128 ] ||
	lf_skip "needs 128 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"

neigh_cleanup() {
	if [ "$TOPO_UP" -eq 1 ]; then
		"$TOPO" down "$TP" >/dev/null || true
	fi
}
LF_CLEANUP_HOOK=neigh_cleanup

step() { echo "---- $*"; }

step "topology $TP, without static neighbours"
TOPO_UP=1
"$TOPO" up "$TP" >/dev/null || die "scripts/topology.sh up $TP failed"
for x in 1 2; do
	ns=$TP-ns$x nif=$TP-n$x
	ip netns exec "$ns" ip neigh del "10.10.$x.1" dev "$nif"
	ip netns exec "$ns" ip -6 neigh del "fd00:$x::1" dev "$nif"
	ip netns exec "$ns" ip neigh show nud permanent | grep -q . &&
		die "namespace $ns still has a permanent neighbour"
	ip netns exec "$ns" ip -6 neigh show nud permanent | grep -q . &&
		die "namespace $ns still has a permanent IPv6 neighbour"
done

printf '10.10.1.0/24 1\n10.10.2.0/24 2\n' > "$D/routes4.txt"
printf 'fd00:1::/64 3\nfd00:2::/64 4\n' > "$D/routes6.txt"
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

[neighbour]
max_entries = 16
reachable_ms = 2000
retrans_ms = 200
retries = 3

[port p0]
vdev = net_af_xdp0,iface=$P0,start_queue=0,queue_count=1
address = 10.10.1.1/24, fd00:1::1/64

[port p1]
vdev = net_af_xdp1,iface=$P1,start_queue=0,queue_count=1
address = 10.10.2.1/24, fd00:2::1/64

[worker 1]
rx = p0:0 p1:0

[nexthop 1]
port = p0
via = 10.10.1.2

[nexthop 2]
port = p1
via = 10.10.2.2

[nexthop 3]
port = p0
via = fd00:1::2

[nexthop 4]
port = p1
via = fd00:2::2
EOF
"$LANEFWD" -c "$D/lanefwd.conf" --check-config > "$D/check-config.txt" ||
	die "--check-config rejected the test configuration: $(tail -n 3 "$D/check-config.txt")"

# neigh_check FILE IP MAC: /lanefwd/neigh in FILE has IP with MAC in a usable state.
neigh_check() {
	$PY - "$@" <<'PYEOF' || die "/lanefwd/neigh: $2 is not resolved to $3: $(cat "$1")"
import json, sys
d = json.load(open(sys.argv[1]))["/lanefwd/neigh"]
want_ip, want_mac = sys.argv[2], sys.argv[3].lower()
for e in d["entries"]:
    f = dict(kv.split("=", 1) for kv in e.split())
    if f["ip"] == want_ip:
        ok = f["mac"].lower() == want_mac and f["state"] in ("reachable", "stale", "probe")
        sys.exit(0 if ok else 1)
sys.exit(1)
PYEOF
}

# counter FILE NAME: one /lanefwd/neigh counter.
counter() {
	$PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["/lanefwd/neigh"][sys.argv[2]])' "$1" "$2"
}

# gw_check NS IF IP: the namespace's kernel learnt lanefwd's MAC for its gateway IP.
gw_check() {
	local ns=$1 nif=$2 ip=$3 mac=$4 line
	line=$(ip netns exec "$ns" ip neigh show "$ip" dev "$nif")
	echo "$ns: $line"
	case "$line" in
	*"lladdr $mac "*PERMANENT*) die "$ns: $ip is a permanent entry: $line" ;;
	*"lladdr $mac "*) ;;
	*) die "$ns: the kernel has no entry with lanefwd's MAC $mac for $ip: '$line'" ;;
	esac
}

# ping_until NS DST SECONDS: one ping a second until one is answered.
ping_until() {
	local ns=$1 dst=$2 t=$3 i
	for i in $(seq 1 "$t"); do
		if ip netns exec "$ns" ping -n -c 1 -W 1 "$dst" >/dev/null 2>&1; then
			echo "$dst answered after $i attempt(s)"
			return 0
		fi
	done
	return 1
}

# ping_all NS DST COUNT FILE: COUNT pings, every one answered (ping itself
# exits 0 with a single reply).
ping_all() {
	ip netns exec "$1" ping -n -c "$3" -i 0.2 -W 2 "$2" > "$4" || true
	grep -q "^$3 packets transmitted, $3 received" "$4" ||
		die "pings $1 -> $2 lost: $(grep transmitted "$4")"
}

step "start lanefwd"
lf_start "$D/lanefwd.conf"

step "1. ping through lanefwd, IPv4 and IPv6"
# lanefwd resolves its next hops at start, and a kernel learns the sender of
# a request addressed to it: forget what the namespaces learnt that way, so
# that they must ask lanefwd themselves (arp_requests_in, ns_in below).
sleep 1
ip netns exec "$NS1" ip neigh flush dev "$N1"
ip netns exec "$NS2" ip neigh flush dev "$N2"
# The first pings wait for three resolutions (ns1 -> lanefwd, lanefwd -> ns2,
# ns2 -> lanefwd); then every one of 10 must be answered.
ping_until "$NS1" 10.10.2.2 20 || die "no IPv4 ping ns1 -> ns2 through lanefwd within 20 s"
ping_all "$NS1" 10.10.2.2 10 "$D/ping4.txt"
# Again for IPv6: lanefwd's own solicitations meanwhile taught the kernels.
ip netns exec "$NS1" ip -6 neigh flush dev "$N1"
ip netns exec "$NS2" ip -6 neigh flush dev "$N2"
ping_until "$NS1" fd00:2::2 20 || die "no IPv6 ping ns1 -> ns2 through lanefwd within 20 s"
ping_all "$NS1" fd00:2::2 10 "$D/ping6.txt"

step "2. the namespaces' kernels learnt lanefwd's MACs"
gw_check "$NS1" "$N1" 10.10.1.1 "$MAC_P0"
gw_check "$NS2" "$N2" 10.10.2.1 "$MAC_P1"
gw_check "$NS1" "$N1" fd00:1::1 "$MAC_P0"
gw_check "$NS2" "$N2" fd00:2::1 "$MAC_P1"

step "3. lanefwd's neighbours"
lf_tel_save /lanefwd/neigh "$D/neigh1.json"
neigh_check "$D/neigh1.json" 10.10.1.2 "$MAC_N1"
neigh_check "$D/neigh1.json" 10.10.2.2 "$MAC_N2"
neigh_check "$D/neigh1.json" fd00:1::2 "$MAC_N1"
neigh_check "$D/neigh1.json" fd00:2::2 "$MAC_N2"
for c in arp_requests_in arp_replies_out arp_requests_out arp_replies_in ns_in na_out ns_out \
	na_in; do
	[ "$(counter "$D/neigh1.json" $c)" -ge 1 ] || die "/lanefwd/neigh $c is 0: $(cat "$D/neigh1.json")"
done
[ "$(counter "$D/neigh1.json" resolved)" -ge 4 ] ||
	die "/lanefwd/neigh resolved < 4: $(cat "$D/neigh1.json")"
[ "$(counter "$D/neigh1.json" malformed)" -eq 0 ] ||
	die "/lanefwd/neigh counted malformed frames: $(cat "$D/neigh1.json")"

step "4. a spoofer in ns2 claims 10.10.2.2 by gratuitous ARP"
# Two MACs, 100 ms apart, five times: a claim on the REACHABLE entry is
# refused and the real MAC probed; a claim while the probe runs is refused
# too. (Should the first land in the few ms the entry is STALE, it is taken,
# the entry is probed at once at that MAC, and the second MAC, during that
# probe, is refused: at least one refusal either way.) The real neighbour
# answers the probes, so lanefwd ends with its MAC and pings keep working.
ip netns exec "$NS2" $PY - "$N2" <<'PYEOF' || die "scapy could not send the spoofed ARP"
import sys, time
from scapy.all import ARP, Ether, sendp
for i in range(10):
    mac = "02:00:0a:0a:02:%02x" % (0x66 + i % 2)
    sendp(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") /
          ARP(op=1, hwsrc=mac, psrc="10.10.2.2", hwdst="00:00:00:00:00:00", pdst="10.10.2.2"),
          iface=sys.argv[1], verbose=False)
    time.sleep(0.1)
PYEOF
sleep 1
ping_all "$NS1" 10.10.2.2 5 "$D/ping4s.txt"
lf_tel_save /lanefwd/neigh "$D/neigh_spoof.json"
neigh_check "$D/neigh_spoof.json" 10.10.2.2 "$MAC_N2"
[ "$(counter "$D/neigh_spoof.json" spoof_refused)" -ge 1 ] ||
	die "/lanefwd/neigh spoof_refused is 0 after 10 spoofed claims: $(cat "$D/neigh_spoof.json")"
echo "spoof_refused: $(counter "$D/neigh_spoof.json" spoof_refused)"

step "5. an ARP flood from 200 senders in ns2's subnet"
# 1000 requests for lanefwd's address from 200 addresses: each is answered
# and learnt, so the table (max_entries = 16) fills; unused entries are aged
# out, oldest first, and the four next hops' neighbours stay resolved.
ip netns exec "$NS2" $PY - "$N2" <<'PYEOF' || die "scapy could not send the ARP flood"
import sys
from scapy.all import ARP, Ether, sendp
frames = []
for i in range(1000):
    h = 20 + i % 200
    mac = "02:00:0a:0b:%02x:%02x" % (h // 256, h % 256)
    frames.append(Ether(src=mac, dst="ff:ff:ff:ff:ff:ff") /
                  ARP(op=1, hwsrc=mac, psrc="10.10.2.%d" % h, pdst="10.10.2.1"))
sendp(frames, iface=sys.argv[1], verbose=False)
PYEOF
sleep 1
kill -0 "$LF_PID" 2>/dev/null || die "lanefwd exited during the ARP flood"
ping_all "$NS1" 10.10.2.2 5 "$D/ping4f.txt"
ping_all "$NS1" fd00:2::2 5 "$D/ping6f.txt"
lf_tel_save /lanefwd/neigh "$D/neigh_flood.json"
$PY - "$D/neigh_flood.json" <<'PYEOF' || die "/lanefwd/neigh after the flood: $(cat "$D/neigh_flood.json")"
import json, sys
d = json.load(open(sys.argv[1]))["/lanefwd/neigh"]
assert d["n_entries"] <= 16, "more entries than max_entries"
assert len(d["entries"]) == d["n_entries"]
flood = [e for e in d["entries"] if "ip=10.10.2." in e and "ip=10.10.2.2 " not in e]
assert flood, "no flooding sender learnt at all"
print("entries after the flood:", d["n_entries"], "of them flooders:", len(flood),
      "arp_requests_in:", d["arp_requests_in"], "arp_replies_out:", d["arp_replies_out"])
PYEOF
neigh_check "$D/neigh_flood.json" 10.10.2.2 "$MAC_N2"
neigh_check "$D/neigh_flood.json" 10.10.1.2 "$MAC_N1"
neigh_check "$D/neigh_flood.json" fd00:2::2 "$MAC_N2"
neigh_check "$D/neigh_flood.json" fd00:1::2 "$MAC_N1"

step "6. ns2 changes its MAC to $MAC_N2_NEW"
ip netns exec "$NS2" ip link set dev "$N2" address "$MAC_N2_NEW"
# Without a gratuitous ARP from ns2 (Linux sends none by default), lanefwd
# finds out when its entry goes stale (reachable_ms 2 s), its unicast probes
# to the old MAC fail (3 x 200 ms), and the next packet resolves it again.
ping_until "$NS1" 10.10.2.2 30 || die "IPv4 pings did not get through again within 30 s"
ping_until "$NS1" fd00:2::2 30 || die "IPv6 pings did not get through again within 30 s"
ping_all "$NS1" 10.10.2.2 5 "$D/ping4b.txt"
ping_all "$NS1" fd00:2::2 5 "$D/ping6b.txt"
lf_tel_save /lanefwd/neigh "$D/neigh2.json"
neigh_check "$D/neigh2.json" 10.10.2.2 "$MAC_N2_NEW"
neigh_check "$D/neigh2.json" fd00:2::2 "$MAC_N2_NEW"
neigh_check "$D/neigh2.json" 10.10.1.2 "$MAC_N1"
[ "$(counter "$D/neigh2.json" mac_changed)" -ge 2 ] ||
	die "/lanefwd/neigh mac_changed < 2: $(cat "$D/neigh2.json")"

step "7. counters"
[ "$(counter "$D/neigh2.json" malformed)" -eq 0 ] ||
	die "/lanefwd/neigh counted malformed frames: $(cat "$D/neigh2.json")"
[ "$(counter "$D/neigh2.json" tx_failed)" -eq 0 ] ||
	die "/lanefwd/neigh could not send some frames: $(cat "$D/neigh2.json")"
cat "$D/neigh2.json"
lf_stop
echo "neigh: ok"
