#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""SMF side of the UPF benchmark: associate with lanefwd's N4 (PFCP) address,
establish one session per UE as fast as lanefwd accepts them, report
establishments per second.

    bench/upf_sessions.py --sessions 100000                  # 1 PDR per direction
    bench/upf_sessions.py --sessions 100000 --pdrs 4 --json est.json
    bench/upf_sessions.py --sessions 1000 --delete --release # and tear them down

Session s (0 <= s < --sessions) is exactly what `lanefwd-gen --gtpu-ul N` /
`--gtpu-dl N` sends and expects with the same options (docs/generator.md):

  UE address      --ue-ip + s (IPv6: the /64 prefix + s, bits 32-63)
  uplink PDR      source ACCESS, local F-TEID --teid-base + s at --n3-ip,
                  network instance, UE address (source), QFI --qfi;
                  outer header removal (GTP-U/UDP/IP); FAR 1, QER 1
  FAR 1           FORW to CORE, network instance
  downlink PDR    source CORE, network instance, UE address (destination);
                  FAR 2, QER 1
  FAR 2           FORW to ACCESS with outer header creation GTP-U/UDP/IP to
                  the gNB F-TEID: TEID --gnb-teid-base + s (default
                  --teid-base) at --gnb-ip + s % --gnb-ips
  QER 1           gates open, QFI --qfi (marked on the downlink)

--pdrs P gives each direction P PDRs: the one above at precedence 255 (the
catch-all) and P - 1 before it (precedence 100, 101, ...) with an SDF filter
each that the generator's default traffic does not match (other remote
ports, or TCP), so every packet is checked against all of them and taken
by the last, the worst case for a linear scan. Extra PDRs point at the same
FAR and QER. --urr adds a volume-measuring URR (no reporting trigger) to
every PDR.

--choose lets lanefwd allocate instead (TS 29.244 5.21.3, 5.5.3): every
uplink PDR's F-TEID is CHOOSE with one CHOOSE ID (one TEID per session) and
every PDR's UE IP Address is CHV4 / CHV6 (one address per session, from the
network instance's ue_alloc). The script then checks that session s was
given TEID --teid-base + s and UE --ue-ip + s, what lanefwd-gen sends with
the same options: on a fresh lanefwd whose ue_alloc starts at --ue-ip's
prefix, with --teid-base 1073741824 (0x40000000, the first TEID its
allocator gives), and requests answered in the order sent. A session given
anything else counts as not accepted.

Messages follow TS 29.244 and are made with scapy's classes
(scapy.contrib.pfcp) once, as a template; each session's request is the
template's bytes with the sequence number, CP SEID, TEIDs and UE addresses
patched in at their offsets (found by building the template with marker
values). Requests are pipelined: up to --window are outstanding at once,
answered ones are replaced at once, and an unanswered one is sent again
after --t1 seconds (lanefwd answers a retransmission from its response
cache), at most --n1 times. Responses are parsed from their bytes (Cause,
UP F-SEID). Requests lanefwd sends to us meanwhile (Heartbeat, Session
Report) are answered.

Output: one line per phase with the count accepted, the rate, the request
round-trip percentiles and this process's CPU share (near 100% means the
script, not lanefwd, set the pace); --json FILE writes the same. Exit
status 0 when every request was accepted, 1 otherwise, 2 for bad options.
"""

import argparse
import ipaddress
import json
import logging
import select
import socket
import struct
import sys
import time

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.contrib import pfcp as P  # noqa: E402

# Message types (TS 29.244 7.3).
HEARTBEAT_REQ, HEARTBEAT_RSP = 1, 2
ASSOC_SETUP_REQ, ASSOC_SETUP_RSP = 5, 6
ASSOC_RELEASE_REQ, ASSOC_RELEASE_RSP = 9, 10
SESS_EST_REQ, SESS_EST_RSP = 50, 51
SESS_DEL_REQ, SESS_DEL_RSP = 54, 55
SESS_REPORT_REQ, SESS_REPORT_RSP = 56, 57
# IE types (8.1.2).
IE_CAUSE, IE_FSEID, IE_NODE_ID, IE_RECOVERY, IE_UP_FEATURES = 19, 57, 60, 96, 43
IE_CREATED_PDR, IE_PDR_ID, IE_FTEID, IE_UE_IP = 8, 56, 21, 93
CAUSE_ACCEPTED = 1
CAUSES = {1: "accepted", 64: "rejected", 65: "session context not found",
          66: "mandatory IE missing", 67: "conditional IE missing", 68: "invalid length",
          69: "mandatory IE incorrect", 72: "no established PFCP association",
          73: "rule creation/modification failure", 74: "PFCP entity in congestion",
          75: "no resources available", 77: "system failure"}
NTP_OFFSET = 2208988800  # 1900-01-01 to 1970-01-01, for the Recovery Time Stamp.

# Marker values: unique byte patterns located in the template's bytes.
M_CP_SEID = 0xE1E2E3E4E5E6E7E8
M_TEID = 0xA1A2A3A4
M_GNB_TEID = 0xC1C2C3C4
M_UE4 = "209.210.211.212"
M_UE6 = "d1d2:d3d4:d5d6:d7d8:d9da:dbdc:dddf:d0d1"
M_GNB4 = "197.198.199.190"
M_GNB6 = "b1b2:b3b4:b5b6:b7b8:b9ba:bbbc:bdbe:bfb0"


def die(msg):
    print("upf_sessions: " + msg, file=sys.stderr)
    sys.exit(2)


def header(seq, seid=None):
    """A PFCP header (TS 29.244 7.2.2): with SEID for session messages."""
    if seid is None:
        return P.PFCP(version=1, S=0, seq=seq)
    return P.PFCP(version=1, S=1, seid=seid, seq=seq)


def node_id(addr):
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        return P.IE_NodeId(id_type=0, ipv4=str(ip))
    return P.IE_NodeId(id_type=1, ipv6=str(ip))


def recovery_ts():
    return P.IE_RecoveryTimeStamp(timestamp=(int(time.time()) + NTP_OFFSET) & 0xFFFFFFFF)


def ue_ie(a, sd):
    """UE IP Address (8.2.62) with the marker address; sd 0 source, 1 destination."""
    if a.choose:
        # CHV4 / CHV6 (octet 5 bits 5 and 6), which this scapy's
        # IE_UE_IP_Address has in its 5-bit spare field (bits 8..4).
        return P.IE_UE_IP_Address(SD=sd, spare=0x02 if a.ue_family == 4 else 0x04)
    if a.ue_family == 4:
        return P.IE_UE_IP_Address(V4=1, SD=sd, ipv4=M_UE4)
    return P.IE_UE_IP_Address(V6=1, SD=sd, ipv6=M_UE6)


def extra_sdf(k):
    """The SDF of extra PDR k (1..): never matched by lanefwd-gen's defaults
    (UDP to remote port 5001 uplink; UDP from low source ports downlink)."""
    if k % 2:
        return "permit out 6 from any %d to assigned" % (8000 + k)
    lo = 6000 + 100 * k
    return "permit out 17 from any %d-%d to assigned" % (lo, lo + 99)


def session_template(a):
    """The Session Establishment Request of the marker session, as bytes."""
    ni = [P.IE_NetworkInstance(instance=a.network_instance)] if a.network_instance else []
    qer = [P.IE_QER_Id(id=1)]
    urr = [P.IE_URR_Id(id=1)] if a.urr else []
    if a.choose:
        # One CHOOSE ID: the session's uplink PDRs share one F-TEID.
        fteid = P.IE_FTEID(CH=1, CHID=1, V4=int(a.n3_family == 4), V6=int(a.n3_family == 6),
                           choose_id=1)
    elif a.n3_family == 4:
        fteid = P.IE_FTEID(V4=1, TEID=M_TEID, ipv4=str(a.n3_ip))
    else:
        fteid = P.IE_FTEID(V6=1, TEID=M_TEID, ipv6=str(a.n3_ip))
    if a.n3_family == 4:
        ohc = P.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=M_GNB_TEID, ipv4=M_GNB4)
    else:
        ohc = P.IE_OuterHeaderCreation(GTPUUDPIPV6=1, TEID=M_GNB_TEID, ipv6=M_GNB6)
    # Outer Header Removal (8.2.64): 0 GTP-U/UDP/IPv4, 1 GTP-U/UDP/IPv6.
    ohr = P.IE_OuterHeaderRemoval(header=0 if a.n3_family == 4 else 1)
    pdrs = []
    pdr_id = 1
    for direction in ("ul", "dl"):
        for k in range(a.pdrs):
            last = k == a.pdrs - 1
            pdi = [P.IE_SourceInterface(interface=0 if direction == "ul" else 1)]
            if direction == "ul":
                pdi.append(fteid)
            pdi += ni
            pdi.append(ue_ie(a, 0 if direction == "ul" else 1))
            if not last:
                pdi.append(P.IE_SDF_Filter(FD=1, flow_description=extra_sdf(k + 1)))
            if direction == "ul":
                pdi.append(P.IE_QFI(QFI=a.qfi))
            ies = [P.IE_PDR_Id(id=pdr_id),
                   P.IE_Precedence(precedence=255 if last else 100 + k),
                   P.IE_PDI(IE_list=pdi)]
            if direction == "ul":
                ies.append(ohr)
            ies += [P.IE_FAR_Id(id=1 if direction == "ul" else 2)] + qer + urr
            pdrs.append(P.IE_CreatePDR(IE_list=ies))
            pdr_id += 1
    fars = [
        P.IE_CreateFAR(IE_list=[
            P.IE_FAR_Id(id=1), P.IE_ApplyAction(FORW=1),
            P.IE_ForwardingParameters(IE_list=[P.IE_DestinationInterface(interface=1)] + ni)]),
        P.IE_CreateFAR(IE_list=[
            P.IE_FAR_Id(id=2), P.IE_ApplyAction(FORW=1),
            P.IE_ForwardingParameters(IE_list=[P.IE_DestinationInterface(interface=0)] + ni +
                                      [ohc])]),
    ]
    qers = [P.IE_CreateQER(IE_list=[P.IE_QER_Id(id=1), P.IE_GateStatus(ul="OPEN", dl="OPEN"),
                                    P.IE_QFI(QFI=a.qfi)])]
    urrs = []
    if a.urr:
        # Measurement only: Reporting Triggers is mandatory (7.5.2.4), none set
        # (usage is reported in the Session Deletion Response).
        urrs = [P.IE_CreateURR(IE_list=[P.IE_URR_Id(id=1), P.IE_MeasurementMethod(VOLUM=1),
                                        P.IE_ReportingTriggers()])]
    cp = ipaddress.ip_address(a.local_ip)
    fseid = (P.IE_FSEID(v4=1, seid=M_CP_SEID, ipv4=str(cp)) if cp.version == 4 else
             P.IE_FSEID(v6=1, seid=M_CP_SEID, ipv6=str(cp)))
    msg = header(0, 0) / P.PFCPSessionEstablishmentRequest(
        IE_list=[node_id(a.node_id), fseid] + pdrs + fars + qers + urrs +
        [P.IE_PDNType(pdn_type=1 if a.ue_family == 4 else 2)])
    return bytes(msg)


def find_all(buf, pat):
    out, i = [], buf.find(pat)
    while i >= 0:
        out.append(i)
        i = buf.find(pat, i + 1)
    return out


class Template:
    """A request's bytes and where each per-session field sits in them."""

    def __init__(self, a):
        self.raw = session_template(a)
        b = self.raw
        self.ue_len = 4 if a.ue_family == 4 else 16
        ue_m = ipaddress.ip_address(M_UE4 if a.ue_family == 4 else M_UE6).packed
        gnb_m = ipaddress.ip_address(M_GNB4 if a.n3_family == 4 else M_GNB6).packed
        self.seid = find_all(b, struct.pack("!Q", M_CP_SEID))
        self.teid = find_all(b, struct.pack("!I", M_TEID))
        self.gnb_teid = find_all(b, struct.pack("!I", M_GNB_TEID))
        self.ue = find_all(b, ue_m)
        self.gnb = find_all(b, gnb_m)
        # Every field exactly where the message has it: one F-SEID, one F-TEID
        # per uplink PDR, one UE address per PDR, one outer header creation
        # (with --choose no F-TEID or UE address: lanefwd's to give).
        want = (1, 0 if a.choose else a.pdrs, 1, 0 if a.choose else 2 * a.pdrs, 1)
        got = tuple(len(x) for x in (self.seid, self.teid, self.gnb_teid, self.ue, self.gnb))
        if got != want:
            raise RuntimeError("template markers found %r times, expected %r" % (got, want))
        self.ue_base = int(ipaddress.ip_address(a.ue_ip))
        self.gnb_base = int(ipaddress.ip_address(a.gnb_ip))
        self.gnb_len = len(gnb_m)
        self.a = a

    def ue_bytes(self, s):
        if self.ue_len == 4:
            return (self.ue_base + s).to_bytes(4, "big")
        return (self.ue_base + (s << 64)).to_bytes(16, "big")

    def build(self, s, seq):
        """The request of session s with sequence number seq."""
        a = self.a
        m = bytearray(self.raw)
        m[12:15] = seq.to_bytes(3, "big")
        for o in self.seid:
            struct.pack_into("!Q", m, o, a.cp_seid_base + s)
        for o in self.teid:
            struct.pack_into("!I", m, o, a.teid_base + s)
        for o in self.gnb_teid:
            struct.pack_into("!I", m, o, a.gnb_teid_base + s)
        ue = self.ue_bytes(s)
        for o in self.ue:
            m[o:o + self.ue_len] = ue
        gnb = (self.gnb_base + s % a.gnb_ips).to_bytes(self.gnb_len, "big")
        for o in self.gnb:
            m[o:o + self.gnb_len] = gnb
        return m


def tlvs(b, off, end):
    """(type, value bytes) of the IEs in b[off:end]; None last if one overruns."""
    while off + 4 <= end:
        t, n = struct.unpack_from("!HH", b, off)
        if off + 4 + n > end:
            yield None
            return
        yield t, bytes(b[off + 4:off + 4 + n])
        off += 4 + n


def parse_msg(b):
    """(type, seid or None, seq, {ie type: first value}, [Created PDR values])
    of a PFCP message's bytes."""
    if len(b) < 8 or b[0] >> 5 != 1:
        return None
    mtype = b[1]
    length = struct.unpack_from("!H", b, 2)[0] + 4
    if length > len(b):
        return None
    if b[0] & 1:
        if length < 16:
            return None
        seid = struct.unpack_from("!Q", b, 4)[0]
        seq = int.from_bytes(b[12:15], "big")
        off = 16
    else:
        seid = None
        seq = int.from_bytes(b[4:7], "big")
        off = 8
    ies, created = {}, []
    for ie in tlvs(b, off, length):
        if ie is None:
            return None
        ies.setdefault(ie[0], ie[1])
        if ie[0] == IE_CREATED_PDR:
            created.append(ie[1])
    return mtype, seid, seq, ies, created


def created_pdrs(created):
    """{PDR ID: (TEID or None, UE IPv4 address or IPv6 /64 bytes or None)} of
    a response's Created PDR IEs (7.5.3.2; parse_msg's last item)."""
    out = {}
    for body in created:
        pid, teid, ue = None, None, None
        for ie in tlvs(body, 0, len(body)):
            if ie is None:
                break
            t, v = ie
            if t == IE_PDR_ID and len(v) >= 2:
                pid = struct.unpack_from("!H", v)[0]
            elif t == IE_FTEID and len(v) >= 5:
                teid = struct.unpack_from("!I", v, 1)[0]
            elif t == IE_UE_IP and len(v) >= 5:
                # Flags, then IPv4 (V4, bit 2) before IPv6 (V6, bit 1);
                # of an IPv6 address the /64 prefix, what is allocated.
                ue = v[1:5] if v[0] & 0x02 else v[1:9]
        out[pid] = (teid, ue)
    return out


def percentile(sorted_vals, q):
    if not sorted_vals:
        return 0.0
    return sorted_vals[min(len(sorted_vals) - 1, int(q * len(sorted_vals)))]


class Peer:
    """The SMF end of one N4 association, over one UDP socket."""

    def __init__(self, a):
        fam = socket.AF_INET if ipaddress.ip_address(a.n4).version == 4 else socket.AF_INET6
        self.sock = socket.socket(fam, socket.SOCK_DGRAM)
        for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
            self.sock.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
        self.sock.bind((a.local or ("0.0.0.0" if fam == socket.AF_INET else "::"), a.local_port))
        self.sock.connect((a.n4, a.port))
        self.sock.setblocking(False)
        a.local_ip = a.local or self.sock.getsockname()[0]
        if a.node_id is None:
            a.node_id = a.local_ip
        self.a = a
        self.seq = 1
        self.answered_requests = 0

    def next_seq(self):
        s = self.seq
        self.seq = self.seq + 1 if self.seq < 0xFFFFFF else 1
        return s

    def serve(self, msg, b):
        """Answer a request lanefwd sent us (Heartbeat, Session Report)."""
        mtype, seid, seq, _, _ = msg
        if mtype == HEARTBEAT_REQ:
            rsp = bytes(header(seq) / P.PFCPHeartbeatResponse(IE_list=[recovery_ts()]))
        elif mtype == SESS_REPORT_REQ:
            rsp = bytes(header(seq, seid) / P.PFCPSessionReportResponse(
                IE_list=[P.IE_Cause(cause=CAUSE_ACCEPTED)]))
        else:
            return
        self.sock.send(rsp)
        self.answered_requests += 1

    def recv_all(self, timeout):
        """Responses received within timeout (at least one wait), requests answered."""
        out = []
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return out
        while True:
            try:
                b = self.sock.recv(65535)
            except BlockingIOError:
                return out
            msg = parse_msg(b)
            if msg is None:
                continue
            if msg[0] in (HEARTBEAT_REQ, SESS_REPORT_REQ):
                self.serve(msg, b)
                continue
            out.append(msg)

    def transact(self, make, want_type, what):
        """One node request (make(seq) -> message), waited for with
        retransmissions; its parsed response."""
        a = self.a
        seq = self.next_seq()
        req = bytes(make(seq))
        for _ in range(a.n1 + 1):
            self.sock.send(req)
            deadline = time.monotonic() + a.t1
            while time.monotonic() < deadline:
                for msg in self.recv_all(max(0.0, deadline - time.monotonic())):
                    if msg[0] == want_type and msg[2] == seq:
                        return msg
        die("%s: no answer from %s:%d after %d tries (is lanefwd's [upf] pfcp_addr "
            "this address?)" % (what, a.n4, a.port, a.n1 + 1))

    def pipeline(self, n, build, want_type, what, on_answer):
        """Send n requests (build(i, seq) -> bytes), at most --window outstanding.
        on_answer(i, msg) returns whether request i was accepted. Returns stats."""
        a = self.a
        pending = {}  # seq -> [i, bytes, first send time, last send time, tries]
        nxt = 0
        accepted = 0
        causes = {}
        rtts = []
        retrans = 0
        cpu0, t0 = time.process_time(), time.perf_counter()
        t_prog, n_prog = t0 + 1.0, 0
        oldest_check = t0
        while nxt < n or pending:
            while nxt < n and len(pending) < a.window:
                seq = self.next_seq()
                req = build(nxt, seq)
                now = time.perf_counter()
                try:
                    self.sock.send(req)
                except BlockingIOError:
                    break
                pending[seq] = [nxt, req, now, now, 1]
                nxt += 1
            for msg in self.recv_all(0.0 if (nxt < n and len(pending) < a.window) else 0.05):
                mtype, _, seq, ies, _ = msg
                p = pending.pop(seq, None)
                if p is None or mtype != want_type:
                    continue  # a late answer to a retransmitted request
                rtts.append(time.perf_counter() - p[2])
                if on_answer(p[0], msg):
                    accepted += 1
                c = ies.get(IE_CAUSE, b"\0")[0]
                causes[c] = causes.get(c, 0) + 1
            now = time.perf_counter()
            if now >= t_prog and not a.quiet:
                print("upf_sessions: %s: %.0f s: %d answered, %.0f/s in the last second" % (
                    what, now - t0, len(rtts), (len(rtts) - n_prog) / (now - t_prog + 1.0)))
                sys.stdout.flush()
                t_prog, n_prog = now + 1.0, len(rtts)
            if now - oldest_check < 0.1:
                continue
            oldest_check = now
            for seq, p in list(pending.items()):
                if now - p[3] < a.t1:
                    continue
                if p[4] > a.n1:
                    pending.pop(seq)
                    causes[-1] = causes.get(-1, 0) + 1
                    continue
                try:
                    self.sock.send(p[1])
                except BlockingIOError:
                    break
                p[3] = now
                p[4] += 1
                retrans += 1
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        rtts.sort()
        return {
            "phase": what, "requests": n, "accepted": accepted,
            "rate_per_s": accepted / wall if wall > 0 else 0.0, "seconds": wall,
            "rtt_ms": {"p50": percentile(rtts, 0.5) * 1e3, "p90": percentile(rtts, 0.9) * 1e3,
                       "p99": percentile(rtts, 0.99) * 1e3,
                       "max": (rtts[-1] if rtts else 0.0) * 1e3},
            "retransmissions": retrans, "client_cpu_share": cpu / wall if wall > 0 else 0.0,
            "causes": {("no answer" if c < 0 else CAUSES.get(c, str(c))): k
                       for c, k in sorted(causes.items())},
        }


def report(st):
    print("upf_sessions: %-12s %d/%d accepted in %.3f s: %.0f/s; round trip p50 %.2f "
          "p90 %.2f p99 %.2f max %.2f ms; %d retransmitted; client CPU %.0f%%%s" % (
              st["phase"], st["accepted"], st["requests"], st["seconds"], st["rate_per_s"],
              st["rtt_ms"]["p50"], st["rtt_ms"]["p90"], st["rtt_ms"]["p99"],
              st["rtt_ms"]["max"], st["retransmissions"], 100 * st["client_cpu_share"],
              "" if st["accepted"] == st["requests"] else "; causes %s" % st["causes"]))
    sys.stdout.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("--n4", default="127.0.0.1", help="lanefwd's [upf] pfcp_addr (127.0.0.1)")
    ap.add_argument("--port", type=int, default=8805, help="its pfcp_port (8805)")
    ap.add_argument("--local", help="our address (default: the one the system picks)")
    ap.add_argument("--local-port", type=int, default=0, help="our UDP port (any)")
    ap.add_argument("--node-id", help="our Node ID (default: our address)")
    ap.add_argument("--sessions", type=int, default=1000, help="sessions, one per UE (1000)")
    ap.add_argument("--pdrs", type=int, default=1,
                    help="PDRs per direction per session, 1-16 (1); extra ones have SDFs")
    ap.add_argument("--urr", action="store_true", help="a volume URR on every PDR")
    ap.add_argument("--ue-ip", default="10.45.0.1", help="first UE (10.45.0.1); IPv6: /64s")
    ap.add_argument("--n3-ip", default="192.168.3.1", help="lanefwd's N3 address")
    ap.add_argument("--gnb-ip", help="first gNB (192.168.3.2 or fd00:3::2)")
    ap.add_argument("--gnb-ips", type=int, default=1, help="gNB addresses (1)")
    ap.add_argument("--teid-base", type=int, default=1, help="uplink F-TEID of session 0 (1)")
    ap.add_argument("--gnb-teid-base", type=int, help="downlink (gNB) TEID of session 0 "
                    "(default --teid-base, as lanefwd-gen expects)")
    ap.add_argument("--choose", action="store_true",
                    help="lanefwd allocates the F-TEIDs and UE addresses (CHOOSE, CHV4/CHV6) "
                    "and they are checked against --teid-base + s and --ue-ip + s")
    ap.add_argument("--qfi", type=int, default=9, help="QFI (9)")
    ap.add_argument("--network-instance", default="internet",
                    help="Network Instance ('internet'; '' for none)")
    ap.add_argument("--cp-seid-base", type=int, default=1, help="our SEID of session 0 (1)")
    ap.add_argument("--window", type=int, default=256, help="outstanding requests (256)")
    ap.add_argument("--t1", type=float, default=3.0, help="retransmission timer, s (3)")
    ap.add_argument("--n1", type=int, default=3, help="retransmissions at most (3)")
    ap.add_argument("--delete", action="store_true",
                    help="then delete every session (pipelined too), reported as a phase")
    ap.add_argument("--release", action="store_true", help="then release the association")
    ap.add_argument("--no-setup", action="store_true",
                    help="no Association Setup (one exists from an earlier run)")
    ap.add_argument("--json", help="write the figures to FILE ('-': stdout)")
    ap.add_argument("--quiet", action="store_true", help="no progress line each second")
    a = ap.parse_args(argv)
    try:
        a.ue_ip = ipaddress.ip_address(a.ue_ip)
        a.n3_ip = ipaddress.ip_address(a.n3_ip)
        if a.gnb_ip is None:
            a.gnb_ip = "192.168.3.2" if a.n3_ip.version == 4 else "fd00:3::2"
        a.gnb_ip = ipaddress.ip_address(a.gnb_ip)
        ipaddress.ip_address(a.n4)
    except ValueError as e:
        die(str(e))
    a.ue_family, a.n3_family = a.ue_ip.version, a.n3_ip.version
    if a.gnb_ip.version != a.n3_family:
        die("--gnb-ip %s: not the family of --n3-ip %s" % (a.gnb_ip, a.n3_ip))
    if a.gnb_teid_base is None:
        a.gnb_teid_base = a.teid_base
    if not 1 <= a.sessions <= 1 << 24:
        die("--sessions %d: allowed 1-%d" % (a.sessions, 1 << 24))
    if not 1 <= a.pdrs <= 16:
        die("--pdrs %d: allowed 1-16" % a.pdrs)
    if not 0 <= a.qfi <= 63:
        die("--qfi %d: allowed 0-63" % a.qfi)
    if not 1 <= a.gnb_ips <= a.sessions:
        die("--gnb-ips %d: allowed 1 to --sessions" % a.gnb_ips)
    for name, base in (("--teid-base", a.teid_base), ("--gnb-teid-base", a.gnb_teid_base)):
        if not 1 <= base or base + a.sessions - 1 > 0xFFFFFFFF:
            die("%s %d with %d sessions: TEIDs must be 1-4294967295" % (name, base, a.sessions))
    if not 1 <= a.window <= 1 << 20:
        die("--window %d: allowed 1-%d" % (a.window, 1 << 20))
    if a.ue_family == 4 and int(a.ue_ip) + a.sessions - 1 > 0xFFFFFFFF:
        die("--ue-ip %s with %d sessions: past 255.255.255.255" % (a.ue_ip, a.sessions))
    return a


def main(argv):
    a = parse_args(argv)
    peer = Peer(a)
    tmpl = Template(a)
    out = {"n4": "%s:%d" % (a.n4, a.port), "sessions": a.sessions, "pdrs_per_direction": a.pdrs,
           "urr": a.urr, "window": a.window, "request_bytes": len(tmpl.raw), "phases": []}
    ok = True

    if not a.no_setup:
        msg = peer.transact(lambda seq: header(seq) / P.PFCPAssociationSetupRequest(
            IE_list=[node_id(a.node_id), recovery_ts()]), ASSOC_SETUP_RSP, "Association Setup")
        cause = msg[3].get(IE_CAUSE, b"\0")[0]
        feat = msg[3].get(IE_UP_FEATURES, b"")
        print("upf_sessions: associated with %s:%d: cause %d (%s), UP Function Features %s" % (
            a.n4, a.port, cause, CAUSES.get(cause, "?"), feat.hex() or "none"))
        out["association"] = {"cause": cause, "up_function_features": feat.hex()}
        if cause != CAUSE_ACCEPTED:
            die("Association Setup refused")

    up_seid = [0] * a.sessions

    unexpected = []

    def est_answer(i, msg):
        ies = msg[3]
        if ies.get(IE_CAUSE, b"\0")[0] != CAUSE_ACCEPTED or IE_FSEID not in ies:
            return False
        up_seid[i] = struct.unpack_from("!Q", ies[IE_FSEID], 1)[0]
        if a.choose:
            # PDR IDs 1..P are the uplink's, P+1..2P the downlink's.
            got = created_pdrs(msg[4])
            ue = tmpl.ue_bytes(i)[:8]
            want = {pid: (a.teid_base + i if pid <= a.pdrs else None, ue)
                    for pid in range(1, 2 * a.pdrs + 1)}
            if got != want:
                unexpected.append((i, got, want))
                return False
        return True

    st = peer.pipeline(a.sessions, tmpl.build, SESS_EST_RSP, "establish", est_answer)
    report(st)
    if unexpected:
        i, got, want = unexpected[0]
        print("upf_sessions: %d sessions given other TEIDs or UE addresses than lanefwd-gen "
              "sends; the first, session %d: {PDR ID: (TEID, UE)} %r, expected %r" % (
                  len(unexpected), i, got, want))
        st["unexpected"] = len(unexpected)
    out["phases"].append(st)
    ok &= st["accepted"] == a.sessions

    if a.delete:
        hdr_del = bytearray(bytes(header(0, 0) / P.PFCPSessionDeletionRequest()))

        def build_del(i, seq):
            m = bytearray(hdr_del)
            struct.pack_into("!Q", m, 4, up_seid[i])
            m[12:15] = seq.to_bytes(3, "big")
            return m

        def del_answer(i, msg):
            return msg[3].get(IE_CAUSE, b"\0")[0] == CAUSE_ACCEPTED

        st = peer.pipeline(a.sessions, build_del, SESS_DEL_RSP, "delete", del_answer)
        report(st)
        out["phases"].append(st)
        ok &= st["accepted"] == a.sessions

    if a.release:
        msg = peer.transact(lambda seq: header(seq) / P.PFCPAssociationReleaseRequest(
            IE_list=[node_id(a.node_id)]), ASSOC_RELEASE_RSP, "Association Release")
        cause = msg[3].get(IE_CAUSE, b"\0")[0]
        print("upf_sessions: association released: cause %d (%s)" % (cause,
                                                                    CAUSES.get(cause, "?")))
        out["release_cause"] = cause
        ok &= cause == CAUSE_ACCEPTED
    out["answered_upf_requests"] = peer.answered_requests
    if a.json:
        text = json.dumps(out, indent=2) + "\n"
        if a.json == "-":
            sys.stdout.write(text)
        else:
            with open(a.json, "w") as f:
                f.write(text)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as e:
        print("upf_sessions: %s" % e, file=sys.stderr)
        sys.exit(1)
