#!/usr/bin/python3
"""The router's own side in the data plane (router_local.sh).

  router_local.py local   echo replies, ICMP errors (unreachable, time
                          exceeded, fragmentation needed / packet too big),
                          martian destinations, punts without an exception
                          path and the ICMP rate limit, IPv4 and IPv6

Runs on upf_lib.sh's topology and harness (upf.py): whole frames sent from
the namespaces, lanefwd's replies captured there with dumpcap and decoded
by scapy, whose own checksums and fields are the reference; every counter a
step does not expect to move must not move.
"""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lftest  # noqa: E402
import upf  # noqa: E402
from lftest import CheckError, check  # noqa: E402
from upf import GNB_4, GNB_6, Harness, eth  # noqa: E402
from scapy.all import (ICMP, IP, TCP, UDP, Ether, ICMPv6DestUnreach,  # noqa: E402
                       ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6PacketTooBig,
                       ICMPv6TimeExceeded, IPerror, IPv6, Raw)

# The ports' own addresses (router_local.sh), what the errors come from.
N3_A4, N3_A6 = "192.168.3.254", "fd00:3::fe"
DN_4, DN_6 = "198.51.100.10", "2001:db8:6::10"
N6_MTU = 1280
ICMP_BURST = int(os.environ.get("ROUTER_ICMP_BURST", "20"))
ICMP_PPS = int(os.environ.get("ROUTER_ICMP_PPS", "50"))

ROUTER_DROPS = ["martian_src", "martian_dst", "l2_not_ours", "l2_mcast_unicast_ip",
                "mtu_exceeded", "no_exception", "punt_ratelimit", "punt_full",
                "neigh_unresolved", "ttl_expired", "no_route"]
EVENTS = lftest.EVENTS


def expect(step, a, b, rx, tx, drops=None, events=None):
    """Exact deltas of rx, tx, every router drop reason and every event."""
    d = upf.deltas(a, b)
    errs = []
    for k, want in (("rx_packets", rx), ("tx_packets", tx)):
        if d["lf." + k] != want:
            errs.append("%s +%d (want +%d)" % (k, d["lf." + k], want))
    if d["lf.rx_packets"] != d["lf.tx_packets"] + d["lf.drops"]:
        errs.append("rx +%d != tx +%d + drops +%d" % (d["lf.rx_packets"], d["lf.tx_packets"],
                                                     d["lf.drops"]))
    for r in ROUTER_DROPS:
        got, want = d.get("lf.drop_" + r, 0), (drops or {}).get(r, 0)
        if got != want:
            errs.append("drop_%s +%d (want +%d)" % (r, got, want))
    for e in EVENTS:
        got, want = d.get("lf." + e, 0), (events or {}).get(e, 0)
        if got != want:
            errs.append("%s +%d (want +%d)" % (e, got, want))
    check(not errs, "%s: %s" % (step, "; ".join(errs)))


def from_gnb(h, pkt, v6=False):
    return bytes(eth(h.net.mac_n3, h.net.mac_gnb, 0x86DD if v6 else 0x0800)) + bytes(pkt)


def run(h, name, frames, events=None, drops=None, replies=None):
    """Send frames from the gNB side; the frames lanefwd sent back there."""
    a = h.cnt.settle()
    cap = h.cap_gnb(name)
    h.gnb.send(frames)
    b = h.cnt.settle()
    got = cap.stop()
    n_tx = len(frames) - sum((drops or {}).values())
    expect(name, a, b, len(frames), n_tx, drops, events)
    if replies is not None:
        check(len(got) == replies, "%s: %d frames back, want %d" % (name, len(got), replies))
    return [Ether(f) for f in got]


def valid4(p):
    """IPv4 and ICMP checksums as scapy computes them from scratch."""
    q = IP(bytes(p[IP]))
    ip_ck, icmp_ck = q.chksum, q[ICMP].chksum
    del q.chksum
    del q[ICMP].chksum
    r = IP(bytes(q))
    return r.chksum == ip_ck and r[ICMP].chksum == icmp_ck


def valid6(p, layer):
    q = IPv6(bytes(p[IPv6]))
    ck = q[layer].cksum
    del q[layer].cksum
    return IPv6(bytes(q))[layer].cksum == ck


def echo(h):
    reqs = [IP(src=GNB_4, dst=N3_A4, ttl=9) / ICMP(type=8, id=77, seq=i) /
            Raw(bytes(range(i, i + 56))) for i in range(5)]
    got = run(h, "echo4", [from_gnb(h, r) for r in reqs], {"icmp_echo_reply": 5}, replies=5)
    for i, p in enumerate(got):
        check(p.dst == h.net.mac_gnb and p.src == h.net.mac_n3, "echo4: MACs %s" % p.summary())
        check(p[IP].src == N3_A4 and p[IP].dst == GNB_4 and p[IP].ttl == 64,
              "echo4: %s" % p[IP].summary())
        check(p[ICMP].type == 0 and p[ICMP].id == 77 and p[ICMP].seq == i and
              bytes(p[ICMP].payload)[:56] == bytes(range(i, i + 56)), "echo4: %s" % p.summary())
        check(valid4(p), "echo4: a checksum is wrong")
    reqs = [IPv6(src=GNB_6, dst=N3_A6, hlim=9) / ICMPv6EchoRequest(id=78, seq=i) /
            Raw(bytes(range(i, i + 40))) for i in range(5)]
    got = run(h, "echo6", [from_gnb(h, r, True) for r in reqs], {"icmp_echo_reply": 5},
              replies=5)
    for i, p in enumerate(got):
        check(p[IPv6].src == N3_A6 and p[IPv6].dst == GNB_6 and p[IPv6].hlim == 64 and
              ICMPv6EchoReply in p and p[ICMPv6EchoReply].id == 78 and
              p[ICMPv6EchoReply].seq == i, "echo6: %s" % p.summary())
        check(valid6(p, ICMPv6EchoReply), "echo6: the ICMPv6 checksum is wrong")


def quote_ok(p, orig, limit):
    """The error quotes the original IP packet from its first byte, up to limit."""
    q = bytes(p.payload.payload.payload) if IP in p else bytes(p[IPv6].payload.payload)
    want = bytes(orig)[:limit]
    return q[:len(want)] == want and len(q) == len(want)


def errors(h):
    # No route.
    o4 = IP(src=GNB_4, dst="203.0.113.5", ttl=30) / UDP(sport=5, dport=6) / Raw(b"x" * 40)
    got = run(h, "unreachable4", [from_gnb(h, o4)], {"icmp_unreachable": 1}, replies=1)
    p = got[0]
    check(p[IP].src == N3_A4 and p[IP].dst == GNB_4 and p[ICMP].type == 3 and
          p[ICMP].code == 0 and valid4(p), "unreachable4: %s" % p.summary())
    check(quote_ok(p, o4, 548), "unreachable4: the quote is not the original packet")
    o6 = IPv6(src=GNB_6, dst="2001:db8:99::1", hlim=30) / UDP(sport=5, dport=6) / Raw(b"y" * 40)
    got = run(h, "unreachable6", [from_gnb(h, o6, True)], {"icmp_unreachable": 1}, replies=1)
    p = got[0]
    check(ICMPv6DestUnreach in p and p[ICMPv6DestUnreach].code == 0 and
          p[IPv6].src == N3_A6 and valid6(p, ICMPv6DestUnreach), "unreachable6: %s" % p.summary())
    check(bytes(p[ICMPv6DestUnreach].payload) == bytes(o6), "unreachable6: the quote differs")
    # Over the egress MTU: DF -> an error with the MTU; no DF -> dropped.
    big = IP(src=GNB_4, dst=DN_4, flags="DF") / UDP(sport=7, dport=8) / Raw(b"z" * 1400)
    got = run(h, "frag_needed4", [from_gnb(h, big)], {"icmp_frag_needed": 1}, replies=1)
    p = got[0]
    check(p[ICMP].type == 3 and p[ICMP].code == 4 and p[ICMP].nexthopmtu == N6_MTU and
          valid4(p) and len(bytes(p[IP])) == 576, "frag_needed4: %s (%d bytes)" % (
              p.summary(), len(bytes(p[IP]))))
    check(quote_ok(p, big, 548), "frag_needed4: the quote is not the original packet")
    nodf = IP(src=GNB_4, dst=DN_4) / UDP(sport=7, dport=8) / Raw(b"z" * 1400)
    run(h, "mtu_nodf4", [from_gnb(h, nodf)], {"icmp_suppressed": 1}, {"mtu_exceeded": 1},
        replies=0)
    big6 = IPv6(src=GNB_6, dst=DN_6) / UDP(sport=7, dport=8) / Raw(b"z" * 1400)
    got = run(h, "too_big6", [from_gnb(h, big6, True)], {"icmp_frag_needed": 1}, replies=1)
    p = got[0]
    check(ICMPv6PacketTooBig in p and p[ICMPv6PacketTooBig].mtu == N6_MTU and
          len(bytes(p[IPv6])) == 1280 and valid6(p, ICMPv6PacketTooBig),
          "too_big6: %s (%d bytes)" % (p.summary(), len(bytes(p[IPv6]))))
    # TTL / hop limit 1 in transit: time exceeded (traceroute's answer).
    t4 = IP(src=GNB_4, dst=DN_4, ttl=1) / UDP(sport=33434, dport=33434)
    got = run(h, "time_exceeded4", [from_gnb(h, t4)], {"icmp_time_exceeded": 1}, replies=1)
    p = got[0]
    check(p[ICMP].type == 11 and p[ICMP].code == 0 and p[IP].src == N3_A4 and valid4(p) and
          IPerror in p and p[IPerror].dst == DN_4 and p[IPerror].ttl == 1,
          "time_exceeded4: %s" % p.summary())
    t6 = IPv6(src=GNB_6, dst=DN_6, hlim=1) / UDP(sport=33434, dport=33434)
    got = run(h, "time_exceeded6", [from_gnb(h, t6, True)], {"icmp_time_exceeded": 1},
              replies=1)
    p = got[0]
    check(ICMPv6TimeExceeded in p and p[IPv6].src == N3_A6 and
          valid6(p, ICMPv6TimeExceeded), "time_exceeded6: %s" % p.summary())
    # TTL is checked only in transit (RFC 1812 5.3.1): TTL 1 to the router
    # itself is answered.
    t1 = IP(src=GNB_4, dst=N3_A4, ttl=1) / ICMP(type=8, id=5, seq=5)
    got = run(h, "ttl1_to_router", [from_gnb(h, t1)], {"icmp_echo_reply": 1}, replies=1)
    check(got[0][ICMP].type == 0 and got[0][IP].src == N3_A4, "ttl1_to_router: %s" %
          got[0].summary())
    # Never an error about an error.
    e = IP(src=GNB_4, dst="203.0.113.9") / ICMP(type=3, code=1) / Raw(bytes(o4)[:28])
    run(h, "no_error_about_error", [from_gnb(h, e)], {"icmp_suppressed": 1}, {"no_route": 1},
        replies=0)


def local(h):
    # Martian destinations: never forwarded, even with a route around them.
    m = [IP(src=GNB_4, dst=d) / UDP(sport=1, dport=2) for d in
         ("127.0.0.1", "240.0.0.1", "0.1.2.3", "169.254.1.1")]
    run(h, "martian_dst4", [from_gnb(h, x) for x in m], drops={"martian_dst": 4}, replies=0)
    m6 = [IPv6(src=GNB_6, dst=d) / UDP(sport=1, dport=2) for d in ("::1", "fe80::99", "ff05::2")]
    run(h, "martian_dst6", [from_gnb(h, x, True) for x in m6], drops={"martian_dst": 3},
        replies=0)
    # For the router, not answered here, no exception path: counted drops.
    syn = IP(src=GNB_4, dst=N3_A4) / TCP(sport=40000, dport=179, flags="S")
    ospf = bytes(Ether(dst="01:00:5e:00:00:05", src=h.net.mac_gnb) /
                 IP(src=GNB_4, dst="224.0.0.5", ttl=1, proto=89) / Raw(b"o" * 20))
    run(h, "punt_none", [from_gnb(h, syn), ospf], drops={"no_exception": 2}, replies=0)


def ratelimit(h):
    n = 5 * ICMP_BURST
    reqs = [from_gnb(h, IP(src=GNB_4, dst=N3_A4) / ICMP(type=8, id=99, seq=i)) for i in range(n)]
    a = h.cnt.settle()
    cap = h.cap_gnb("ratelimit")
    t0 = time.monotonic()
    h.gnb.send(reqs, burst=n, gap=0)
    t1 = time.monotonic()
    b = h.cnt.settle()
    got = cap.stop()
    d = upf.deltas(a, b)
    sent = d["lf.icmp_echo_reply"]
    # At least the bucket; at most the bucket and what refilled while the
    # burst was in flight (generous: a loaded VM may stretch it).
    most = ICMP_BURST + int(ICMP_PPS * (t1 - t0 + 1.0)) + 1
    check(ICMP_BURST <= sent <= most and len(got) == sent,
          "ratelimit: %d replies of %d requests (captured %d), want %d..%d" % (
              sent, n, len(got), ICMP_BURST, most))
    expect("ratelimit", a, b, n, sent, {"punt_ratelimit": n - sent},
           {"icmp_echo_reply": sent, "icmp_suppressed": n - sent})


TESTS = {"local": lambda h: [h.step(t, f, h) for t, f in (
    ("echo replies", echo), ("ICMP errors", errors), ("martians and punts", local),
    ("ICMP rate limit", ratelimit))]}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        sys.exit("usage: router_local.py local")
    h = Harness(sys.argv[1])
    try:
        TESTS[sys.argv[1]](h)
    except CheckError as e:
        h.failures.append(str(e))
    h.pfcp_cap.stop()
    h.finish()


if __name__ == "__main__":
    main()
