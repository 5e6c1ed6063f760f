#!/usr/bin/python3
"""Traffic and checker for pcap_forward.sh.

  pcap_forward.py gen DIR    write DIR/in.pcap, DIR/empty.pcap, DIR/manifest.json
                             from the routes and next hops of DIR/lanefwd.conf
  pcap_forward.py check DIR  check DIR/out_p0.pcap, DIR/out_p1.pcap, the
                             telemetry replies DIR/tel_*.json and the final
                             counters in DIR/lanefwd.log against the manifest

The manifest says, for every input frame, the drop reason the test expects
(from the frame's construction) or that it must be forwarded. Where it goes
and what it must look like is worked out independently at check time: a
longest-prefix match over the route files, the [nexthop] sections, the
ports' MACs as DPDK's ethdev layer reports them, and a from-scratch rewrite
of the frame (lftest.forwarded_frame). tshark decodes the output a second,
independent time (TTL, checksum status, MACs, no VLAN tag).
"""

import json
import os
import random
import struct
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402
from lftest import CheckError, check  # noqa: E402

HOST_SRC_MAC = "02:00:00:00:aa:01"
HOST_DST_MAC = "02:00:00:00:aa:00"
SRC4 = "192.0.2.1"
SRC6 = "2001:db8:ffff::1"


def gen(d):
    from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6EchoRequest,
                           IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, Raw)

    cfg = lftest.load_config(os.path.join(d, "lanefwd.conf"))
    entries = []   # (frame bytes, expected drop reason or None, intended next hop)
    ident = [0]

    def nid():
        # Unique IPv4 id / IPv6 flow label: how output frames are matched.
        ident[0] += 1
        return ident[0]

    def eth(t=None):
        e = Ether(src=HOST_SRC_MAC, dst=HOST_DST_MAC)
        if t is not None:
            e.type = t
        return e

    def ip4(dst, **kw):
        return IP(src=kw.pop("src", SRC4), dst=dst, id=nid(), **kw)

    def ip6(dst, **kw):
        return IPv6(src=SRC6, dst=dst, fl=nid(), **kw)

    def fwd(pkt, nh):
        entries.append((bytes(pkt), None, nh))

    def drop(frame, reason):
        entries.append((bytes(frame), reason, None))

    def pay(n):
        return Raw(bytes((i * 7 + n) & 0xFF for i in range(n)))

    # Forwarded: each protocol, each route, both output ports.
    fwd(eth() / ip4("10.1.2.3") / UDP(sport=1000, dport=2000) / pay(40), 1)
    fwd(eth() / ip4("10.2.0.9", ttl=17) / TCP(sport=33000, dport=80, flags="S") / pay(12), 2)
    fwd(eth() / ip4("10.3.0.5") / ICMP(type=8, id=7, seq=1) / pay(56), 3)
    fwd(eth() / ip4("10.3.0.200", tos=0xB8) / UDP(sport=5, dport=6) / pay(3), 4)  # /25 over /24
    fwd(eth() / ip4("10.4.1.1", flags="DF") / TCP(sport=1, dport=2, flags="PA") / pay(100), 0)
    fwd(eth() / ip4("10.5.5.5") / UDP() / pay(8), 4)                                # /32
    fwd(eth() / ip4("10.1.0.1", ttl=2) / UDP() / pay(20), 1)          # leaves with TTL 1
    fwd(eth() / ip4("10.1.9.9", ttl=255, proto=47) / pay(30), 1)      # GRE: no L4 check
    opts = eth() / ip4("10.2.3.4") / UDP() / pay(10)
    opts[IP].options = [Raw(b"\x01\x01\x01\x00")]                    # IHL 6
    fwd(opts, 2)
    fwd(eth() / ip4("10.3.0.7", frag=100, proto=17) / pay(3), 3)      # non-first fragment
    fwd(eth() / ip6("2001:db8:1::5") / UDP(sport=53, dport=53) / pay(33), 1)
    fwd(eth() / ip6("2001:db8:3::1", hlim=2) / TCP(flags="S") / pay(1), 3)
    fwd(eth() / ip6("2001:db8:3:8000::1") / ICMPv6EchoRequest(id=1, seq=2) / pay(16), 4)
    fwd(eth() / ip6("2001:db8:1::77") / IPv6ExtHdrHopByHop() / UDP() / pay(7), 1)
    fwd(eth() / ip6("2001:db8:3::9") / IPv6ExtHdrFragment(offset=10, nh=17) / pay(5), 3)
    fwd(eth() / Dot1Q(vlan=100) / ip4("10.1.7.7") / UDP() / pay(18), 1)
    fwd(eth() / Dot1Q(vlan=4094, prio=5) / ip6("2001:db8:3::2") / UDP() / pay(9), 3)
    fwd(eth(0x88A8) / Dot1Q(vlan=10, type=0x8100) / Dot1Q(vlan=20) / ip4("10.2.9.9")
        / TCP(flags="A") / pay(21), 2)                                             # QinQ

    # Checksum corner cases of the incremental update: pick the source address
    # so that the checksum before, or after, the TTL decrement is 0x0000.
    for want_after in (False, True):
        base = bytearray(bytes(IP(src="198.51.0.0", dst="10.1.3.3", id=nid(), ttl=64)
                               / UDP() / pay(4))[:20])
        base[10:12] = b"\0\0"
        if want_after:
            base[8] -= 1
        for low in range(65536):
            base[14:16] = struct.pack("!H", low)
            if lftest.inet_checksum(bytes(base)) == 0:
                break
        else:
            raise SystemExit("no source address gives a zero checksum")
        p = IP(src="198.51.%d.%d" % (low >> 8, low & 0xFF), dst="10.1.3.3",
               id=struct.unpack("!H", base[4:6])[0], ttl=64) / UDP() / pay(4)
        fwd(eth() / p, 1)

    # Drops, one reason at a time.
    drop(b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00", "l2_malformed")        # 10 bytes
    drop(bytes(eth(0x8100))[:14] + b"\x00\x05", "l2_malformed")                # tag cut short
    drop(eth(0x8100) / Dot1Q(type=0x8100) / Dot1Q(type=0x8100) / Dot1Q()
         / ip4("10.1.0.1") / UDP(), "l2_malformed")                           # three tags

    good = bytes(ip4("10.1.0.2") / UDP() / pay(40))
    drop(bytes(eth(0x0800)) + good[:12], "l3_malformed")                     # header cut
    drop(bytes(eth(0x0800)) + good[:-10], "l3_malformed")                    # datagram cut
    drop(bytes(eth(0x0800)) + b"\x65" + good[1:], "l3_malformed")            # version 6
    drop(bytes(eth(0x0800)) + b"\x44" + good[1:], "l3_malformed")            # IHL 4
    drop(bytes(eth(0x0800)) + good[:2] + struct.pack("!H", 12) + good[4:],
         "l3_malformed")                                                      # total < IHL
    good6 = bytes(ip6("2001:db8:1::2") / UDP() / pay(40))
    drop(bytes(eth(0x86DD)) + good6[:20], "l3_malformed")                    # header cut
    drop(bytes(eth(0x86DD)) + good6[:-8], "l3_malformed")                    # payload cut
    drop(bytes(eth(0x86DD)) + b"\x40" + good6[1:], "l3_malformed")           # version 4
    drop(eth() / Dot1Q(vlan=3, type=0x0800) / Raw(good[:-1]), "l3_malformed")  # tagged, cut

    drop(eth() / ip4("10.1.0.3", len=24, proto=17) / Raw(b"abcd"), "l4_malformed")
    drop(eth() / ip4("10.1.0.4", len=30, proto=6) / Raw(b"0123456789"), "l4_malformed")
    drop(eth() / ip4("10.1.0.5", len=22, proto=1) / Raw(b"\x08\x00"), "l4_malformed")
    drop(eth() / ip6("2001:db8:1::3", plen=4, nh=17) / Raw(b"abcd"), "l4_malformed")
    # The same with Ethernet padding: the frame is long enough, the datagram not.
    drop(bytes(eth() / ip4("10.1.0.9", len=24, proto=17) / Raw(b"abcd")) + bytes(30),
         "l4_malformed")
    drop(bytes(eth() / ip6("2001:db8:1::6", plen=6, nh=6) / Raw(b"abcdef")) + bytes(20),
         "l4_malformed")

    def bad_sum(pkt, value=None):
        raw = bytearray(bytes(pkt))
        _, off = lftest.l3_of(bytes(raw))
        old = struct.unpack("!H", raw[off + 10:off + 12])[0]
        new = value if value is not None and value != old else old ^ 0x0101
        raw[off + 10:off + 12] = struct.pack("!H", new)
        return bytes(raw)

    drop(bad_sum(eth() / ip4("10.1.0.6") / UDP() / pay(10)), "bad_checksum")
    drop(bad_sum(eth() / ip4("10.3.0.6") / ICMP() / pay(10), 0), "bad_checksum")
    drop(bad_sum(eth() / Dot1Q(vlan=9) / ip4("10.2.0.1") / UDP()), "bad_checksum")
    # RFC 1812 5.2.2: the header is validated before the TTL is looked at.
    drop(bad_sum(eth() / ip4("10.1.0.7", ttl=1) / UDP()), "bad_checksum")

    drop(eth() / ip4("10.1.0.8", ttl=1) / UDP() / pay(10), "ttl_expired")
    drop(eth() / ip4("10.3.0.9", ttl=0) / ICMP(), "ttl_expired")
    drop(eth() / Dot1Q(vlan=7) / ip4("10.2.0.2", ttl=1) / TCP(), "ttl_expired")
    drop(eth() / ip6("2001:db8:1::4", hlim=1) / UDP(), "ttl_expired")
    drop(eth() / ip6("2001:db8:3::4", hlim=0) / UDP(), "ttl_expired")

    drop(eth() / ip4("192.0.2.99") / UDP(), "no_route")
    drop(eth() / ip4("10.3.1.1") / TCP(), "no_route")            # just past 10.3.0.0/24
    drop(eth() / ip4("11.0.0.1") / ICMP(), "no_route")
    drop(eth() / ip6("2001:db8:ff::1") / UDP(), "no_route")
    drop(eth() / ip6("2001:db8:2::1") / UDP(), "no_route")
    drop(eth() / Dot1Q(vlan=5) / ip4("172.16.0.1") / UDP(), "no_route")

    # ARP, tagged or not, is the neighbour code's: handed to the control
    # thread (punt_ctrl), neither sent nor dropped by the worker.
    drop(eth() / ARP(psrc="192.0.2.1", pdst="192.0.2.2"), "punt_ctrl")
    drop(eth() / Dot1Q(vlan=11) / ARP(), "punt_ctrl")
    drop(eth(0x88CC) / pay(46), "non_ip")                                    # LLDP

    # no_nexthop is not reachable from outside: route_load() refuses a route
    # whose next hop has no [nexthop] section (check_config.sh tests that),
    # and the FIB returns only ids of loaded routes or "no route". The test
    # expects the counter to stay 0.

    # Bulk: random protocols, TTLs, TOS, lengths and routed destinations,
    # plus some unrouted ones, to exercise checksums and both ports.
    rnd = random.Random(20240601)
    nets4 = [n for n, _ in cfg["routes4"]]
    nets6 = [n for n, _ in cfg["routes6"]]
    for _ in range(240):
        net = rnd.choice(nets4)
        dst = str(net[rnd.randrange(net.num_addresses)])
        l4 = rnd.choice([UDP(sport=rnd.randrange(65536), dport=rnd.randrange(65536)),
                         TCP(sport=rnd.randrange(65536), dport=rnd.randrange(65536),
                             seq=rnd.randrange(1 << 32), flags="A"),
                         ICMP(type=8, id=rnd.randrange(65536))])
        p = eth() / ip4(dst, src="198.18.%d.%d" % (rnd.randrange(256), rnd.randrange(256)),
                        ttl=rnd.randrange(2, 256), tos=rnd.randrange(256)) / l4 \
            / pay(rnd.randrange(0, 300))
        if rnd.random() < 0.2:
            p = eth() / Dot1Q(vlan=rnd.randrange(1, 4095)) / p[IP]
        fwd(p, lftest.lpm(cfg["routes4"], dst))
    for _ in range(60):
        net = rnd.choice(nets6)
        dst = str(net[rnd.randrange(min(net.num_addresses, 1 << 64))])
        fwd(eth() / ip6(dst, hlim=rnd.randrange(2, 256), tc=rnd.randrange(256))
            / UDP(sport=rnd.randrange(65536)) / pay(rnd.randrange(0, 200)),
            lftest.lpm(cfg["routes6"], dst))
    for _ in range(20):
        drop(eth() / ip4("203.0.113.%d" % rnd.randrange(256), ttl=rnd.randrange(2, 256))
             / UDP() / pay(rnd.randrange(50)), "no_route")

    # Interleave drops and forwarded frames (deterministically).
    order = list(range(len(entries)))
    rnd.shuffle(order)
    entries = [entries[i] for i in order]

    lftest.write_pcap(os.path.join(d, "in.pcap"), [e[0] for e in entries])
    lftest.write_pcap(os.path.join(d, "empty.pcap"), [])
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump([{"reason": r, "nh": nh} for _, r, nh in entries], f)
    print("pcap_forward: %d frames, %d to forward" %
          (len(entries), sum(1 for e in entries if e[1] is None)))


def port_macs(d, cfg):
    """MAC of each configured port as DPDK's ethdev layer reports it; lanefwd's
    /lanefwd/info must agree."""
    info = lftest.load_tel(os.path.join(d, "tel_info.json"))
    macs = {}
    for name in cfg["ports"]:
        p = info.get("port_" + name)
        check(p is not None, f"/lanefwd/info has no port_{name}: {info}")
        ed = lftest.load_tel(os.path.join(d, "tel_ethdev_info_%d.json" % p["port_id"]))
        check(ed.get("name") == p["device"],
              f"port {name}: ethdev {p['port_id']} is {ed.get('name')}, lanefwd says {p['device']}")
        check(ed["mac_addr"].lower() == p["mac"].lower(),
              f"port {name}: /lanefwd/info mac {p['mac']} but ethdev says {ed['mac_addr']}")
        macs[name] = ed["mac_addr"].lower()
    check(len(set(macs.values())) == len(macs), f"ports share a MAC: {macs}")
    return macs


def check_all(d):
    cfg = lftest.load_config(os.path.join(d, "lanefwd.conf"))
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    frames = lftest.read_pcap(os.path.join(d, "in.pcap"))
    n = len(frames)
    check(n == len(manifest), "manifest and in.pcap differ")
    check(len(lftest.tshark(os.path.join(d, "in.pcap"), ["frame.number"])) == n,
          "tshark counts a different number of input frames")
    macs = port_macs(d, cfg)

    # What must come out of each port, in input order (per order class).
    want = {p: [] for p in cfg["ports"]}
    where = {}
    cls = {}
    drops = {r: 0 for r in lftest.DROP_REASONS}
    n_punt = 0
    for i, (fr, m) in enumerate(zip(frames, manifest)):
        if m["reason"] == "punt_ctrl":
            n_punt += 1
            continue
        if m["reason"] is not None:
            drops[m["reason"]] += 1
            if m["reason"] == "no_route":
                check(lftest.lpm(cfg["routes4"] + cfg["routes6"], lftest.dst_addr(fr)) is None,
                      f"test bug: frame {i + 1} has a route")
            continue
        af = "4" if lftest.l3_of(fr)[0] == lftest.ETH_IPV4 else "6"
        nh = lftest.lpm(cfg["routes" + af], lftest.dst_addr(fr))
        check(nh == m["nh"], f"test bug: frame {i + 1} matches next hop {nh}, not {m['nh']}")
        h = cfg["nexthops"][nh]
        src = h["src_mac"] or macs[h["port"]]
        key = lftest.packet_key(fr)
        check(key not in where, f"test bug: key {key} used twice")
        where[key] = h["port"]
        want[h["port"]].append((i, key, lftest.forwarded_frame(fr, h["mac"], src),
                                h["mac"], src))
        cls[key] = lftest.order_class(fr)
    n_fwd = sum(len(v) for v in want.values())
    check(all(want.values()), "test bug: a port gets no traffic")

    # The frames, byte for byte, on the right port, once each, in order.
    in_rows = lftest.tshark(os.path.join(d, "in.pcap"), ["ip.ttl", "ipv6.hlim"])
    fields = ["eth.dst", "eth.src", "eth.type", "vlan.id", "ip.id", "ip.ttl",
              "ip.checksum.status", "ipv6.flow", "ipv6.hlim"]
    for port in cfg["ports"]:
        path = os.path.join(d, "out_%s.pcap" % port)
        got = lftest.read_pcap(path)
        keys = []
        for j, fr in enumerate(got):
            try:
                k = lftest.packet_key(fr)
            except (struct.error, IndexError):
                raise CheckError(f"{path} frame {j + 1}: not IP: {fr.hex()}")
            check(k in where, f"{path} frame {j + 1}: {k} should not have been forwarded: "
                  f"{fr.hex()}")
            check(where[k] == port, f"{path} frame {j + 1}: {k} belongs on port {where[k]}")
            keys.append(k)
        check(len(set(keys)) == len(keys),
              f"{path}: duplicated frames: {sorted(k for k in set(keys) if keys.count(k) > 1)}")
        missing = [w[1] for w in want[port] if w[1] not in set(keys)]
        check(not missing, f"{path}: {len(missing)} frames missing: {missing[:10]}")
        check(lftest.same_order_per_class(keys, [w[1] for w in want[port]], cls.get),
              f"{path}: frames out of input order within a family and tagging")
        # From here on, what was wanted in the order the port sent it.
        pos = {k: j for j, k in enumerate(keys)}
        want[port].sort(key=lambda w: pos[w[1]])
        for (i, key, exp, _, _), fr in zip(want[port], got):
            check(fr == exp, f"{path}: input frame {i + 1} {key}:\n  got  {fr.hex()}\n"
                  f"  want {exp.hex()}")

        # Second opinion from tshark.
        rows = lftest.tshark(path, fields)
        check(len(rows) == len(want[port]), f"tshark reads {len(rows)} frames in {path}")
        for row, (i, key, _, dst, src) in zip(rows, want[port]):
            where_s = f"{path} (input frame {i + 1}, {key})"
            check(row["vlan.id"] == "", f"{where_s}: VLAN tag left: {row}")
            check(row["eth.dst"] == dst, f"{where_s}: dst MAC {row['eth.dst']}, want {dst}")
            check(row["eth.src"] == src, f"{where_s}: src MAC {row['eth.src']}, want {src}")
            if key[0] == "4":
                check(row["eth.type"] == "0x0800", f"{where_s}: ethertype {row['eth.type']}")
                check(int(row["ip.id"], 0) == key[1], f"{where_s}: IP id {row['ip.id']}")
                check(row["ip.checksum.status"] == "1",
                      f"{where_s}: tshark says the IPv4 checksum is not good: {row}")
                check(int(row["ip.ttl"]) == int(in_rows[i]["ip.ttl"]) - 1,
                      f"{where_s}: TTL {row['ip.ttl']}, input had {in_rows[i]['ip.ttl']}")
            else:
                check(row["eth.type"] == "0x86dd", f"{where_s}: ethertype {row['eth.type']}")
                check(int(row["ipv6.flow"], 0) == key[1], f"{where_s}: flow {row['ipv6.flow']}")
                check(int(row["ipv6.hlim"]) == int(in_rows[i]["ipv6.hlim"]) - 1,
                      f"{where_s}: hop limit {row['ipv6.hlim']}, input had "
                      f"{in_rows[i]['ipv6.hlim']}")

    # Counters: the final lines, telemetry, and the PMDs' own counts.
    total, workers = lftest.parse_final(os.path.join(d, "lanefwd.log"))
    exp = {"rx": n, "tx": n_fwd, "drops": n - n_fwd - n_punt, **drops}
    check(total == exp, f"final total line {total}, expected {exp}")
    ev = lftest.parse_final_events(os.path.join(d, "lanefwd.log"))
    check(ev["punt_ctrl"] == n_punt, f"final events {ev}, expected punt_ctrl {n_punt}")
    check(set(workers) == {1} and workers[1]["rx"] == n and workers[1]["tx"] == n_fwd,
          f"final worker lines {workers}")
    stats = lftest.load_tel(os.path.join(d, "tel_stats.json"))
    tel = {"rx": stats["rx_packets"], "tx": stats["tx_packets"], "drops": stats["drops"],
           **{r: stats["drop_" + r] for r in lftest.DROP_REASONS}}
    check(tel == exp, f"/lanefwd/stats {tel}, expected {exp}")
    check(stats["punt_ctrl"] == n_punt, f"/lanefwd/stats punt_ctrl {stats['punt_ctrl']}, "
          f"expected {n_punt}")
    w = lftest.load_tel(os.path.join(d, "tel_workers.json"))
    check(set(w) == {"1"}, f"/lanefwd/workers: {list(w)}")
    wt = {"rx": w["1"]["rx_packets"], "tx": w["1"]["tx_packets"],
          "drops": sum(w["1"]["drop_" + r] for r in lftest.DROP_REASONS),
          **{r: w["1"]["drop_" + r] for r in lftest.DROP_REASONS}}
    check(wt == exp, f"/lanefwd/workers 1: {wt}, expected {exp}")

    info = lftest.load_tel(os.path.join(d, "tel_info.json"))
    for idx, port in enumerate(cfg["ports"]):
        pid = info["port_" + port]["port_id"]
        es = lftest.load_tel(os.path.join(d, "tel_ethdev_stats_%d.json" % pid))
        want_rx = n if idx == 0 else 0
        check(es["ipackets"] == want_rx, f"port {port}: ethdev ipackets {es['ipackets']}, "
              f"want {want_rx}")
        check(es["opackets"] == len(want[port]) and es["oerrors"] == 0,
              f"port {port}: ethdev opackets {es['opackets']} oerrors {es['oerrors']}, "
              f"want {len(want[port])}")

    # EAL was given only the configured vdevs, never a PCI device.
    params = lftest.load_tel(os.path.join(d, "tel_eal_params.json"))
    check("--no-pci" in params, f"EAL arguments lack --no-pci: {params}")
    for bad in ("-a", "--allow", "-w", "--pci-whitelist"):
        check(bad not in params, f"EAL arguments name a PCI device: {params}")
    vdevs = [params[i + 1] for i, a in enumerate(params) if a == "--vdev"]
    check(len(vdevs) == len(cfg["ports"]) and all(v.startswith("net_pcap") for v in vdevs),
          f"EAL vdevs {vdevs}")
    print("pcap_forward: %d frames in, %d forwarded (%s), drops %s: all as expected" %
          (n, n_fwd, ", ".join("%s %d" % (p, len(v)) for p, v in want.items()),
           ", ".join("%s %d" % (r, c) for r, c in drops.items() if c)))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        raise SystemExit(__doc__)
    try:
        (gen if sys.argv[1] == "gen" else check_all)(sys.argv[2])
    except CheckError as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
