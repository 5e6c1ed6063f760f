# upf_e2e: lanefwd as a 5G UPF, end to end through AF_XDP ports.
#
# A gNB namespace and a data-network namespace on two veth pairs, lanefwd
# on the root-namespace ends (upf_lib.sh), and an SMF-side PFCP peer built
# on scapy.contrib.pfcp (upf_smf.py) on 127.0.0.1. upf.py e2e checks:
#  - Heartbeat and Association Setup (UP Function Features with FTUP), and
#    that every PFCP message lanefwd sent decodes in tshark's pfcp
#    dissector without a malformed flag or an expert warning;
#  - uplink: G-PDUs with a PDU Session Container (QFI 9), with S set, with a
#    skippable extension header before the container, with Ethernet padding,
#    IPv6 over IPv6 N3 -> the decapsulated packets on N6 equal scapy's
#    reference byte for byte (TTL / hop limit one lower, IPv4 checksum
#    recomputed); downlink: IP packets to UE addresses -> GTP-U/UDP/IPv4
#    with E set and a DL PDU Session Container carrying the QER's QFI and
#    the FAR's TEID, and GTP-U/UDP/IPv6, byte for byte, tshark-clean;
#  - a dual-stack PDR (UE IPv4 + IPv6 in one PDI) matches both families;
#  - GTP-U Echo Request -> Echo Response (IPv4, IPv6), tshark-decoded;
#  - uplink to another UE's address dropped as "loop", downlink to a pool
#    address without a session as unknown_ue;
#  - FAR DROP, QER gates closed and opened by a modification: exact counts;
#  - FAR BUFF+NOCP: one Session Report Request (Downlink Data Report) per
#    buffering episode, [upf] buffer_packets held, the rest counted as
#    buffer_full, and on Update FAR to FORW the held packets arrive in
#    order with the new FAR; NOCP alone reports and drops, BUFF alone
#    buffers without a report;
#  - URR: the volume threshold report at the crossing with exact volumes,
#    the rest in the Deletion Response; a session's final usage equals
#    what was forwarded, byte for byte;
#  - G-PDUs with unknown TEIDs -> Error Indications to the sender, at most
#    [upf] err_ind_pps per second; none for a known TEID whose packet fails
#    the PDR's SDF filter (counted no_pdr);
#  - every step: each /lanefwd/stats and /lanefwd/upf drop reason moved by
#    exactly what the step sent it, rx = tx + drops, lanefwd's rx / tx equal
#    the ports' /ethdev/stats; at the end lanefwd's final counter line
#    equals the last telemetry.
# Needs root, iproute2, ethtool, tshark (dumpcap), python3-scapy and 256 MiB
# of free hugepages; fails (does not skip) without them.
if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: upf_e2e needs root (network namespaces, AF_XDP)" >&2
	exit 1
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/upf_lib.sh"

export UPF_ERR_IND_PPS=10
upf_run e2e "buffer_packets = 16
err_ind_pps = $UPF_ERR_IND_PPS"
echo "PASS: upf_e2e"
