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
#  - Traffic Endpoints: two uplink PDRs on one endpoint whose F-TEID and
#    UE address lanefwd chose (one Created Traffic Endpoint, its ID read by
#    tshark), traffic both ways with the higher-precedence PDR's DROP
#    counted, an Update Traffic Endpoint moving both, and a refused Remove
#    of an endpoint a PDR still names;
#  - GTP-U Echo Request -> Echo Response (IPv4, IPv6), tshark-decoded;
#  - UE to UE: uplink to another UE's address comes back down that UE's
#    tunnel (TTL one lower: it was routed); to pool addresses without a
#    session: unknown_ue; tunnels that lead back to lanefwd's own N3
#    address (downlink encapsulation, uplink on over N9): "loop";
#  - FAR DROP, QER gates closed and opened by a modification: exact counts;
#    QER MBR: ten times the MBR offered, what passes is within the MBR plus
#    the bucket, the rest counted mbr_exceeded;
#  - FAR BUFF+NOCP: one Session Report Request (Downlink Data Report) per
#    buffering episode, the Create BAR's Suggested Buffering Packets Count
#    (below [upf] buffer_packets) held, the rest counted as
#    buffer_full, and on Update FAR to FORW the held packets arrive in
#    order with the new FAR; NOCP alone reports and drops, BUFF alone
#    buffers without a report;
#  - URR: the volume threshold report at the crossing with exact volumes,
#    the rest in the Deletion Response; periodic reports (1 s) adding up
#    exactly; a session's final usage equals what was forwarded, byte for
#    byte;
#  - a second session on a held F-TEID or UE address is refused and changes
#    nothing; a new SMF Recovery Time Stamp purges the SMF's sessions;
#  - G-PDUs with unknown TEIDs -> Error Indications to the sender, at most
#    [upf] err_ind_pps per second; none for a known TEID whose packet fails
#    the PDR's SDF filter (counted no_pdr);
#  - every step: each /lanefwd/stats and /lanefwd/upf drop reason moved by
#    exactly what the step sent it, rx = tx + drops, lanefwd's rx / tx equal
#    the ports' /ethdev/stats (buffered packets included: a released packet
#    is not received twice, one dropped beyond the bound is a drop); at the
#    end lanefwd's final counter line equals the last telemetry.
# A failed step is reported and the next one runs; the test fails at the end.
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
