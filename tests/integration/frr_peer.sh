# frr_peer: FRR and BIRD peering without lanefwd, the baseline frr_bgp.sh
# compares with (frr_lib.sh). Namespace U runs BIRD 2 announcing
# FRR_PEER_ROUTES (default 4000) /24s of 100.64.0.0/10 over eBGP; namespace F
# runs FRR (zebra + bgpd), which installs them in F's kernel. Checks, with
# F's kernel as the oracle: the session comes up on both sides, every prefix
# is in F's main table with BIRD's address as gateway, a withdrawal (BIRD
# disables the static protocol) removes every one and re-enabling brings
# them back. Prints how long each took (figures, not assertions: the bound
# is FRR_PEER_SECS, default 120 s, for a loaded 2-core VM).
# Needs root, iproute2, frr and bird2 (scripts/deps.sh); fails without them.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: frr_peer needs root (network namespaces)" >&2
	exit 1
fi
. "$(dirname "$0")/frr_lib.sh"
why=$(frr_have_tools) || die "$why"

N=${FRR_PEER_ROUTES:-4000}
SECS=${FRR_PEER_SECS:-120}
T=fp$$
NSU=$T-u NSF=$T-f
NS_UP=0

cleanup() {
	local rc=$?
	frr_stop_all
	if [ "$NS_UP" -eq 1 ]; then
		ip netns del "$NSU" 2>/dev/null || true
		ip netns del "$NSF" 2>/dev/null || true
	fi
	rm -rf "$FRR_DIR"
	exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

NS_UP=1
ip netns add "$NSU"
ip netns add "$NSF"
ip -n "$NSF" link add f0 type veth peer name u0 netns "$NSU"
ip -n "$NSF" link set lo up
ip -n "$NSU" link set lo up
ip -n "$NSF" addr add 10.99.0.2/24 dev f0
ip -n "$NSU" addr add 10.99.0.1/24 dev u0
ip -n "$NSF" link set f0 up
ip -n "$NSU" link set u0 up

bird_start up "$NSU" "router id 10.99.0.1;
protocol device { }
$(bird_static_routes st4 "$N" 100.64)
protocol bgp lf {
	local 10.99.0.1 as 65000;
	neighbor 10.99.0.2 as 65001;
	ipv4 { import none; export where proto = \"st4\"; next hop self; };
}"
t0=$(date +%s%N)
frr_start lf "$NSF" "router bgp 65001
 bgp router-id 10.99.0.2
 no bgp ebgp-requires-policy
 neighbor 10.99.0.1 remote-as 65000
 address-family ipv4 unicast
  neighbor 10.99.0.1 activate
 exit-address-family"

frr_wait_established lf 10.99.0.1 "$SECS"
t1=$(date +%s%N)
bird_wait_established up lf "$SECS"
echo "session Established $(((t1 - t0) / 1000000)) ms after bgpd started"
frr_wait_routes "$NSF" 100.64.0.0/10 "$N" "$SECS" > /dev/null
t2=$(date +%s%N)
echo "$N prefixes in $NSF's kernel $(((t2 - t0) / 1000000)) ms after bgpd started, $(((t2 - t1) / 1000000)) ms after Established"
other=$(ip -n "$NSF" -4 route show proto bgp root 100.64.0.0/10 |
	awk '!/ via 10\.99\.0\.1 dev f0 /' | wc -l)
[ "$other" -eq 0 ] || die "$other routes in $NSF do not go via 10.99.0.1 dev f0"
rib=$(frr_vtysh lf "show bgp ipv4 unicast summary json" | /usr/bin/python3 -c '
import json, sys
print(json.load(sys.stdin)["peers"]["10.99.0.1"]["pfxRcd"])')
[ "$rib" -eq "$N" ] || die "bgpd received $rib prefixes, BIRD announces $N"

bird_cmd up disable st4 > /dev/null
took=$(frr_wait_routes "$NSF" 100.64.0.0/10 0 "$SECS")
echo "withdrawal: $N prefixes gone from $NSF's kernel in $took s"
bird_cmd up enable st4 > /dev/null
took=$(frr_wait_routes "$NSF" 100.64.0.0/10 "$N" "$SECS")
echo "re-announced: $N prefixes back in $took s"
echo "PASS: frr_peer"
