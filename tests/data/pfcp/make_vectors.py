#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""PFCP messages made by an independent encoder (scapy.contrib.pfcp) for
test_pfcp_codec, which decodes them and checks every field listed here.

  make_vectors.py           write tests/data/pfcp/NAME.bin for every vector,
                            and the same bytes as seeds of the fuzz harness
                            (tests/fuzz/corpus/pfcp/NAME)
  make_vectors.py --check   exit 1 unless every committed file is exactly what
                            this script writes (run by meson test as pfcp_vectors)

Each vector is one PFCP message, header included, as it would sit in a UDP
datagram to port 8805. Values are chosen so that no two fields of a message
share a value (a field decoded into the wrong place shows). Run with
/usr/bin/python3 (Debian's python3-scapy).
"""

import logging
import os
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.contrib import pfcp as P  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "pfcp")

NODE4 = P.IE_NodeId(id_type=0, ipv4="10.0.0.5")


def hdr(seq, seid=None):
    if seid is None:
        return P.PFCP(version=1, S=0, seq=seq)
    return P.PFCP(version=1, S=1, seid=seid, seq=seq)


def ul_pdr():
    """Uplink PDR 1: CHOOSE F-TEID, APN-encoded network instance, SDF with ports."""
    return P.IE_CreatePDR(IE_list=[
        P.IE_PDR_Id(id=1),
        P.IE_Precedence(precedence=100),
        P.IE_PDI(IE_list=[
            P.IE_SourceInterface(interface=0),
            P.IE_FTEID(V4=1, CH=1, CHID=1, choose_id=7),
            P.IE_NetworkInstance(instance="internet"),
            P.IE_UE_IP_Address(V4=1, SD=0, ipv4="10.45.0.2"),
            P.IE_SDF_Filter(FD=1, flow_description=(
                "permit out 17 from 8.8.8.0/24 53 to assigned 1000-2000")),
            P.IE_QFI(QFI=9),
        ]),
        P.IE_OuterHeaderRemoval(header=0),
        P.IE_FAR_Id(id=1),
        P.IE_QER_Id(id=1),
        P.IE_URR_Id(id=1),
    ])


def dl_pdr():
    """Downlink PDR 2: UE address as destination, SDF "ip" with a ToS match."""
    return P.IE_CreatePDR(IE_list=[
        P.IE_PDR_Id(id=2),
        P.IE_Precedence(precedence=200),
        P.IE_PDI(IE_list=[
            P.IE_SourceInterface(interface=1),
            P.IE_NetworkInstance(instance="internet"),
            P.IE_UE_IP_Address(V4=1, SD=1, ipv4="10.45.0.2"),
            P.IE_SDF_Filter(FD=1, TTC=1,
                            flow_description="permit out ip from any to assigned",
                            tos_traffic_class=0xb8, tos_traffic_mask=0xfc),
        ]),
        P.IE_FAR_Id(id=2),
        P.IE_QER_Id(id=1),
        P.IE_URR_Id(id=1),
    ])


def far(fid, apply_bits, fwd):
    ies = [P.IE_FAR_Id(id=fid), P.IE_ApplyAction(**apply_bits)]
    if fwd is not None:
        ies.append(P.IE_ForwardingParameters(IE_list=fwd))
    return P.IE_CreateFAR(IE_list=ies)


def sess_est_req():
    return hdr(100, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4,
        P.IE_FSEID(v4=1, seid=0x1122334455667788, ipv4="10.0.0.5"),
        ul_pdr(),
        dl_pdr(),
        far(1, {"FORW": 1}, [
            P.IE_DestinationInterface(interface=1),
            P.IE_NetworkInstance(instance="internet"),
        ]),
        far(2, {"FORW": 1}, [
            P.IE_DestinationInterface(interface=0),
            P.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=0xabcdef01, ipv4="192.168.3.2"),
        ]),
        P.IE_CreateQER(IE_list=[
            P.IE_QER_Id(id=1),
            P.IE_GateStatus(ul="OPEN", dl="CLOSED"),
            P.IE_MBR(ul=100000, dl=200000),
            P.IE_GBR(ul=1000, dl=2000),
            P.IE_QFI(QFI=9),
        ]),
        P.IE_CreateURR(IE_list=[
            P.IE_URR_Id(id=1),
            P.IE_MeasurementMethod(VOLUM=1, DURAT=1),
            P.IE_ReportingTriggers(periodic_reporting=1, volume_threshold=1,
                                   volume_quota=1),
            P.IE_MeasurementPeriod(period=60),
            P.IE_VolumeThreshold(TOVOL=1, total=1000000),
            P.IE_VolumeQuota(TOVOL=1, total=5000000),
        ]),
        P.IE_PDNType(pdn_type=1),
        # An enterprise IE and an IE this UPF does not take: both skipped.
        P.IE_EnterpriseSpecific(ietype=0x8001, enterprise_id=18681, data=b"lanefwd"),
        P.IE_UserId(),
    ])


def sess_est_req_v6():
    """IPv6 everywhere: given F-TEID, UE /64 address, v6 SDF, v6 outer header."""
    return hdr(110, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        P.IE_NodeId(id_type=1, ipv6="fd00::5"),
        P.IE_FSEID(v6=1, seid=0x0102030405060708, ipv6="fd00::5"),
        P.IE_CreatePDR(IE_list=[
            P.IE_PDR_Id(id=11),
            P.IE_Precedence(precedence=7),
            P.IE_PDI(IE_list=[
                P.IE_SourceInterface(interface=0),
                P.IE_FTEID(V6=1, TEID=0x100, ipv6="fd00:3::1"),
                P.IE_UE_IP_Address(V6=1, SD=0, ipv6="fd00:45::1"),
                P.IE_SDF_Filter(FD=1, flow_description=(
                    "permit out 6 from 2001:db8::1/32 443 to fd00:45::1/64")),
            ]),
            P.IE_OuterHeaderRemoval(header=1),
            P.IE_FAR_Id(id=21),
        ]),
        far(21, {"FORW": 1}, [P.IE_DestinationInterface(interface=1)]),
        far(22, {"FORW": 1}, [
            P.IE_DestinationInterface(interface=0),
            P.IE_OuterHeaderCreation(GTPUUDPIPV6=1, TEID=0x200, ipv6="fd00:3::2"),
        ]),
        far(23, {"BUFF": 1, "NOCP": 1}, None),
    ])


def sess_mod_req():
    return hdr(101, 0x42) / P.PFCPSessionModificationRequest(IE_list=[
        P.IE_RemovePDR(IE_list=[P.IE_PDR_Id(id=2)]),
        P.IE_RemoveFAR(IE_list=[P.IE_FAR_Id(id=2)]),
        P.IE_RemoveQER(IE_list=[P.IE_QER_Id(id=5)]),
        P.IE_RemoveURR(IE_list=[P.IE_URR_Id(id=6)]),
        P.IE_CreatePDR(IE_list=[
            P.IE_PDR_Id(id=3),
            P.IE_Precedence(precedence=50),
            P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=1)]),
            P.IE_FAR_Id(id=3),
        ]),
        far(3, {"DROP": 1}, None),
        P.IE_UpdatePDR(IE_list=[
            P.IE_PDR_Id(id=1),
            P.IE_Precedence(precedence=10),
            P.IE_FAR_Id(id=3),
        ]),
        P.IE_UpdateFAR(IE_list=[
            P.IE_FAR_Id(id=1),
            P.IE_ApplyAction(FORW=1),
            P.IE_UpdateForwardingParameters(IE_list=[
                P.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=0x55, ipv4="1.2.3.4"),
                P.IE_PFCPSMReqFlags(SNDEM=1),
            ]),
        ]),
        P.IE_UpdateQER(IE_list=[
            P.IE_QER_Id(id=1),
            P.IE_GateStatus(ul="CLOSED", dl="OPEN"),
        ]),
        P.IE_UpdateURR(IE_list=[
            P.IE_URR_Id(id=1),
            P.IE_TimeThreshold(threshold=30),
        ]),
        P.IE_QueryURR(IE_list=[P.IE_URR_Id(id=1)]),
        P.IE_PFCPSMReqFlags(QUARR=1),
    ])


def est_pdr5(seq, pdr_extra, more=()):
    """A minimal establishment: PDR 5 (core, FAR 1) with pdr_extra IEs, FAR 1 (DROP), more."""
    return hdr(seq, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4,
        P.IE_FSEID(v4=1, seid=9, ipv4="10.0.0.5"),
        P.IE_CreatePDR(IE_list=[
            P.IE_PDR_Id(id=5),
            P.IE_Precedence(precedence=1),
            P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=1)]),
            P.IE_FAR_Id(id=1),
        ] + list(pdr_extra)),
        far(1, {"DROP": 1}, None),
    ] + list(more))


def est_with_sdf(sdf, seq):
    """A minimal establishment whose only PDR (id 5) carries sdf."""
    return hdr(seq, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4,
        P.IE_FSEID(v4=1, seid=9, ipv4="10.0.0.5"),
        P.IE_CreatePDR(IE_list=[
            P.IE_PDR_Id(id=5),
            P.IE_Precedence(precedence=1),
            P.IE_PDI(IE_list=[P.IE_SourceInterface(interface=1), sdf]),
            P.IE_FAR_Id(id=1),
        ]),
        far(1, {"DROP": 1}, None),
    ])


VECTORS = {
    "heartbeat_req": lambda: hdr(1) / P.PFCPHeartbeatRequest(IE_list=[
        P.IE_RecoveryTimeStamp(timestamp=3900000000)]),
    "assoc_setup_req": lambda: hdr(2) / P.PFCPAssociationSetupRequest(IE_list=[
        NODE4,
        P.IE_RecoveryTimeStamp(timestamp=3900000001),
        P.IE_CPFunctionFeatures(LOAD=1),
        P.IE_EnterpriseSpecific(ietype=0x8002, enterprise_id=10415, data=b"x"),
    ]),
    "assoc_setup_req_fqdn": lambda: hdr(3) / P.PFCPAssociationSetupRequest(IE_list=[
        P.IE_NodeId(id_type=2, id="smf.example.org"),
        P.IE_RecoveryTimeStamp(timestamp=3900000002),
    ]),
    "assoc_update_req": lambda: hdr(4) / P.PFCPAssociationUpdateRequest(IE_list=[
        P.IE_NodeId(id_type=1, ipv6="fd00::5"),
        P.IE_PFCPAssociationReleaseRequest(SARR=1),
        P.IE_GracefulReleasePeriod(release_timer_unit=1, release_timer_value=3),
    ]),
    "assoc_release_req": lambda: hdr(5) / P.PFCPAssociationReleaseRequest(IE_list=[NODE4]),
    "sess_est_req": sess_est_req,
    "sess_est_req_v6": sess_est_req_v6,
    "sess_mod_req": sess_mod_req,
    "sess_del_req": lambda: hdr(102, 0x42) / P.PFCPSessionDeletionRequest(IE_list=[]),
    "sess_report_resp": lambda: hdr(103, 0x42) / P.PFCPSessionReportResponse(IE_list=[
        P.IE_Cause(cause=1)]),
    # Refused, each with a Cause the test checks.
    "sess_est_req_spi": lambda: est_with_sdf(P.IE_SDF_Filter(
        FD=1, SPI=1, flow_description="permit out ip from any to assigned",
        security_parameter_index=0x1234), 120),
    # Taken since port lists are: one filter per port.
    "sess_est_req_portlist": lambda: est_with_sdf(P.IE_SDF_Filter(
        FD=1, flow_description="permit out 17 from any 53,54 to assigned"), 121),
    # Volumes by direction: a threshold of all three, a quota of the downlink only.
    "sess_est_req_voldir": lambda: est_pdr5(125, [P.IE_URR_Id(id=2)], [
        P.IE_CreateURR(IE_list=[
            P.IE_URR_Id(id=2),
            P.IE_MeasurementMethod(VOLUM=1),
            P.IE_ReportingTriggers(volume_threshold=1, volume_quota=1),
            P.IE_VolumeThreshold(TOVOL=1, ULVOL=1, DLVOL=1, total=3000, uplink=1000,
                                 downlink=2000),
            P.IE_VolumeQuota(DLVOL=1, downlink=77777),
        ])]),
    # UE IP address Pool Identity (177), which this scapy has no class for: raw.
    "sess_est_req_pool": lambda: est_pdr5(124, [
        P.IE_NotImplemented(ietype=177, data=b"\x00\x06pool-a"),
        P.IE_NotImplemented(ietype=177, data=b"\x00\x0bpool-b.ipv6")]),
    # A prefix delegated to the UE: V6 with IPv6D (octet 5 bit 4, which this
    # scapy has in its spare field) and 8 Prefix Delegation Bits after the
    # address: fd00:45:0:700::/56, given as an address in it.
    "sess_est_req_delegated": lambda: hdr(126, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4,
        P.IE_FSEID(v4=1, seid=9, ipv4="10.0.0.5"),
        P.IE_CreatePDR(IE_list=[
            P.IE_PDR_Id(id=5),
            P.IE_Precedence(precedence=1),
            P.IE_PDI(IE_list=[
                P.IE_SourceInterface(interface=1),
                P.IE_UE_IP_Address(SD=1, V6=1, spare=0x01, ipv6="fd00:45:0:7ab::5",
                                   extra_data=b"\x08"),
            ]),
            P.IE_FAR_Id(id=1),
        ]),
        far(1, {"DROP": 1}, None),
    ]),
    "sess_est_req_nofar": lambda: hdr(122, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4, P.IE_FSEID(v4=1, seid=9, ipv4="10.0.0.5"), ul_pdr()]),
    "sess_est_req_dupl": lambda: hdr(123, 0) / P.PFCPSessionEstablishmentRequest(IE_list=[
        NODE4,
        P.IE_FSEID(v4=1, seid=9, ipv4="10.0.0.5"),
        ul_pdr(),
        P.IE_CreateFAR(IE_list=[
            P.IE_FAR_Id(id=1),
            P.IE_ApplyAction(FORW=1, DUPL=1),
            P.IE_ForwardingParameters(IE_list=[P.IE_DestinationInterface(interface=1)]),
            P.IE_DuplicatingParameters(IE_list=[P.IE_DestinationInterface(interface=4)]),
        ]),
    ]),
}


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for name, make in sorted(VECTORS.items()):
        data = bytes(make())
        for path in (os.path.join(HERE, name + ".bin"), os.path.join(CORPUS, name)):
            if check:
                try:
                    with open(path, "rb") as f:
                        same = f.read() == data
                except OSError:
                    same = False
                if not same:
                    print("%s: not what make_vectors.py writes" % path, file=sys.stderr)
                    bad = 1
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
    if check and not bad:
        print("pfcp vectors: %d ok" % len(VECTORS))
    return bad


if __name__ == "__main__":
    sys.exit(main())
