/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parse stage. Reads headers only from the first segment, validates what a
 * router must (RFC 1812 section 5.2.2 for IPv4) and records offsets in the
 * per-packet meta. A bad packet is a counted drop, never an error.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "cksum.h"
#include "parse.h"
#include "parse_fast.h"

#define NO_DROP (-1)

static inline int
parse_ipv4(struct rte_mbuf *m, const uint8_t *data, unsigned int len, struct lf_meta *meta,
	   int *sw_cksum)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(data + meta->l3_off);
	unsigned int ihl, tot;

	if (unlikely(len < meta->l3_off + sizeof(*ip)))
		return LF_DROP_L3_MALFORMED;
	if (unlikely((ip->version_ihl >> 4) != 4))
		return LF_DROP_L3_MALFORMED;
	ihl = (ip->version_ihl & 0xf) * 4;
	if (unlikely(ihl < sizeof(*ip) || len < meta->l3_off + ihl))
		return LF_DROP_L3_MALFORMED;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tot < ihl || meta->l3_off + tot > m->pkt_len))
		return LF_DROP_L3_MALFORMED;

	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
		break;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return LF_DROP_BAD_CHECKSUM;
	case RTE_MBUF_F_RX_IP_CKSUM_NONE: {
		/* Header verified by the NIC but the checksum field is not set. */
		struct rte_ipv4_hdr *wip = (struct rte_ipv4_hdr *)(uintptr_t)ip;

		wip->hdr_checksum = 0;
		wip->hdr_checksum = rte_ipv4_cksum(wip);
		break;
	}
	default:
		/* The port did not check it: a valid header sums to 0xffff. */
		*sw_cksum = 1;
		if (unlikely(lf_ipv4_hdr_sum(ip, ihl) != 0xffff))
			return LF_DROP_BAD_CHECKSUM;
	}
	if (unlikely(ip->time_to_live <= 1))
		return LF_DROP_TTL_EXPIRED;

	meta->af = 4;
	meta->kind = LF_KIND_IP;
	meta->flags = 0;
	meta->l4_proto = ip->next_proto_id;
	meta->l4_off = 0;
	/* Only the first fragment carries the L4 header. */
	if ((ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) == 0) {
		unsigned int need = lf_l4_min_len[ip->next_proto_id];

		if (need != 0) {
			if (unlikely(tot < ihl + need || len < meta->l3_off + ihl + need))
				return LF_DROP_L4_MALFORMED;
			meta->l4_off = meta->l3_off + ihl;
		}
	}
	return NO_DROP;
}

static inline int
parse_ipv6(struct rte_mbuf *m, const uint8_t *data, unsigned int len, struct lf_meta *meta)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(data + meta->l3_off);
	unsigned int off, end, hops = 0;
	uint8_t nxt;

	if (unlikely(len < meta->l3_off + sizeof(*ip)))
		return LF_DROP_L3_MALFORMED;
	if (unlikely((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6))
		return LF_DROP_L3_MALFORMED;
	end = meta->l3_off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (unlikely(end > m->pkt_len))
		return LF_DROP_L3_MALFORMED;
	if (unlikely(ip->hop_limits <= 1))
		return LF_DROP_TTL_EXPIRED;

	meta->af = 6;
	meta->kind = LF_KIND_IP;
	meta->flags = 0;
	meta->l4_off = 0;
	nxt = ip->proto;
	off = meta->l3_off + sizeof(*ip);
	/* Walk the extension headers (bounded) to the upper-layer header. */
	for (;;) {
		const uint8_t *ext = data + off;
		unsigned int elen;

		switch (nxt) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (unlikely(off + 8 > end || off + 8 > len))
				return LF_DROP_L3_MALFORMED;
			elen = (ext[1] + 1) * 8;
			break;
		case IPPROTO_FRAGMENT:
			if (unlikely(off + 8 > end || off + 8 > len))
				return LF_DROP_L3_MALFORMED;
			elen = 8;
			/* A non-first fragment has no L4 header. */
			if ((rte_be_to_cpu_16(*(const uint16_t *)(ext + 2)) & 0xfff8) != 0) {
				meta->l4_proto = ext[0];
				return NO_DROP;
			}
			break;
		default:
			goto upper;
		}
		if (unlikely(++hops > 8 || off + elen > end))
			return LF_DROP_L3_MALFORMED;
		nxt = ext[0];
		off += elen;
	}
upper:
	meta->l4_proto = nxt;
	if (lf_l4_min_len[nxt] != 0) {
		if (unlikely(off + lf_l4_min_len[nxt] > end || off + lf_l4_min_len[nxt] > len))
			return LF_DROP_L4_MALFORMED;
		meta->l4_off = off;
	}
	return NO_DROP;
}

static inline int
parse_one(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum)
{
	const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int len = m->data_len;
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)data;
	uint16_t et;
	unsigned int off = sizeof(*eth);
	int tags = 0;

	if (unlikely(len < sizeof(*eth)))
		return LF_DROP_L2_MALFORMED;
	et = eth->ether_type;
	while (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
	       et == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ)) {
		const struct rte_vlan_hdr *vh = (const struct rte_vlan_hdr *)(data + off);

		if (unlikely(++tags > 2 || len < off + sizeof(*vh)))
			return LF_DROP_L2_MALFORMED;
		et = vh->eth_proto;
		off += sizeof(*vh);
	}
	meta->l3_off = off;
	if (likely(et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)))
		return parse_ipv4(m, data, len, meta, sw_cksum);
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return parse_ipv6(m, data, len, meta);
	return LF_DROP_NON_IP;
}

/* The fast path of parse_burst: meta from lf_parse_ipv4_plain(). */
static inline unsigned int
parse_ipv4_fast(const struct rte_mbuf *m, struct lf_meta *meta, uint32_t *dst)
{
	unsigned int proto, need;
	unsigned int r = lf_parse_ipv4_plain(m, &proto, &need, dst);

	if (r == 0)
		return 0;
	lf_meta_plain_ipv4(meta, proto, need);
	return r;
}

int
parse_packet(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum)
{
	return parse_one(m, meta, sw_cksum);
}

/* Everything the fast path does not take, out of line so the burst loop
 * keeps its registers. Returns the drop reason or NO_DROP. */
static __rte_noinline int
parse_slow(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta)
{
	int sw = 0;
	int reason = parse_one(m, meta, &sw);

	b->n_cksum_sw += sw;
	return reason;
}

uint16_t
parse_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t dist = b->prefetch_distance;
	uint64_t sw = 0;
	uint16_t i, k = 0;

	b->n_cksum_sw = 0;
	for (i = 0; i < dist && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		unsigned int fast;
		uint32_t dst;
		int reason;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		fast = parse_ipv4_fast(m, &b->meta[k], &dst);
		if (likely(fast != 0)) {
			sw += fast - 1;
			pkts[k++] = m;
			continue;
		}
		reason = parse_slow(b, m, &b->meta[k]);
		if (likely(reason == NO_DROP))
			pkts[k++] = m;
		else if (reason == LF_DROP_NON_IP)
			lf_burst_divert(b, m, &b->meta[k], LF_KIND_OTHER);
		else
			lf_burst_drop(b, m, reason);
	}
	LF_STAT_ADD(b->stats->ipv4_cksum_sw, sw + b->n_cksum_sw);
	return k;
}
