#!/usr/bin/python3
"""Traffic and checker for acl.sh.

  acl.py gen DIR                     write DIR/in.pcap, DIR/empty.pcap,
                                     DIR/manifest.json
  acl.py check DIR DEFAULT FAMILIES  check DIR/out_p0.pcap, DIR/out_p1.pcap,
                                     the final counters in DIR/lanefwd.log and
                                     DIR/tel_*.json

The expected decision of every packet comes from a linear first-match scan
of DIR/acl.rules (IPv4) and DIR/acl6.rules (IPv6) written here from the
ClassBench format, not from lanefwd: the protocol is the upper-layer one
(for IPv6 after the extension headers), ports are those of the UDP or TCP
header (0 for other protocols and for non-first fragments). FAMILIES says
which families the configuration classifies ("46" or "6"); packets of the
other family always pass. Where packets go comes from the IPv6 manifest
destination (2001:db8:1::/48 to p1, 2001:db8:2::/48 to p0) and the IPv4 one
(172.16/12 to p0, the rest to p1). Packets are matched by their IPv4 id or
IPv6 flow label.
"""

import ipaddress
import json
import os
import random
import struct
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402
from lftest import CheckError, check  # noqa: E402

SRCS = ["192.168.1.5", "192.168.1.200", "192.168.2.77", "192.168.2.78", "192.168.3.9",
        "198.51.100.7", "203.0.113.5", "203.0.113.200", "10.200.1.1", "10.201.1.1",
        "192.0.2.1"]
DSTS = ["10.1.0.1", "10.1.255.3", "10.2.0.9", "10.3.1.1", "10.4.0.1", "10.5.1.1",
        "10.5.5.9", "10.6.0.1", "10.7.0.1", "10.8.0.1", "10.9.0.1", "172.16.0.1",
        "172.31.255.1"]
SRCS6 = ["2001:db8:a::5", "2001:db8:a:ffff::1", "2001:db8:b::9", "2001:db8:c::77",
         "2001:db8:c::78", "2001:db8:d::1", "2001:db8:e::1", "2001:db8:f::1", "2001:db9::1"]
DSTS6 = ["2001:db8:1::1", "2001:db8:1::ff05", "2001:db8:1::53", "2001:db8:1:ffff::1",
         "2001:db8:2::1", "2001:db8:2:0:8000::1", "2001:db8:2:0:ffff::9", "2001:db8:2:1::1"]
PORTS = [0, 1, 53, 80, 99, 100, 200, 201, 300, 400, 401, 443, 999, 1000, 1023, 1024, 1999,
         2000, 2999, 3000, 4999, 5000, 5999, 6000, 65535]


def read_rules(path):
    """(src, srclen, dst, dstlen, splo, sphi, dplo, dphi, proto, mask, permit) per rule."""
    rules = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if not line:
                continue
            check(line.startswith("@"), f"bad rule {line!r}")
            t = line[1:].split()
            src = ipaddress.ip_network(t[0], strict=False)
            dst = ipaddress.ip_network(t[1], strict=False)
            check(t[3] == ":" and t[6] == ":", f"bad ports in {line!r}")
            pv, pm = (int(x, 16) for x in t[8].split("/"))
            action = t[-1] if t[-1] in ("permit", "deny") else "deny"
            rules.append((src, dst, int(t[2]), int(t[4]), int(t[5]), int(t[7]),
                          pv & pm, pm, action == "permit"))
    return rules


def decide(rules, default_permit, src, dst, proto, sport, dport):
    """Linear first-match scan: True to permit."""
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    for (rs, rd, splo, sphi, dplo, dphi, pv, pm, permit) in rules:
        check(s.version == rs.version == rd.version, "rule of the wrong family")
        if (s in rs and d in rd and splo <= sport <= sphi and dplo <= dport <= dphi
                and (proto & pm) == pv):
            return permit
    return default_permit


def gen6(rnd, ident, eth):
    """An IPv6 packet of a random kind with flow label ident: (frame, manifest)."""
    from scapy.all import (TCP, UDP, ICMPv6EchoRequest, IPv6, IPv6ExtHdrDestOpt,
                           IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, Raw)

    src, dst = rnd.choice(SRCS6), rnd.choice(DSTS6)
    kind = rnd.choice(["udp", "udp", "tcp", "tcp", "icmp", "frag", "first"])
    sport, dport = rnd.choice(PORTS), rnd.choice(PORTS)
    if rnd.random() < 0.2:
        sport, dport = rnd.randrange(65536), rnd.randrange(65536)
    pay = Raw(bytes((ident + k) & 0xFF for k in range(rnd.randrange(0, 40))))
    pkt = IPv6(src=src, dst=dst, fl=ident)
    # Extension headers before the upper layer: the ACL sees past them.
    for _ in range(rnd.choice([0, 0, 1, 2])):
        pkt = pkt / rnd.choice([IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt])()
    if kind == "udp":
        pkt, proto, ports = pkt / UDP(sport=sport, dport=dport) / pay, 17, (sport, dport)
    elif kind == "tcp":
        pkt, proto, ports = pkt / TCP(sport=sport, dport=dport) / pay, 6, (sport, dport)
    elif kind == "icmp":
        pkt, proto, ports = pkt / ICMPv6EchoRequest() / pay, 58, (0, 0)
    elif kind == "frag":
        # Non-first fragment of UDP: no L4 header, the ACL sees ports 0.
        pkt = pkt / IPv6ExtHdrFragment(nh=17, offset=100, m=0, id=ident) / Raw(
            struct.pack("!HH", sport or 1, dport or 1) + b"\x00" * 12)
        proto, ports = 17, (0, 0)
    else:
        # First fragment of TCP: ports are there.
        pkt = pkt / IPv6ExtHdrFragment(offset=0, m=1, id=ident) / TCP(
            sport=sport, dport=dport) / pay
        proto, ports = 6, (sport, dport)
    return bytes(eth / pkt), {"af": 6, "id": ident, "src": src, "dst": dst, "proto": proto,
                              "sport": ports[0], "dport": ports[1]}


def gen(d):
    from scapy.all import ICMP, IP, TCP, UDP, Ether, Raw

    rnd = random.Random(7)
    frames, manifest = [], []
    ident = 0

    def add(pkt, info):
        frames.append(bytes(pkt))
        manifest.append(info)

    eth = Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:aa:00")
    for i in range(360):
        ident += 1
        src, dst = rnd.choice(SRCS), rnd.choice(DSTS)
        kind = rnd.choice(["udp", "udp", "tcp", "tcp", "icmp", "gre", "frag", "first"])
        sport, dport = rnd.choice(PORTS), rnd.choice(PORTS)
        if rnd.random() < 0.2:
            sport, dport = rnd.randrange(65536), rnd.randrange(65536)
        pay = Raw(bytes((ident + k) & 0xFF for k in range(rnd.randrange(0, 40))))
        ip = IP(src=src, dst=dst, id=ident)
        if kind == "udp":
            pkt, proto, ports = ip / UDP(sport=sport, dport=dport) / pay, 17, (sport, dport)
        elif kind == "tcp":
            pkt, proto, ports = ip / TCP(sport=sport, dport=dport) / pay, 6, (sport, dport)
        elif kind == "icmp":
            pkt, proto, ports = ip / ICMP() / pay, 1, (0, 0)
        elif kind == "gre":
            ip.proto = 47
            pkt, proto, ports = ip / Raw(b"\x00" * 8) / pay, 47, (0, 0)
        elif kind == "frag":
            # Non-first fragment of UDP: the bytes where ports would be are
            # not ports; the ACL sees 0.
            ip.proto, ip.frag = 17, 100
            pkt = ip / Raw(struct.pack("!HH", sport or 1, dport or 1) + b"\x00" * 12)
            proto, ports = 17, (0, 0)
        else:
            # First fragment of UDP: ports are there.
            ip.flags = "MF"
            pkt, proto, ports = ip / UDP(sport=sport, dport=dport) / pay, 17, (sport, dport)
        add(eth / pkt, {"af": 4, "id": ident, "src": src, "dst": dst, "proto": proto,
                        "sport": ports[0], "dport": ports[1]})
        if i % 2 == 0:
            ident += 1
            frame, info = gen6(rnd, ident, eth)
            frames.append(frame)
            manifest.append(info)
    lftest.write_pcap(os.path.join(d, "in.pcap"), frames)
    lftest.write_pcap(os.path.join(d, "empty.pcap"), [])
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f)


def out_id(frame):
    """IPv4 id or IPv6 flow label of an output frame (no VLAN tags on output)."""
    et = struct.unpack("!H", frame[12:14])[0]
    if et == 0x0800:
        return struct.unpack("!H", frame[18:20])[0]
    check(et == 0x86DD, f"output frame with ethertype {et:#x}")
    return struct.unpack("!I", frame[14:18])[0] & 0xFFFFF


def out_port(m):
    if m["af"] == 4:
        return 0 if m["dst"].startswith("172.") else 1
    return 0 if m["dst"].startswith("2001:db8:2:") else 1


def check_run(d, default, families):
    rules = {4: read_rules(os.path.join(d, "acl.rules")),
             6: read_rules(os.path.join(d, "acl6.rules"))}
    classified = {4: "4" in families, 6: "6" in families}
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    want = {0: [], 1: []}   # port index -> ids in input order
    af_of = {m["id"]: m["af"] for m in manifest}
    denied = 0
    permits = {(af, ok): 0 for af in (4, 6) for ok in (True, False)}
    for m in manifest:
        ok = True
        if classified[m["af"]]:
            ok = decide(rules[m["af"]], default == "permit", m["src"], m["dst"], m["proto"],
                        m["sport"], m["dport"])
        permits[(m["af"], ok)] += 1
        if not ok:
            denied += 1
            continue
        want[out_port(m)].append(m["id"])
    # The traffic must exercise both decisions in each classified family.
    for af in (4, 6):
        if classified[af]:
            check(permits[(af, True)] > 20 and permits[(af, False)] > 20,
                  f"weak IPv{af} traffic mix: {permits}")
        else:
            check(permits[(af, False)] == 0, f"IPv{af} is not classified: {permits}")
    for p in (0, 1):
        got = [out_id(fr) for fr in lftest.read_pcap(os.path.join(d, f"out_p{p}.pcap"))]
        # In input order within each family (lftest.same_order_per_class).
        if not lftest.same_order_per_class(got, want[p], af_of.get):
            extra = sorted(set(got) - set(want[p]))[:10]
            missing = sorted(set(want[p]) - set(got))[:10]
            bad = [m for m in manifest if m["id"] in extra + missing]
            raise CheckError(f"port p{p}: {len(got)} frames, expected {len(want[p])}; "
                             f"unexpected {extra}, missing {missing}: {bad}")
    total, _ = lftest.parse_final(os.path.join(d, "lanefwd.log"))
    fwd = len(want[0]) + len(want[1])
    check(total["rx"] == len(manifest), f"rx {total['rx']}, sent {len(manifest)}")
    check(total["tx"] == fwd, f"tx {total['tx']}, expected {fwd}")
    check(total["acl_deny"] == denied, f"acl_deny {total['acl_deny']}, expected {denied}")
    check(total["drops"] == denied, f"drops {total['drops']}, expected only {denied} acl_deny")
    stats = lftest.load_tel(os.path.join(d, "tel_stats.json"))
    check(stats["drop_acl_deny"] == denied,
          f"/lanefwd/stats drop_acl_deny {stats['drop_acl_deny']}, expected {denied}")
    info = lftest.load_tel(os.path.join(d, "tel_info.json"))
    got = {k: info.get(k) for k in ("acl_rules", "acl6_rules", "acl_default")}
    wanted = {"acl_rules": len(rules[4]) if classified[4] else 0,
              "acl6_rules": len(rules[6]) if classified[6] else 0, "acl_default": default}
    check(got == wanted, f"/lanefwd/info {got}, expected {wanted}")
    print(f"acl default {default}, families {families}: {fwd} forwarded, {denied} denied "
          f"({permits[(6, False)]} IPv6)")


def main():
    try:
        if sys.argv[1] == "gen":
            gen(sys.argv[2])
        else:
            check_run(sys.argv[2], sys.argv[3], sys.argv[4])
    except CheckError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
