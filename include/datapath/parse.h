/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Parse stage: Ethernet, up to two 802.1Q/802.1ad tags, IPv4 (version, IHL,
 * total length, header checksum, TTL), IPv6 (payload length, hop limit,
 * extension headers), then the UDP/TCP/ICMP header. Fills w->meta and drops
 * what cannot be forwarded, counting the reason.
 */
#ifndef LF_PARSE_H
#define LF_PARSE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>

#include "worker.h"

/**
 * The meta parse gives a packet lf_parse_ipv4_plain() accepted with proto
 * and l4_need: l3_off, l4_off, af, l4_proto and out in one 8-byte store.
 */
static inline void
lf_meta_plain_ipv4(struct lf_meta *meta, unsigned int proto, unsigned int l4_need)
{
	const uint64_t packed = RTE_ETHER_HDR_LEN |
		(uint64_t)(l4_need ? RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) : 0) << 16 |
		(uint64_t)4 << 32 | (uint64_t)proto << 40;

	memcpy(&meta->l3_off, &packed, sizeof(packed));
}

/**
 * Parse one packet into meta.
 * @return -1 if it goes on, or the enum lf_drop reason to drop it.
 *         *sw_cksum is set when the IPv4 checksum was verified in software.
 */
int parse_packet(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum);

/**
 * Parse a burst, prefetching packet data w->data_prefetch packets ahead.
 * @return packets that go on; they are compacted at the front of pkts and
 *         w->meta.
 */
uint16_t parse_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_PARSE_H */
