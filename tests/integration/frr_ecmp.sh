# frr_ecmp: scale-out by BGP ECMP (docs/control-plane.md, "Scale-out with
# BGP ECMP"). Two lanefwd instances, each in its own namespace with its own
# FRR, announce the same prefix (the service subnet 10.50.0.0/24 behind
# each) to an upstream router; the router (FRR, maximum-paths 2) installs
# one kernel multipath route through both and hashes flows on L4
# (fib_multipath_hash_policy = 1):
#
#   CNS client 10.40.0.2 -- RNS router (FRR AS 65000) --+-- 10.40.1.2 L1 [lanefwd + FRR AS 65001] 10.50.0.1 -- S1 10.50.0.2
#                           10.40.0.1, .1.1, .2.1        +-- 10.40.2.2 L2 [lanefwd + FRR AS 65001] 10.50.0.1 -- S2 10.50.0.2
#
# The lanefwd ports are AF_XDP with exception = kernel (BGP to the ports'
# addresses goes to each instance's kernel, where its bgpd runs); neither
# instance namespace forwards in the kernel. Both workers are pinned to
# lcore 1 (the instances share the core: on this 2-core machine there is no
# other; EAL allows two processes on one lcore, each is busy-polling, so
# each gets part of the core; docs say what production does instead).
# Every bgpd retries a refused connection after 2 s (timers connect), not
# the default 120 s: the router starts before the instances' bgpd listen.
# Checks:
#  1. the router's sessions with both instances are Established and it holds
#     10.50.0.0/24 as a kernel multipath route via 10.40.1.2 and 10.40.2.2;
#  2. FRR_ECMP_FLOWS (2000) UDP flows (one datagram each, distinct source
#     ports) from the client to 10.50.0.77: each instance's rx and tx grow by
#     at least a fifth of them, together by all of them;
#  3. one instance's FRR stops: the router withdraws its path and every
#     flow then goes through the other instance.
# Needs root, iproute2, frr, ethtool, dpdk-telemetry.py and 512 MiB of free
# hugepages; fails (does not skip) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: frr_ecmp needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/frr_lib.sh"
trap 'exit 143' TERM
trap 'exit 130' INT

D=$LF_TMP
T=fe$$
CNS=$T-c RNS=$T-r
FLOWS=${FRR_ECMP_FLOWS:-2000}
SECS=${FRR_ECMP_SECS:-120}
NS_UP=0
LFE_PID=("" "" "")

why=$(frr_have_tools) || die "$why"
for t in ip ethtool dpdk-telemetry.py; do
	command -v "$t" >/dev/null || die "$t is not installed (scripts/deps.sh)"
done
free_mb=$(lf_hugepages_free_mb)
[ "$free_mb" -ge 512 ] ||
	die "needs 512 MiB of free hugepages on a mounted hugetlbfs, has $free_mb MiB (run scripts/hugepages.sh)"

lfe_stop() {
	local k=$1 i
	[ -n "${LFE_PID[$k]}" ] || return 0
	kill -INT "${LFE_PID[$k]}" 2>/dev/null || true
	for i in $(seq 1 300); do
		kill -0 "${LFE_PID[$k]}" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "${LFE_PID[$k]}" 2>/dev/null || true
	wait "${LFE_PID[$k]}" 2>/dev/null || true
	LFE_PID[$k]=""
	rm -rf "/var/run/dpdk/$LF_PREFIX-$k"
}

frr_ecmp_cleanup() {
	frr_stop_all
	lfe_stop 1 || true
	lfe_stop 2 || true
	if [ "$NS_UP" -eq 1 ]; then
		ip netns del "$CNS" 2>/dev/null || true
		ip netns del "$RNS" 2>/dev/null || true
		for k in 1 2; do
			ip netns del "$T-l$k" 2>/dev/null || true
			ip netns del "$T-s$k" 2>/dev/null || true
		done
	fi
	rm -rf "$FRR_DIR"
}
LF_CLEANUP_HOOK=frr_ecmp_cleanup

step() { echo "---- $*"; }
# lfe_stat K KEY...: instance K's /lanefwd/stats values.
lfe_stat() {
	local k=$1
	shift
	FRR_LF_PREFIX=$LF_PREFIX-$k $PY "$LF_SRCDIR/tests/integration/frr_bgp.py" stats |
		$PY -c 'import json, sys; s = json.load(sys.stdin); print(" ".join(str(s[k]) for k in sys.argv[1:]))' "$@"
}

# veth NS_A IF_A MAC_A NS_B IF_B: a veth pair, one queue each way (AF_XDP
# binds queue 0), TX checksum offload off on both (AF_XDP takes the bytes
# as they are: exception_xdp.sh).
veth() {
	ip -n "$1" link add "$2" address "$3" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$5" numtxqueues 1 numrxqueues 1 netns "$4"
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null
	ip netns exec "$4" ethtool -K "$5" tx off >/dev/null
	ip -n "$1" link set dev "$2" up
	ip -n "$4" link set dev "$5" up
}

# ---------------------------------------------------------------- topology
step "namespaces: client, router, two lanefwd instances, two servers"
NS_UP=1
for ns in "$CNS" "$RNS" "$T-l1" "$T-l2" "$T-s1" "$T-s2"; do
	ip netns add "$ns"
	ip -n "$ns" link set dev lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip netns exec "$RNS" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.fib_multipath_hash_policy=1
veth "$CNS" c0 02:00:0d:28:00:02 "$RNS" r0
ip -n "$CNS" addr add 10.40.0.2/24 dev c0
ip -n "$CNS" route add default via 10.40.0.1
ip -n "$RNS" addr add 10.40.0.1/24 dev r0
for k in 1 2; do
	L=$T-l$k S=$T-s$k
	ip netns exec "$L" sysctl -qw net.ipv4.ip_forward=0
	veth "$L" xu 02:00:0d:28:0$k:02 "$RNS" "r$k"
	ip -n "$RNS" addr add "10.40.$k.1/24" dev "r$k"
	veth "$L" xd 02:00:0d:32:0$k:01 "$S" s0
	ip -n "$S" addr add 10.50.0.2/24 dev s0
	ip -n "$S" route add default via 10.50.0.1
	printf '10.50.0.0/24 1\n' > "$D/routes4-$k.txt"
	cat > "$D/lanefwd-$k.conf" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX-$k
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = 32

[routes]
ipv4 = routes4-$k.txt
ipv4_max_routes = 1024
ipv4_tbl8 = 64

[port up]
vdev = net_af_xdp0,iface=xu,start_queue=0,queue_count=1
address = 10.40.$k.2/24
exception = kernel

[port down]
vdev = net_af_xdp1,iface=xd,start_queue=0,queue_count=1
address = 10.50.0.1/24
exception = kernel

# Both instances' workers on lcore 1: see the header.
[worker 1]
rx = up:0 down:0

[nexthop 1]
port = down
via = 10.50.0.2

# exception = kernel: ARP replies go to the kernel, so lanefwd resolves its
# via next hops from the kernel's neighbour table, over netlink (without
# this section the packets stay held: docs/exception-path.md).
[netlink]
max_routes = 1024
EOF
	"$LANEFWD" -c "$D/lanefwd-$k.conf" --check-config > "$D/check-config-$k.txt" 2>&1 ||
		die "--check-config rejected instance $k's configuration: $(tail -n 3 "$D/check-config-$k.txt")"
done

# ---------------------------------------------------------------- lanefwd x2
for k in 1 2; do
	step "lanefwd instance $k in $T-l$k (worker on lcore 1)"
	ip netns exec "$T-l$k" "$LANEFWD" -c "$D/lanefwd-$k.conf" > "$D/lanefwd-$k.log" 2>&1 &
	LFE_PID[$k]=$!
	for i in $(seq 1 600); do
		grep -q "^lanefwd: running" "$D/lanefwd-$k.log" && break
		kill -0 "${LFE_PID[$k]}" 2>/dev/null ||
			die "instance $k exited during start-up: $(tail -n 5 "$D/lanefwd-$k.log")"
		sleep 0.1
	done
	grep -q "^lanefwd: running" "$D/lanefwd-$k.log" ||
		die "instance $k did not start within 60 s: $(tail -n 5 "$D/lanefwd-$k.log")"
	ip -n "$T-l$k" -br addr show dev xu | grep -q "10.40.$k.2/24" ||
		die "instance $k did not put 10.40.$k.2/24 on xu (exception = kernel)"
done

# ---------------------------------------------------------------------- BGP
step "FRR: the router (maximum-paths 2) and one per instance announcing 10.50.0.0/24"
frr_start router "$RNS" "router bgp 65000
 bgp router-id 10.40.0.1
 no bgp ebgp-requires-policy
 neighbor 10.40.1.2 remote-as 65001
 neighbor 10.40.2.2 remote-as 65001
 neighbor 10.40.1.2 timers connect 2
 neighbor 10.40.2.2 timers connect 2
 address-family ipv4 unicast
  maximum-paths 2
 exit-address-family"
for k in 1 2; do
	frr_start "lf$k" "$T-l$k" "router bgp 65001
 bgp router-id 10.40.$k.2
 no bgp ebgp-requires-policy
 neighbor 10.40.$k.1 remote-as 65000
 neighbor 10.40.$k.1 timers connect 2
 address-family ipv4 unicast
  network 10.50.0.0/24
 exit-address-family"
done
frr_wait_established router 10.40.1.2 "$SECS"
frr_wait_established router 10.40.2.2 "$SECS"
for i in $(seq 1 $((SECS * 5))); do
	r=$(ip -n "$RNS" route show 10.50.0.0/24)
	[[ "$r" == *"via 10.40.1.2"*"via 10.40.2.2"* || "$r" == *"via 10.40.2.2"*"via 10.40.1.2"* ]] &&
		break
	sleep 0.2
done
echo "router: $r"
[[ "$r" == *nexthop*"via 10.40.1.2"* && "$r" == *nexthop*"via 10.40.2.2"* ]] ||
	die "the router has no multipath route through both instances: $r"

# ------------------------------------------------------------------ traffic
# send FLOWS: FLOWS UDP flows from the client, each from its own socket
# (its own source port), one datagram each.
send() {
	ip netns exec "$CNS" $PY -c '
import socket, sys, time
n = int(sys.argv[1])
for i in range(n):
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.sendto(b"ecmp %d" % i, ("10.50.0.77", 5000 + i % 1000))
	s.close()
	if i % 50 == 49:
		time.sleep(0.005)' "$1"
}
# counts: "rx1 tx1 rx2 tx2"
counts() { echo "$(lfe_stat 1 rx_packets tx_packets) $(lfe_stat 2 rx_packets tx_packets)"; }
# settle WANT a b c d: wait until the instances' tx grew by WANT in all.
settle() {
	local want=$1 i c
	for i in $(seq 1 150); do
		read -r -a c < <(counts)
		[ $((c[1] - $3 + c[3] - $5)) -ge "$want" ] && break
		sleep 0.2
	done
	sleep 0.5
	counts
}

step "traffic: $FLOWS flows client -> 10.50.0.77 through the router"
# ARP first (router -> instances, instances -> servers), then count.
send 20
sleep 2
read -r a1 b1 a2 b2 < <(counts)
send "$FLOWS"
read -r c1 d1 c2 d2 < <(settle "$FLOWS" "$a1" "$b1" "$a2" "$b2")
r1=$((c1 - a1)) t1=$((d1 - b1)) r2=$((c2 - a2)) t2=$((d2 - b2))
echo "instance 1: rx +$r1 tx +$t1; instance 2: rx +$r2 tx +$t2 (of $FLOWS flows)"
[ $((t1 + t2)) -ge "$FLOWS" ] || die "the instances forwarded $((t1 + t2)) of $FLOWS datagrams"
min=$((FLOWS / 5))
[ "$t1" -ge "$min" ] && [ "$r1" -ge "$min" ] || die "instance 1 carried $t1 of $FLOWS flows (< $min)"
[ "$t2" -ge "$min" ] && [ "$r2" -ge "$min" ] || die "instance 2 carried $t2 of $FLOWS flows (< $min)"

step "instance 2's FRR stops: every flow goes through instance 1"
kill -TERM "$(cat "$FRR_DIR/lf2/bgpd.spawned")"
for i in $(seq 1 $((SECS * 5))); do
	r=$(ip -n "$RNS" route show 10.50.0.0/24)
	[[ "$r" == *"via 10.40.1.2"* && "$r" != *"10.40.2.2"* ]] && break
	sleep 0.2
done
[[ "$r" == *"via 10.40.1.2"* && "$r" != *"10.40.2.2"* ]] ||
	die "the router still routes through instance 2: $r"
echo "router: $r"
read -r a1 b1 a2 b2 < <(counts)
send "$FLOWS"
read -r c1 d1 c2 d2 < <(settle "$FLOWS" "$a1" "$b1" "$a2" "$b2")
echo "instance 1: tx +$((d1 - b1)); instance 2: tx +$((d2 - b2))"
[ $((d1 - b1)) -ge "$FLOWS" ] || die "instance 1 forwarded $((d1 - b1)) of $FLOWS"
[ $((d2 - b2)) -eq 0 ] || die "instance 2 still forwarded $((d2 - b2))"

frr_stop_all
for k in 1 2; do
	pid=${LFE_PID[$k]}
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	LFE_PID[$k]=""
	rm -rf "/var/run/dpdk/$LF_PREFIX-$k"
	[ "$rc" -eq 0 ] || die "instance $k exited with status $rc: $(tail -n 5 "$D/lanefwd-$k.log")"
	grep '^lanefwd: total:' "$D/lanefwd-$k.log" | tail -n 1
done
echo "PASS: frr_ecmp"
