#!/usr/bin/python3
"""An SMF-side PFCP (N4) peer for the lanefwd UPF tests, built only on scapy.

Every message is built and every reply decoded with scapy.contrib.pfcp
(Debian's python3-scapy), so nothing here shares code, constants or ideas
of the wire format with lanefwd's own codec. The library keeps one UDP
socket (the SMF's N4 endpoint), numbers its requests, matches responses by
sequence number, answers the UPF's Session Report Requests and keeps them
for the caller.

Rules are described with plain dicts (see pdr(), far(), qer(), urr()):

    smf = SMF(("127.0.0.1", 8805))
    smf.associate()
    r = smf.establish(cp_seid=1, pdrs=[
            pdr(1, 100, "access", teid="choose", ohr=True, far=1, qfi=9),
            pdr(2, 100, "core", ue="10.45.0.1", far=2, qers=[1], urrs=[1])],
        fars=[far(1, "FORW", dst="core"),
              far(2, "FORW", dst="access", ohc=(0x1234, "192.168.3.2"))],
        qers=[qer(1, qfi=9)], urrs=[urr(1, vol_thresh=10000)])
    assert r.cause == 1, r
    ul_teid = r.created[1]["teid"]
    smf.modify(r.up_seid, update_fars=[far(2, "FORW", dst="access",
                                            ohc=(0x5678, "192.168.3.2"))])
    d = smf.delete(r.up_seid)      # d.usage: the final usage reports

CLI (for docs/upf.md's walk-through and for poking a running lanefwd):

    upf_smf.py [--upf 127.0.0.1:8805] heartbeat
    upf_smf.py [--upf ...] demo --n3 192.168.3.1 --gnb 192.168.3.2 --ue 10.45.0.1
               [--gnb-teid 0x100] [--qfi 9] [--hold S]
"""

import argparse
import ipaddress
import select
import socket
import struct
import sys
import time

from scapy.contrib import pfcp as P

CAUSE = {1: "Request accepted", 64: "Request rejected", 65: "Session context not found",
         66: "Mandatory IE missing", 67: "Conditional IE missing", 68: "Invalid length",
         69: "Mandatory IE incorrect", 70: "Invalid Forwarding Policy",
         71: "Invalid F-TEID allocation option", 72: "No established PFCP Association",
         73: "Rule creation/modification Failure", 74: "PFCP entity in congestion",
         75: "No resources available", 76: "Service not supported",
         77: "System failure"}

IFACE = {"access": 0, "core": 1, "sgi-lan": 2, "cp": 3}

# Message types (TS 29.244 7.3).
HEARTBEAT_REQ, HEARTBEAT_RSP = 1, 2
ASSOC_SETUP_REQ, ASSOC_SETUP_RSP = 5, 6
ASSOC_UPDATE_REQ, ASSOC_UPDATE_RSP = 7, 8
ASSOC_RELEASE_REQ, ASSOC_RELEASE_RSP = 9, 10
SESS_EST_REQ, SESS_EST_RSP = 50, 51
SESS_MOD_REQ, SESS_MOD_RSP = 52, 53
SESS_DEL_REQ, SESS_DEL_RSP = 54, 55
SESS_REP_REQ, SESS_REP_RSP = 56, 57

NTP_OFFSET = 2208988800


class PFCPError(Exception):
    """No response, or a response that is not what was asked for."""


# ---------------------------------------------------------------- rules

def pdr(pid, precedence, src, far=None, teid=None, n3="", ue=None, ue6=None, ni="internet",
        qfi=None, sdf=(), ohr=False, qers=(), urrs=(), choose_id=None, pool=None, ue6_plen=None,
        te=None, framed=()):
    """A Create PDR description.

    src: "access" (uplink) or "core" (downlink). teid: an int (the local
    F-TEID the SMF assigns, with n3 the UPF's N3 address), "choose" (the UPF
    allocates; choose_id groups PDRs that share one), or None (no F-TEID).
    ue / ue6: the UE's address (source for access, destination for core), or
    "choose" (CHV4 / CHV6: the UPF allocates from the instance's ue_alloc).
    sdf: Flow Descriptions ("permit out ..."), or (flow, tos, mask) tuples
    (flow may be None for a ToS-only filter). ohr: outer header removal
    (GTP-U/UDP/IPv4; "v6" for GTP-U/UDP/IPv6). pool: a UE IP address Pool
    Identity (29.244 8.2.153) for ue / ue6 "choose". ue6_plen: ue6 is a prefix
    delegated to the UE, of this length (IPv6 Prefix Delegation Bits 64 - it).
    te: the PDI names this Traffic Endpoint (29.244 7.5.2.2) and carries no
    F-TEID, Network Instance or UE IP Address of its own. framed: Framed-Route
    texts as RADIUS writes them ("10.1.0.0/16 0.0.0.0 1"; IPv6 ones go in a
    Framed-IPv6-Route), networks behind the UE.
    """
    return {"id": pid, "precedence": precedence, "src": src, "far": far, "teid": teid,
            "n3": n3, "ue": ue, "ue6": ue6, "ni": ni, "qfi": qfi, "sdf": list(sdf),
            "ohr": ohr, "qers": list(qers), "urrs": list(urrs), "choose_id": choose_id,
            "pool": pool, "ue6_plen": ue6_plen, "te": te, "framed": list(framed)}


def te(tid, teid=None, n3="", ue=None, ue6=None, ni="internet", sd=0, framed=()):
    """A Create / Update Traffic Endpoint description (7.5.2.7): the part of
    a PDI that PDRs share by naming tid. teid, n3, ue, ue6, ni, framed as for
    pdr(); None leaves an IE out (in an Update: unchanged). sd: the UE IP
    Address's S/D flag."""
    return {"id": tid, "teid": teid, "n3": n3, "ue": ue, "ue6": ue6, "ni": ni, "sd": sd,
            "framed": list(framed)}


def _framed_ies(routes):
    return [P.IE_FramedIPv6Route(framed_ipv6_route=r.encode()) if ":" in r
            else P.IE_FramedRoute(framed_route=r.encode()) for r in routes]


def far(fid, action="FORW", dst="core", ni=None, ohc=None):
    """A Create / Update FAR description. action: "+"-joined FORW, DROP, BUFF,
    NOCP, DUPL. ohc: (teid, peer address) for GTP-U/UDP/IPv4 or IPv6 outer
    header creation."""
    return {"id": fid, "action": action, "dst": dst, "ni": ni, "ohc": ohc}


def qer(qid, gate_ul="open", gate_dl="open", mbr_ul=None, mbr_dl=None, gbr_ul=None,
        gbr_dl=None, qfi=None):
    """A Create / Update QER description; rates in kbit/s as PFCP carries them."""
    return {"id": qid, "gate_ul": gate_ul, "gate_dl": gate_dl, "mbr": (mbr_ul, mbr_dl),
            "gbr": (gbr_ul, gbr_dl), "qfi": qfi}


def urr(uid, volume=True, duration=False, vol_thresh=None, vol_quota=None, period=None,
        time_thresh=None, droth_pkts=None):
    """A Create URR description. Triggers follow from the values given
    (droth_pkts: a Dropped DL Traffic Threshold of that many packets)."""
    return {"id": uid, "volume": volume, "duration": duration, "vol_thresh": vol_thresh,
            "vol_quota": vol_quota, "period": period, "time_thresh": time_thresh,
            "droth_pkts": droth_pkts}


def _ip_ver(addr):
    return ipaddress.ip_address(addr).version


def _ue_ip_ie(ue, ue6, sd, ue6_plen=None):
    # "choose": CHV4 / CHV6 (octet 5 bits 5 and 6), which this scapy's
    # IE_UE_IP_Address has in its 5-bit spare field (bits 8..4); IPv6D (bit
    # 4) likewise, its Prefix Delegation Bits octet after the address.
    kw = {"SD": sd, "spare": 0}
    if ue6_plen is not None:
        kw["spare"] |= 0x01
        kw["extra_data"] = bytes([64 - ue6_plen])
    if ue == "choose":
        kw["spare"] |= 0x02
    elif ue is not None:
        kw.update(V4=1, ipv4=ue)
    if ue6 == "choose":
        kw["spare"] |= 0x04
    elif ue6 is not None:
        kw.update(V6=1, ipv6=ue6)
    return P.IE_UE_IP_Address(**kw)


def _sdf_ie(f):
    if isinstance(f, tuple):
        flow, tos, mask = f
    else:
        flow, tos, mask = f, None, None
    kw = {}
    if flow is not None:
        kw.update(FD=1, flow_description=flow.encode())
    if tos is not None:
        kw.update(TTC=1, tos_traffic_class=tos, tos_traffic_mask=mask)
    return P.IE_SDF_Filter(**kw)


def _fteid_ie(d):
    t = d["teid"]
    if t == "choose":
        kw = {"CH": 1, "V4": 1}
        if d.get("choose_id") is not None:
            kw.update(CHID=1, choose_id=d["choose_id"])
        return P.IE_FTEID(**kw)
    if _ip_ver(d["n3"]) == 4:
        return P.IE_FTEID(V4=1, TEID=t, ipv4=d["n3"])
    return P.IE_FTEID(V6=1, TEID=t, ipv6=d["n3"])


def _te_ies(d):
    ies = [P.IE_TrafficEndpointId(id=d["id"])]
    if d["teid"] is not None:
        ies.append(_fteid_ie(d))
    if d["ni"]:
        ies.append(P.IE_NetworkInstance(instance=d["ni"].encode()))
    if d["ue"] is not None or d["ue6"] is not None:
        ies.append(_ue_ip_ie(d["ue"], d["ue6"], d["sd"]))
    ies += _framed_ies(d.get("framed", ()))
    return ies


def _pdi(d):
    ies = [P.IE_SourceInterface(interface=IFACE[d["src"]])]
    if d.get("te") is not None:
        ies.append(P.IE_TrafficEndpointId(id=d["te"]))
    else:
        if d["teid"] is not None:
            ies.append(_fteid_ie(d))
        if d["ni"]:
            ies.append(P.IE_NetworkInstance(instance=d["ni"].encode()))
        if d["ue"] is not None or d["ue6"] is not None:
            # S/D: the address is the destination for downlink (core) PDRs.
            ies.append(_ue_ip_ie(d["ue"], d["ue6"], 1 if d["src"] != "access" else 0,
                                 d.get("ue6_plen")))
        ies += _framed_ies(d.get("framed", ()))
    for f in d["sdf"]:
        ies.append(_sdf_ie(f))
    if d["qfi"] is not None:
        ies.append(P.IE_QFI(QFI=d["qfi"]))
    return P.IE_PDI(IE_list=ies)


def _pdr_ies(d):
    ies = [P.IE_PDR_Id(id=d["id"]), P.IE_Precedence(precedence=d["precedence"]), _pdi(d)]
    if d["ohr"]:
        ies.append(P.IE_OuterHeaderRemoval(header=1 if d["ohr"] == "v6" else 0))
    if d["far"] is not None:
        ies.append(P.IE_FAR_Id(id=d["far"]))
    for u in d["urrs"]:
        ies.append(P.IE_URR_Id(id=u))
    for q in d["qers"]:
        ies.append(P.IE_QER_Id(id=q))
    if d.get("pool") is not None:
        # UE IP address Pool Identity (type 177): this scapy has no class
        # for it; a 2-octet length, then the identity.
        ident = d["pool"].encode()
        ies.append(P.IE_NotImplemented(ietype=177, data=struct.pack("!H", len(ident)) + ident))
    return ies


def _apply_action(action):
    bits = {a: 1 for a in action.split("+")}
    for a in bits:
        if a not in ("FORW", "DROP", "BUFF", "NOCP", "DUPL"):
            raise ValueError("unknown apply action " + a)
    return P.IE_ApplyAction(**bits)


def _fwd_params(d, update):
    ies = [P.IE_DestinationInterface(interface=IFACE[d["dst"]])]
    if d["ni"]:
        ies.append(P.IE_NetworkInstance(instance=d["ni"].encode()))
    if d["ohc"] is not None:
        teid, peer = d["ohc"]
        if _ip_ver(peer) == 4:
            ies.append(P.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=teid, ipv4=peer))
        else:
            ies.append(P.IE_OuterHeaderCreation(GTPUUDPIPV6=1, TEID=teid, ipv6=peer))
    cls = P.IE_UpdateForwardingParameters if update else P.IE_ForwardingParameters
    return cls(IE_list=ies)


def _far_ies(d, update=False):
    ies = [P.IE_FAR_Id(id=d["id"]), _apply_action(d["action"])]
    if "FORW" in d["action"].split("+"):
        ies.append(_fwd_params(d, update))
    return ies


GATE = {"open": 0, "closed": 1}


def _qer_ies(d):
    ies = [P.IE_QER_Id(id=d["id"]),
           P.IE_GateStatus(ul=GATE[d["gate_ul"]], dl=GATE[d["gate_dl"]])]
    if d["mbr"] != (None, None):
        ies.append(P.IE_MBR(ul=d["mbr"][0] or 0, dl=d["mbr"][1] or 0))
    if d["gbr"] != (None, None):
        ies.append(P.IE_GBR(ul=d["gbr"][0] or 0, dl=d["gbr"][1] or 0))
    if d["qfi"] is not None:
        ies.append(P.IE_QFI(QFI=d["qfi"]))
    return ies


def _urr_ies(d):
    ies = [P.IE_URR_Id(id=d["id"]),
           P.IE_MeasurementMethod(VOLUM=1 if d["volume"] else 0,
                                  DURAT=1 if d["duration"] else 0)]
    trig = {}
    if d["vol_thresh"] is not None:
        trig["volume_threshold"] = 1
    if d["vol_quota"] is not None:
        trig["volume_quota"] = 1
    if d["period"] is not None:
        trig["periodic_reporting"] = 1
    if d["time_thresh"] is not None:
        trig["time_threshold"] = 1
    if d.get("droth_pkts") is not None:
        trig["dropped_dl_traffic_threshold"] = 1
    ies.append(P.IE_ReportingTriggers(**trig))
    if d["period"] is not None:
        ies.append(P.IE_MeasurementPeriod(period=d["period"]))
    if d["vol_thresh"] is not None:
        ies.append(P.IE_VolumeThreshold(TOVOL=1, total=d["vol_thresh"]))
    if d["vol_quota"] is not None:
        ies.append(P.IE_VolumeQuota(TOVOL=1, total=d["vol_quota"]))
    if d["time_thresh"] is not None:
        ies.append(P.IE_TimeThreshold(threshold=d["time_thresh"]))
    if d.get("droth_pkts") is not None:
        ies.append(P.IE_DroppedDLTrafficThreshold(DLPA=1, packet_count=d["droth_pkts"]))
    return ies


# ---------------------------------------------------------------- replies

def volume_measurement(ie):
    """A Volume Measurement IE (8.2.50) from its raw bytes, so that the
    packet counts (TONOP/ULNOP/DLNOP, Rel-16, not in scapy 2.5's class) are
    read too: {"total", "ul", "dl", "total_pkts", "ul_pkts", "dl_pkts"} for
    the flags set."""
    raw = bytes(ie)[4:]
    flags, off, out = raw[0], 1, {}
    for bit, name in ((0, "total"), (1, "ul"), (2, "dl"), (3, "total_pkts"),
                      (4, "ul_pkts"), (5, "dl_pkts")):
        if flags & (1 << bit):
            if off + 8 > len(raw):
                raise PFCPError("Volume Measurement shorter than its flags say: " + raw.hex())
            out[name] = struct.unpack("!Q", raw[off:off + 8])[0]
            off += 8
    return out


URR_TRIGGERS = ("PERIO", "VOLTH", "TIMTH", "QUHTI", "START", "STOPT", "DROTH", "IMMER",
                "VOLQU", "TIMQU", "LIUSA", "TERMR", "MONIT", "ENVCL", "MACAR", "EVETH")


def usage_report(ie):
    """A Usage Report (any of the three) as a dict."""
    r = {"urr_id": None, "seqn": None, "trigger": set(), "volume": None, "duration": None,
         "start": None, "end": None}
    for c in ie.IE_list or []:
        if isinstance(c, P.IE_URR_Id):
            r["urr_id"] = c.id
        elif isinstance(c, P.IE_UR_SEQN):
            r["seqn"] = c.number
        elif isinstance(c, P.IE_UsageReportTrigger):
            r["trigger"] = {t for t in URR_TRIGGERS if getattr(c, t)}
        elif isinstance(c, P.IE_VolumeMeasurement):
            r["volume"] = volume_measurement(c)
        elif isinstance(c, P.IE_DurationMeasurement):
            r["duration"] = c.duration
        elif isinstance(c, P.IE_StartTime):
            r["start"] = c.timestamp
        elif isinstance(c, P.IE_EndTime):
            r["end"] = c.timestamp
    return r


class Msg:
    """A decoded PFCP message: the scapy packet and what the tests read of it."""

    def __init__(self, data, peer=None):
        self.raw = data
        self.peer = peer
        self.pkt = P.PFCP(data)
        h = self.pkt
        self.type = h.message_type
        self.seq = h.seq
        self.seid = h.seid if h.S else None
        self.ies = list(getattr(h.payload, "IE_list", None) or [])
        self.cause = None
        self.up_seid = None
        self.offending_ie = None
        self.failed_rule = None
        self.created = {}        # PDR id -> {"teid", "ipv4", "ipv6", "ue4", "ue6"}
        self.created_te = {}     # Traffic Endpoint id -> the same
        self.usage = []          # usage_report() dicts
        self.report_type = set()
        self.dl_data_pdrs = []   # PDR ids of a Downlink Data Report
        self.recovery_ts = None
        self.node_id = None
        self.up_features = None
        for ie in self.ies:
            if isinstance(ie, P.IE_Cause):
                self.cause = ie.cause
            elif isinstance(ie, P.IE_FSEID):
                self.up_seid = ie.seid
            elif isinstance(ie, P.IE_OffendingIE):
                self.offending_ie = ie.type
            elif isinstance(ie, P.IE_FailedRuleId):
                self.failed_rule = ie
            elif isinstance(ie, (P.IE_CreatedPDR, P.IE_CreatedTrafficEndpoint)):
                pid = None
                ft = {"teid": None, "ipv4": None, "ipv6": None, "ue4": None, "ue6": None}
                for c in ie.IE_list or []:
                    if isinstance(c, (P.IE_PDR_Id, P.IE_TrafficEndpointId)):
                        pid = c.id
                    elif isinstance(c, P.IE_FTEID):
                        ft.update(teid=c.TEID, ipv4=c.ipv4 if c.V4 else None,
                                  ipv6=c.ipv6 if c.V6 else None)
                    elif isinstance(c, P.IE_UE_IP_Address):
                        # The UE address / prefix the UPF chose (CHV4 / CHV6),
                        # and a delegated prefix's IPv6D bits (8.2.62: the
                        # octet after the addresses), which this scapy does
                        # not decode.
                        raw = bytes(c)
                        off = 5 + (4 if c.V4 else 0) + (16 if c.V6 else 0)
                        ft.update(ue4=c.ipv4 if c.V4 else None,
                                  ue6=c.ipv6 if c.V6 else None, ue_flags=raw[4],
                                  ue6_dbits=raw[off] if raw[4] & 0x08 and
                                  len(raw) > off else None)
                if isinstance(ie, P.IE_CreatedPDR):
                    self.created[pid] = ft
                else:
                    self.created_te[pid] = ft
            elif isinstance(ie, (P.IE_UsageReport_SMR, P.IE_UsageReport_SDR,
                                 P.IE_UsageReport_SRR)):
                self.usage.append(usage_report(ie))
            elif isinstance(ie, P.IE_ReportType):
                self.report_type = {n for n in ("DLDR", "USAR", "ERIR", "UPIR")
                                    if getattr(ie, n)}
            elif isinstance(ie, P.IE_DownlinkDataReport):
                for c in ie.IE_list or []:
                    if isinstance(c, P.IE_PDR_Id):
                        self.dl_data_pdrs.append(c.id)
            elif isinstance(ie, P.IE_RecoveryTimeStamp):
                self.recovery_ts = ie.timestamp
            elif isinstance(ie, P.IE_NodeId):
                self.node_id = ie
            elif isinstance(ie, P.IE_UPFunctionFeatures):
                self.up_features = bytes(ie)[4:]

    def __repr__(self):
        c = self.cause
        return ("<PFCP type %d seq %d seid %s cause %s%s%s>" %
                (self.type, self.seq, self.seid, c, " (%s)" % CAUSE.get(c, "?") if c else "",
                 " offending IE %s" % self.offending_ie if self.offending_ie else ""))


# ---------------------------------------------------------------- the peer

class SMF:
    """One SMF N4 endpoint talking to one UPF."""

    def __init__(self, upf=("127.0.0.1", 8805), local=("127.0.0.1", 0), node_ip=None,
                 timeout=3.0, recovery_ts=None):
        self.upf = upf
        fam = socket.AF_INET6 if ":" in upf[0] else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(local)
        self.local = self.sock.getsockname()
        self.node_ip = node_ip or self.local[0]
        self.timeout = timeout
        self.seq = 0
        self.recovery_ts = recovery_ts or int(time.time()) + NTP_OFFSET
        self.reports = []        # Session Report Requests received (Msg), in order
        self.report_cause = 1    # What we answer them with
        self.unexpected = []     # Messages that matched nothing outstanding
        self.sent = 0
        self.received = 0

    def close(self):
        self.sock.close()

    # -- low level
    def next_seq(self):
        self.seq = (self.seq + 1) & 0xFFFFFF
        return self.seq

    def send_raw(self, data):
        self.sock.sendto(data, self.upf)
        self.sent += 1

    def recv_raw(self, timeout):
        """One datagram (bytes, peer) or None after timeout seconds."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return None
        data, peer = self.sock.recvfrom(65535)
        self.received += 1
        return data, peer

    def _node_id(self):
        if _ip_ver(self.node_ip) == 4:
            return P.IE_NodeId(id_type=0, ipv4=self.node_ip)
        return P.IE_NodeId(id_type=1, ipv6=self.node_ip)

    def _fseid(self, seid):
        if _ip_ver(self.node_ip) == 4:
            return P.IE_FSEID(v4=1, seid=seid, ipv4=self.node_ip)
        return P.IE_FSEID(v6=1, seid=seid, ipv6=self.node_ip)

    def build(self, msg_cls, ies, seid=None, seq=None):
        """bytes of a request: S and SEID for session messages."""
        seq = self.next_seq() if seq is None else seq
        if seid is None:
            h = P.PFCP(version=1, S=0, seq=seq)
        else:
            h = P.PFCP(version=1, S=1, seid=seid, seq=seq)
        return bytes(h / msg_cls(IE_list=ies)), seq

    def _handle_request(self, m):
        """A request from the UPF: answer it (Session Report, Heartbeat)."""
        if m.type == SESS_REP_REQ:
            self.reports.append(m)
            rsp = P.PFCP(version=1, S=1, seid=self.cp_seid_of(m), seq=m.seq) / \
                P.PFCPSessionReportResponse(IE_list=[P.IE_Cause(cause=self.report_cause)])
            self.sock.sendto(bytes(rsp), m.peer)
            return True
        if m.type == HEARTBEAT_REQ:
            rsp = P.PFCP(version=1, S=0, seq=m.seq) / P.PFCPHeartbeatResponse(
                IE_list=[P.IE_RecoveryTimeStamp(timestamp=self.recovery_ts)])
            self.sock.sendto(bytes(rsp), m.peer)
            return True
        return False

    @staticmethod
    def cp_seid_of(m):
        return m.seid or 0

    def wait(self, seq, want_type, timeout=None):
        """The response with sequence number seq (answering UPF requests
        meanwhile)."""
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise PFCPError("no response of type %d to sequence number %d within %.1f s"
                                % (want_type, seq, self.timeout if timeout is None else timeout))
            got = self.recv_raw(left)
            if got is None:
                continue
            m = Msg(*got)
            if self._handle_request(m):
                continue
            if m.seq == seq and m.type == want_type:
                return m
            self.unexpected.append(m)

    def request(self, msg_cls, ies, want_type, seid=None, timeout=None):
        data, seq = self.build(msg_cls, ies, seid)
        self.send_raw(data)
        return self.wait(seq, want_type, timeout)

    def poll_reports(self, timeout):
        """Wait up to timeout for UPF requests (reports), answering them;
        returns the number of reports received in that time."""
        n0 = len(self.reports)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return len(self.reports) - n0
            got = self.recv_raw(left)
            if got is None:
                continue
            m = Msg(*got)
            if not self._handle_request(m):
                self.unexpected.append(m)

    # -- node messages
    def heartbeat(self, timeout=None):
        return self.request(P.PFCPHeartbeatRequest,
                            [P.IE_RecoveryTimeStamp(timestamp=self.recovery_ts)],
                            HEARTBEAT_RSP, timeout=timeout)

    def associate(self, features=None):
        ies = [self._node_id(), P.IE_RecoveryTimeStamp(timestamp=self.recovery_ts)]
        if features is not None:
            ies.append(P.IE_CPFunctionFeatures(**features))
        return self.request(P.PFCPAssociationSetupRequest, ies, ASSOC_SETUP_RSP)

    def release(self):
        return self.request(P.PFCPAssociationReleaseRequest, [self._node_id()],
                            ASSOC_RELEASE_RSP)

    # -- session messages
    def establishment_ies(self, cp_seid, pdrs, fars, qers=(), urrs=(), tes=(), bar=None):
        """bar: (BAR ID, Suggested Buffering Packets Count or None) for a Create BAR."""
        ies = [self._node_id(), self._fseid(cp_seid)]
        ies += [P.IE_CreateTrafficEndpoint(IE_list=_te_ies(d)) for d in tes]
        ies += [P.IE_CreatePDR(IE_list=_pdr_ies(d)) for d in pdrs]
        ies += [P.IE_CreateFAR(IE_list=_far_ies(d)) for d in fars]
        ies += [P.IE_CreateURR(IE_list=_urr_ies(d)) for d in urrs]
        ies += [P.IE_CreateQER(IE_list=_qer_ies(d)) for d in qers]
        if bar is not None:
            b = [P.IE_BAR_Id(id=bar[0])]
            if bar[1] is not None:
                b.append(P.IE_SuggestedBufferingPacketsCount(count=bar[1]))
            ies.append(P.IE_Create_BAR(IE_list=b))
        return ies

    def establish(self, cp_seid, pdrs, fars, qers=(), urrs=(), timeout=None, tes=(), bar=None):
        return self.request(P.PFCPSessionEstablishmentRequest,
                            self.establishment_ies(cp_seid, pdrs, fars, qers, urrs, tes, bar),
                            SESS_EST_RSP, seid=0, timeout=timeout)

    @staticmethod
    def modification_ies(create_pdrs=(), create_fars=(), create_qers=(), create_urrs=(),
                         update_pdrs=(), update_fars=(), update_qers=(), remove_pdrs=(),
                         remove_fars=(), remove_qers=(), remove_urrs=(), query_urrs=(),
                         create_tes=(), update_tes=(), remove_tes=()):
        ies = [P.IE_RemovePDR(IE_list=[P.IE_PDR_Id(id=i)]) for i in remove_pdrs]
        ies += [P.IE_RemoveTrafficEndpoint(IE_list=[P.IE_TrafficEndpointId(id=i)])
                for i in remove_tes]
        ies += [P.IE_CreateTrafficEndpoint(IE_list=_te_ies(d)) for d in create_tes]
        ies += [P.IE_UpdateTrafficEndpoint(IE_list=_te_ies(d)) for d in update_tes]
        ies += [P.IE_RemoveFAR(IE_list=[P.IE_FAR_Id(id=i)]) for i in remove_fars]
        ies += [P.IE_RemoveURR(IE_list=[P.IE_URR_Id(id=i)]) for i in remove_urrs]
        ies += [P.IE_RemoveQER(IE_list=[P.IE_QER_Id(id=i)]) for i in remove_qers]
        ies += [P.IE_CreatePDR(IE_list=_pdr_ies(d)) for d in create_pdrs]
        ies += [P.IE_CreateFAR(IE_list=_far_ies(d)) for d in create_fars]
        ies += [P.IE_CreateURR(IE_list=_urr_ies(d)) for d in create_urrs]
        ies += [P.IE_CreateQER(IE_list=_qer_ies(d)) for d in create_qers]
        ies += [P.IE_UpdatePDR(IE_list=_pdr_ies(d)) for d in update_pdrs]
        ies += [P.IE_UpdateFAR(IE_list=_far_ies(d, update=True)) for d in update_fars]
        ies += [P.IE_UpdateQER(IE_list=_qer_ies(d)) for d in update_qers]
        ies += [P.IE_QueryURR(IE_list=[P.IE_URR_Id(id=i)]) for i in query_urrs]
        return ies

    def modify(self, up_seid, timeout=None, **kw):
        return self.request(P.PFCPSessionModificationRequest, self.modification_ies(**kw),
                            SESS_MOD_RSP, seid=up_seid, timeout=timeout)

    def delete(self, up_seid, timeout=None):
        return self.request(P.PFCPSessionDeletionRequest, [], SESS_DEL_RSP, seid=up_seid,
                            timeout=timeout)


def check_accepted(m, what):
    if m.cause != 1:
        raise PFCPError("%s: %r" % (what, m))
    return m


# ---------------------------------------------------------------- CLI

def _addr(s, default_port=8805):
    host, _, port = s.rpartition(":")
    if not host:
        return (s, default_port)
    return (host.strip("[]"), int(port))


def main(argv=None):
    ap = argparse.ArgumentParser(description="SMF-side PFCP peer (scapy) for lanefwd's UPF")
    ap.add_argument("--upf", default="127.0.0.1:8805", help="the UPF's N4 address:port")
    ap.add_argument("--local", default="127.0.0.1:0", help="our address:port")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("heartbeat", help="one Heartbeat Request")
    d = sub.add_parser("demo", help="associate and set up one IPv4 PDU session")
    d.add_argument("--n3", required=True, help="the UPF's N3 address (the uplink F-TEID's)")
    d.add_argument("--gnb", required=True, help="the gNB's N3 address")
    d.add_argument("--ue", required=True, help="the UE's IPv4 address")
    d.add_argument("--gnb-teid", type=lambda s: int(s, 0), default=0x100)
    d.add_argument("--ul-teid", type=lambda s: int(s, 0), default=None,
                   help="uplink TEID (default: CHOOSE, the UPF allocates)")
    d.add_argument("--qfi", type=int, default=9)
    d.add_argument("--ni", default="internet")
    d.add_argument("--hold", type=float, default=0.0,
                   help="seconds to keep the session (answering reports), then delete it")
    a = ap.parse_args(argv)
    smf = SMF(_addr(a.upf), _addr(a.local, 0))
    if a.cmd == "heartbeat":
        print(smf.heartbeat())
        return 0
    print("association:", check_accepted(smf.associate(), "Association Setup"))
    ul_teid = "choose" if a.ul_teid is None else a.ul_teid
    r = smf.establish(1, pdrs=[
        pdr(1, 200, "access", far=1, teid=ul_teid, n3=a.n3, ue=a.ue, ni=a.ni, qfi=a.qfi,
            ohr=True, urrs=[1], qers=[1]),
        pdr(2, 200, "core", far=2, ue=a.ue, ni=a.ni, urrs=[1], qers=[1])],
        fars=[far(1, "FORW", "core", ni=a.ni),
              far(2, "FORW", "access", ohc=(a.gnb_teid, a.gnb))],
        qers=[qer(1, qfi=a.qfi)], urrs=[urr(1)])
    check_accepted(r, "Session Establishment")
    teid = r.created.get(1, {}).get("teid") if a.ul_teid is None else a.ul_teid
    print("session: UP SEID 0x%x, uplink TEID 0x%x, downlink to %s TEID 0x%x, QFI %d" %
          (r.up_seid, teid, a.gnb, a.gnb_teid, a.qfi))
    if a.hold > 0:
        smf.poll_reports(a.hold)
        for m in smf.reports:
            print("report:", m, m.usage)
        dm = check_accepted(smf.delete(r.up_seid), "Session Deletion")
        print("deleted; usage:", dm.usage)
    return 0


if __name__ == "__main__":
    sys.exit(main())
