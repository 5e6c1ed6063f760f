# upf_rules: PDR precedence and SDF first match against a linear scan.
#
# 120 sessions set up over PFCP (upf_smf.py), each with 2-6 downlink PDRs and
# 1-4 uplink PDRs (the uplink ones sharing the session's F-TEID, some with a
# QFI), with random distinct precedences and 0-3 SDF filters each drawn from
# overlapping sets: protocol (ip, 6, 17, 1), remote prefixes (nested /16,
# /24, /25, /26, /32), port ranges that overlap and share edges, the UE as
# "assigned", /32 or its pool, ToS/mask (TTC), ToS-only filters. Every PDR's
# FAR has its own outer TEID (downlink to the gNB; uplink on to a peer UPF
# over N9), so the TEID of each packet lanefwd sends names the PDR it
# matched. 12,000 downlink and 3,000 uplink packets (TCP, UDP, ICMP, protocol 253,
# non-first fragments, ports at the range edges, several ToS values) must
# come out in order with exactly the TEIDs a Python linear scan in
# precedence order gives (upf.py pdr_ref), with the inner packet unchanged;
# those no PDR matches are counted no_pdr, exactly. All sessions are then
# deleted and their TEIDs and UE addresses are gone.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: upf_rules needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

upf_run rules ""
echo "PASS: upf_rules"
