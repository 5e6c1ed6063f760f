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

#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "dp.h"

/**
 * The meta parse gives a packet lf_parse_ipv4_plain() accepted with proto
 * and l4_need: l3_off, l4_off, af, l4_proto and kind (LF_KIND_IP) in one
 * 8-byte store.
 */
static inline void
lf_meta_plain_ipv4(struct lf_meta *meta, unsigned int proto, unsigned int l4_need)
{
	const uint64_t packed = RTE_ETHER_HDR_LEN |
		(uint64_t)(l4_need ? RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) : 0) << 16 |
		(uint64_t)4 << 32 | (uint64_t)proto << 40 | (uint64_t)LF_KIND_IP << 48;

	memcpy(&meta->l3_off, &packed, sizeof(packed));
}

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
