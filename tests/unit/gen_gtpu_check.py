#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Independent check of lanefwd-gen's GTP-U uplink frames (test_gen writes them).

Reads a pcap of uplink G-PDUs built by src/gen/gen_pkt.c and checks every
frame with scapy (scapy.contrib.gtp) and tshark's gtp dissector, not with
the generator's own parser:

* scapy: outer IPv4/IPv6 from the session's gNB address to the N3 address,
  its header checksum, UDP 2152 -> 2152 with a UDP checksum scapy computes
  the same way; GTP-U version 1, PT 1, E set, G-PDU, the length field equal
  to the bytes after the 8-octet mandatory header, the TEID teid_base + s;
  one PDU Session Container (0x85) of length 1 (4 octets), UL PDU SESSION
  INFORMATION (type 1), the QFI, next extension type 0; the inner packet
  from UE ue + s (IPv6: the /64 ue + s) with its own valid checksums and the
  generator's stamp magic right after its L4 header; the inner frame size
  (Ethernet + inner packet + FCS) one of the sizes asked for.
* tshark: no malformed packet and no expert info (warnings included; TCP
  sequence analysis is off, the frames are unrelated segments); its TEID,
  PDU type and QFI fields agree.

Usage: gen_gtpu_check.py PCAP --teid-base N --qfi N --sessions N --gnb-ips N
       --sizes 64,570,1518
Exit status 0 when every frame passes, 1 with the first failures listed.
"""
import argparse
import ipaddress
import subprocess
import sys

from scapy.all import IP, IPv6, TCP, UDP, Ether, raw, rdpcap  # noqa: E402
from scapy.contrib.gtp import GTP_U_Header, GTPPDUSessionContainer  # noqa: E402

N3 = {4: "192.168.3.1", 6: "fd00:3::1"}
GNB = {4: "192.168.3.2", 6: "fd00:3::2"}
UE = {4: "10.45.0.1", 6: "fd00:45::1"}
MAGIC = 0x4C46


def checksum_ok(pkt, layer):
    """Whether layer's checksum in pkt is what scapy computes from scratch."""
    fresh = pkt.copy()
    field = "chksum"
    del fresh[layer].chksum
    return getattr(Ether(raw(fresh))[layer], field) == getattr(pkt[layer], field)


def check_frame(i, pkt, a, errors):
    def bad(msg):
        errors.append("frame %d: %s" % (i, msg))

    outer = pkt.getlayer(IP) if pkt.type == 0x0800 else pkt.getlayer(IPv6)
    if outer is None:
        return bad("no outer IP")
    ofam = 4 if pkt.type == 0x0800 else 6
    udp = outer.getlayer(UDP)
    if udp is None or udp.sport != 2152 or udp.dport != 2152:
        return bad("outer UDP is not 2152 -> 2152")
    if ofam == 4:
        if outer.len != len(raw(outer)) or not checksum_ok(pkt, IP):
            bad("outer IPv4 length or header checksum")
    elif outer.plen != len(raw(outer)) - 40:
        bad("outer IPv6 payload length")
    if udp.len != len(raw(udp)):
        bad("outer UDP length %d, datagram %d" % (udp.len, len(raw(udp))))
    if udp.chksum == 0 or not checksum_ok(pkt, UDP):
        bad("outer UDP checksum")
    gtp = udp.getlayer(GTP_U_Header)
    if gtp is None:
        return bad("no GTP-U header")
    graw = raw(gtp)
    if (gtp.version, gtp.PT, gtp.E, gtp.S, gtp.PN, gtp.gtp_type) != (1, 1, 1, 0, 0, 255):
        bad("GTP-U flags/type %r" % ((gtp.version, gtp.PT, gtp.E, gtp.S, gtp.PN,
                                       gtp.gtp_type),))
    if gtp.length != len(graw) - 8:
        bad("GTP-U length %d, %d bytes follow the mandatory header" % (gtp.length,
                                                                          len(graw) - 8))
    if gtp.next_ex != 0x85:
        bad("next extension type 0x%x" % gtp.next_ex)
    s = gtp.teid - a.teid_base
    if not 0 <= s < a.sessions:
        return bad("TEID %d outside the sessions" % gtp.teid)
    psc = gtp.getlayer(GTPPDUSessionContainer)
    if psc is None:
        return bad("no PDU Session Container")
    # The container as it is on the wire (scapy's own view is checked too).
    praw = graw[12:16]
    if praw[0] != 1 or praw[1] >> 4 != 1 or praw[2] & 0x3F != a.qfi or praw[3] != 0:
        bad("PSC bytes %s" % praw.hex())
    if psc.ExtHdrLen != 1 or psc.type != 1 or psc.QFI != a.qfi or psc.NextExtHdr != 0:
        bad("PSC fields len %s type %s QFI %s next %s" % (psc.ExtHdrLen, psc.type, psc.QFI,
                                                           psc.NextExtHdr))
    gnb = ipaddress.ip_address(GNB[ofam]) + s % a.gnb_ips
    if ipaddress.ip_address(outer.src) != gnb or outer.dst != str(ipaddress.ip_address(N3[ofam])):
        bad("outer %s -> %s, want %s -> %s" % (outer.src, outer.dst, gnb, N3[ofam]))
    inner_raw = graw[16:]
    ifam = inner_raw[0] >> 4
    inner = IP(inner_raw) if ifam == 4 else IPv6(inner_raw)
    if ifam == 4:
        ue = ipaddress.ip_address(UE[4]) + s
        fresh = IP(raw(inner))
        del fresh.chksum
        if IP(raw(fresh)).chksum != inner.chksum or inner.len != len(inner_raw):
            bad("inner IPv4 checksum or length")
    else:
        ue = ipaddress.ip_address(int(ipaddress.ip_address(UE[6])) + (s << 64))
        if inner.plen != len(inner_raw) - 40:
            bad("inner IPv6 payload length")
    if ipaddress.ip_address(inner.src) != ue:
        bad("inner source %s, want UE %s (session %d)" % (inner.src, ue, s))
    l4 = inner.getlayer(UDP) or inner.getlayer(TCP)
    if l4 is None:
        return bad("inner packet is neither UDP nor TCP")
    fresh = (IP if ifam == 4 else IPv6)(raw(inner))
    del fresh[type(l4)].chksum
    if (IP if ifam == 4 else IPv6)(raw(fresh))[type(l4)].chksum != l4.chksum:
        bad("inner L4 checksum")
    pay = raw(l4.payload)
    if len(pay) < 18 or int.from_bytes(pay[:2], "big") != MAGIC:
        bad("no stamp after the inner L4 header")
    if 14 + len(inner_raw) + 4 not in a.sizes:
        bad("inner frame %d bytes, not one of %s" % (14 + len(inner_raw) + 4, a.sizes))
    return (gtp.teid, a.qfi)


def tshark_check(path, want, errors):
    out = subprocess.run(
        ["tshark", "-n", "-o", "tcp.analyze_sequence_numbers:FALSE", "-r", path, "-T", "fields", "-E", "separator=/t", "-e", "gtp.teid",
         "-e", "gtp.ext_hdr.pdu_ses_con.pdu_type", "-e", "gtp.ext_hdr.pdu_ses_con.qos_flow_id",
         "-e", "_ws.malformed", "-e", "_ws.expert.severity"],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        errors.append("tshark failed: %s" % out.stderr.strip())
        return
    lines = out.stdout.splitlines()
    if len(lines) != len(want):
        errors.append("tshark read %d frames, scapy %d" % (len(lines), len(want)))
    for i, (line, w) in enumerate(zip(lines, want)):
        f = (line.split("\t") + [""] * 5)[:5]
        if f[3] or f[4]:
            errors.append("frame %d: tshark malformed/expert info %r" % (i, f[3:]))
        teid = int(f[0], 0) if f[0] else None
        if w is not None and (teid != w[0] or f[1] != "1" or f[2] != str(w[1])):
            errors.append("frame %d: tshark TEID %s PDU type %s QFI %s" % (i, f[0], f[1], f[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--teid-base", type=int, required=True)
    ap.add_argument("--qfi", type=int, required=True)
    ap.add_argument("--sessions", type=int, required=True)
    ap.add_argument("--gnb-ips", type=int, default=1)
    ap.add_argument("--sizes", required=True)
    ap.add_argument("--min-frames", type=int, default=1)
    a = ap.parse_args()
    a.sizes = {int(x) for x in a.sizes.split(",")}
    pkts = rdpcap(a.pcap)
    errors, want = [], []
    for i, p in enumerate(pkts):
        want.append(check_frame(i, p, a, errors))
    if len(pkts) < a.min_frames:
        errors.append("%d frames, expected at least %d" % (len(pkts), a.min_frames))
    tshark_check(a.pcap, want, errors)
    if errors:
        print("gen_gtpu_check: %d problems, first ones:" % len(errors))
        for e in errors[:20]:
            print("  " + e)
        return 1
    print("gen_gtpu_check: %d frames ok (scapy and tshark)" % len(pkts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
