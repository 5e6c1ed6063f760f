#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Test topology for lanefwd with the AF_XDP PMD: two network namespaces, each
# behind one veth pair whose root-namespace end lanefwd attaches to.
#
#   PREFIX-ns1                    root namespace                   PREFIX-ns2
#   PREFIX-n1 10.10.1.2/24 ---- PREFIX-p0 [lanefwd] PREFIX-p1 ---- PREFIX-n2 10.10.2.2/24
#             fd00:1::2/64                                                   fd00:2::2/64
#   default via 10.10.1.1 / fd00:1::1          default via 10.10.2.1 / fd00:2::1
#
# usage: scripts/topology.sh up|down|show [PREFIX]       (PREFIX default: lf)
#
# The gateways 10.10.x.1 / fd00:x::1 are lanefwd itself. lanefwd answers no
# ARP or ND, so each namespace gets a permanent neighbour entry mapping its
# gateway to the MAC of the root-namespace veth end (the MAC lanefwd's AF_XDP
# port reports), and lanefwd's [nexthop] sections name the namespace ends'
# MACs. All four MACs are fixed (below), so config/lanefwd.conf can name them.
#
# Interfaces and namespaces: PREFIX-p0, PREFIX-p1 (root namespace),
# PREFIX-ns1, PREFIX-ns2 (namespaces) holding PREFIX-n1, PREFIX-n2. `up`
# refuses to run if any of these names exists already; `down` removes only
# what carries this script's mark (the veth alias "lanefwd-topology PREFIX")
# and namespaces that hold nothing else, so it never touches anything else on
# the host. Both are safe to repeat.
#
# Settings that matter for AF_XDP on veth:
#  - numtxqueues 1 numrxqueues 1: the AF_XDP socket binds to queue 0 and all
#    traffic must land there; veth also refuses native XDP when its RX queue
#    count is below the peer's TX queue count.
#  - TX checksum offload off on the namespace ends (ethtool -K tx off): with it
#    on, the kernel hands veth packets with only a partial (pseudo-header)
#    TCP/UDP checksum, AF_XDP delivers those bytes as they are, and the
#    receiving namespace would drop every forwarded TCP/UDP packet (tested:
#    iperf3 TCP stalls). TSO goes off with it; GSO then segments in software,
#    with complete checksums, so every frame on the wire is at most MTU sized.
#  - MTU 1500 on every end (veth default); the AF_XDP frame is one page.
#  - IPv6 is disabled on the root-namespace ends and IPv4 forwarding is off
#    on them: before lanefwd attaches (and after it exits) the host kernel
#    neither sends router solicitations/MLD there nor forwards the test
#    traffic out of some other interface.
#  - In the namespaces: no DAD (addresses usable at once), no router
#    solicitations, no RA processing. What remains is MLDv2: for about 2 s
#    after `up` each namespace reports its multicast groups (hop limit 1);
#    if lanefwd already runs it drops those as ttl_expired.
set -euo pipefail

usage() {
	echo "usage: $0 up|down|show [PREFIX]   (PREFIX: 1-11 of a-z 0-9, default lf)" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
action=$1
P=${2:-lf}
# Interface names are limited to 15 characters: PREFIX-ns1 / PREFIX-p0.
[[ "$P" =~ ^[a-z0-9]{1,11}$ ]] || usage

NS1=$P-ns1 NS2=$P-ns2
P0=$P-p0 P1=$P-p1   # root-namespace ends: lanefwd's ports p0 and p1
N1=$P-n1 N2=$P-n2   # namespace ends
MARK="lanefwd-topology $P"

# Fixed MACs: 02:00:0a:0a:SUBNET:HOST, locally administered, one per end.
MAC_P0=02:00:0a:0a:01:01 MAC_N1=02:00:0a:0a:01:02
MAC_P1=02:00:0a:0a:02:01 MAC_N2=02:00:0a:0a:02:02

log() { echo "topology: $*"; }

ns_exists() { ip netns list | awk '{print $1}' | grep -qx -- "$1"; }
link_exists() { ip link show dev "$1" >/dev/null 2>&1; }
ours() { [ "$(cat "/sys/class/net/$1/ifalias" 2>/dev/null)" = "$MARK" ]; }

# side NS ROOT_IF NS_IF ROOT_MAC NS_MAC SUBNET
side() {
	local ns=$1 rif=$2 nif=$3 rmac=$4 nmac=$5 x=$6
	local in="ip netns exec $ns"

	ip netns add "$ns"
	ip link add "$rif" address "$rmac" numtxqueues 1 numrxqueues 1 type veth \
		peer name "$nif" address "$nmac" numtxqueues 1 numrxqueues 1 netns "$ns"
	ip link set dev "$rif" alias "$MARK"
	$in ip link set dev "$nif" alias "$MARK"

	# Root end: a bare L2 port for AF_XDP, invisible to the host's IP stack.
	sysctl -qw "net.ipv6.conf.$rif.disable_ipv6=1"
	sysctl -qw "net.ipv4.conf.$rif.forwarding=0"
	ip link set dev "$rif" up

	# Namespace end: a host with one address per family and a default route.
	$in ip link set dev lo up
	$in sysctl -qw "net.ipv6.conf.$nif.accept_dad=0" \
		"net.ipv6.conf.$nif.router_solicitations=0" \
		"net.ipv6.conf.$nif.accept_ra=0" \
		"net.ipv6.conf.default.accept_dad=0"
	$in ethtool -K "$nif" tx off >/dev/null
	$in ip addr add "10.10.$x.2/24" dev "$nif"
	$in ip -6 addr add "fd00:$x::2/64" dev "$nif" nodad
	$in ip link set dev "$nif" up
	$in ip neigh replace "10.10.$x.1" lladdr "$rmac" dev "$nif" nud permanent
	$in ip -6 neigh replace "fd00:$x::1" lladdr "$rmac" dev "$nif" nud permanent
	$in ip route add default via "10.10.$x.1" dev "$nif"
	$in ip -6 route add default via "fd00:$x::1" dev "$nif"
}

down() {
	local ns l rest
	# The root-namespace ends first: deleting one end of a veth pair deletes
	# both, at once. (A namespace is only destroyed asynchronously once it is
	# unmounted, so its veth pairs could outlive 'ip netns del' briefly.)
	for l in "$P0" "$P1"; do
		link_exists "$l" || continue
		if ours "$l"; then
			ip link del dev "$l"
			log "deleted $l"
		else
			log "not deleting $l: it was not created by this script" >&2
		fi
	done
	for ns in "$NS1" "$NS2"; do
		ns_exists "$ns" || continue
		# Only a namespace that holds nothing but lo and our veth end.
		rest=$(ip netns exec "$ns" ip -o link show | awk -F': ' '{print $2}' |
			sed 's/@.*//' | grep -vx -e lo -e "$N1" -e "$N2" || true)
		if [ -n "$rest" ]; then
			log "not deleting namespace $ns: it holds ${rest//$'\n'/ } (not created by this script)" >&2
			continue
		fi
		ip netns del "$ns"
		log "deleted namespace $ns"
	done
	return 0
}

up() {
	local n
	for n in "$NS1" "$NS2"; do
		if ns_exists "$n"; then
			log "namespace $n exists already; run '$0 down $P' first" >&2
			exit 1
		fi
	done
	for n in "$P0" "$P1"; do
		if link_exists "$n"; then
			log "interface $n exists already; run '$0 down $P' first" >&2
			exit 1
		fi
	done
	# A half-made topology is removed again.
	trap 'rc=$?; [ $rc -eq 0 ] || { log "up failed, cleaning up" >&2; down; }; exit $rc' EXIT
	side "$NS1" "$P0" "$N1" "$MAC_P0" "$MAC_N1" 1
	side "$NS2" "$P1" "$N2" "$MAC_P1" "$MAC_N2" 2
	trap - EXIT
	log "up: $NS1/$N1 ($MAC_N1, 10.10.1.2, fd00:1::2) <-> $P0 ($MAC_P0) | lanefwd | $P1 ($MAC_P1) <-> $NS2/$N2 ($MAC_N2, 10.10.2.2, fd00:2::2)"
}

show() {
	ip -br link show dev "$P0" || true
	ip -br link show dev "$P1" || true
	local ns
	for ns in "$NS1" "$NS2"; do
		echo "== $ns"
		ip netns exec "$ns" ip -br addr 2>/dev/null || true
		ip netns exec "$ns" ip neigh 2>/dev/null || true
		ip netns exec "$ns" ip route 2>/dev/null || true
		ip netns exec "$ns" ip -6 route 2>/dev/null || true
	done
}

case "$action" in
up) up ;;
down) down ;;
show) show ;;
*) usage ;;
esac
