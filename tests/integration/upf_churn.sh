# upf_churn: 10,000 session establishments, modifications and deletions
# while downlink traffic flows.
#
# A sender process in the data-network namespace sends UDP to 200 UE
# addresses round-robin at 4,000 packets/s, each packet carrying its
# sequence number; meanwhile the SMF (upf_smf.py) runs 10,000 operations:
# establish a UE's session, change its FAR's outer TEID (Update FAR), replace
# its PDR and FAR in one modification (Remove + Create), or delete it. Every
# rule a UE ever had has its own TEID (UE << 16 | generation). Every third
# UE's PDRs name a Traffic Endpoint that holds its address instead of
# carrying it (PDI optimisation), so replacements resolve it. For each
# packet captured in the gNB namespace (upf.py churn):
#  - its TEID was given to the UE the inner packet is addressed to;
#  - its rule had been requested before the packet was captured (kernel
#    capture time against the request's send time, the same clock);
#  - its rule had not been superseded or removed before the packet was
#    sent: no packet sent after the response to the next operation on that
#    UE was received carries it (the sender's sequence number is read
#    right after each response);
#  - per UE, generations never go backwards in capture order (one worker,
#    one queue: processing order is capture order).
# Counts are conserved: every packet sent was received by lanefwd, and
# either came out or was counted unknown_ue (a UE without a session); no
# other drop reason moves; rx = tx + drops. At the end the sessions in
# /lanefwd/upf equal the SMF's, and all are deleted. Then 5,000 more
# operations the same way with the flow cache on (in front of a permit-all
# ACL), whose cached routing verdicts must not carry a packet past the
# session it finds now.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: upf_churn needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

upf_run churn ""

# Again with the flow cache in front of a permit-all ACL: the downlink
# packets' routing verdicts (to the UPF's downlink kind) are cached, and the
# session each packet finds must still be the current one.
printf '@0.0.0.0/0\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\tpermit\n' \
	> "$LF_TMP/permit.acl"
UPF_CONF_APPEND=$(printf '[flow]\nentries = 4096\n\n[acl]\nipv4 = permit.acl\ndefault = permit\n')
export UPF_CONF_APPEND
UPF_CHURN_OPS=${UPF_CHURN_OPS_FLOW:-5000} upf_run churn ""
echo "PASS: upf_churn"
