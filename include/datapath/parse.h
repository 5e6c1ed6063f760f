/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Parse stage: Ethernet, up to two 802.1Q/802.1ad tags, IPv4 (version, IHL,
 * total length, header checksum, TTL), IPv6 (payload length, hop limit,
 * extension headers), then the UDP/TCP/ICMP header, the source address
 * and, with b->local, the destination MAC. Fills b->meta and drops what
 * cannot be forwarded, counting the reason.
 */
#ifndef LF_PARSE_H
#define LF_PARSE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/**
 * Parse one packet into meta.
 * @return -1 if it goes on, or the enum lf_drop reason to drop it.
 *         *sw_cksum is set when the IPv4 checksum was verified in software.
 */
int parse_packet(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum);

/** What parse_packet_port() returns for an ARP frame (past every drop reason). */
#define LF_PARSE_ARP LF_DROP_COUNT

/**
 * parse_packet() with the receiving port's checks (port non-NULL): a
 * unicast frame to another MAC on a port not promiscuous is l2_not_ours, a
 * unicast IP packet in a group (broadcast, multicast) frame
 * l2_mcast_unicast_ip, an ARP frame LF_PARSE_ARP, and an IP packet to a
 * group address is never TTL-expired (it is the router's, not forwarded).
 * With port NULL, parse_packet().
 */
int parse_packet_port(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum,
		      const struct lf_port_l3 *port);

/**
 * The parse stage: parse a burst, prefetching packet data
 * b->prefetch_distance packets ahead. Malformed packets and martian
 * sources (RFC 1812 5.3.7, RFC 4291) are dropped; packets that are not IP
 * go to LF_KIND_OTHER. With b->local, the port's link-layer checks
 * (parse_packet_port), ARP frames to LF_KIND_NEIGH (meta.l3_off set), and a
 * TTL or hop limit that expires here to LF_KIND_ICMP (meta.nh LF_ICMP_TTL,
 * meta filled as for a packet kept) rather than dropped ttl_expired: the
 * icmp stage delivers it if it is for the router, else answers it or drops
 * it as [icmp] time_exceeded says.
 * @return the IP packets (LF_KIND_IP), at the front of pkts and b->meta.
 */
uint16_t parse_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_PARSE_H */
