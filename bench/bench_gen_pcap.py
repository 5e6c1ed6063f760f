#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate the benchmark pcap: N flows of 64-byte UDP/IPv4 frames.

Each frame is 64 bytes as DPDK sees it (pkt_len 64: 14 Ethernet + 20 IPv4 +
8 UDP + 22 payload; 68 bytes on the wire with the FCS). Every flow has its
own source address and source port; destinations are spread over
198.18.1.1-254 so that DPDK l3fwd's built-in LPM route 198.18.1.0/24 -> port 1
(and lanefwd's equivalent) sends all of them to port 1. IPv4 header
checksums are valid, TTL is 64, UDP checksums are filled in.

usage: bench_gen_pcap.py OUT.pcap [--flows N]
"""
import argparse
import sys

from scapy.all import Ether, IP, UDP, Raw, wrpcap  # noqa: E402

FRAME_LEN = 64


def flows(n):
    for i in range(n):
        src = "10.%d.%d.%d" % ((i >> 16) & 0xff, (i >> 8) & 0xff, (i & 0xff) or 1)
        dst = "198.18.1.%d" % (1 + i % 254)
        sport = 1024 + i % 60000
        dport = 5000 + (i // 254) % 64
        pkt = (Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") /
               IP(src=src, dst=dst, ttl=64, id=i & 0xffff) /
               UDP(sport=sport, dport=dport))
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
    args = ap.parse_args()
    pkts = list(flows(args.flows))
    # Sanity: checksums valid, one 5-tuple per packet.
    for p in pkts[:8]:
        c = p[IP].chksum
        del p[IP].chksum
        assert IP(bytes(p[IP]))[IP].chksum == c
    tuples = {(p[IP].src, p[IP].dst, p[UDP].sport, p[UDP].dport) for p in pkts}
    assert len(tuples) == len(pkts), "flows are not distinct"
    wrpcap(args.out, pkts)
    print("%s: %d flows, %d-byte UDP/IPv4 frames to 198.18.1.0/24" %
          (args.out, len(pkts), FRAME_LEN), file=sys.stderr)


if __name__ == "__main__":
    main()
