# Shared set-up of the UPF integration tests (sourced after lib.sh).
#
# Topology (upf_topo_up), one gNB and one data network, each a network
# namespace behind a veth pair whose root-namespace end is a lanefwd AF_XDP
# port:
#
#   $UPF_NS_GNB                    root namespace                   $UPF_NS_DN
#   $UPF_IF_GNB ---------- $UPF_IF_N3 [lanefwd] $UPF_IF_N6 ---------- $UPF_IF_DN
#   gNB 192.168.3.2 / fd00:3::2   N3 192.168.3.1 / fd00:3::1        hosts 198.51.100.0/24,
#                                 UE pools 10.45.0.0/16, fd00:45::/48  2001:db8:6::/48
#
# The namespaces hold no IP address and IPv6 is off on all four ends: the
# tests send and capture whole Ethernet frames (AF_PACKET, dumpcap), so no
# kernel stack answers anything (an ICMP port unreachable for a GTP-U packet
# would be a stray packet in lanefwd's exact counts) and no MLD or ND is
# sent. Every MAC is fixed. The lanefwd configuration (upf_conf) routes the
# gNB subnet to the gNB's MAC on port n3 and everything else to the DN's MAC
# on port n6; [upf] adds the N3 addresses and the UE pools.
#
# Interfaces carry the alias "lanefwd-upf-test PREFIX" and only those, and
# namespaces that hold nothing else, are removed on exit.

UPF_TP=u$$
UPF_NS_GNB=$UPF_TP-gnb UPF_NS_DN=$UPF_TP-dn
UPF_IF_N3=$UPF_TP-n3 UPF_IF_N6=$UPF_TP-n6
UPF_IF_GNB=$UPF_TP-g UPF_IF_DN=$UPF_TP-d
UPF_MAC_N3=02:00:0a:03:00:01 UPF_MAC_GNB=02:00:0a:03:00:02
UPF_MAC_N6=02:00:0a:06:00:01 UPF_MAC_DN=02:00:0a:06:00:02
UPF_MARK="lanefwd-upf-test $UPF_TP"
UPF_TOPO_UP=0
UPF_PIDFILE=""

for t in ip ethtool dumpcap tshark dpdk-telemetry.py; do
	command -v "$t" >/dev/null || die "$t is not installed (scripts/deps.sh)"
done
$PY -c 'import scapy.contrib.pfcp, scapy.contrib.gtp' 2>/dev/null ||
	die "python3-scapy with scapy.contrib.pfcp is not installed (scripts/deps.sh)"
[ "$(lf_hugepages_free_mb)" -ge 256 ] ||
	die "needs 256 MiB of free hugepages on a mounted hugetlbfs (run scripts/hugepages.sh)"

upf_ours() { [ "$(cat "/sys/class/net/$1/ifalias" 2>/dev/null)" = "$UPF_MARK" ]; }

upf_topo_down() {
	local l ns rest
	for l in "$UPF_IF_N3" "$UPF_IF_N6"; do
		if ip link show dev "$l" >/dev/null 2>&1 && upf_ours "$l"; then
			ip link del dev "$l" || true
		fi
	done
	for ns in "$UPF_NS_GNB" "$UPF_NS_DN"; do
		ip netns list | awk '{print $1}' | grep -qx -- "$ns" || continue
		rest=$(ip netns exec "$ns" ip -o link show | awk -F': ' '{print $2}' |
			sed 's/@.*//' | grep -vx -e lo -e "$UPF_IF_GNB" -e "$UPF_IF_DN" || true)
		[ -z "$rest" ] && ip netns del "$ns"
	done
	return 0
}

# upf_side NS ROOT_IF NS_IF ROOT_MAC NS_MAC
upf_side() {
	local ns=$1 rif=$2 nif=$3 rmac=$4 nmac=$5
	local in="ip netns exec $ns"
	ip netns add "$ns"
	ip link add "$rif" address "$rmac" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$nif" address "$nmac" numtxqueues 1 numrxqueues 1 netns "$ns"
	ip link set dev "$rif" alias "$UPF_MARK"
	$in ip link set dev "$nif" alias "$UPF_MARK"
	sysctl -qw "net.ipv6.conf.$rif.disable_ipv6=1"
	sysctl -qw "net.ipv4.conf.$rif.forwarding=0"
	ip link set dev "$rif" up
	$in sysctl -qw "net.ipv6.conf.all.disable_ipv6=1" "net.ipv6.conf.default.disable_ipv6=1"
	$in ethtool -K "$nif" tx off >/dev/null
	$in ip link set dev lo up
	$in ip link set dev "$nif" up
}

upf_topo_up() {
	UPF_TOPO_UP=1
	upf_side "$UPF_NS_GNB" "$UPF_IF_N3" "$UPF_IF_GNB" "$UPF_MAC_N3" "$UPF_MAC_GNB"
	upf_side "$UPF_NS_DN" "$UPF_IF_N6" "$UPF_IF_DN" "$UPF_MAC_N6" "$UPF_MAC_DN"
}

upf_cleanup() {
	local p
	# Capture processes upf.py started, by pid (it writes them as it starts them).
	if [ -n "$UPF_PIDFILE" ] && [ -f "$UPF_PIDFILE" ]; then
		while read -r p; do
			[ -n "$p" ] && kill "$p" 2>/dev/null || true
		done < "$UPF_PIDFILE"
	fi
	[ "$UPF_TOPO_UP" -eq 1 ] && upf_topo_down
	return 0
}
LF_CLEANUP_HOOK=upf_cleanup
trap 'exit 143' TERM
trap 'exit 130' INT

# A free UDP port on 127.0.0.1 for PFCP.
upf_free_port() {
	$PY -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# upf_conf FILE PFCP_PORT [EXTRA_UPF_KEYS]: the lanefwd configuration;
# $UPF_CONF_APPEND (more sections) goes at its end, $UPF_N3_EXTRA and
# $UPF_N6_EXTRA (keys) into the port sections, and $UPF_ROUTES4 and
# $UPF_ROUTES6 (printf formats) replace the route files.
upf_conf() {
	local f=$1 port=$2 extra=${3:-}
	local d
	d=$(dirname "$f")
	printf "${UPF_ROUTES4:-192.168.3.0/24 1\n0.0.0.0/0 2\n}" > "$d/routes4.txt"
	printf "${UPF_ROUTES6:-fd00:3::/64 1\n::/0 2\n}" > "$d/routes6.txt"
	cat > "$f" <<EOF
[eal]
main_lcore = 0
file_prefix = $LF_PREFIX
telemetry = yes
huge = yes
iova_mode = va

[pipeline]
burst = 32
prefetch_distance = 4

$(lf_conf_routes)

[port n3]
vdev = net_af_xdp0,iface=$UPF_IF_N3,start_queue=0,queue_count=1
${UPF_N3_EXTRA:-}

[port n6]
vdev = net_af_xdp1,iface=$UPF_IF_N6,start_queue=0,queue_count=1
${UPF_N6_EXTRA:-}

[worker 1]
rx = n3:0 n6:0

[nexthop 1]
port = n3
mac = $UPF_MAC_GNB

[nexthop 2]
port = n6
mac = $UPF_MAC_DN

[upf]
n3_ipv4 = 192.168.3.1
n3_ipv6 = fd00:3::1
pfcp_addr = 127.0.0.1
pfcp_port = $port
max_sessions = 4096
$extra

[network_instance internet]
ue_pool = 10.45.0.0/16, fd00:45::/48
ue_alloc = 10.45.200.0/24, fd00:45:0:ff00::/56
ue_alloc_pool_id = internet-main
ue_alloc.ent-a = 10.45.201.0/24, fd00:45:0:fe00::/56
ue_alloc.fwa = fd00:45:0:c000::/54
ue_alloc_ipv6_len.fwa = 56
${UPF_CONF_APPEND:-}
EOF
}

# upf_run NAME [EXTRA_UPF_KEYS] -- UPF_PY_ARGS...: topology, lanefwd, then
# upf.py NAME with the environment it needs; lanefwd is stopped afterwards,
# its final counters checked against the last telemetry, and the topology
# removed (so a test may run several configurations one after the other).
upf_run() {
	local name=$1 extra=$2 port rc=0
	shift 2
	[ "${1:-}" = "--" ] && shift
	upf_topo_up
	port=$(upf_free_port)
	upf_conf "$LF_TMP/lanefwd.conf" "$port" "$extra"
	"$LANEFWD" -c "$LF_TMP/lanefwd.conf" --check-config > "$LF_TMP/check-config.txt" 2>&1 ||
		die "--check-config rejected the test configuration: $(tail -n 3 "$LF_TMP/check-config.txt")"
	lf_start "$LF_TMP/lanefwd.conf"
	UPF_PIDFILE=$LF_TMP/pids
	: > "$UPF_PIDFILE"
	UPF_DIR=$LF_TMP UPF_PREFIX=$LF_PREFIX UPF_PFCP_PORT=$port UPF_LF_PID=$LF_PID \
		UPF_NS_GNB=$UPF_NS_GNB UPF_NS_DN=$UPF_NS_DN UPF_IF_GNB=$UPF_IF_GNB \
		UPF_IF_DN=$UPF_IF_DN UPF_IF_N3=$UPF_IF_N3 UPF_IF_N6=$UPF_IF_N6 \
		UPF_MAC_N3=$UPF_MAC_N3 UPF_MAC_N6=$UPF_MAC_N6 UPF_MAC_GNB=$UPF_MAC_GNB \
		UPF_MAC_DN=$UPF_MAC_DN UPF_PIDFILE=$UPF_PIDFILE \
		$PY "$LF_SRCDIR/tests/integration/${UPF_SCRIPT:-upf.py}" "$name" "$@" || rc=$?
	# Stop lanefwd and check its final counters whatever upf.py found.
	lf_stop_rc
	[ "$LF_EXIT" = 0 ] || die "lanefwd exited with status $LF_EXIT on SIGINT"
	if [ -f "$LF_TMP/last_stats.json" ]; then
		$PY "$LF_SRCDIR/tests/integration/upf.py" final "$LF_TMP" ||
			die "final counters disagree with the last telemetry"
	fi
	upf_topo_down
	UPF_TOPO_UP=0
	[ "$rc" -eq 0 ] || die "upf.py $name failed"
}
