#!/usr/bin/python3
"""Traffic, SMF and checks of the UPF integration tests (upf_*.sh).

  upf.py e2e     PFCP association and sessions (every message lanefwd sends
                 decoded by tshark), uplink decapsulation and downlink
                 encapsulation byte for byte against scapy, dual stack, GTP-U
                 Echo, UE to UE and loops, FAR DROP / BUFF / NOCP, QER gates
                 and MBR, URR counts and reports, collisions, Recovery Time
                 Stamp purge, Error Indication
  upf.py rules   PDR precedence and SDF first match against a linear scan
  upf.py bad     malformed PFCP and GTP-U
  upf.py churn   session churn while downlink traffic flows
  upf.py final DIR   lanefwd's final counter line against the last telemetry

upf_lib.sh sets the topology up, starts lanefwd and passes the names in the
environment (UPF_*). Frames are sent whole from the namespaces through
AF_PACKET sockets and captured there with dumpcap; lanefwd's counters are
read from its telemetry socket (the protocol dpdk-telemetry.py speaks). The
references are scapy's (scapy.layers.inet, scapy.contrib.gtp) and the PFCP
peer is upf_smf.py (scapy.contrib.pfcp): nothing here shares code with
lanefwd.

Each step snapshots the counters before and after, and every counter that
the step does not expect to move must not move.
"""

import bisect
import ctypes
import ipaddress
import json
import multiprocessing
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402
from lftest import CheckError, check  # noqa: E402

from scapy.all import ICMP, IP, TCP, UDP, Ether, IPv6, Raw, ICMPv6EchoRequest  # noqa: E402
from scapy.contrib.gtp import (GTP_U_Header, GTPPDUSessionContainer,  # noqa: E402
                               GTPEchoRequest)
import upf_smf  # noqa: E402
from upf_smf import SMF, far, pdr, qer, te, urr  # noqa: E402

N3_4, N3_6 = "192.168.3.1", "fd00:3::1"
GNB_4, GNB_6 = "192.168.3.2", "fd00:3::2"
DN_4, DN_6 = "198.51.100.10", "2001:db8:6::10"
N9_PEER = "198.51.100.200"   # a peer UPF behind N6 (uplink FARs with outer header creation)
NI = "internet"

UPF_DROPS = ["gtpu_malformed", "gtpu_version", "gtpu_ext_unknown", "gtpu_not_gpdu",
             "inner_malformed", "unknown_teid", "unknown_ue", "no_pdr", "far_drop",
             "gate_closed", "mbr_exceeded", "buffer_full", "not_local", "loop", "no_headroom"]

E = os.environ


# ------------------------------------------------------------------ plumbing

def env(name):
    v = E.get(name)
    if v is None:
        raise SystemExit("upf.py: %s is not set (run through upf_lib.sh)" % name)
    return v


class Tel:
    """lanefwd's telemetry socket (the protocol of DPDK's dpdk-telemetry.py)."""

    def __init__(self, prefix):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        self.max = json.loads(self.s.recv(1 << 16).decode())["max_output_len"]

    def __call__(self, cmd):
        self.s.send(cmd.encode())
        d = json.loads(self.s.recv(self.max).decode())
        return d[cmd.split(",")[0]]


CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL("libc.so.6", use_errno=True)


def in_netns(ns, fn):
    """fn() with this thread in network namespace ns (sockets keep theirs)."""
    cur = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    tgt = os.open("/var/run/netns/" + ns, os.O_RDONLY)
    try:
        if _libc.setns(tgt, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + ns)
        return fn()
    finally:
        _libc.setns(cur, CLONE_NEWNET)
        os.close(cur)
        os.close(tgt)


class Wire:
    """An AF_PACKET socket on a namespace's veth end: whole frames out."""

    def __init__(self, ns, ifname):
        def mk():
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
            s.bind((ifname, 0))
            return s
        self.s = in_netns(ns, mk)
        self.ns, self.ifname = ns, ifname
        self.sent = 0

    def send(self, frames, burst=32, gap=0.002):
        """Send frames paced: burst frames, then gap seconds (the veth and
        XSK rings are 1-2K deep; lanefwd and the capture must keep up)."""
        for i, f in enumerate(frames):
            self.s.send(f)
            self.sent += 1
            if (i + 1) % burst == 0:
                time.sleep(gap)



def pid_note(pid):
    """Tell upf_lib.sh's cleanup about a process we started."""
    with open(env("UPF_PIDFILE"), "a") as f:
        f.write("%d\n" % pid)


class Capture:
    """dumpcap in a namespace (or the root one), classic pcap, BPF filter."""

    def __init__(self, ns, ifname, path, bpf):
        cmd = ["dumpcap", "-i", ifname, "-P", "-B", "16", "-w", path, "-f", bpf]
        if ns:
            cmd = ["ip", "netns", "exec", ns] + cmd
        self.path = path
        self.err = open(path + ".err", "w+")
        self.p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.err)
        pid_note(self.p.pid)
        end = time.monotonic() + 15
        while True:
            self.err.seek(0)
            # dumpcap names its file once the interface is open and
            # filtering ("Capturing on" comes before, too early).
            if "File:" in self.err.read():
                break
            if self.p.poll() is not None or time.monotonic() > end:
                self.err.seek(0)
                raise CheckError("dumpcap on %s did not start: %s" % (ifname, self.err.read()))
            time.sleep(0.02)
        time.sleep(0.2)

    def stop(self):
        """Stop; the frames. Fails if dumpcap dropped any."""
        time.sleep(0.2)
        self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise CheckError("dumpcap did not stop")
        self.err.seek(0)
        txt = self.err.read()
        m = re.search(r"received/dropped on interface '[^']*': (\d+)/(\d+)", txt)
        check(m is not None, "dumpcap: no summary: " + txt)
        check(m[2] == "0", "dumpcap dropped %s frames: %s" % (m[2], txt))
        return self.frames()

    def frames(self):
        keep = E.get("UPF_KEEP")  # debugging: a directory to copy every capture to
        if keep:
            subprocess.run(["cp", self.path, keep], check=False)
        return lftest.read_pcap(self.path)

    def records(self):
        """(timestamp, frame) of each record."""
        with open(self.path, "rb") as f:
            data = f.read()
        out, off = [], 24
        while off < len(data):
            sec, usec, caplen, _ = struct.unpack("<IIII", data[off:off + 16])
            off += 16
            out.append((sec + usec / 1e6, data[off:off + caplen]))
            off += caplen
        return out


def tshark_rows(path, fields, extra=()):
    cmd = ["tshark", "-n", "-r", path, *lftest.TSHARK_OPTS, *extra, "-T", "fields",
           "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [dict(zip(fields, line.split("|"))) for line in out.splitlines()]


EXPERT_WARN = 0x00600000


def tshark_clean(path, what, extra=()):
    """Every frame of path decodes without a malformed flag or an expert
    warning/error; returns the rows (frame number, protocols)."""
    rows = tshark_rows(path, ["frame.number", "frame.protocols", "_ws.malformed",
                              "_ws.expert.severity", "_ws.expert.message"], extra)
    bad = []
    for r in rows:
        sev = [int(x, 0) for x in r["_ws.expert.severity"].split(",") if x]
        if r["_ws.malformed"] or any(s >= EXPERT_WARN for s in sev):
            bad.append("frame %s (%s): malformed %r, expert %s" % (
                r["frame.number"], r["frame.protocols"], r["_ws.malformed"],
                r["_ws.expert.message"]))
    check(not bad, "%s: tshark flags %d frames: %s" % (what, len(bad), "; ".join(bad[:5])))
    return rows


# ------------------------------------------------------------------ frames

def eth(dst, src, t=0x0800):
    return Ether(dst=dst, src=src, type=t)


def psc(qfi, ul=True):
    return GTPPDUSessionContainer(type=1 if ul else 0, QFI=qfi)


def gtpu(teid, inner, qfi=None, ul=True, seq=None, ext_before=None):
    """A G-PDU header (+ PDU Session Container) + inner bytes.

    ext_before: raw bytes of extension headers to chain before the PSC,
    as (first type, bytes whose last octet names the next type)."""
    kw = {"teid": teid, "gtp_type": 255}
    if seq is not None:
        kw.update(S=1, seq=seq)
    if qfi is None and ext_before is None:
        return bytes(GTP_U_Header(**kw) / Raw(inner))
    kw["E"] = 1
    if ext_before is not None:
        first, chain = ext_before
        tail = bytes(psc(qfi, ul)) if qfi is not None else b""
        if qfi is None:
            chain = chain[:-1] + b"\x00"
        g = GTP_U_Header(next_ex=first, **kw) / Raw(chain + tail + inner)
        return bytes(g)
    return bytes(GTP_U_Header(next_ex=0x85, **kw) / psc(qfi, ul) / Raw(inner))


class Net:
    """Addresses and MACs of the topology (upf_lib.sh)."""

    def __init__(self):
        self.ns_gnb, self.ns_dn = env("UPF_NS_GNB"), env("UPF_NS_DN")
        self.if_gnb, self.if_dn = env("UPF_IF_GNB"), env("UPF_IF_DN")
        self.if_n3, self.if_n6 = env("UPF_IF_N3"), env("UPF_IF_N6")
        self.mac_n3, self.mac_n6 = env("UPF_MAC_N3"), env("UPF_MAC_N6")
        self.mac_gnb, self.mac_dn = env("UPF_MAC_GNB"), env("UPF_MAC_DN")

    def ul(self, teid, inner, qfi=9, v6=False, sport=2152, pad=b"", ident=0, **kw):
        """A G-PDU frame from the gNB to lanefwd's N3 address."""
        g = gtpu(teid, inner, qfi, True, **kw)
        if v6:
            o = eth(self.mac_n3, self.mac_gnb, 0x86DD) / IPv6(src=GNB_6, dst=N3_6, hlim=64)
        else:
            o = eth(self.mac_n3, self.mac_gnb) / IP(src=GNB_4, dst=N3_4, ttl=64, id=ident)
        return bytes(o / UDP(sport=sport, dport=2152) / Raw(g)) + pad

    def dl(self, inner):
        """A packet from the data network (inner is an IP packet, bytes)."""
        t = 0x0800 if inner[0] >> 4 == 4 else 0x86DD
        return bytes(eth(self.mac_n6, self.mac_dn, t)) + inner

    def ul_ref(self, inner):
        """What lanefwd must emit on N6 for an uplink inner packet."""
        t = 0x0800 if inner[0] >> 4 == 4 else 0x86DD
        return lftest.forwarded_frame(bytes(eth(self.mac_n6, self.mac_dn, t)) + inner,
                                      self.mac_dn, self.mac_n6)

    def dl_ref(self, inner, teid, qfi, peer=GNB_4, src=None, mac=None, port=None, ul=False):
        """What lanefwd must emit for a downlink inner packet: outer IPv4
        (TTL 64, id 0, no DF, ToS 0) or IPv6 (hop limit 64, traffic class 0,
        flow label 0), UDP 2152 -> 2152 (checksum 0 over IPv4, computed
        over IPv6), GTP-U G-PDU with the FAR's TEID and, with a QFI, E set,
        sequence and N-PDU number 0 and a DL PDU Session Container (ul: an
        UL one, for an uplink packet sent on up N9)."""
        mac = mac or self.mac_gnb
        if ":" in peer:
            o = eth(mac, self.mac_n3, 0x86DD) / IPv6(src=src or N3_6, dst=peer, hlim=64,
                                                     tc=0, fl=0)
            u = UDP(sport=2152, dport=2152)
        else:
            o = eth(mac, self.mac_n3) / IP(src=src or N3_4, dst=peer, ttl=64, id=0, flags=0,
                                           tos=0)
            u = UDP(sport=2152, dport=2152, chksum=0)
        g = GTP_U_Header(teid=teid, gtp_type=255)
        if qfi:
            g = GTP_U_Header(teid=teid, gtp_type=255, E=1, next_ex=0x85) / psc(qfi, ul=ul)
        return bytes(o / u / g / Raw(inner))


def ip4(src, dst, l4="udp", sport=1000, dport=2000, size=0, ident=1, tos=0, ttl=64,
        frag=0, flags=0, options=None):
    """An IPv4 packet (bytes) with a payload of size bytes."""
    pay = Raw(bytes((ident * 7 + i) & 0xFF for i in range(size)))
    ip = IP(src=src, dst=dst, id=ident, tos=tos, ttl=ttl, frag=frag, flags=flags)
    if options is not None:
        ip.options = options
    if l4 == "udp":
        p = ip / UDP(sport=sport, dport=dport) / pay
    elif l4 == "tcp":
        p = ip / TCP(sport=sport, dport=dport, flags="PA", seq=ident) / pay
    elif l4 == "icmp":
        p = ip / ICMP(type=8, id=ident, seq=1) / pay
    else:
        p = IP(src=src, dst=dst, id=ident, tos=tos, ttl=ttl, proto=l4, frag=frag,
               flags=flags) / pay
    return bytes(p)


def ip6(src, dst, l4="udp", sport=1000, dport=2000, size=0, fl=1, tc=0, hlim=64):
    pay = Raw(bytes((fl * 5 + i) & 0xFF for i in range(size)))
    ip = IPv6(src=src, dst=dst, fl=fl, tc=tc, hlim=hlim)
    if l4 == "udp":
        return bytes(ip / UDP(sport=sport, dport=dport) / pay)
    if l4 == "tcp":
        return bytes(ip / TCP(sport=sport, dport=dport, flags="PA") / pay)
    return bytes(ip / ICMPv6EchoRequest(id=fl, seq=1) / pay)


def inner_of_gtpu(frame):
    """(outer TEID, QFI or None, inner bytes, flags) of a captured GTP-U frame, or None."""
    et, off = lftest.l3_of(frame)
    if et == lftest.ETH_IPV4:
        ihl = (frame[off] & 0x0F) * 4
        if frame[off + 9] != 17:
            return None
        u = off + ihl
    elif et == lftest.ETH_IPV6:
        if frame[off + 6] != 17:
            return None
        u = off + 40
    else:
        return None
    if struct.unpack("!H", frame[u + 2:u + 4])[0] != 2152:
        return None
    g = u + 8
    flags, mtype, glen, teid = struct.unpack("!BBHI", frame[g:g + 8])
    if mtype != 255:
        return None
    p, qfi = g + 8, None
    end = g + 8 + glen
    if flags & 0x07:
        nxt = frame[p + 3] if flags & 0x04 else 0
        p += 4
        while nxt:
            ln = frame[p] * 4
            if nxt == 0x85:
                qfi = frame[p + 2] & 0x3F
            nxt = frame[p + ln - 1]
            p += ln
    return teid, qfi, frame[p:end], flags


# ------------------------------------------------------------------ counters

class Counters:
    """Snapshots of /lanefwd/stats, /lanefwd/upf and the ports' /ethdev/stats."""

    def __init__(self, tel, lf_pid):
        self.tel = tel
        self.lf_pid = lf_pid
        info = tel("/lanefwd/info")
        self.port_id = {p: info["port_" + p]["port_id"] for p in ("n3", "n6")}

    def alive(self):
        try:
            os.kill(self.lf_pid, 0)
        except OSError:
            raise CheckError("lanefwd is not running any more")

    def snap(self):
        self.alive()
        s = {"stats": self.tel("/lanefwd/stats"), "upf": self.tel("/lanefwd/upf")}
        for p, i in self.port_id.items():
            s[p] = self.tel("/ethdev/stats,%d" % i)
        return s

    def settle(self, timeout=30.0):
        """Wait until lanefwd's rx, tx and drops stop moving (3 reads 0.1 s
        apart); the snapshot."""
        end = time.monotonic() + timeout
        last, same = None, 0
        while True:
            s = self.snap()
            st = s["stats"]
            dp = {k: v for k, v in upf_flat(s["upf"]).items()
                  if k.startswith("datapath.") or k.startswith("buffer")}
            key = (st["rx_packets"], st["tx_packets"], st["drops"],
                   json.dumps(dp, sort_keys=True))
            same = same + 1 if key == last else 0
            if same >= 2:
                return s
            last = key
            if time.monotonic() > end:
                raise CheckError("lanefwd's counters did not settle within %.0f s" % timeout)
            time.sleep(0.1)


def upf_flat(u, prefix=""):
    """The numbers of /lanefwd/upf as one flat dict (nested keys joined by '.')."""
    out = {}
    if isinstance(u, dict):
        for k, v in u.items():
            out.update(upf_flat(v, prefix + k + "."))
    elif isinstance(u, list):
        for i, v in enumerate(u):
            out.update(upf_flat(v, prefix + str(i) + "."))
    elif isinstance(u, (int, float)) and not isinstance(u, bool):
        out[prefix[:-1]] = u
    return out


def upf_drop(u, name):
    """One per-reason UPF drop counter of /lanefwd/upf."""
    f = upf_flat(u)
    for k in ("datapath.drop_" + name, "drops." + name, "drop_" + name):
        if k in f:
            return f[k]
    raise CheckError("/lanefwd/upf has no drop counter %r: %s" % (name, sorted(f)))


def unknown_teid_seen(a, b):
    """G-PDUs for an unknown TEID between snapshots a and b: dropped
    (unknown_teid) or answered with an Error Indication (err_ind_sent)."""
    return (upf_drop(b["upf"], "unknown_teid") - upf_drop(a["upf"], "unknown_teid") +
            upf_get(b["upf"], "err_ind_sent") - upf_get(a["upf"], "err_ind_sent"))


# Short names the tests use -> /lanefwd/upf's keys (flattened).
UPF_KEYS = {"ul_pkts": "datapath.ul_packets", "dl_pkts": "datapath.dl_packets",
            "ul_bytes": "datapath.ul_bytes", "dl_bytes": "datapath.dl_bytes",
            "echo_replies": "datapath.echo_replies",
            "err_ind_sent": "datapath.error_indications_sent",
            "buffered": "datapath.to_control", "end_markers": "datapath.end_markers"}


def upf_get(u, *names):
    """The first of names found in /lanefwd/upf (flattened), e.g. 'err_ind_sent'."""
    f = upf_flat(u)
    names = tuple(UPF_KEYS.get(n, n) for n in names)
    for n in names:
        if n in f:
            return f[n]
        for k in f:
            if k.endswith("." + n):
                return f[k]
    raise CheckError("/lanefwd/upf has none of %s: %s" % (names, sorted(f)))


def deltas(a, b):
    """Counter increments between two snapshots."""
    d = {}
    for k, v in b["stats"].items():
        if isinstance(v, int):
            d["lf." + k] = v - a["stats"].get(k, 0)
    fa, fb = upf_flat(a["upf"]), upf_flat(b["upf"])
    for k, v in fb.items():
        d["upf." + k] = v - fa.get(k, 0)
    for p in ("n3", "n6"):
        for k in ("ipackets", "opackets", "imissed", "oerrors"):
            d[p + "." + k] = b[p][k] - a[p][k]
    return d


def expect_drops(step, a, b, lf_drops=None, upf_drops=None, rx=None, tx=None, extra=None,
                 balanced=True):
    """Exact drop deltas: lf_drops for /lanefwd/stats reasons, upf_drops for
    /lanefwd/upf reasons, every other reason 0; rx / tx when given; and
    (balanced) rx = tx + drops over the step."""
    d = deltas(a, b)
    errs = []
    if balanced and d["lf.rx_packets"] != d["lf.tx_packets"] + d["lf.drops"]:
        errs.append("rx +%d != tx +%d + drops +%d" % (d["lf.rx_packets"], d["lf.tx_packets"],
                                                     d["lf.drops"]))
    lf_drops = lf_drops or {}
    upf_drops = upf_drops or {}
    for r in lftest.DROP_REASONS:
        got = d.get("lf.drop_" + r, 0)
        want = lf_drops.get(r, 0)
        if got != want:
            errs.append("drop_%s +%d (want +%d)" % (r, got, want))
    for r in UPF_DROPS:
        got = upf_drop(b["upf"], r) - upf_drop(a["upf"], r)
        want = upf_drops.get(r, 0)
        if got != want:
            errs.append("upf %s +%d (want +%d)" % (r, got, want))
    if rx is not None and d["lf.rx_packets"] != rx:
        errs.append("rx +%d (want +%d)" % (d["lf.rx_packets"], rx))
    if tx is not None and d["lf.tx_packets"] != tx:
        errs.append("tx +%d (want +%d)" % (d["lf.tx_packets"], tx))
    for k, want in (extra or {}).items():
        got = upf_get(b["upf"], k) - upf_get(a["upf"], k)
        if got != want:
            errs.append("upf %s +%d (want +%d)" % (k, got, want))
    if d["lf.rx_packets"] != d["n3.ipackets"] + d["n6.ipackets"]:
        errs.append("lanefwd rx +%d != ports' ipackets +%d +%d" % (
            d["lf.rx_packets"], d["n3.ipackets"], d["n6.ipackets"]))
    if d["lf.tx_packets"] != d["n3.opackets"] + d["n6.opackets"]:
        errs.append("lanefwd tx +%d != ports' opackets +%d +%d" % (
            d["lf.tx_packets"], d["n3.opackets"], d["n6.opackets"]))
    check(not errs, "%s: %s" % (step, "; ".join(errs)))
    return d


def save_last(dirname, snap):
    with open(os.path.join(dirname, "last_stats.json"), "w") as f:
        json.dump(snap["stats"], f)


# ------------------------------------------------------------------ harness

class Harness:
    def __init__(self, name):
        self.name = name
        self.dir = env("UPF_DIR")
        self.net = Net()
        self.tel = Tel(env("UPF_PREFIX"))
        self.cnt = Counters(self.tel, int(env("UPF_LF_PID")))
        self.port = int(env("UPF_PFCP_PORT"))
        self.gnb = Wire(self.net.ns_gnb, self.net.if_gnb)
        self.dn = Wire(self.net.ns_dn, self.net.if_dn)
        self.failures = []
        self.caps = []
        # (prefix, IPv6D bits) that Created PDRs carried: tshark must decode them so.
        self.want_ipv6d = []
        # Traffic Endpoint IDs of Created Traffic Endpoints: tshark must read them.
        self.want_te = []
        self.warmup()
        # The whole PFCP conversation, for tshark.
        self.pfcp_cap = Capture(None, "lo", self.path("pfcp.pcap"), "udp port %d" % self.port)

    def warmup(self):
        """Until a routed packet gets through each way (the AF_XDP sockets
        take a moment after lanefwd says it runs): gNB -> DN and DN -> gNB,
        plain IPv4 (no UPF involved), one at a time."""
        net = self.net
        ETH_P_ALL = 3

        def rx(ns, ifname):
            def mk():
                s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
                s.bind((ifname, 0))
                return s
            return in_netns(ns, mk)
        for src, dst, w, mac, name in (
                ("192.168.3.2", "198.51.100.1", self.gnb, net.mac_n3, "gNB -> DN"),
                ("198.51.100.1", "192.168.3.2", self.dn, net.mac_n6, "DN -> gNB")):
            r = rx(net.ns_dn, net.if_dn) if w is self.gnb else rx(net.ns_gnb, net.if_gnb)
            r.settimeout(0.2)
            f = bytes(eth(mac, net.mac_gnb if w is self.gnb else net.mac_dn) /
                      IP(src=src, dst=dst, id=0xFFFF) / UDP(sport=9, dport=9) / Raw(b"warmup"))
            ok = False
            for _ in range(50):
                w.send([f])
                t_end = time.monotonic() + 0.2
                while time.monotonic() < t_end and not ok:
                    try:
                        got, addr = r.recvfrom(2048)
                    except socket.timeout:
                        break
                    ok = addr[2] != socket.PACKET_OUTGOING and got.endswith(b"warmup")
                if ok:
                    break
            r.close()
            check(ok, "warm-up: no packet got through %s within 10 s" % name)

    def path(self, name):
        return os.path.join(self.dir, name)

    def smf(self, **kw):
        return SMF(("127.0.0.1", self.port), **kw)

    def cap_gnb(self, name):
        """Capture what lanefwd sends to the gNB (frames from port n3's MAC)."""
        return Capture(self.net.ns_gnb, self.net.if_gnb, self.path(name + "-gnb.pcap"),
                       "ether src %s" % self.net.mac_n3)

    def cap_dn(self, name):
        return Capture(self.net.ns_dn, self.net.if_dn, self.path(name + "-dn.pcap"),
                       E.get("UPF_DEBUG_DN_FILTER", "ether src %s" % self.net.mac_n6))

    def step(self, title, fn, *args):
        """Run one check; a failure is recorded and the next step runs."""
        print("---- %s: %s" % (self.name, title), flush=True)
        t0 = time.monotonic()
        try:
            r = fn(*args)
            print("     ok (%.1f s)" % (time.monotonic() - t0), flush=True)
            return r
        except (CheckError, upf_smf.PFCPError, AssertionError) as e:
            msg = "%s: %s" % (title, e)
            print("FAIL: " + msg, file=sys.stderr, flush=True)
            self.failures.append(msg)
        except Exception:
            msg = "%s: %s" % (title, traceback.format_exc())
            print("FAIL: " + msg, file=sys.stderr, flush=True)
            self.failures.append(msg)
        return None

    def pfcp_check(self):
        """Every PFCP message lanefwd sent decodes cleanly in tshark's pfcp dissector."""
        self.pfcp_cap.stop()
        extra = ["-d", "udp.port==%d,pfcp" % self.port]
        rows = tshark_rows(self.pfcp_cap.path,
                           ["frame.number", "udp.srcport", "pfcp.msg_type", "_ws.malformed",
                            "_ws.expert.severity", "_ws.expert.message",
                            "pfcp.ue_ip_addr_ipv6", "pfcp.ue_ip_addr_ipv6_prefix",
                            "pfcp.traffic_endpoint_id", "pfcp.up_function_features.frrt"],
                           extra)
        ours = [r for r in rows if r["udp.srcport"] == str(self.port)]
        check(ours, "no PFCP message from lanefwd was captured on lo")
        bad = []
        types = {}
        for r in ours:
            for t in r["pfcp.msg_type"].split(","):
                types[t] = types.get(t, 0) + 1
            sev = [int(x, 0) for x in r["_ws.expert.severity"].split(",") if x]
            if r["_ws.malformed"] or any(s >= EXPERT_WARN for s in sev):
                bad.append("frame %s (type %s): %s" % (r["frame.number"], r["pfcp.msg_type"],
                                                       r["_ws.expert.message"] or "malformed"))
        check(not bad, "tshark's pfcp dissector flags %d of lanefwd's %d messages: %s" % (
            len(bad), len(ours), "; ".join(bad[:8])))
        # A delegated prefix lanefwd chose: tshark reads the prefix and its
        # IPv6 Prefix Delegation Bits from a Session Establishment Response.
        for pfx, bits in self.want_ipv6d:
            hit = [r for r in ours if r["pfcp.msg_type"].split(",")[0] == "51" and
                   pfx in r["pfcp.ue_ip_addr_ipv6"].split(",") and
                   str(bits) in r["pfcp.ue_ip_addr_ipv6_prefix"].split(",")]
            check(hit, "tshark finds no Session Establishment Response with UE prefix %s "
                  "and IPv6D %d bits" % (pfx, bits))
        for tid in self.want_te:
            hit = [r for r in ours if r["pfcp.msg_type"].split(",")[0] in ("51", "53") and
                   str(tid) in r["pfcp.traffic_endpoint_id"].split(",")]
            check(hit, "tshark finds no Session Establishment or Modification Response "
                  "with Traffic Endpoint ID %d" % tid)
        # Framed Routing advertised: tshark reads FRRT in an Association Setup Response.
        check([r for r in ours if r["pfcp.msg_type"].split(",")[0] == "6" and
               r["pfcp.up_function_features.frrt"] in ("1", "True")],
              "tshark finds no Association Setup Response with FRRT (Framed Routing) set")
        print("     tshark decoded all %d PFCP messages lanefwd sent, by type: %s" % (
            len(ours), ", ".join("%s x%d" % kv for kv in sorted(types.items()))))
        return types

    def finish(self):
        try:
            save_last(self.dir, self.cnt.settle())
        except CheckError as e:
            self.failures.append("final settle: %s" % e)
        if self.failures:
            print("\n%s: %d check(s) failed:" % (self.name, len(self.failures)), file=sys.stderr)
            for f in self.failures:
                print("  - " + f.splitlines()[0][:400], file=sys.stderr)
            sys.exit(1)
        print("PASS: upf %s" % self.name)


def tnum(v):
    """A number tshark printed (decimal or 0x hex); '' stays ''."""
    return str(int(v, 0)) if v else ""


def match_frames(what, got, want, a=None, b=None):
    """got == want, frame by frame, with the first difference explained
    (and the counters that moved between snapshots a and b, if given)."""
    moved = ""
    if a is not None and b is not None:
        moved = "; counters moved: %s" % {k: v for k, v in deltas(a, b).items() if v}
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            j = next(k for k in range(min(len(g), len(w)) + 1)
                     if k == min(len(g), len(w)) or g[k] != w[k])
            raise CheckError("%s: frame %d differs from the reference at byte %d "
                             "(len %d vs %d):\n got  %s\n want %s" % (
                                 what, i + 1, j, len(g), len(w), g.hex(), w.hex()))
    check(len(got) == len(want), "%s: captured %d frames, expected %d%s" % (
        what, len(got), len(want), moved))


# ------------------------------------------------------------------ e2e

def e2e(h):
    net = h.net
    smf = h.smf()
    state = {}

    def association():
        r = smf.heartbeat()
        check(r.recovery_ts is not None, "Heartbeat Response without Recovery Time Stamp: %r" % r)
        r = smf.associate()
        check(r.cause == 1, "Association Setup: %r" % r)
        check(r.node_id is not None and r.recovery_ts is not None,
              "Association Setup Response without Node ID or Recovery Time Stamp")
        check(r.up_features is not None and len(r.up_features) >= 1,
              "Association Setup Response without UP Function Features")
        # FTUP (octet 5 bit 5): F-TEID allocation by the UP, which CHOOSE needs.
        check(r.up_features[0] & 0x10, "UP Function Features without FTUP: %s" %
              r.up_features.hex())
        r = smf.heartbeat()
        check(r.recovery_ts is not None, "Heartbeat Response without Recovery Time Stamp")
    h.step("association and heartbeat", association)

    def sessions():
        # S1: IPv4 UE, UL F-TEID chosen by lanefwd, QFI 9, URR for exact counts.
        r = smf.establish(1, pdrs=[
            pdr(1, 100, "access", far=1, teid="choose", ue="10.45.0.1", qfi=9, ohr=True,
                urrs=[1], qers=[1]),
            pdr(2, 100, "core", far=2, ue="10.45.0.1", urrs=[1], qers=[1])],
            fars=[far(1, "FORW", "core", ni=NI),
                  far(2, "FORW", "access", ohc=(0x1001, GNB_4))],
            qers=[qer(1, qfi=9)], urrs=[urr(1)])
        check(r.cause == 1, "S1: %r" % r)
        check(1 in r.created and r.created[1]["teid"], "S1: no Created PDR with the chosen "
              "F-TEID: %r" % r.created)
        check(r.created[1]["ipv4"] == N3_4, "S1: chosen F-TEID address %s, not the N3 "
              "address" % r.created[1]["ipv4"])
        state["s1"] = (r.up_seid, r.created[1]["teid"])
        # S2: IPv6 UE over IPv6 N3, TEID assigned by the SMF, no QFI.
        r = smf.establish(2, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x2002, n3=N3_6, ue6="fd00:45:0:2::1",
                ohr="v6", urrs=[1]),
            pdr(2, 100, "core", far=2, ue6="fd00:45:0:2::1", urrs=[1])],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x2001, GNB_6))],
            urrs=[urr(1)])
        check(r.cause == 1, "S2: %r" % r)
        state["s2"] = (r.up_seid, 0x2002)
    h.step("session establishment (IPv4 with CHOOSE, IPv6 over IPv6 N3)", sessions)
    if "s2" not in state:
        return smf
    s1_seid, s1_teid = state["s1"]

    # ---- uplink decapsulation
    def uplink():
        a = h.cnt.settle()
        inners, frames = [], []
        specs = [("udp", 0), ("udp", 1), ("tcp", 20), ("icmp", 56), ("udp", 1372), ("tcp", 900)]
        for i, (l4, size) in enumerate(specs):
            p = ip4("10.45.0.1", "198.51.100.%d" % (20 + i), l4, 40000 + i, 53 + i, size,
                    ident=100 + i, tos=4 * i)
            inners.append(p)
            frames.append(net.ul(s1_teid, p, qfi=9, ident=i))
        # IPv4 options; TTL 2 (leaves with 1); a DF packet.
        p = ip4("10.45.0.1", "198.51.100.40", "udp", 1, 2, 10, ident=120,
                options=[Raw(b"\x01\x01\x01\x00")])
        inners.append(p)
        frames.append(net.ul(s1_teid, p, qfi=9))
        p = ip4("10.45.0.1", "198.51.100.41", "udp", 1, 2, 10, ident=121, ttl=2, flags=2)
        inners.append(p)
        frames.append(net.ul(s1_teid, p, qfi=9))
        # Sequence number present (S) with the PSC; trailing Ethernet padding.
        p = ip4("10.45.0.1", "198.51.100.42", "udp", 5, 6, 2, ident=122)
        inners.append(p)
        frames.append(net.ul(s1_teid, p, qfi=9, seq=77, pad=b"\0" * 11))
        # A not-comprehension-required extension (UDP Port, 0x40) before the PSC.
        p = ip4("10.45.0.1", "198.51.100.43", "tcp", 7, 8, 30, ident=123)
        inners.append(p)
        frames.append(net.ul(s1_teid, p, qfi=9, ext_before=(0x40, b"\x01\x08\x68\x85")))
        # IPv6 UE over IPv6 N3 (S2).
        inners6 = []
        for i, (l4, size) in enumerate([("udp", 10), ("tcp", 100), ("icmp", 8)]):
            p = ip6("fd00:45:0:2::1", "2001:db8:6::%d" % (i + 1), l4, 3000 + i, 80, size,
                    fl=200 + i)
            inners6.append(p)
            frames.append(net.ul(0x2002, p, qfi=None, v6=True))
        want = [net.ul_ref(p) for p in inners + inners6]
        cap = h.cap_dn("ul")
        h.gnb.send(frames)
        b = h.cnt.settle()
        got = cap.stop()
        match_frames("uplink (decapsulated, on N6)", got, want, a, b)
        tshark_clean(cap.path, "uplink output")
        expect_drops("uplink", a, b, rx=len(frames), tx=len(frames),
                     extra={"ul_pkts": len(frames)})
        state["ul_bytes"] = sum(len(p) for p in inners)
        state["ul_pkts"] = len(inners)
    h.step("uplink: %s G-PDUs decapsulated byte for byte" % "13", uplink)

    # ---- downlink encapsulation
    def downlink():
        a = h.cnt.settle()
        inners, frames, want = [], [], []
        specs = [("udp", 0), ("udp", 3), ("tcp", 40), ("icmp", 64), ("udp", 1400), (253, 20)]
        for i, (l4, size) in enumerate(specs):
            p = ip4("198.51.100.%d" % (50 + i), "10.45.0.1", l4, 443, 50000 + i, size,
                    ident=300 + i, tos=0xB8 if i == 2 else 0, ttl=60 - i)
            inners.append(p)
            frames.append(net.dl(p))
            want.append(net.dl_ref(p, 0x1001, 9))
        inners6 = []
        for i, (l4, size) in enumerate([("udp", 5), ("tcp", 1000)]):
            p = ip6("2001:db8:6::%d" % (i + 9), "fd00:45:0:2::1", l4, 80, 3000 + i, size,
                    fl=400 + i, tc=0x20)
            inners6.append(p)
            frames.append(net.dl(p))
            want.append(net.dl_ref(p, 0x2001, None, peer=GNB_6))
        cap = h.cap_gnb("dl")
        h.dn.send(frames)
        b = h.cnt.settle()
        got = cap.stop()
        match_frames("downlink (encapsulated, on N3)", got, want)
        rows = tshark_clean(cap.path, "downlink output")
        check(all("gtp" in r["frame.protocols"] for r in rows), "tshark: not all GTP-U")
        expect_drops("downlink", a, b, rx=len(frames), tx=len(frames),
                     extra={"dl_pkts": len(frames)})
        state["dl_bytes"] = sum(len(p) for p in inners)
        state["dl_pkts"] = len(inners)
    h.step("downlink: 8 packets encapsulated byte for byte (GTP-U/IPv4 + PSC QFI 9, "
           "GTP-U/IPv6)", downlink)

    def dual_stack():
        # One PDR per direction carrying both UE addresses (one UE IP Address
        # IE with V4 and V6): packets of either family are the session's.
        r = smf.establish(3, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x3003, n3=N3_4, ue="10.45.0.3",
                ue6="fd00:45:0:3::1", ohr=True),
            pdr(2, 100, "core", far=2, ue="10.45.0.3", ue6="fd00:45:0:3::1")],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x3001, GNB_4))])
        check(r.cause == 1, "S3: %r" % r)
        a = h.cnt.settle()
        u4 = ip4("10.45.0.3", "198.51.100.60", "udp", 1, 2, 10, ident=600)
        u6 = ip6("fd00:45:0:3::1", "2001:db8:6::60", "udp", 1, 2, 10, fl=600)
        d4 = ip4("198.51.100.60", "10.45.0.3", "udp", 2, 1, 10, ident=601)
        d6 = ip6("2001:db8:6::60", "fd00:45:0:3::1", "udp", 2, 1, 10, fl=601)
        cg, cd = h.cap_gnb("ds"), h.cap_dn("ds")
        h.gnb.send([net.ul(0x3003, u4, qfi=None), net.ul(0x3003, u6, qfi=None)])
        h.dn.send([net.dl(d4), net.dl(d6)])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        d = deltas(a, b)
        smf.delete(r.up_seid)
        match_frames("dual-stack uplink", got_dn, [net.ul_ref(u4), net.ul_ref(u6)], a, b)
        match_frames("dual-stack downlink", got_gnb, [net.dl_ref(d4, 0x3001, None),
                                                      net.dl_ref(d6, 0x3001, None)], a, b)
        check(d["lf.drops"] == 0, "dual-stack: %d drops" % d["lf.drops"])
    h.step("dual-stack PDRs (UE IPv4 and IPv6 in one PDI) match both families", dual_stack)

    def delegated_prefix():
        # S25: a /56 delegated to the UE (V6 with IPv6D, TS 23.501 5.8.2.2.4),
        # given as an address in it. Downlink to any /64 of it is the
        # session's; uplink from any address in it matches the uplink PDR.
        # Beside it: no PDR (uplink), no session (downlink).
        r = smf.establish(25, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x2525, n3=N3_4, ue6="fd00:45:0:7ab::5",
                ue6_plen=56, ohr=True),
            pdr(2, 100, "core", far=2, ue6="fd00:45:0:7ab::5", ue6_plen=56)],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x2521, GNB_4))])
        check(r.cause == 1, "S25: %r" % r)
        a = h.cnt.settle()
        ups = [ip6(src, "2001:db8:6::70", "udp", 7, 8, 12, fl=700 + i)
               for i, src in enumerate(["fd00:45:0:700::1", "fd00:45:0:7ff:1::9"])]
        dns = [ip6("2001:db8:6::70", dst, "udp", 8, 7, 12, fl=710 + i)
               for i, dst in enumerate(["fd00:45:0:7ab::5", "fd00:45:0:7c0::1",
                                        "fd00:45:0:7ff::ffff"])]
        ul_out = ip6("fd00:45:0:800::1", "2001:db8:6::70", "udp", 7, 8, 12, fl=720)
        dl_out = ip6("2001:db8:6::70", "fd00:45:0:6ff::1", "udp", 8, 7, 12, fl=721)
        cg, cd = h.cap_gnb("pd"), h.cap_dn("pd")
        h.gnb.send([net.ul(0x2525, p, qfi=None) for p in ups + [ul_out]])
        h.dn.send([net.dl(p) for p in dns + [dl_out]])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        smf.delete(r.up_seid)
        match_frames("delegated-prefix uplink", got_dn, [net.ul_ref(p) for p in ups], a, b)
        match_frames("delegated-prefix downlink", got_gnb,
                     [net.dl_ref(p, 0x2521, None) for p in dns], a, b)
        expect_drops("delegated prefix", a, b, rx=7, tx=5, lf_drops={"upf": 2},
                     upf_drops={"no_pdr": 1, "unknown_ue": 1})
    h.step("a delegated /56 (IPv6D): every /64 of it down the tunnel, uplink from it "
           "matched, beside it dropped", delegated_prefix)

    def choose_ue():
        # UE IP Address CHOOSE (CHV4 + CHV6) on both PDRs: one IPv4 address
        # and one /64 from [network_instance internet] ue_alloc for the
        # session, in both Created PDRs; a second session gets others.
        pdrs = [pdr(1, 100, "access", far=1, teid="choose", ue="choose", ue6="choose",
                    ohr=True),
                pdr(2, 100, "core", far=2, ue="choose", ue6="choose")]
        fars = [far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x4001, GNB_4))]
        r = smf.establish(4, pdrs=pdrs, fars=fars)
        check(r.cause == 1, "S4: %r" % r)
        c1, c2 = r.created.get(1, {}), r.created.get(2, {})
        check(c1.get("teid") and c1.get("ue4") and c1.get("ue6"),
              "S4: Created PDR 1 without the TEID or the UE addresses: %r" % r.created)
        check((c1["ue4"], c1["ue6"]) == (c2.get("ue4"), c2.get("ue6")),
              "S4: the PDRs were given different UE addresses: %r" % r.created)
        check(c1.get("ue_flags") == 0x03 and c2.get("teid") is None,
              "S4: UE IP Address flags %r (want V4|V6, S/D 0), or an F-TEID for PDR 2" %
              c1.get("ue_flags"))
        ue4 = ipaddress.ip_address(c1["ue4"])
        ue6 = ipaddress.ip_address(c1["ue6"])
        check(ue4 in ipaddress.ip_network("10.45.200.0/24") and
              ue4 != ipaddress.ip_address("10.45.200.0"),
              "S4: UE address %s not a host of ue_alloc 10.45.200.0/24" % ue4)
        check(ue6 in ipaddress.ip_network("fd00:45:0:ff00::/56") and int(ue6) & (2**64 - 1) == 0,
              "S4: UE prefix %s not a /64 of ue_alloc fd00:45:0:ff00::/56" % ue6)
        r2 = smf.establish(5, pdrs=pdrs, fars=fars)
        check(r2.cause == 1, "S5: %r" % r2)
        o = r2.created.get(2, {})
        check(o.get("ue4") not in (None, c1["ue4"]) and o.get("ue6") not in (None, c1["ue6"]),
              "S5 was given S4's addresses or none: %r" % r2.created)
        smf.delete(r2.up_seid)
        # Naming the pool "ent-a" (ue_alloc.ent-a): both addresses from it.
        pp = [dict(p, pool="ent-a", ni=None) for p in pdrs]
        r3 = smf.establish(6, pdrs=pp, fars=fars)
        check(r3.cause == 1, "S6 (pool ent-a): %r" % r3)
        o = r3.created.get(2, {})
        check(o.get("ue4") and o.get("ue6") and
              ipaddress.ip_address(o["ue4"]) in ipaddress.ip_network("10.45.201.0/24") and
              ipaddress.ip_address(o["ue6"]) in ipaddress.ip_network("fd00:45:0:fe00::/56"),
              "S6: addresses %r not of ue_alloc.ent-a (10.45.201.0/24, fd00:45:0:fe00::/56)" %
              r3.created)
        smf.delete(r3.up_seid)
        # Traffic from and to the chosen addresses; the UE's IPv6 address is
        # any in its /64.
        host6 = str(ue6 + 0x1234)
        a = h.cnt.settle()
        u4 = ip4(str(ue4), "198.51.100.70", "udp", 1, 2, 10, ident=700)
        u6 = ip6(host6, "2001:db8:6::70", "udp", 1, 2, 10, fl=700)
        d4 = ip4("198.51.100.70", str(ue4), "udp", 2, 1, 10, ident=701)
        d6 = ip6("2001:db8:6::70", host6, "udp", 2, 1, 10, fl=701)
        teid = c1["teid"]
        cg, cd = h.cap_gnb("ch"), h.cap_dn("ch")
        h.gnb.send([net.ul(teid, u4, qfi=None), net.ul(teid, u6, qfi=None)])
        h.dn.send([net.dl(d4), net.dl(d6)])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        d = deltas(a, b)
        smf.delete(r.up_seid)
        match_frames("chosen-address uplink", got_dn, [net.ul_ref(u4), net.ul_ref(u6)], a, b)
        match_frames("chosen-address downlink", got_gnb, [net.dl_ref(d4, 0x4001, None),
                                                          net.dl_ref(d6, 0x4001, None)], a, b)
        check(d["lf.drops"] == 0, "chosen addresses: %d drops" % d["lf.drops"])
    h.step("UE IP Address CHOOSE: an IPv4 address and a /64 from ue_alloc, traffic both ways",
           choose_ue)

    def choose_delegated():
        # CHV6 with IPv6D 8 naming pool "fwa" (ue_alloc.fwa = fd00:45:0:c000::/54,
        # ue_alloc_ipv6_len.fwa = 56, upf_lib.sh): the UPF chooses an aligned
        # /56 of the /54 and returns it with IPv6D 8 in both Created PDRs; a
        # second session gets another. Traffic from and to /64s of it.
        pdrs = [pdr(1, 100, "access", far=1, teid="choose", ue6="choose", ue6_plen=56,
                    pool="fwa", ni=None, ohr=True),
                pdr(2, 100, "core", far=2, ue6="choose", ue6_plen=56, pool="fwa", ni=None)]
        fars = [far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x4101, GNB_4))]
        r = smf.establish(41, pdrs=pdrs, fars=fars)
        check(r.cause == 1, "S41: %r" % r)
        c1, c2 = r.created.get(1, {}), r.created.get(2, {})
        check(c1.get("teid") and c1.get("ue6") and c1.get("ue6") == c2.get("ue6"),
              "S41: Created PDRs without the TEID or one prefix: %r" % r.created)
        check(c1.get("ue_flags") == 0x09 and c1.get("ue6_dbits") == 8 and
              c2.get("ue6_dbits") == 8,
              "S41: UE IP Address flags %r, IPv6D %r (want V6|IPv6D, 8 bits)" % (
                  c1.get("ue_flags"), c1.get("ue6_dbits")))
        p = ipaddress.ip_network(c1["ue6"] + "/56")
        check(p.subnet_of(ipaddress.ip_network("fd00:45:0:c000::/54")),
              "S41: prefix %s not a /56 of ue_alloc.fwa fd00:45:0:c000::/54" % p)
        h.want_ipv6d.append((c1["ue6"], 8))
        r2 = smf.establish(42, pdrs=pdrs, fars=fars)
        check(r2.cause == 1, "S42: %r" % r2)
        o = r2.created.get(2, {})
        check(o.get("ue6") not in (None, c1["ue6"]) and
              ipaddress.ip_network(o["ue6"] + "/56").subnet_of(
                  ipaddress.ip_network("fd00:45:0:c000::/54")),
              "S42 was given S41's prefix, none, or one outside the pool: %r" % r2.created)
        smf.delete(r2.up_seid)
        base = int(p.network_address)
        hosts = [str(ipaddress.ip_address(base + (k << 64) + 0x77)) for k in (0, 0x3c, 0xff)]
        ups = [ip6(hosts[k], "2001:db8:6::71", "udp", 3, 4, 10, fl=740 + k) for k in (0, 2)]
        dns = [ip6("2001:db8:6::71", hosts[k], "udp", 4, 3, 10, fl=750 + k) for k in range(3)]
        a = h.cnt.settle()
        cg, cd = h.cap_gnb("chd"), h.cap_dn("chd")
        h.gnb.send([net.ul(c1["teid"], u, qfi=None) for u in ups])
        h.dn.send([net.dl(d) for d in dns])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        d = deltas(a, b)
        smf.delete(r.up_seid)
        match_frames("chosen-prefix uplink", got_dn, [net.ul_ref(u) for u in ups], a, b)
        match_frames("chosen-prefix downlink", got_gnb,
                     [net.dl_ref(x, 0x4101, None) for x in dns], a, b)
        check(d["lf.drops"] == 0, "chosen prefix: %d drops" % d["lf.drops"])
    h.step("UE IP Address CHOOSE of a delegated /56 (CHV6, IPv6D) from a pool of /56s, "
           "traffic both ways", choose_delegated)

    def traffic_endpoints():
        # PDI optimisation (PDIU): endpoint 1 holds the N3 F-TEID and the UE
        # address, both chosen by lanefwd, and is named by two uplink PDRs,
        # the one of higher precedence dropping UDP to port 5000; endpoint
        # 2 (CHV4 again: the session's address) by the downlink PDR. One
        # Created Traffic Endpoint each, no Created PDR.
        tes = [te(1, teid="choose", ue="choose"), te(2, ue="choose", sd=1)]
        pdrs = [pdr(1, 100, "access", far=1, te=1, ohr=True),
                pdr(2, 50, "access", far=3, te=1, ohr=True,
                    sdf=["permit out 17 from any 5000 to assigned"]),
                pdr(3, 100, "core", far=2, te=2)]
        fars = [far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x4201, GNB_4)),
                far(3, "DROP")]
        r = smf.establish(43, pdrs=pdrs, fars=fars, tes=tes)
        check(r.cause == 1, "S43: %r" % r)
        t1, t2 = r.created_te.get(1, {}), r.created_te.get(2, {})
        check(not r.created, "S43: Created PDRs for PDRs of endpoints: %r" % r.created)
        check(t1.get("teid") and t1.get("ue4") and t2.get("ue4") == t1["ue4"] and
              t2.get("teid") is None,
              "S43: Created Traffic Endpoints %r (want a TEID and an address for 1, the "
              "same address alone for 2)" % r.created_te)
        h.want_te.append(1)
        ue4 = t1["ue4"]
        u_ok = ip4(ue4, "198.51.100.72", "udp", 7, 8, 10, ident=760)
        u_drop = ip4(ue4, "198.51.100.72", "udp", 7, 5000, 10, ident=761)
        d_ok = ip4("198.51.100.72", ue4, "udp", 8, 7, 10, ident=762)

        def both_ways(teid, tag):
            a = h.cnt.settle()
            cg, cd = h.cap_gnb(tag), h.cap_dn(tag)
            h.gnb.send([net.ul(teid, u_ok, qfi=None), net.ul(teid, u_drop, qfi=None)])
            h.dn.send([net.dl(d_ok)])
            b = h.cnt.settle()
            got_dn, got_gnb = cd.stop(), cg.stop()
            match_frames(tag + " uplink", got_dn, [net.ul_ref(u_ok)], a, b)
            match_frames(tag + " downlink", got_gnb, [net.dl_ref(d_ok, 0x4201, None)], a, b)
            expect_drops(tag + ": PDR 2's DROP", a, b, rx=3, tx=2, lf_drops={"upf": 1},
                         upf_drops={"far_drop": 1})
        both_ways(t1["teid"], "te")
        # A new F-TEID for endpoint 1 moves both its PDRs.
        m = smf.modify(r.up_seid, update_tes=[te(1, teid="choose", ni=None)])
        check(m.cause == 1, "S43 Update Traffic Endpoint: %r" % m)
        n1 = m.created_te.get(1, {})
        check(n1.get("teid") not in (None, t1["teid"]) and n1.get("ue4") is None,
              "S43: Created Traffic Endpoint after the update %r (want a new TEID alone)" %
              m.created_te)
        both_ways(n1["teid"], "te2")
        # Removing endpoint 2 while PDR 3 names it: refused, naming the PDR.
        m = smf.modify(r.up_seid, remove_tes=[2])
        check(m.cause == 73 and m.offending_ie == 131 and m.failed_rule is not None and
              m.failed_rule.type == 0 and m.failed_rule.pdr_id == 3,
              "S43 Remove Traffic Endpoint 2 (PDR 3 names it): %r" % m)
        smf.delete(r.up_seid)
    h.step("Traffic Endpoints (PDI optimisation): two uplink PDRs on one chosen F-TEID, "
           "updated, traffic both ways", traffic_endpoints)

    def framed_routes():
        # Framed routes (FRRT): the downlink PDR of S44 has the UE address
        # 10.45.76.1 and, behind it, 10.45.77.0/24 and fd00:45:0:7700::/56
        # (RADIUS text with a gateway and metric). Downlink to the UE and
        # into both networks goes down S44's tunnel; beside them, no UE's.
        # The uplink PDR has no UE address: a source in the network passes.
        pdrs = [pdr(1, 100, "access", far=1, teid="choose", ohr=True),
                pdr(2, 100, "core", far=2, ue="10.45.76.1",
                    framed=["10.45.77.0/24 0.0.0.0 1", "fd00:45:0:7700::/56 :: 1"])]
        fars = [far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x4301, GNB_4))]
        r = smf.establish(44, pdrs=pdrs, fars=fars)
        check(r.cause == 1, "S44: %r" % r)
        teid = r.created.get(1, {}).get("teid")
        check(teid, "S44: no chosen TEID: %r" % r.created)
        dns = [ip4("198.51.100.80", d, "udp", 9, 10, 10, ident=770 + k)
               for k, d in enumerate(("10.45.76.1", "10.45.77.9", "10.45.77.255"))]
        dns.append(ip6("2001:db8:6::80", "fd00:45:0:77ab::9", "udp", 9, 10, 10, fl=780))
        stray = [ip4("198.51.100.80", "10.45.78.9", "udp", 9, 10, 10, ident=790),
                 ip6("2001:db8:6::80", "fd00:45:0:7800::9", "udp", 9, 10, 10, fl=791)]
        up = ip4("10.45.77.9", "198.51.100.80", "udp", 10, 9, 10, ident=792)
        a = h.cnt.settle()
        cg, cd = h.cap_gnb("fr"), h.cap_dn("fr")
        h.dn.send([net.dl(d) for d in dns + stray])
        h.gnb.send([net.ul(teid, up, qfi=None)])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        smf.delete(r.up_seid)
        match_frames("framed downlink", got_gnb, [net.dl_ref(d, 0x4301, None) for d in dns], a, b)
        match_frames("framed uplink", got_dn, [net.ul_ref(up)], a, b)
        expect_drops("framed: beside the routes", a, b, rx=7, tx=5, lf_drops={"upf": 2},
                     upf_drops={"unknown_ue": 2})
    h.step("Framed routes (FRRT): networks behind a UE, IPv4 and IPv6, traffic both ways",
           framed_routes)

    def echo():
        a = h.cnt.settle()
        req = GTP_U_Header(gtp_type=1, S=1, seq=0x1234, teid=0) / GTPEchoRequest()
        f = bytes(eth(net.mac_n3, net.mac_gnb) / IP(src=GNB_4, dst=N3_4, id=77) /
                  UDP(sport=2152, dport=2152) / req)
        req6 = GTP_U_Header(gtp_type=1, S=1, seq=0x4321, teid=0) / GTPEchoRequest()
        f6 = bytes(eth(net.mac_n3, net.mac_gnb, 0x86DD) / IPv6(src=GNB_6, dst=N3_6) /
                   UDP(sport=40000, dport=2152) / req6)
        cap = h.cap_gnb("echo")
        h.gnb.send([f, f6])
        b = h.cnt.settle()
        cap.stop()
        rows = tshark_clean(cap.path, "Echo Responses")
        rows = tshark_rows(cap.path, ["ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "udp.srcport",
                                      "udp.dstport", "gtp.message", "gtp.seq_number",
                                      "gtp.recovery", "gtp.teid"])
        check(len(rows) == 2, "expected 2 Echo Responses, captured %d" % len(rows))
        for r in rows:
            for k in ("gtp.message", "gtp.seq_number", "gtp.teid"):
                r[k] = tnum(r[k])
        r4, r6 = rows
        check((r4["ip.src"], r4["ip.dst"], r4["udp.dstport"], r4["gtp.message"],
               r4["gtp.seq_number"], r4["gtp.teid"]) ==
              (N3_4, GNB_4, "2152", "2", "4660", "0") and r4["gtp.recovery"] != "",
              "IPv4 Echo Response: %r" % r4)
        check((r6["ipv6.src"], r6["ipv6.dst"], r6["udp.dstport"], r6["gtp.message"],
               r6["gtp.seq_number"]) == (N3_6, GNB_6, "40000", "2", "17185") and
              r6["gtp.recovery"] != "", "IPv6 Echo Response: %r" % r6)
        expect_drops("echo", a, b, rx=2, tx=2, extra={"echo_replies": 2})
    h.step("GTP-U Echo Request -> Echo Response (IPv4 and IPv6, tshark-decoded)", echo)

    def hairpin_loop_unknown_ue():
        r = smf.establish(10, pdrs=[
            pdr(1, 100, "access", far=1, teid=0xA00A, n3=N3_4, ue="10.45.0.10", ohr=True),
            pdr(2, 100, "core", far=2, ue="10.45.0.10")],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "core")])
        check(r.cause == 1, "S10: %r" % r)
        r2 = smf.establish(11, pdrs=[
            pdr(2, 100, "core", far=2, ue="10.45.0.11")],
            fars=[far(2, "FORW", "access", ohc=(0xB001, GNB_4))])
        check(r2.cause == 1, "S11: %r" % r2)
        # S18's tunnels lead back to lanefwd's own N3 address: downlink
        # encapsulated to it, uplink sent on over N9 to it. Routed back into
        # the UPF: lanefwd's "loop" drop.
        r3 = smf.establish(18, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x1800, n3=N3_4, ue="10.45.0.18", ohr=True),
            pdr(2, 100, "core", far=2, ue="10.45.0.18")],
            fars=[far(1, "FORW", "core", ohc=(0x1801, N3_4)),
                  far(2, "FORW", "access", ohc=(0x1802, N3_4))])
        check(r3.cause == 1, "S18: %r" % r3)
        a = h.cnt.settle()
        # Uplink to another UE (S11): decapsulated, routed (TTL one lower)
        # and back down S11's tunnel.
        p = ip4("10.45.0.10", "10.45.0.11", "udp", 1, 2, 8, ident=700)
        routed = lftest.forwarded_frame(bytes(eth(net.mac_n6, net.mac_dn)) + p, net.mac_dn,
                                        net.mac_n6)[14:]
        # Uplink to a pool address without a session: unknown_ue.
        p2 = ip4("10.45.0.10", "10.45.0.200", "udp", 1, 2, 8, ident=701)
        # Downlink to a pool address without a session.
        q = ip4("198.51.100.9", "10.45.9.9", "udp", 1, 2, 8, ident=702)
        # Downlink to S10, whose downlink FAR forwards without a tunnel: it
        # would come straight back: a loop.
        q2 = ip4("198.51.100.9", "10.45.0.10", "udp", 1, 2, 8, ident=703)
        cg, cd = h.cap_gnb("loop"), h.cap_dn("loop")
        h.gnb.send([net.ul(0xA00A, p, qfi=9), net.ul(0xA00A, p2, qfi=9),
                    net.ul(0x1800, ip4("10.45.0.18", "198.51.100.2", "udp", 1, 2, 8,
                                       ident=704), qfi=None)])
        h.dn.send([net.dl(q)] * 3 + [net.dl(q2)] * 2 +
                  [net.dl(ip4("198.51.100.2", "10.45.0.18", "udp", 2, 1, 8, ident=705))])
        b = h.cnt.settle()
        got_g, got_d = cg.stop(), cd.stop()
        for x in (r, r2, r3):
            smf.delete(x.up_seid)
        check(not got_d, "%d frames came out on N6" % len(got_d))
        expect_drops("hairpin / unknown UE / loop", a, b, rx=9, tx=1,
                     lf_drops={"upf": 6, "loop": 2}, upf_drops={"unknown_ue": 4, "loop": 2})
        match_frames("UE-to-UE (uplink to S11, down S11's tunnel)", got_g,
                     [net.dl_ref(routed, 0xB001, None)])
    h.step("UE to UE through the UPF; unknown UE addresses; tunnels back into the UPF "
           "(loop)", hairpin_loop_unknown_ue)

    def n9_intermediate():
        # lanefwd as an intermediate UPF: the gNB on N3 and the anchor UPF
        # (192.168.3.9, on the same side here) on N9. Uplink in on the N3
        # TEID, on to the anchor in an uplink container; downlink in from
        # the anchor on the CORE PDR's F-TEID, on to the gNB in a downlink
        # one with the QER's QFI; the anchor's End Marker follows it.
        psa = "192.168.3.9"
        r = smf.establish(19, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x1900, n3=N3_4, ue="10.45.0.19", ohr=True,
                qers=[1]),
            pdr(2, 100, "core", far=2, teid=0x1901, n3=N3_4, ue="10.45.0.19", ohr=True,
                qers=[1])],
            fars=[far(1, "FORW", "core", ohc=(0x1902, psa)),
                  far(2, "FORW", "access", ohc=(0x1903, GNB_4))],
            qers=[qer(1, qfi=9)])
        check(r.cause == 1, "S19: %r" % r)
        u = ip4("10.45.0.19", "198.51.100.71", "udp", 1, 2, 16, ident=900)
        d = ip4("198.51.100.71", "10.45.0.19", "udp", 2, 1, 16, ident=901)
        # On the downlink tunnel, but to another UE: no PDR of S19's.
        stray = ip4("198.51.100.71", "10.45.0.20", "udp", 2, 1, 16, ident=902)

        def from_psa(g):
            return bytes(eth(net.mac_n3, net.mac_gnb) / IP(src=psa, dst=N3_4, ttl=64) /
                         UDP(sport=2152, dport=2152) / Raw(g))

        em_ref = bytes(eth(net.mac_gnb, net.mac_n3) /
                       IP(src=N3_4, dst=GNB_4, ttl=64, id=0, flags=0, tos=0) /
                       UDP(sport=2152, dport=2152, chksum=0) /
                       GTP_U_Header(teid=0x1903, gtp_type=254))
        a = h.cnt.settle()
        cg, cd = h.cap_gnb("n9"), h.cap_dn("n9")
        h.gnb.send([net.ul(0x1900, u, qfi=9), from_psa(gtpu(0x1901, d, 5, ul=False)),
                    from_psa(gtpu(0x1901, stray, 5, ul=False)),
                    from_psa(bytes(GTP_U_Header(teid=0x1901, gtp_type=254)))])
        b = h.cnt.settle()
        got_g, got_d = cg.stop(), cd.stop()
        smf.delete(r.up_seid)
        check(not got_d, "%d frames came out on N6" % len(got_d))
        match_frames("intermediate UPF (up N9, down from N9, End Marker)", got_g,
                     [net.dl_ref(u, 0x1902, 9, peer=psa, ul=True), net.dl_ref(d, 0x1903, 9),
                      em_ref], a, b)
        rows = tshark_rows(cg.path, ["ip.dst", "gtp.teid", "gtp.message",
                                     "gtp.ext_hdr.pdu_ses_con.pdu_type",
                                     "gtp.ext_hdr.pdu_ses_con.qos_flow_id"])
        # ip.dst lists the outer header's first, then the inner one's.
        check([(x["ip.dst"].split(",")[0], tnum(x["gtp.teid"]), tnum(x["gtp.message"]),
                x["gtp.ext_hdr.pdu_ses_con.pdu_type"],
                x["gtp.ext_hdr.pdu_ses_con.qos_flow_id"]) for x in rows] ==
              [(psa, "6402", "255", "1", "9"), (GNB_4, "6403", "255", "0", "9"),
               (GNB_4, "6403", "254", "", "")],
              "tshark reads the N9 frames as %r" % rows)
        expect_drops("intermediate UPF", a, b, rx=4, tx=3, lf_drops={"upf": 1},
                     upf_drops={"no_pdr": 1},
                     extra={"ul_pkts": 1, "dl_pkts": 1, "end_markers": 1})
    h.step("intermediate UPF: uplink up N9, downlink from N9 to the gNB (CORE PDR with "
           "F-TEID), End Marker relayed", n9_intermediate)

    def far_drop_and_gate():
        r = smf.establish(4, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x4004, n3=N3_4, ue="10.45.0.4", ohr=True,
                qers=[1]),
            pdr(2, 100, "core", far=2, ue="10.45.0.4", qers=[1])],
            fars=[far(1, "FORW", "core"), far(2, "DROP")],
            qers=[qer(1, gate_ul="closed", gate_dl="open")])
        check(r.cause == 1, "S4: %r" % r)
        seid = r.up_seid
        a = h.cnt.settle()
        ul = [net.ul(0x4004, ip4("10.45.0.4", "198.51.100.70", "udp", 1, 2, 20, ident=800 + i),
                     qfi=None) for i in range(7)]
        dl = [net.dl(ip4("198.51.100.70", "10.45.0.4", "udp", 2, 1, 20, ident=810 + i))
              for i in range(5)]
        cg, cd = h.cap_gnb("gate"), h.cap_dn("gate")
        h.gnb.send(ul)
        h.dn.send(dl)
        b = h.cnt.settle()
        check(not cg.stop() and not cd.stop(), "frames came out")
        expect_drops("FAR DROP (5 DL), UL gate closed (7)", a, b, rx=12, tx=0,
                     lf_drops={"upf": 12}, upf_drops={"far_drop": 5, "gate_closed": 7})
        # Open the uplink gate, close the downlink one, make the DL FAR FORW.
        m = smf.modify(seid, update_qers=[qer(1, gate_ul="open", gate_dl="closed")],
                       update_fars=[far(2, "FORW", "access", ohc=(0x4001, GNB_4))])
        check(m.cause == 1, "S4 modification: %r" % m)
        a = h.cnt.settle()
        cg, cd = h.cap_gnb("gate2"), h.cap_dn("gate2")
        h.gnb.send(ul[:3])
        h.dn.send(dl[:4])
        b = h.cnt.settle()
        got_gnb, got_dn = cg.stop(), cd.stop()
        check(len(got_dn) == 3 and not got_gnb, "after the update: %d uplink out (want 3), "
              "%d downlink out (want 0)" % (len(got_dn), len(got_gnb)))
        expect_drops("gates swapped", a, b, rx=7, tx=3, lf_drops={"upf": 4},
                     upf_drops={"gate_closed": 4})
        smf.delete(seid)
    h.step("FAR DROP and QER gates (closed, then updated) counted exactly", far_drop_and_gate)

    def mbr():
        # QER MBR downlink 800 kbit/s (100,000 B/s): 1000 packets of 1000
        # bytes offered over about a second, ten times the rate. What
        # passes is at most the bucket (lanefwd's: 10 ms of the MBR, at
        # least 16 KiB) plus the MBR over the span; every other packet is
        # counted mbr_exceeded. A loose check (the 2% one is a benchmark's).
        r = smf.establish(12, pdrs=[
            pdr(2, 100, "core", far=2, ue="10.45.0.12", qers=[1])],
            fars=[far(2, "FORW", "access", ohc=(0xC001, GNB_4))],
            qers=[qer(1, mbr_ul=800, mbr_dl=800, qfi=5)])
        check(r.cause == 1, "S12: %r" % r)
        a = h.cnt.settle()
        frames = [net.dl(ip4("198.51.100.83", "10.45.0.12", "udp", 9, 9, 1000 - 28,
                             ident=i)) for i in range(1000)]
        t0 = time.monotonic()
        h.dn.send(frames, burst=10, gap=0.01)
        span = time.monotonic() - t0
        b = h.cnt.settle()
        smf.delete(r.up_seid)
        d = deltas(a, b)
        ex = upf_drop(b["upf"], "mbr_exceeded") - upf_drop(a["upf"], "mbr_exceeded")
        out = d["lf.tx_packets"]
        check(out + ex == 1000 and d["lf.rx_packets"] == 1000,
              "MBR: rx +%d, out %d + mbr_exceeded %d != 1000" % (d["lf.rx_packets"], out, ex))
        hi = (16384 + 100000 * span) / 1000 + 1
        lo = 100000 * span / 1000 * 0.7
        check(lo <= out <= hi, "MBR 800 kbit/s over %.2f s: %d packets of 1000 bytes passed "
              "(want %d..%d)" % (span, out, lo, hi))
        print("     MBR 800 kbit/s: %d of 1000 packets passed in %.2f s (%.0f kbit/s)" % (
            out, span, out * 8 / span))
    h.step("QER MBR: the downlink rate held to the MBR, the excess counted mbr_exceeded", mbr)

    def buffering():
        # The session's BAR suggests 12 packets, below [upf] buffer_packets (16).
        # URR 1 reports when 6 downlink packets were dropped while buffering
        # (DROTH): of the 10 beyond the bound, once.
        bound = 12
        r = smf.establish(5, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x5005, n3=N3_4, ue="10.45.0.5", ohr=True),
            pdr(2, 100, "core", far=2, ue="10.45.0.5", urrs=[1])],
            fars=[far(1, "FORW", "core"), far(2, "BUFF+NOCP")], urrs=[urr(1, droth_pkts=6)],
            bar=(1, bound))
        check(r.cause == 1, "S5: %r" % r)
        seid = r.up_seid
        n0 = len(smf.reports)
        a = h.cnt.settle()
        pk = [ip4("198.51.100.80", "10.45.0.5", "udp", 9, 9, 40, ident=900 + i)
              for i in range(bound + 10)]
        cg = h.cap_gnb("buff")
        h.dn.send([net.dl(p) for p in pk])
        smf.poll_reports(1.5)
        b = h.cnt.settle()
        reps = smf.reports[n0:]
        dropped = [rp for rp in reps if rp.report_type == {"USAR"}]
        reps = [rp for rp in reps if rp.report_type != {"USAR"}]
        check(len(dropped) == 1 and [u["urr_id"] for u in dropped[0].usage] == [1] and
              dropped[0].usage[0]["trigger"] == {"DROTH"},
              "DROTH: %r (want one Usage Report of URR 1, trigger DROTH)" %
              [(rp.report_type, rp.usage) for rp in dropped])
        check(len(reps) == 1, "BUFF+NOCP: %d Session Report Requests for one episode "
              "(want 1)" % len(reps))
        rp = reps[0]
        check(rp.seid == 5, "report to CP SEID %s, not 5" % rp.seid)
        check(rp.report_type == {"DLDR"} and rp.dl_data_pdrs == [2],
              "report: type %s, Downlink Data Report PDRs %s (want DLDR, [2])" % (
                  rp.report_type, rp.dl_data_pdrs))
        d = deltas(a, b)
        check(d["lf.tx_packets"] == 0, "BUFF: %d packets sent while buffering" %
              d["lf.tx_packets"])
        check(upf_get(b["upf"], "buffered") - upf_get(a["upf"], "buffered") == bound + 10,
              "workers handed %d packets to the agent (want %d)" % (
                  upf_get(b["upf"], "buffered") - upf_get(a["upf"], "buffered"), bound + 10))
        # The agent holds the first bound and drops (counts) the rest.
        full = upf_get(b["upf"], "buffer_full") - upf_get(a["upf"], "buffer_full")
        check(full == 10, "agent buffer_full +%d (want 10: %d sent, %d held)" % (
            full, bound + 10, bound))
        # Release: the held packets arrive, in order, with the new FAR.
        m = smf.modify(seid, update_fars=[far(2, "FORW", "access", ohc=(0x5001, GNB_4))])
        check(m.cause == 1, "S5 release: %r" % m)
        c = h.cnt.settle()
        more = [ip4("198.51.100.80", "10.45.0.5", "udp", 9, 9, 40, ident=950 + i)
                for i in range(3)]
        h.dn.send([net.dl(p) for p in more])
        e = h.cnt.settle()
        got = cg.stop()
        match_frames("released buffer + 3 more", got,
                     [net.dl_ref(p, 0x5001, None) for p in pk[:bound] + more])
        d2 = deltas(c, e)
        check(d2["lf.drops"] == 0 and d2["lf.tx_packets"] == 3, "after release: %r" % d2)
        # A second episode: BUFF+NOCP again, 3 packets, one more report.
        m = smf.modify(seid, update_fars=[far(2, "BUFF+NOCP")])
        check(m.cause == 1, "S5 buffer again: %r" % m)
        n1 = len(smf.reports)
        h.dn.send([net.dl(ip4("198.51.100.80", "10.45.0.5", "udp", 9, 9, 40, ident=960 + i))
                   for i in range(3)])
        smf.poll_reports(1.5)
        check(len(smf.reports) - n1 == 1, "second episode: %d reports (want 1)" %
              (len(smf.reports) - n1))
        cg = h.cap_gnb("buff2")
        m = smf.modify(seid, update_fars=[far(2, "FORW", "access", ohc=(0x5002, GNB_4))])
        check(m.cause == 1, "S5 second release: %r" % m)
        h.cnt.settle()
        got = cg.stop()
        check([inner_of_gtpu(f)[0] for f in got] == [0x5002] * 3,
              "second release: %d frames out (want 3 with TEID 0x5002)" % len(got))
        dm = smf.delete(seid)
        check(dm.cause == 1, "S5 deletion: %r" % dm)
        # The URR counts what was forwarded: bound + 3 + 3 packets of 60 bytes.
        tot = [u for u in dm.usage if u["urr_id"] == 1]
        fwd = pk[:bound] + more + [None] * 3
        want_dl = sum(len(p) for p in pk[:bound] + more) + 3 * len(more[0])
        check(tot and tot[0]["volume"].get("dl") == want_dl,
              "S5 final usage %r (want DL %d bytes: %d packets forwarded)" % (
                  tot, want_dl, len(fwd)))
        # Conservation over the whole step: bound + 16 frames came in on n6;
        # bound + 6 went out, 10 were dropped beyond the bound. A released
        # packet is the same packet: lanefwd's rx must not count it twice,
        # and the ones dropped beyond the bound must be in its drops.
        z = h.cnt.settle()
        d = deltas(a, z)
        check(d["n6.ipackets"] == bound + 16 and d["n3.opackets"] == bound + 6,
              "ports: n6 in +%d (want %d), n3 out +%d (want %d)" % (
                  d["n6.ipackets"], bound + 16, d["n3.opackets"], bound + 6))
        check(d["lf.rx_packets"] == d["n6.ipackets"] + d["n3.ipackets"] and
              d["lf.rx_packets"] == d["lf.tx_packets"] + d["lf.drops"],
              "BUFF counts not conserved: lanefwd rx +%d, ports in +%d; tx +%d, drops +%d "
              "(%s); want rx = tx + drops 10" % (
                  d["lf.rx_packets"], d["n6.ipackets"] + d["n3.ipackets"], d["lf.tx_packets"],
                  d["lf.drops"], {k: v for k, v in d.items()
                                  if v and k.startswith("lf.drop_")}))
    h.step("FAR BUFF+NOCP: one report per episode, bound %d (the BAR's), release in order" % 12,
           buffering)

    def nocp_only_and_buff_only():
        r = smf.establish(6, pdrs=[
            pdr(2, 100, "core", far=2, ue="10.45.0.6")], fars=[far(2, "NOCP")])
        check(r.cause == 1, "S6: %r" % r)
        n0 = len(smf.reports)
        a = h.cnt.settle()
        h.dn.send([net.dl(ip4("198.51.100.81", "10.45.0.6", "udp", 9, 9, 4, ident=1000 + i))
                   for i in range(4)])
        smf.poll_reports(1.5)
        b = h.cnt.settle()
        check(len(smf.reports) - n0 == 1, "NOCP without BUFF: %d reports (want 1)" %
              (len(smf.reports) - n0))
        d = deltas(a, b)
        nocp_counts = (d["lf.rx_packets"], d["lf.tx_packets"], d["lf.drops"])
        smf.delete(r.up_seid)
        r = smf.establish(7, pdrs=[
            pdr(2, 100, "core", far=2, ue="10.45.0.7")], fars=[far(2, "BUFF")])
        check(r.cause == 1, "S7: %r" % r)
        n0 = len(smf.reports)
        pk = [ip4("198.51.100.81", "10.45.0.7", "udp", 9, 9, 4, ident=1010 + i)
              for i in range(4)]
        h.dn.send([net.dl(p) for p in pk])
        smf.poll_reports(1.0)
        check(len(smf.reports) == n0, "BUFF without NOCP sent %d reports (want 0)" %
              (len(smf.reports) - n0))
        cg = h.cap_gnb("buffonly")
        m = smf.modify(r.up_seid, update_fars=[far(2, "FORW", "access", ohc=(0x7001, GNB_4))])
        check(m.cause == 1, "S7 release: %r" % m)
        h.cnt.settle()
        match_frames("BUFF without NOCP, released", cg.stop(),
                     [net.dl_ref(p, 0x7001, None) for p in pk])
        smf.delete(r.up_seid)
        check(nocp_counts == (4, 0, 4), "NOCP without BUFF: lanefwd rx +%d tx +%d drops +%d "
              "(want 4, 0, 4: the packets NOCP frees are drops)" % nocp_counts)
    h.step("NOCP without BUFF (report, no forwarding); BUFF without NOCP (no report)",
           nocp_only_and_buff_only)

    def urr_threshold():
        r = smf.establish(8, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x8008, n3=N3_4, ue="10.45.0.8", ohr=True,
                urrs=[1]),
            pdr(2, 100, "core", far=2, ue="10.45.0.8", urrs=[1])],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0x8001, GNB_4))],
            urrs=[urr(1, vol_thresh=5500)])
        check(r.cause == 1, "S8: %r" % r)
        n0 = len(smf.reports)
        # 4 DL packets of 1000 bytes: under the threshold, no report.
        dl = [ip4("198.51.100.82", "10.45.0.8", "udp", 9, 9, 1000 - 28, ident=1100 + i)
              for i in range(6)]
        h.dn.send([net.dl(p) for p in dl[:4]])
        smf.poll_reports(1.0)
        check(len(smf.reports) == n0, "volume threshold 5500: report at 4000 bytes")
        # 2 more: 6000 >= 5500: one report with exactly what was counted.
        h.dn.send([net.dl(p) for p in dl[4:]])
        smf.poll_reports(1.5)
        reps = smf.reports[n0:]
        check(len(reps) == 1, "volume threshold: %d reports (want 1)" % len(reps))
        u = reps[0].usage
        check(reps[0].report_type == {"USAR"} and len(u) == 1 and u[0]["urr_id"] == 1 and
              "VOLTH" in u[0]["trigger"], "threshold report: %s %r" % (reps[0].report_type, u))
        v = u[0]["volume"]
        check(v.get("total") == 6000 and v.get("dl") == 6000 and v.get("ul", 0) == 0,
              "threshold report volume %r (want total 6000, DL 6000, UL 0)" % v)
        if "dl_pkts" in v:
            check(v["dl_pkts"] == 6, "threshold report: %d DL packets (want 6)" % v["dl_pkts"])
        # After the report: 2 uplink packets of 100 bytes, 1 DL of 1000.
        ul = [net.ul(0x8008, ip4("10.45.0.8", "198.51.100.82", "udp", 1, 2, 72,
                                  ident=1120 + i), qfi=None) for i in range(2)]
        h.gnb.send(ul)
        h.dn.send([net.dl(dl[0])])
        h.cnt.settle()
        dm = smf.delete(r.up_seid)
        check(dm.cause == 1, "S8 deletion: %r" % dm)
        fin = [x for x in dm.usage if x["urr_id"] == 1]
        check(len(fin) == 1, "S8 deletion: usage reports %r" % dm.usage)
        v = fin[0]["volume"]
        check(v.get("ul") == 200 and v.get("dl") == 1000 and v.get("total") == 1200,
              "final usage after the threshold report %r (want UL 200, DL 1000)" % v)
    h.step("URR volume threshold: one report at the crossing, exact volumes, the rest in "
           "the Deletion Response", urr_threshold)

    def urr_periodic():
        # Measurement period 1 s: a report each second with what was
        # counted since the last one; the reports and the Deletion Response
        # add up to exactly what was forwarded.
        r = smf.establish(13, pdrs=[
            pdr(2, 100, "core", far=2, ue="10.45.0.13", urrs=[1])],
            fars=[far(2, "FORW", "access", ohc=(0xD001, GNB_4))],
            urrs=[urr(1, period=1)])
        check(r.cause == 1, "S13: %r" % r)
        n0 = len(smf.reports)
        sizes = []
        t0 = time.monotonic()
        for i in range(5):
            p = ip4("198.51.100.84", "10.45.0.13", "udp", 9, 9, 100 * (i + 1), ident=1150 + i)
            sizes.append(len(p))
            h.dn.send([net.dl(p)])
            smf.poll_reports(0.5)
        smf.poll_reports(max(0.0, 3.2 - (time.monotonic() - t0)))
        h.cnt.settle()
        dm = smf.delete(r.up_seid)
        el = time.monotonic() - t0
        reps = smf.reports[n0:]
        check(dm.cause == 1, "S13 deletion: %r" % dm)
        perio = [u for m in reps for u in m.usage if "PERIO" in u["trigger"]]
        check(len(perio) == len(reps) and int(el) - 1 <= len(perio) <= int(el) + 1,
              "%d reports in %.1f s with period 1 s (%d with PERIO)" % (len(reps), el,
                                                                        len(perio)))
        tot = sum(u["volume"].get("dl", 0) for u in perio)
        fin = [u for u in dm.usage if u["urr_id"] == 1]
        tot += sum(u["volume"].get("dl", 0) for u in fin)
        check(tot == sum(sizes), "periodic reports + final usage = %d DL bytes, %d forwarded" %
              (tot, sum(sizes)))
        seqn = [u["seqn"] for u in perio + fin]
        check(seqn == sorted(seqn) and len(set(seqn)) == len(seqn),
              "UR-SEQN not increasing: %s" % seqn)
    h.step("URR periodic (1 s): a report each period, volumes adding up exactly", urr_periodic)

    def collisions():
        # A second session may not take an F-TEID or a UE address another
        # holds; the refused request changes nothing and the first session
        # keeps forwarding.
        r = smf.establish(14, pdrs=[
            pdr(1, 100, "access", far=1, teid=0xE00E, n3=N3_4, ue="10.45.0.14", ohr=True),
            pdr(2, 100, "core", far=2, ue="10.45.0.14")],
            fars=[far(1, "FORW", "core"), far(2, "FORW", "access", ohc=(0xE001, GNB_4))])
        check(r.cause == 1, "S14: %r" % r)
        n0 = upf_get(h.tel("/lanefwd/upf"), "sessions")
        r2 = smf.establish(15, pdrs=[
            pdr(1, 100, "access", far=1, teid=0xE00E, n3=N3_4, ue="10.45.0.15", ohr=True)],
            fars=[far(1, "FORW", "core")])
        r3 = smf.establish(16, pdrs=[pdr(2, 100, "core", far=2, ue="10.45.0.14")],
                           fars=[far(2, "FORW", "access", ohc=(0xF001, GNB_4))])
        n1 = upf_get(h.tel("/lanefwd/upf"), "sessions")
        for x in (r2, r3):
            if x.cause == 1:
                smf.delete(x.up_seid)
        check(r2.cause not in (None, 1) and r3.cause not in (None, 1),
              "a second session on the same F-TEID: %r; on the same UE address: %r" % (r2, r3))
        check(n1 == n0, "sessions %d -> %d after two refused requests" % (n0, n1))
        a = h.cnt.settle()
        u = ip4("10.45.0.14", "198.51.100.85", "udp", 1, 2, 10, ident=1160)
        dl = ip4("198.51.100.85", "10.45.0.14", "udp", 2, 1, 10, ident=1161)
        cg, cd = h.cap_gnb("coll"), h.cap_dn("coll")
        h.gnb.send([net.ul(0xE00E, u, qfi=None)])
        h.dn.send([net.dl(dl)])
        h.cnt.settle()
        match_frames("S14 after the refused requests (uplink)", cd.stop(), [net.ul_ref(u)])
        match_frames("S14 after the refused requests (downlink)", cg.stop(),
                     [net.dl_ref(dl, 0xE001, None)])
        smf.delete(r.up_seid)
        print("     same F-TEID -> cause %s, same UE address -> cause %s" % (r2.cause, r3.cause))
    h.step("F-TEID and UE address held by another session: refused, nothing changed",
           collisions)

    def error_indication():
        pps = int(E.get("UPF_ERR_IND_PPS", "10"))
        a = h.cnt.settle()
        n, dur = 60, 2.0
        cg = h.cap_gnb("errind")
        t0 = time.monotonic()
        for i in range(n):
            h.gnb.send([net.ul(0xDEAD0000 + i, ip4("10.45.0.1", "198.51.100.1", "udp", 1, 2,
                                                  10, ident=1200 + i), qfi=9)], burst=1000)
            time.sleep(dur / n)
        elapsed = time.monotonic() - t0
        b = h.cnt.settle()
        got = cg.stop()
        tshark_clean(cg.path, "Error Indications")
        rows = tshark_rows(cg.path, ["ip.src", "ip.dst", "udp.dstport", "gtp.message",
                                     "gtp.teid_data", "gtp.gsn_ipv4"])
        k = len(got)
        # At most one per 1/pps s; the packets come every dur/n s, so at
        # least one per (1/pps + dur/n) s.
        hi = int(pps * (elapsed + 0.05)) + 1
        lo = int(elapsed / (1.0 / pps + dur / n) * 0.8)
        check(lo <= k <= hi, "%d Error Indications for %d unknown-TEID G-PDUs in %.2f s at "
              "err_ind_pps %d (want %d..%d)" % (k, n, elapsed, pps, lo, hi))
        teids = set()
        for r in rows:
            r["gtp.message"] = tnum(r["gtp.message"])
            check((r["ip.src"], r["ip.dst"], r["udp.dstport"], r["gtp.message"],
                   r["gtp.gsn_ipv4"]) == (N3_4, GNB_4, "2152", "26", N3_4),
                  "Error Indication: %r" % r)
            teids.add(int(r["gtp.teid_data"], 0))
        check(teids <= {0xDEAD0000 + i for i in range(n)} and len(teids) == k,
              "Error Indications name TEIDs %s" % sorted(teids))
        sent = upf_get(b["upf"], "err_ind_sent") - upf_get(a["upf"], "err_ind_sent")
        check(sent == k, "err_ind_sent +%d, captured %d" % (sent, k))
        d = deltas(a, b)
        check(d["lf.rx_packets"] == n and d["lf.tx_packets"] == k and
              d["lf.drop_upf"] == n - k,
              "unknown TEID: rx +%d tx +%d drop_upf +%d (want %d, %d, %d)" % (
                  d["lf.rx_packets"], d["lf.tx_packets"], d["lf.drop_upf"], n, k, n - k))
        # Every unknown-TEID G-PDU is counted once: answered (err_ind_sent)
        # or dropped (unknown_teid).
        ut = upf_drop(b["upf"], "unknown_teid") - upf_drop(a["upf"], "unknown_teid")
        check(ut == n - k, "unknown_teid +%d (want %d: %d G-PDUs, %d answered)" % (
            ut, n - k, n, k))
    h.step("unknown TEID -> Error Indication, rate limited (err_ind_pps)", error_indication)

    def no_err_ind_for_known_teid():
        r = smf.establish(9, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x9009, n3=N3_4, ue="10.45.0.9", ohr=True,
                sdf=["permit out 17 from 198.51.100.0/24 to assigned"])],
            fars=[far(1, "FORW", "core")])
        check(r.cause == 1, "S9: %r" % r)
        a = h.cnt.settle()
        cg = h.cap_gnb("known")
        # TCP does not match the UDP-only SDF; wrong QFI is not a condition here.
        h.gnb.send([net.ul(0x9009, ip4("10.45.0.9", "198.51.100.1", "tcp", 1, 2, 10,
                                       ident=1300 + i), qfi=5) for i in range(5)])
        b = h.cnt.settle()
        check(not cg.stop(), "a known TEID failing the PDR filters got an Error Indication")
        expect_drops("known TEID, no PDR", a, b, rx=5, tx=0, lf_drops={"upf": 5},
                     upf_drops={"no_pdr": 5}, extra={"err_ind_sent": 0})
        smf.delete(r.up_seid)
    h.step("no Error Indication for a known TEID whose packet fails the PDR filters",
           no_err_ind_for_known_teid)

    def final_usage():
        dm = smf.delete(s1_seid)
        check(dm.cause == 1, "S1 deletion: %r" % dm)
        u = [x for x in dm.usage if x["urr_id"] == 1]
        check(len(u) == 1, "S1 deletion: usage reports %r" % dm.usage)
        v = u[0]["volume"]
        want = {"ul": state["ul_bytes"], "dl": state["dl_bytes"],
                "total": state["ul_bytes"] + state["dl_bytes"]}
        check(all(v.get(k) == w for k, w in want.items()),
              "S1 final usage %r, sent %r" % (v, want))
        for k, w in (("ul_pkts", state["ul_pkts"]), ("dl_pkts", state["dl_pkts"])):
            if k in v:
                check(v[k] == w, "S1 final usage %s %d (want %d)" % (k, v[k], w))
        dm = smf.delete(state["s2"][0])
        check(dm.cause == 1, "S2 deletion: %r" % dm)
        dm = smf.delete(s1_seid)
        check(dm.cause == 65, "deleting S1 twice: %r (want cause 65)" % dm)
    if "ul_bytes" in state and "dl_bytes" in state:
        h.step("URR: S1's usage in the Deletion Response equals what was forwarded",
               final_usage)

    def recovery_purge():
        # The SMF restarts (a new Recovery Time Stamp in Association Setup):
        # lanefwd purges the sessions of the old association (TS 29.244
        # 6.2.6.2.2), and their TEIDs are gone from the datapath.
        r = smf.establish(17, pdrs=[
            pdr(1, 100, "access", far=1, teid=0x1700, n3=N3_4, ue="10.45.0.17", ohr=True)],
            fars=[far(1, "FORW", "core")])
        check(r.cause == 1, "S17: %r" % r)
        smf.recovery_ts += 10
        m = smf.associate()
        check(m.cause == 1, "Association Setup with a new Recovery Time Stamp: %r" % m)
        n = upf_get(h.tel("/lanefwd/upf"), "sessions")
        check(n == 0, "%d sessions kept across the SMF's restart" % n)
        a = h.cnt.settle()
        h.gnb.send([net.ul(0x1700, ip4("10.45.0.17", "198.51.100.1", "udp", 1, 2, 10,
                                       ident=1170), qfi=None)])
        b = h.cnt.settle()
        check(unknown_teid_seen(a, b) == 1, "the purged session's TEID still forwards")
        m = smf.delete(r.up_seid)
        check(m.cause == 65, "deleting a purged session: %r (want 65)" % m)
    h.step("a new SMF Recovery Time Stamp purges its sessions", recovery_purge)

    def heartbeat_end():
        check(smf.heartbeat().recovery_ts is not None, "no Recovery Time Stamp")
        check(not smf.unexpected, "unexpected PFCP messages: %r" % smf.unexpected)
        u = h.tel("/lanefwd/upf")
        n = upf_get(u, "sessions")
        check(n == 0, "/lanefwd/upf: %d sessions left, all were deleted" % n)
    h.step("heartbeat at the end; no session left", heartbeat_end)
    return smf


# ------------------------------------------------------------------ rules

REMOTES = ["198.51.100.0/24", "198.51.100.0/25", "198.51.100.128/26", "198.51.100.7/32",
           "203.0.113.0/24", "198.51.0.0/16"]
PORTS = [(80, 80), (443, 443), (1000, 2000), (1500, 1600), (0, 1023), (53, 53),
         (1024, 65535), (2000, 2000)]
TOS = [(0x20, 0xFC), (0xB8, 0xFC), (0x00, 0xE0), (0x04, 0x04)]


def gen_ports(rnd, none_weight):
    """None (any port), or a list of port ranges: one mostly, an RFC 6733
    list ("80,443,1000-2000") now and then."""
    r = rnd.choice([None] * none_weight + PORTS)
    if r is None:
        return None
    out = [r]
    if rnd.random() < 0.3:
        out += rnd.sample([p for p in PORTS if p != r], rnd.choice([1, 1, 2]))
    return out


def ports_text(rngs):
    return ",".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in rngs)


def sdf_count(parsed):
    """How many filters the UPF makes of one: a pair per remote x UE range."""
    return len(parsed["rp"] or [0]) * len(parsed["up"] or [0])


def gen_sdf(rnd, ue):
    """(flow description or None, tos/mask or None) and its parsed form."""
    proto = rnd.choice(["ip", "6", "17", "17", "6", "1"])
    remote = rnd.choice(["any"] + REMOTES)
    rp = gen_ports(rnd, 2) if proto in ("6", "17") else None
    uside = rnd.choice(["assigned", ue + "/32", "10.45.0.0/16"])
    up = gen_ports(rnd, 3) if proto in ("6", "17") else None
    fd = "permit out %s from %s" % (proto, remote)
    if rp:
        fd += " " + ports_text(rp)
    fd += " to %s" % uside
    if up:
        fd += " " + ports_text(up)
    tos = rnd.choice([None, None, None] + TOS)
    if rnd.random() < 0.05:  # a ToS-only filter
        fd = None
        tos = rnd.choice(TOS)
    parsed = {"proto": None if proto == "ip" else int(proto),
              "remote": None if remote == "any" else ipaddress.ip_network(remote),
              "ue": None if uside == "assigned" else ipaddress.ip_network(uside),
              "rp": rp, "up": up, "tos": tos}
    if fd is None:
        parsed.update(proto=None, remote=None, ue=None, rp=None, up=None)
    return (fd, tos), parsed


def gen_sdfs(rnd, ue, n):
    """n filters for one PDR, within the 8 the UPF holds once port lists
    are made one filter per pair of ranges."""
    while True:
        fs = [gen_sdf(rnd, ue) for _ in range(n)]
        if sum(sdf_count(x[1]) for x in fs) <= 8:
            return fs


def sdf_wire(w):
    """upf_smf's form of a generated filter: a flow description, or (flow, tos, mask)."""
    fd, tos = w
    return fd if tos is None else (fd, tos[0], tos[1])


def sdf_ref(f, pkt, ul):
    """Does SDF filter f (parsed) match pkt (a dict), in direction ul?"""
    ue_addr, remote = (pkt["src"], pkt["dst"]) if ul else (pkt["dst"], pkt["src"])
    ue_port, rport = (pkt["sport"], pkt["dport"]) if ul else (pkt["dport"], pkt["sport"])
    if f["proto"] is not None and f["proto"] != pkt["proto"]:
        return False
    if f["remote"] is not None and ipaddress.ip_address(remote) not in f["remote"]:
        return False
    if f["ue"] is not None and ipaddress.ip_address(ue_addr) not in f["ue"]:
        return False
    if f["tos"] is not None and (pkt["tos"] ^ f["tos"][0]) & f["tos"][1]:
        return False
    for rngs, port in ((f["rp"], rport), (f["up"], ue_port)):
        if rngs is not None:
            if port is None or not any(lo <= port <= hi for lo, hi in rngs):
                return False
    return True


def pdr_matches(pdrs, pkt, ul):
    """Every PDR whose conditions hold, in precedence order: a linear scan."""
    out = []
    for p in sorted(pdrs, key=lambda x: x["precedence"]):
        if ul and p.get("qfi") is not None and p["qfi"] != pkt.get("qfi"):
            continue
        if not p["sdf"] or any(sdf_ref(f, pkt, ul) for f in p["sdf"]):
            out.append(p)
    return out


def pdr_ref(pdrs, pkt, ul):
    """The first PDR in precedence order whose conditions hold, or None."""
    m = pdr_matches(pdrs, pkt, ul)
    return m[0] if m else None


def rules(h):
    net = h.net
    smf = h.smf()
    rnd = random.Random(int(E.get("UPF_SEED", "14")))
    n_sess = int(E.get("UPF_RULES_SESSIONS", "120"))
    n_dl = int(E.get("UPF_RULES_DL", "12000"))
    n_ul = int(E.get("UPF_RULES_UL", "3000"))
    sess = []

    def setup():
        check(smf.associate().cause == 1, "association")
        for i in range(n_sess):
            ue = "10.45.1.%d" % (i + 1) if i < 250 else "10.45.2.%d" % (i - 249)
            ul_teid = 0x10000 + i
            dl, ul = [], []
            precs = rnd.sample(range(1, 1000), 12)
            for j in range(rnd.randint(2, 6)):
                nf = rnd.choice([0, 1, 1, 2, 3]) if j else rnd.choice([1, 2, 3])
                fs = gen_sdfs(rnd, ue, nf)
                dl.append({"id": 10 + j, "precedence": precs[j], "teid": (i << 8) | (10 + j),
                           "sdf": [x[1] for x in fs], "wire": [x[0] for x in fs]})
            for j in range(rnd.randint(1, 4)):
                nf = rnd.choice([0, 1, 1, 2]) if j else rnd.choice([1, 2])
                fs = gen_sdfs(rnd, ue, nf)
                qfi = rnd.choice([None, None, 5, 9])
                ul.append({"id": 40 + j, "precedence": precs[6 + j],
                           "teid": (i << 8) | (40 + j), "qfi": qfi,
                           "sdf": [x[1] for x in fs], "wire": [x[0] for x in fs]})
            pdrs = [pdr(p["id"], p["precedence"], "core", far=p["id"], ue=ue,
                        sdf=[sdf_wire(w) for w in p["wire"]]) for p in dl]
            pdrs += [pdr(p["id"], p["precedence"], "access", far=p["id"], teid=ul_teid,
                         n3=N3_4, ue=ue, qfi=p["qfi"], ohr=True,
                         sdf=[sdf_wire(w) for w in p["wire"]]) for p in ul]
            fars = [far(p["id"], "FORW", "access", ohc=(p["teid"], GNB_4)) for p in dl]
            fars += [far(p["id"], "FORW", "core", ohc=(p["teid"], N9_PEER)) for p in ul]
            r = smf.establish(1000 + i, pdrs=pdrs, fars=fars)
            check(r.cause == 1, "session %d (%d PDRs): %r" % (i, len(pdrs), r))
            sess.append({"ue": ue, "ul_teid": ul_teid, "dl": dl, "ul": ul, "seid": r.up_seid})
        fs = [f for s in sess for p in s["dl"] + s["ul"] for f in p["sdf"]]
        n_lists = sum(1 for f in fs if sdf_count(f) > 1)
        print("     %d sessions, %d DL PDRs, %d UL PDRs, %d SDF filters, %d with port lists" % (
            len(sess), sum(len(s["dl"]) for s in sess), sum(len(s["ul"]) for s in sess),
            len(fs), n_lists))
        check(n_lists > 0, "some filters have port lists")
    h.step("%d sessions with overlapping SDF filters" % n_sess, setup)
    if len(sess) != n_sess:
        return smf

    hosts = ["198.51.100.7", "198.51.100.100", "198.51.100.130", "198.51.100.200",
             "198.51.50.1", "203.0.113.9", "192.0.2.1"]
    ports = [0, 53, 79, 80, 81, 443, 999, 1000, 1500, 1600, 1601, 2000, 2001, 1023, 1024,
             65535, 40000]

    def mkpkt(s, ident, ul):
        proto = rnd.choice([6, 17, 17, 6, 1, 253])
        frag = rnd.random() < 0.04 and proto in (6, 17)
        host = rnd.choice(hosts)
        sp, dp = rnd.choice(ports), rnd.choice(ports)
        tos = rnd.choice([0, 0x20, 0x23, 0xB8, 0x04, 0x10])
        src, dst = (s["ue"], host) if ul else (host, s["ue"])
        l4 = {6: "tcp", 17: "udp", 1: "icmp", 253: 253}[proto]
        if frag:
            b = ip4(src, dst, proto, size=16, ident=ident, tos=tos, frag=100)
            pk = {"src": src, "dst": dst, "proto": proto, "sport": None, "dport": None,
                  "tos": tos}
        else:
            b = ip4(src, dst, l4, sp, dp, rnd.choice([0, 10, 100]), ident=ident, tos=tos)
            pk = {"src": src, "dst": dst, "proto": proto, "tos": tos,
                  "sport": sp if proto in (6, 17) else None,
                  "dport": dp if proto in (6, 17) else None}
        return b, pk

    def traffic():
        a = h.cnt.settle()
        dl_frames, dl_want, ul_frames, ul_want = [], [], [], []
        no_pdr = 0
        multi = 0   # packets that more than one PDR matches: precedence decides
        for k in range(n_dl):
            s = rnd.choice(sess)
            b, pk = mkpkt(s, k + 1, False)
            ms = pdr_matches(s["dl"], pk, False)
            multi += len(ms) > 1
            m = ms[0] if ms else None
            dl_frames.append(net.dl(b))
            if m is None:
                no_pdr += 1
            else:
                dl_want.append((k + 1, m["teid"], b))
        for k in range(n_ul):
            s = rnd.choice(sess)
            b, pk = mkpkt(s, k + 1, True)
            pk["qfi"] = rnd.choice([None, 5, 9])
            ms = pdr_matches(s["ul"], pk, True)
            multi += len(ms) > 1
            m = ms[0] if ms else None
            ul_frames.append(net.ul(s["ul_teid"], b, qfi=pk["qfi"]))
            if m is None:
                no_pdr += 1
            else:
                ul_want.append((k + 1, m["teid"], b))
        print("     %d DL packets (%d match a PDR), %d UL packets (%d match); %d match more "
              "than one PDR" % (n_dl, len(dl_want), n_ul, len(ul_want), multi), flush=True)
        cg, cd = h.cap_gnb("rules"), h.cap_dn("rules")
        h.dn.send(dl_frames)
        h.gnb.send(ul_frames)
        b = h.cnt.settle()
        got_dl, got_ul = cg.stop(), cd.stop()
        for what, got, want, peer in (("downlink", got_dl, dl_want, GNB_4),
                                      ("uplink (N9)", got_ul, ul_want, N9_PEER)):
            check(len(got) == len(want), "%s: %d packets out, the linear scan says %d" % (
                what, len(got), len(want)))
            wrong = []
            for i, (fr, (ident, teid, inner)) in enumerate(zip(got, want)):
                g = inner_of_gtpu(fr)
                if g is None or g[0] != teid or g[2] != inner:
                    wrong.append("packet %d (IP id %d): TEID %s, want 0x%x%s" % (
                        i, ident, hex(g[0]) if g else None, teid,
                        "" if g is None or g[2] == inner else " (inner differs)"))
            check(not wrong, "%s: %d packets disagree with the linear scan: %s" % (
                what, len(wrong), "; ".join(wrong[:6])))
        # The GTP-U layers only: the inner packets' payloads are random
        # bytes (a DNS or TLS dissector would call them malformed) and are
        # compared byte for byte above.
        tshark_clean(cg.path, "downlink (rules)", ["-o", "gtp.dissect_tpdu_as:None"])
        tshark_clean(cd.path, "uplink over N9 (rules)", ["-o", "gtp.dissect_tpdu_as:None"])
        expect_drops("rules", a, b, rx=n_dl + n_ul, tx=len(dl_want) + len(ul_want),
                     lf_drops={"upf": no_pdr}, upf_drops={"no_pdr": no_pdr})
    h.step("%d DL + %d UL packets: each PDR's FAR TEID equals the linear scan's" % (
        n_dl, n_ul), traffic)

    def teardown():
        for s in sess:
            r = smf.delete(s["seid"])
            check(r.cause == 1, "deleting session of %s: %r" % (s["ue"], r))
        n = upf_get(h.tel("/lanefwd/upf"), "sessions")
        check(n == 0, "%d sessions left after deleting all" % n)
        a = h.cnt.settle()
        s = sess[0]
        h.dn.send([net.dl(ip4("198.51.100.7", s["ue"], "udp", 80, 80, 0, ident=1))])
        h.gnb.send([net.ul(s["ul_teid"], ip4(s["ue"], "198.51.100.7", "udp", 80, 80, 0,
                                             ident=2), qfi=9)])
        b = h.cnt.settle()
        d = deltas(a, b)
        check(upf_drop(b["upf"], "unknown_ue") - upf_drop(a["upf"], "unknown_ue") == 1 and
              unknown_teid_seen(a, b) == 1,
              "after deletion: %r" % {k: v for k, v in d.items() if v})
    h.step("all sessions (several PDRs on one TEID) deleted; their TEIDs and UEs gone",
           teardown)
    return smf


# ------------------------------------------------------------------ bad input

def pfcp_hdr(mtype, body, seid=None, seq=1, version=1, length=None):
    """A PFCP header by hand (the corpus needs wrong ones)."""
    if seid is None:
        ln = 4 + len(body) if length is None else length
        return struct.pack("!BBHI", version << 5, mtype, ln, seq << 8) + body
    ln = 12 + len(body) if length is None else length
    return struct.pack("!BBHQI", (version << 5) | 1, mtype, ln, seid, seq << 8) + body


def tlv(t, v):
    return struct.pack("!HH", t, len(v)) + v


def bad(h):
    net = h.net
    smf = h.smf()
    check(smf.associate().cause == 1, "association")
    P = upf_smf.P

    def est_body(cp_seid=77, pdrs=None, fars=None, drop=()):
        ies = smf.establishment_ies(cp_seid, pdrs or [
            pdr(1, 100, "core", far=1, ue="10.45.3.1")],
            fars or [far(1, "FORW", "access", ohc=(1, GNB_4))])
        return b"".join(bytes(ie) for ie in ies if ie.ie_type not in drop)

    def nested(depth):
        v = tlv(56, b"\x00\x01")
        for _ in range(depth):
            v = tlv(2, v)          # PDI in PDI in PDI ...
        return tlv(1, tlv(56, b"\x00\x01") + tlv(29, b"\0\0\0\1") + v + tlv(108, b"\0\0\0\1"))

    good = est_body()
    far_ies = b"".join(bytes(ie) for ie in smf.establishment_ies(
        1, [], [far(1, "FORW", "access", ohc=(1, GNB_4))])[2:])
    node_fseid = b"".join(bytes(ie) for ie in smf.establishment_ies(77, [], [])[:2])
    ents = tlv(0x8001, b"\x00\x0a" + b"enterprise") + tlv(250, b"unknown IE")
    corpus = [
        # (name, datagram, expected: dropped and counted "malformed" (header
        # unreadable or inconsistent) / "unknown" (message type), or
        # (response type, allowed causes[, Offending IE]))
        ("3 bytes", b"\x20\x01\x00", "malformed"),
        ("header only, length past the end", pfcp_hdr(1, b"", length=200), "malformed"),
        ("version 2 heartbeat", pfcp_hdr(1, tlv(96, b"\0\0\0\1"), version=2), (11, None)),
        ("unknown message type 99", pfcp_hdr(99, b""), "unknown"),
        ("unknown message type 200 with SEID", pfcp_hdr(200, b"", seid=1), "unknown"),
        ("establishment: IE length past the end",
         pfcp_hdr(50, good + tlv(1, b"")[:2] + b"\x01\x00", seid=0), (51, {64, 68, 69})),
        ("establishment: Create PDR of garbage",
         pfcp_hdr(50, node_fseid + tlv(1, b"\xff\xff\xff") + far_ies, seid=0),
         (51, {64, 68, 69})),
        ("establishment: nesting 40 deep",
         pfcp_hdr(50, node_fseid + nested(40) + far_ies, seid=0), (51, {64, 66, 69})),
        ("establishment: no F-SEID", pfcp_hdr(50, est_body(drop=(57,)), seid=0),
         (51, {66}, 57)),
        ("establishment: no Node ID", pfcp_hdr(50, est_body(drop=(60,)), seid=0),
         (51, {66}, 60)),
        ("establishment: no Create PDR", pfcp_hdr(50, est_body(drop=(1,)), seid=0),
         (51, {66}, 1)),
        ("establishment: Create FAR without Apply Action",
         pfcp_hdr(50, node_fseid + bytes(tlv(1, b"".join(bytes(x) for x in upf_smf._pdr_ies(
             pdr(1, 1, "core", far=1, ue="10.45.3.4"))))) +
             tlv(3, tlv(108, b"\0\0\0\1")), seid=0), (51, {66}, 44)),
        ("establishment: 1000 Create PDRs",
         pfcp_hdr(50, node_fseid + b"".join(
             tlv(1, tlv(56, struct.pack("!H", i)) + tlv(29, b"\0\0\0\1") +
                 tlv(2, tlv(20, b"\x01")) + tlv(108, b"\0\0\0\1")) for i in range(1, 1001)) +
             far_ies, seid=0), (51, {64, 69, 73, 75})),
        ("establishment: a PDR with 100 SDF filters",
         pfcp_hdr(50, est_body(pdrs=[pdr(1, 1, "core", far=1, ue="10.45.3.6", sdf=[
             "permit out 17 from any %d to assigned" % (i + 1) for i in range(100)])]),
             seid=0), (51, {64, 69, 73, 75})),
        ("establishment: PDR names a missing FAR",
         pfcp_hdr(50, est_body(pdrs=[pdr(1, 1, "core", far=9, ue="10.45.3.2")]), seid=0),
         (51, {69, 73})),
        ("establishment: invalid SDF",
         pfcp_hdr(50, est_body(pdrs=[pdr(1, 1, "core", far=1, ue="10.45.3.3",
                                         sdf=["permit in 17 frm x"])]), seid=0),
         (51, {69, 73})),
        ("establishment: DUPL", pfcp_hdr(50, est_body(fars=[far(1, "DUPL")]), seid=0),
         (51, {69, 73, 76})),
        # A PDI naming a Traffic Endpoint the request does not create, and
        # one with a Framed-Route outside the instance's ue_pool (no packet
        # would reach it): refused, not accepted; scapy's own encoding.
        ("establishment: a PDR naming no Traffic Endpoint",
         pfcp_hdr(50, est_body(cp_seid=79, pdrs=[pdr(1, 100, "core", far=1, te=4)]), seid=0),
         (51, {73}, 131)),
        ("establishment: a Traffic Endpoint with a Framed-Route",
         pfcp_hdr(50, est_body(cp_seid=79, pdrs=[pdr(1, 100, "core", far=1, te=1)]) +
                  bytes(upf_smf.P.IE_CreateTrafficEndpoint(IE_list=[
                      upf_smf.P.IE_TrafficEndpointId(id=1),
                      upf_smf.P.IE_FramedRoute(framed_route=b"10.9.0.0/16")])), seid=0),
         (51, {73}, 153)),
        # Framed routes that are not prefixes, or an IPv6 one longer than the
        # UE table keys (/64).
        ("establishment: a Framed-Route that is not a prefix",
         pfcp_hdr(50, est_body(cp_seid=79, pdrs=[pdr(1, 100, "core", far=1, ue="10.45.3.9",
                                                    framed=["10.45.77.0/33"])]), seid=0),
         (51, {73}, 153)),
        ("establishment: a Framed-IPv6-Route longer than /64",
         pfcp_hdr(50, est_body(cp_seid=79, pdrs=[pdr(1, 100, "core", far=1, ue="10.45.3.9",
                                                    framed=["fd00:45:0:77::/96"])]), seid=0),
         (51, {73}, 155)),
        # A prefix delegated to the UE shorter than a /48 (IPv6D 24 bits).
        ("establishment: a delegated /40",
         pfcp_hdr(50, est_body(cp_seid=80, pdrs=[pdr(1, 1, "core", far=1, ue6="fd00:45:1::",
                                                    ue6_plen=40)]), seid=0), (51, {73}, 93)),
        ("modification of an unknown SEID", pfcp_hdr(52, b"", seid=0xABCDEF), (53, {65})),
        ("deletion of an unknown SEID", pfcp_hdr(54, b"", seid=0xABCDEF), (55, {65})),
        # A Heartbeat Response has no Cause to say what is wrong.
        ("heartbeat without Recovery Time Stamp", pfcp_hdr(1, b""), "malformed"),
        ("establishment with enterprise and unknown IEs (skipped)",
         pfcp_hdr(50, est_body(cp_seid=78) + ents, seid=0), (51, {1})),
    ]

    def pfcp_corpus():
        u0 = h.tel("/lanefwd/upf")
        n_sess0 = upf_get(u0, "sessions")
        bad_out = []
        seq = 1000
        accepted = []
        drops = {"malformed": 0, "unknown": 0}
        for name, dgram, want in corpus:
            seq += 1
            # Give every datagram that has a readable header its own sequence number.
            if len(dgram) >= 8:
                b = bytearray(dgram)
                so = 12 if b[0] & 1 else 4
                if len(b) >= so + 3:
                    b[so:so + 3] = struct.pack("!I", seq)[1:]
                dgram = bytes(b)
            smf.send_raw(dgram)
            got = smf.recv_raw(1.0)
            if isinstance(want, str):
                drops[want] += 1
                if got is not None:
                    bad_out.append("%s: answered (%s), should be dropped" % (
                        name, got[0][:16].hex()))
                continue
            if got is None:
                bad_out.append("%s: no answer (want type %d cause %s)" % (name, *want))
                continue
            m = upf_smf.Msg(*got)
            if m.type != want[0] or (want[1] is not None and m.cause not in want[1]):
                bad_out.append("%s: type %d cause %s (want type %d cause in %s)" % (
                    name, m.type, m.cause, want[0], sorted(want[1] or [])))
            if len(want) > 2 and m.offending_ie != want[2]:
                bad_out.append("%s: Offending IE %s (want %d)" % (name, m.offending_ie,
                                                                  want[2]))
            if m.cause == 1:
                accepted.append(m.up_seid)
            print("     %-55s -> type %d cause %s%s" % (
                name, m.type, m.cause, " offending IE %s" % m.offending_ie
                if m.offending_ie else ""))
        u1 = h.tel("/lanefwd/upf")
        n_sess1 = upf_get(u1, "sessions")
        check(n_sess1 == n_sess0 + len(accepted), "sessions %d -> %d, %d accepted: a "
              "rejected request left a session behind" % (n_sess0, n_sess1, len(accepted)))
        for s in accepted:
            smf.delete(s)
        for k, n in drops.items():
            got = upf_get(u1, k + "_dropped") - upf_get(u0, k + "_dropped")
            if got != n:
                bad_out.append("%s_dropped +%d (want +%d)" % (k, got, n))
        check(not bad_out, "; ".join(bad_out))
        check(smf.heartbeat().recovery_ts is not None, "no heartbeat after the corpus")
        print("     dropped and counted: %s; causes sent so far: %s" % (
            drops, {k[len("causes_sent.cause_"):]: v for k, v in upf_flat(u1).items()
                    if k.startswith("causes_sent.")}))
    h.step("malformed PFCP corpus (%d datagrams): right Cause or dropped" % len(corpus),
           pfcp_corpus)

    def duplicate():
        ies = smf.establishment_ies(90, [pdr(1, 1, "core", far=1, ue="10.45.3.90")],
                                    [far(1, "FORW", "access", ohc=(1, GNB_4))])
        data, seq = smf.build(P.PFCPSessionEstablishmentRequest, ies, seid=0)
        n0 = upf_get(h.tel("/lanefwd/upf"), "sessions")
        smf.send_raw(data)
        r1 = smf.recv_raw(2.0)
        smf.send_raw(data)
        r2 = smf.recv_raw(2.0)
        check(r1 is not None and r2 is not None, "no answer to a request or its duplicate")
        check(r1[0] == r2[0], "the duplicate was answered differently:\n %s\n %s" % (
            r1[0].hex(), r2[0].hex()))
        n1 = upf_get(h.tel("/lanefwd/upf"), "sessions")
        check(n1 == n0 + 1, "a duplicated establishment made %d sessions" % (n1 - n0))
        smf.delete(upf_smf.Msg(*r1).up_seid)
    h.step("a retransmitted request is answered from the cache, applied once", duplicate)

    def no_association():
        # Another node (Node ID and address 127.0.0.2) that never associated.
        other = h.smf(local=("127.0.0.2", 0), node_ip="127.0.0.2")
        r = other.establish(5, [pdr(1, 1, "core", far=1, ue="10.45.3.5")],
                            [far(1, "FORW", "access", ohc=(1, GNB_4))])
        other.close()
        check(r.cause == 72, "establishment without association: %r (want 72)" % r)
    h.step("session request from a peer without association -> Cause 72", no_association)

    # ---- GTP-U
    def gtpu_corpus():
        r = smf.establish(91, [pdr(1, 1, "access", far=1, teid=0xB00B, n3=N3_4, ohr=True,
                                   ue="10.45.3.91")], [far(1, "FORW", "core")])
        check(r.cause == 1, "session: %r" % r)
        good_inner = ip4("10.45.3.91", "198.51.100.1", "udp", 1, 2, 10, ident=5)
        o = eth(net.mac_n3, net.mac_gnb) / IP(src=GNB_4, dst=N3_4)

        def udp_payload(b, dport=2152):
            return bytes(o / UDP(sport=2152, dport=dport) / Raw(b))

        hdr = struct.pack("!BBHI", 0x30, 255, len(good_inner), 0xB00B)
        bad_inner = bytearray(good_inner)
        bad_inner[10] ^= 0xFF   # inner IPv4 checksum wrong
        cases = [
            ("GTP-U header cut short (4 bytes)", udp_payload(hdr[:4]), "gtpu_malformed"),
            ("GTP-U length past the UDP payload",
             udp_payload(struct.pack("!BBHI", 0x30, 255, 500, 0xB00B) + good_inner),
             "gtpu_malformed"),
            ("GTP version 2", udp_payload(bytes([0x50]) + hdr[1:] + good_inner),
             "gtpu_version"),
            ("PT 0 (GTP')", udp_payload(bytes([0x20]) + hdr[1:] + good_inner), "gtpu_version"),
            ("E set, optional fields cut", udp_payload(
                struct.pack("!BBHI", 0x34, 255, 2, 0xB00B) + b"\0\0"), "gtpu_malformed"),
            ("extension runs off the packet", udp_payload(
                struct.pack("!BBHI", 0x34, 255, 8, 0xB00B) + b"\0\0\0\x85" + b"\x05\x10\x09\x00"),
             "gtpu_malformed"),
            ("extension length 0", udp_payload(
                struct.pack("!BBHI", 0x34, 255, 8 + len(good_inner), 0xB00B) +
                b"\0\0\0\x85" + b"\x00\x10\x09\x00" + good_inner), "gtpu_malformed"),
            ("comprehension-required unknown extension (0xC5)", udp_payload(
                struct.pack("!BBHI", 0x34, 255, 8 + len(good_inner), 0xB00B) +
                b"\0\0\0\xc5" + b"\x01\x00\x00\x00" + good_inner), "gtpu_ext_unknown"),
            ("message type 100", udp_payload(struct.pack("!BBHI", 0x30, 100, 0, 0)),
             "gtpu_not_gpdu"),
            ("Echo Request without S", udp_payload(struct.pack("!BBHI", 0x30, 1, 0, 0)),
             "gtpu_malformed"),
            ("G-PDU without a payload", udp_payload(struct.pack("!BBHI", 0x30, 255, 0, 0xB00B)),
             "inner_malformed"),
            ("inner IPv4 checksum wrong", udp_payload(hdr + bytes(bad_inner)),
             "inner_malformed"),
            ("inner IPv4 cut short", udp_payload(
                struct.pack("!BBHI", 0x30, 255, 12, 0xB00B) + good_inner[:12]),
             "inner_malformed"),
            ("UDP to the N3 address, port 2153", udp_payload(hdr + good_inner, 2153),
             "not_local"),
            ("ICMP echo to the N3 address", bytes(o / ICMP()), "not_local"),
        ]
        a = h.cnt.settle()
        reps = 3
        cg, cd = h.cap_gnb("badgtpu"), h.cap_dn("badgtpu")
        for name, fr, _ in cases:
            h.gnb.send([fr] * reps)
        good = net.ul(0xB00B, good_inner, qfi=None)
        h.gnb.send([good])
        b = h.cnt.settle()
        got_dn, got_gnb = cd.stop(), cg.stop()
        want = {}
        for _, _, reason in cases:
            want[reason] = want.get(reason, 0) + reps
        expect_drops("malformed GTP-U", a, b, rx=len(cases) * reps + 1, tx=1,
                     lf_drops={"upf": len(cases) * reps}, upf_drops=want)
        match_frames("the good G-PDU after the corpus", got_dn, [net.ul_ref(good_inner)])
        check(not got_gnb, "%d frames went back to the gNB" % len(got_gnb))
        smf.delete(r.up_seid)
    h.step("malformed GTP-U: each a counted drop of its reason, then a good packet passes",
           gtpu_corpus)

    def alive():
        check(smf.heartbeat().recovery_ts is not None, "no heartbeat")
        h.cnt.alive()
    h.step("lanefwd alive and answering", alive)
    return smf


# ------------------------------------------------------------------ churn

def churn_sender(ns, ifname, frames_by_ue, n_ue, rate, counter, stop, out_path):
    """Child process: downlink frames round-robin over the UEs at rate
    packets/s, each with its sequence number (IP id low bits + payload);
    counter.value is the next sequence number, written after each send."""
    s = in_netns(ns, lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.bind((ifname, 0))
    seq = 0
    t0 = time.monotonic()
    ues = []
    while not stop.value:
        ue = seq % n_ue
        fr = bytearray(frames_by_ue[ue])
        fr[-8:] = struct.pack("!Q", seq)
        s.send(bytes(fr))
        ues.append(ue)
        seq += 1
        counter.value = seq
        if seq % 16 == 0:
            ahead = seq / rate - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(ahead)
    with open(out_path, "w") as f:
        json.dump({"sent": seq, "seconds": time.monotonic() - t0}, f)


def churn(h):
    net = h.net
    smf = h.smf()
    rnd = random.Random(int(E.get("UPF_SEED", "15")))
    n_ue = int(E.get("UPF_CHURN_UES", "200"))
    n_ops = int(E.get("UPF_CHURN_OPS", "10000"))
    rate = int(E.get("UPF_CHURN_PPS", "4000"))
    check(smf.associate().cause == 1, "association")
    # Odd UEs in ue_alloc (10.45.200.0/24, upf_lib.sh): the SMF gives them,
    # and they live in the UE table's direct array rather than its hash,
    # so both halves of the table churn under traffic.
    ue_ip = ["10.45.200.%d" % (1 + i // 2) if i % 2 and i // 2 < 254 else
             "10.45.%d.%d" % (4 + i // 250, 1 + i % 250) for i in range(n_ue)]
    # Every fifth UE has a framed route, a /30 of 10.45.100.0/24 behind it
    # (in ue_pool, outside ue_alloc), and its traffic goes into the route
    # rather than to its address: the route's key churns with the session.
    framed = ["10.45.100.%d/30" % (4 * (i // 5)) if i % 5 == 2 and i // 5 < 64 else None
              for i in range(n_ue)]
    dst_ip = ["10.45.100.%d" % (4 * (i // 5) + 1) if framed[i] else ue_ip[i]
              for i in range(n_ue)]
    # Each UE's frame: UDP to the UE (or into its route), 8 trailing bytes
    # for the sequence number.
    frames = [net.dl(ip4("198.51.100.9", dst_ip[i], "udp", 5000, 6000, 8, ident=i))
              for i in range(n_ue)]
    # The UDP checksum is left 0 (not computed): the payload changes per packet.
    fixed = []
    for fr in frames:
        b = bytearray(fr)
        b[14 + 20 + 6:14 + 20 + 8] = b"\0\0"
        fixed.append(bytes(b))
    frames = fixed
    log = []        # (op, ue, gen, req_time, req_counter, rsp_counter)
    gen = [0] * n_ue
    # Every third UE's PDRs name a Traffic Endpoint that holds its address
    # (PDI optimisation): its replacements are resolved from the endpoint.
    with_te = [i % 3 == 0 for i in range(n_ue)]

    def dl_pdr(ue, pid):
        if with_te[ue]:
            return pdr(pid, 100, "core", far=pid, te=1)
        return pdr(pid, 100, "core", far=pid, ue=ue_ip[ue],
                   framed=[framed[ue]] if framed[ue] else [])
    seid = [None] * n_ue
    pdr_id = [0] * n_ue

    def teid(ue, g):
        return (ue << 16) | g

    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("q", 0, lock=False)
    stop = ctx.Value("b", 0, lock=False)
    sender_out = h.path("churn-sender.json")

    def run():
        a = h.cnt.settle()
        cg = h.cap_gnb("churn")
        proc = ctx.Process(target=churn_sender, args=(
            net.ns_dn, net.if_dn, frames, n_ue, rate, counter, stop, sender_out))
        proc.start()
        pid_note(proc.pid)
        ops = {"establish": 0, "modify_far": 0, "replace_pdr": 0, "delete": 0}
        t0 = time.monotonic()
        try:
            for k in range(n_ops):
                ue = rnd.randrange(n_ue)
                g = gen[ue] + 1
                if g > 0xFFFF:
                    continue
                if seid[ue] is None:
                    op = "establish"
                    pdr_id[ue] = 1
                    args = dict(cp_seid=ue + 1, pdrs=[dl_pdr(ue, 1)],
                                fars=[far(1, "FORW", "access", ohc=(teid(ue, g), GNB_4))],
                                tes=[te(1, ue=ue_ip[ue], sd=1,
                                        framed=[framed[ue]] if framed[ue] else [])]
                                if with_te[ue] else [])
                else:
                    x = rnd.random()
                    op = ("modify_far" if x < 0.7 else "replace_pdr" if x < 0.85
                          else "delete")
                tq, cq = time.time(), counter.value
                if op == "establish":
                    r = smf.establish(**args)
                elif op == "modify_far":
                    r = smf.modify(seid[ue], update_fars=[
                        far(pdr_id[ue], "FORW", "access", ohc=(teid(ue, g), GNB_4))])
                elif op == "replace_pdr":
                    # Remove the PDR and its FAR, create new ones: one message.
                    old, new = pdr_id[ue], pdr_id[ue] % 200 + 1
                    r = smf.modify(seid[ue], remove_pdrs=[old], remove_fars=[old],
                                   create_pdrs=[dl_pdr(ue, new)],
                                   create_fars=[far(new, "FORW", "access",
                                                    ohc=(teid(ue, g), GNB_4))])
                    pdr_id[ue] = new
                else:
                    r = smf.delete(seid[ue])
                cr = counter.value
                check(r.cause == 1, "operation %d (%s UE %d): %r" % (k, op, ue, r))
                if op == "establish":
                    seid[ue] = r.up_seid
                if op == "delete":
                    seid[ue] = None
                gen[ue] = g
                ops[op] += 1
                log.append((op, ue, g, tq, cq, cr))
        finally:
            stop.value = 1
            proc.join(30)
        elapsed = time.monotonic() - t0
        time.sleep(0.3)
        b = h.cnt.settle()
        cg.stop()
        recs = cg.records()
        with open(sender_out) as f:
            sent = json.load(f)["sent"]
        print("     %d operations (%s) in %.1f s, %.0f/s; %d packets sent, %d out" % (
            len(log), ", ".join("%s %d" % kv for kv in ops.items()), elapsed,
            len(log) / elapsed, sent, len(recs)), flush=True)
        verify(a, b, recs, sent)

    def verify(a, b, recs, sent):
        # Per UE: the generations in order, with when each began and ended.
        # valid[ue][g] = (req_time, req_counter, end_rsp_counter or None)
        valid = [dict() for _ in range(n_ue)]
        last = [None] * n_ue
        for op, ue, g, tq, cq, cr in log:
            if last[ue] is not None:
                pg = last[ue]
                valid[ue][pg] = valid[ue][pg][:2] + (cr,)
            if op == "delete":
                last[ue] = None
            else:
                valid[ue][g] = (tq, cq, None)
                last[ue] = g
        errs = []
        hi_gen = [0] * n_ue
        per_ue_out = [0] * n_ue
        # How sharp the check is: packets that were their UE's first after
        # the response to a change on that UE (a stale rule shows there).
        ends = [sorted(cr for op, u, g, tq, cq, cr in log if u == ue) for ue in range(n_ue)]
        first_after = 0
        for i, (ts, fr) in enumerate(recs):
            g = inner_of_gtpu(fr)
            if g is None:
                errs.append("frame %d: not a G-PDU" % i)
                continue
            t, _, inner, _ = g
            ue, gg = t >> 16, t & 0xFFFF
            seq = struct.unpack("!Q", inner[-8:])[0]
            dst = str(ipaddress.IPv4Address(inner[16:20]))
            if ue >= n_ue or dst != dst_ip[ue]:
                errs.append("frame %d: TEID 0x%x for UE %s" % (i, t, dst))
                continue
            per_ue_out[ue] += 1
            v = valid[ue].get(gg)
            if v is None:
                errs.append("frame %d: TEID 0x%x was never given to UE %d" % (i, t, ue))
                continue
            tq, cq, end = v
            if ts + 2e-6 < tq:
                errs.append("frame %d (seq %d): TEID 0x%x captured %.6f s before its rule was "
                            "requested" % (i, seq, t, tq - ts))
            if end is not None and seq > end:
                errs.append("frame %d (seq %d): TEID 0x%x superseded or removed when packet %d "
                            "was sent (the response came before it)" % (i, seq, t, end))
            if gg < hi_gen[ue]:
                errs.append("frame %d: UE %d went back from generation %d to %d" % (
                    i, ue, hi_gen[ue], gg))
            hi_gen[ue] = max(hi_gen[ue], gg)
            j = bisect.bisect_left(ends[ue], seq) - 1
            if j >= 0 and seq - ends[ue][j] <= n_ue:
                first_after += 1
        check(not errs, "%d packets broke the rules' lifetimes: %s" % (len(errs),
                                                                     "; ".join(errs[:8])))
        into_routes = sum(per_ue_out[u] for u in range(n_ue) if framed[u])
        check(into_routes > 0, "no packet into a framed route came out")
        d = deltas(a, b)
        uu = upf_drop(b["upf"], "unknown_ue") - upf_drop(a["upf"], "unknown_ue")
        expect_drops("churn", a, b, rx=sent, tx=len(recs), lf_drops={"upf": sent - len(recs)},
                     upf_drops={"unknown_ue": sent - len(recs)})
        check(d["lf.rx_packets"] == d["lf.tx_packets"] + d["lf.drops"],
              "rx %d != tx %d + drops %d" % (d["lf.rx_packets"], d["lf.tx_packets"],
                                            d["lf.drops"]))
        print("     every packet used a rule valid for it (%d were their UE's first after a "
              "change's response, %d went into framed routes); rx %d = tx %d + unknown_ue %d" % (
                  first_after, into_routes, d["lf.rx_packets"], d["lf.tx_packets"], uu))
    h.step("%d establish/modify/delete operations over %d UEs with downlink traffic" % (
        n_ops, n_ue), run)

    def end():
        live = [s for s in seid if s is not None]
        n = upf_get(h.tel("/lanefwd/upf"), "sessions")
        check(n == len(live), "/lanefwd/upf says %d sessions, the SMF holds %d" % (n, len(live)))
        for s in live:
            check(smf.delete(s).cause == 1, "deletion")
        n = upf_get(h.tel("/lanefwd/upf"), "sessions")
        check(n == 0, "%d sessions left" % n)
        check(smf.heartbeat().recovery_ts is not None, "no heartbeat")
        if "[flow]" in E.get("UPF_CONF_APPEND", ""):
            # The flow-cache run: the cache was consulted for the traffic
            # (whether it keeps verdicts for the UPF's kinds is lanefwd's
            # choice; the checks above hold either way).
            w = h.tel("/lanefwd/flows")
            look = sum(v.get("lookups", 0) for v in w.values() if isinstance(v, dict))
            print("     flow cache: %s" % {k: {x: v[x] for x in ("state", "lookups", "hits")
                                                   if x in v}
                                           for k, v in w.items() if isinstance(v, dict)})
            check(look > 0, "the flow cache was never consulted: %r" % w)
    h.step("sessions agree with the SMF; all deleted", end)
    return smf


# ------------------------------------------------------------------ final

def final(d):
    with open(os.path.join(d, "last_stats.json")) as f:
        last = json.load(f)
    total, _ = lftest.parse_final(os.path.join(d, "lanefwd.log"))
    why = lftest.balance(total["rx"], total["tx"], total["drops"],
                         lftest.parse_final_events(os.path.join(d, "lanefwd.log")))
    check(why is None, "final: %s" % why)
    check(total["rx"] == last["rx_packets"] and total["tx"] == last["tx_packets"],
          "final: rx %d tx %d vs last telemetry rx %d tx %d" % (
              total["rx"], total["tx"], last["rx_packets"], last["tx_packets"]))
    for r in lftest.DROP_REASONS:
        check(total[r] == last.get("drop_" + r, 0),
              "final: %s %d vs telemetry %d" % (r, total[r], last.get("drop_" + r, 0)))
    print("final counters agree with telemetry: rx %d tx %d drops %d" % (
        total["rx"], total["tx"], total["drops"]))


TESTS = {"e2e": e2e, "rules": rules, "bad": bad, "churn": churn}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "final":
        try:
            final(sys.argv[2])
        except CheckError as e:
            print("FAIL: " + str(e), file=sys.stderr)
            sys.exit(1)
        return
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit("usage: upf.py e2e|rules|bad|churn  or  upf.py final DIR")
    h = Harness(sys.argv[1])
    smf = None
    try:
        smf = TESTS[sys.argv[1]](h)
    except (CheckError, upf_smf.PFCPError) as e:
        h.failures.append("%s" % e)
    try:
        types = h.pfcp_check()
        if sys.argv[1] == "e2e":
            for t, what in (("6", "Association Setup Response"), ("2", "Heartbeat Response"),
                            ("51", "Session Establishment Response"),
                            ("53", "Session Modification Response"),
                            ("55", "Session Deletion Response"),
                            ("56", "Session Report Request")):
                check(t in types, "no %s from lanefwd was captured" % what)
            # The Association Setup Response announces the named pools,
            # as tshark's pfcp dissector reads them.
            rows = tshark_rows(h.pfcp_cap.path, ["pfcp.ue_ip_address_pool_identity"],
                               ["-d", "udp.port==%d,pfcp" % h.port, "-Y",
                                "pfcp.msg_type == 6 && udp.srcport == %d" % h.port])
            # (a bytes field: tshark prints each as hex)
            got = [",".join(bytes.fromhex(x).decode(errors="replace")
                            for x in r["pfcp.ue_ip_address_pool_identity"].split(","))
                   for r in rows]
            check(got and all(g == "internet-main,ent-a,fwa" for g in got),
                  "Association Setup Response pools as tshark reads them: %r "
                  "(want internet-main,ent-a,fwa)" % got)
    except CheckError as e:
        h.failures.append("PFCP messages through tshark: %s" % e)
    if smf is not None:
        smf.close()
    h.finish()


if __name__ == "__main__":
    main()
