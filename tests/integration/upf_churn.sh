# upf_churn: 10,000 session establishments, modifications and deletions
# while downlink traffic flows.
#
# A sender process in the data-network namespace sends UDP to 200 UE
# addresses round-robin at 4,000 packets/s, each packet carrying its
# sequence number; meanwhile the SMF (upf_smf.py) runs 10,000 operations:
# establish a UE's session, change its FAR's outer TEID (Update FAR), replace
# its PDR and FAR in one modification (Remove + Create), or delete it. Every
# rule a UE ever had has its own TEID (UE << 16 | generation). For each
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
# /lanefwd/upf equal the SMF's, and all are deleted.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: upf_churn needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

upf_run churn ""
echo "PASS: upf_churn"
