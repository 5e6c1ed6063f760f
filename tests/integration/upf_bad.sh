# upf_bad: malformed PFCP and GTP-U against a live lanefwd.
#
# PFCP (upf.py bad, sent from the SMF socket): datagrams too short for a
# header or shorter than their length field, an unsupported version (Version
# Not Supported Response), unknown message types (dropped), Session
# Establishment Requests with an IE running past the end, a grouped IE of
# garbage, groups nested 40 deep, each mandatory IE missing (Cause 66 with
# the Offending IE), a FAR without Apply Action, 1000 PDRs, 100 SDF filters
# in one PDR, a PDR naming a FAR that does not exist, an invalid SDF, DUPL;
# modification and deletion of unknown SEIDs (Cause 65); enterprise and
# unknown IEs (skipped: accepted); a retransmitted request (answered from
# the cache, applied once); a peer without association (Cause 72). No
# rejected request may leave a session behind, and a Heartbeat is answered
# afterwards.
# GTP-U (from the gNB namespace): truncated headers, lengths past the UDP
# payload, version 2 and PT 0, extension chains cut short or of length 0, a
# comprehension-required unknown extension, an unknown message type, an Echo
# Request without a sequence number, G-PDUs with an empty, cut or
# bad-checksum inner packet, and non-GTP-U traffic to the N3 address: each
# a drop counted under its /lanefwd/upf reason, exactly; a good G-PDU after
# them is forwarded.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: upf_bad needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

upf_run bad ""
echo "PASS: upf_bad"
