# router_local: the router's own side in the data plane, through AF_XDP
# ports (the UPF tests' topology, upf_lib.sh, with addresses on the ports).
# router_local.py checks, IPv4 and IPv6, against scapy's decoding:
#  - echo requests to a port's address answered in the data plane: the
#    reply's addresses, TTL 64, id, sequence, payload and checksums;
#  - destination unreachable on no route, fragmentation needed / packet too
#    big (with the MTU of the smaller port) for a packet over the egress MTU
#    (without DF: dropped mtu_exceeded), time exceeded for TTL / hop limit 1
#    in transit, each quoting the original packet (576 / 1280 bytes at
#    most), from the address of the port it came in on; none about an ICMP
#    error;
#  - martian destinations (127/8, 240/4, 0/8, 169.254/16, ::1, fe80::/10,
#    ff05::2) dropped martian_dst; a TCP SYN to the router and an OSPF
#    packet to 224.0.0.5 dropped no_exception (no kernel mirror here);
#  - the ICMP token bucket: of a burst of echo requests, at least [icmp]
#    burst and at most burst + rate_pps x the burst's time are answered,
#    the rest counted icmp_suppressed and punt_ratelimit;
#  - every step: each router drop reason and event moved by exactly what
#    the step sent it, rx = tx + drops, and the ports' counters agree.
# Needs root, iproute2, ethtool, tshark (dumpcap), python3-scapy and 256 MiB
# of free hugepages; fails (does not skip) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: router_local needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

export ROUTER_ICMP_PPS=50 ROUTER_ICMP_BURST=20
UPF_SCRIPT=router_local.py
UPF_N3_EXTRA="address = 192.168.3.254/24, fd00:3::fe/64"
UPF_N6_EXTRA="address = 198.51.100.254/24, 2001:db8:6::fe/64
mtu = 1280"
UPF_ROUTES4='192.168.3.0/24 1\n198.51.100.0/24 2\n'
UPF_ROUTES6='fd00:3::/64 1\n2001:db8:6::/48 2\n'
UPF_CONF_APPEND="
[icmp]
rate_pps = $ROUTER_ICMP_PPS
burst = $ROUTER_ICMP_BURST"
upf_run local ""
echo "PASS: router_local"
