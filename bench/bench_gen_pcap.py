#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate the benchmark pcap: N flows of 64-byte UDP/IPv4 frames.

Each frame is 64 bytes as DPDK sees it (pkt_len 64: 14 Ethernet + 20 IPv4 +
8 UDP + 22 payload; 68 bytes on the wire with the FCS). Every flow has its
own source address and source port; destinations are spread over
198.18.1.1-254 so that DPDK l3fwd's built-in LPM route 198.18.1.0/24 -> port 1
(and lanefwd's equivalent) sends all of them to port 1. IPv4 header
checksums are valid, TTL is 64, UDP checksums are filled in.

With --ipv6-share F, that share of the flows (spread evenly through the
file, so that most bursts of a dual-stack mix hold both families) are
64-byte UDP/IPv6 frames instead (14 + 40 + 8 + 2 bytes of payload, hop
limit 64) to 2001:200:0:1::/64, l3fwd's built-in IPv6 route to port 1.

usage: bench_gen_pcap.py OUT.pcap [--flows N] [--ipv6-share F]
"""
import argparse
import sys

from scapy.all import Ether, IP, IPv6, UDP, Raw, wrpcap  # noqa: E402

FRAME_LEN = 64


def is_v6(i, share):
    """Flow i is IPv6: the shares spread evenly (Bresenham), not in a block."""
    return int((i + 1) * share) != int(i * share)


def flows(n, share=0.0):
    for i in range(n):
        sport = 1024 + i % 60000
        dport = 5000 + (i // 254) % 64
        l2 = Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01")
        if is_v6(i, share):
            pkt = (l2 / IPv6(src="2001:db8:10::%x" % i, dst="2001:200:0:1::%x" % (1 + i % 254),
                             hlim=64) / UDP(sport=sport, dport=dport))
        else:
            src = "10.%d.%d.%d" % ((i >> 16) & 0xff, (i >> 8) & 0xff, (i & 0xff) or 1)
            dst = "198.18.1.%d" % (1 + i % 254)
            pkt = l2 / IP(src=src, dst=dst, ttl=64, id=i & 0xffff) / UDP(sport=sport, dport=dport)
        pad = FRAME_LEN - len(pkt)
        pkt = pkt / Raw(b"\x00" * pad)
        # Build once so that scapy computes lengths and both checksums.
        pkt = Ether(bytes(pkt))
        assert len(pkt) == FRAME_LEN, len(pkt)
        yield pkt


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--flows", type=int, default=4096)
    ap.add_argument("--ipv6-share", type=float, default=0.0,
                    help="share of the flows that are IPv6 (0 to 1, default 0)")
    args = ap.parse_args()
    if not 0.0 <= args.ipv6_share <= 1.0:
        sys.exit("bench_gen_pcap: --ipv6-share %s: not between 0 and 1" % args.ipv6_share)
    pkts = list(flows(args.flows, args.ipv6_share))
    # Sanity: checksums valid, one 5-tuple per packet.
    for p in [q for q in pkts if IP in q][:8]:
        c = p[IP].chksum
        del p[IP].chksum
        assert IP(bytes(p[IP]))[IP].chksum == c
    l3 = [p[IP] if IP in p else p[IPv6] for p in pkts]
    tuples = {(x.src, x.dst, x[UDP].sport, x[UDP].dport) for x in l3}
    assert len(tuples) == len(pkts), "flows are not distinct"
    n6 = sum(1 for p in pkts if IPv6 in p)
    wrpcap(args.out, pkts)
    print("%s: %d flows, %d-byte UDP frames, %d IPv4 to 198.18.1.0/24, %d IPv6 to "
          "2001:200:0:1::/64" % (args.out, len(pkts), FRAME_LEN, len(pkts) - n6, n6),
          file=sys.stderr)


if __name__ == "__main__":
    main()
