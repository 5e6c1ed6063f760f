/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Parse stage: Ethernet, up to two 802.1Q/802.1ad tags, IPv4 (version, IHL,
 * total length, header checksum, TTL), IPv6 (payload length, hop limit,
 * extension headers), then the UDP/TCP/ICMP header. Fills b->meta and drops
 * what cannot be forwarded, counting the reason.
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

/**
 * The parse stage: parse a burst, prefetching packet data
 * b->prefetch_distance packets ahead. Malformed packets are dropped;
 * packets that are not IP go to LF_KIND_OTHER.
 * @return the IP packets (LF_KIND_IP), at the front of pkts and b->meta.
 */
uint16_t parse_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_PARSE_H */
