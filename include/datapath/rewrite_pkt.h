/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Rewriting one packet for its next hop: TTL / hop-limit decrement with an
 * incremental IPv4 checksum update, VLAN tags stripped, next-hop MACs
 * written. Shared by the rewrite stage, the fused IPv4 stage and the flow
 * cache's hits, so that all three write the same bytes.
 */
#ifndef LF_REWRITE_PKT_H
#define LF_REWRITE_PKT_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "cksum.h"
#include "dp.h"

/**
 * IPv4 TTL decrement with the checksum update (TTL > 1). On little endian
 * the TTL, protocol and checksum are one 32-bit word and the whole update is
 * one add (lf_ipv4_ttl_cksum_dec_le). Otherwise the TTL/protocol word is
 * loaded and stored whole: a byte store to the TTL followed by a 16-bit load
 * of the same word defeats store forwarding (docs/perf-history.md).
 */
static inline void
lf_ipv4_ttl_dec(struct rte_ipv4_hdr *ip)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint32_t w;

	memcpy(&w, &ip->time_to_live, sizeof(w));
	w = lf_ipv4_ttl_cksum_dec_le(w);
	memcpy(&ip->time_to_live, &w, sizeof(w));
#else
	uint16_t *word = (uint16_t *)&ip->time_to_live;

	*word = rte_cpu_to_be_16(rte_be_to_cpu_16(*word) - 0x0100);
	ip->hdr_checksum = lf_cksum_ttl_dec(ip->hdr_checksum);
#endif
}

/**
 * Rewrite the untagged IPv4 packet whose Ethernet header is at eth for the
 * MACs at macs (what rewrite_burst does).
 */
static inline void
lf_rewrite_ipv4_plain_at(void *eth, const void *macs)
{
	lf_ipv4_ttl_dec((struct rte_ipv4_hdr *)((uint8_t *)eth + RTE_ETHER_HDR_LEN));
	/* Destination then source MAC, 12 bytes (struct lf_nh, a flow entry). */
	memcpy(eth, macs, 2 * RTE_ETHER_ADDR_LEN);
}

/** Rewrite an untagged IPv4 packet for the MACs at macs (what rewrite_burst does). */
static inline void
lf_rewrite_ipv4_plain(struct rte_mbuf *m, const void *macs)
{
	lf_rewrite_ipv4_plain_at(rte_pktmbuf_mtod(m, void *), macs);
}

/**
 * lf_rewrite_packet(), with the TTL / hop-limit decrement a constant
 * choice: a packet lanefwd built itself (a GTP-U encapsulation, a reply)
 * leaves with the TTL it was given.
 */
static __rte_always_inline void
lf_rewrite_packet_tmpl(struct rte_mbuf *m, struct lf_meta *meta, const void *macs, uint16_t out,
		       const bool ttl)
{
	struct rte_ether_hdr *eth;
	uint8_t *l3;
	uint16_t et;

	l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, meta->l3_off);
	if (meta->af == 4) {
		if (ttl)
			lf_ipv4_ttl_dec((struct rte_ipv4_hdr *)l3);
		et = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	} else {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)l3;

		if (ttl)
			ip->hop_limits--;
		et = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	}
	/* Drop any VLAN tags: the new Ethernet header sits right before L3. */
	if (unlikely(meta->l3_off != sizeof(*eth))) {
		rte_pktmbuf_adj(m, meta->l3_off - sizeof(*eth));
		meta->l4_off -= meta->l4_off ? meta->l3_off - sizeof(*eth) : 0;
		meta->l3_off = sizeof(*eth);
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memcpy(eth, macs, 2 * RTE_ETHER_ADDR_LEN);
	eth->ether_type = et;
	meta->out = out;
}

/**
 * Rewrite one parsed packet for its next hop: TTL or hop limit down (IPv4
 * checksum updated incrementally), VLAN tags dropped, destination and source
 * MAC from macs (12 bytes: destination then source), meta->out = out.
 */
static inline void
lf_rewrite_packet(struct rte_mbuf *m, struct lf_meta *meta, const void *macs, uint16_t out)
{
	lf_rewrite_packet_tmpl(m, meta, macs, out, true);
}

#endif /* LF_REWRITE_PKT_H */
