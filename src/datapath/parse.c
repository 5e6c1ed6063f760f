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

/*
 * RFC 1812 5.3.7: sources a router never forwards from. 0.0.0.0 itself is
 * let through to the limited broadcast only: a DHCP client's discover
 * (RFC 2131), for the router (the FIB routes 255.255.255.255 to it), never
 * forwarded.
 */
static inline bool
ipv4_src_martian(const uint8_t *src, const uint8_t *dst)
{
	static const uint8_t bcast[4] = { 255, 255, 255, 255 };

	if (src[0] == 0)
		return (src[1] | src[2] | src[3]) != 0 || memcmp(dst, bcast, 4) != 0;
	return src[0] == 127 || src[0] >= 224;
}

/* 224/4 or 255.255.255.255: what may arrive in a link-layer group frame. */
static inline bool
ipv4_dst_group(const uint8_t *dst)
{
	return (dst[0] & 0xf0) == 0xe0 || (dst[0] & dst[1] & dst[2] & dst[3]) == 0xff;
}

/*
 * The IPv4 checks. PORTED: under a port's checks (parse_one); GROUP: the
 * frame went to a link-layer group address (then PORTED too). The martian-source and link-layer verdicts
 * come before the TTL's (no ICMP error about such a packet), a malformed L4
 * header before it too (none about a malformed packet either); meta is
 * filled whole before the TTL verdict, for the ICMP stage.
 */
static inline int
parse_ipv4(struct rte_mbuf *m, const uint8_t *data, unsigned int len, struct lf_meta *meta,
	   int *sw_cksum, bool ported, bool group)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(data + meta->l3_off);
	const uint8_t *src = (const uint8_t *)&ip->src_addr;
	const uint8_t *dst = (const uint8_t *)&ip->dst_addr;
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
		if (unlikely(!lf_ipv4_hdr_ok(ip, ihl)))
			return LF_DROP_BAD_CHECKSUM;
	}
	if (unlikely(group) && !ipv4_dst_group(dst))
		return LF_DROP_L2_MCAST_UNICAST_IP;
	if (unlikely(ipv4_src_martian(src, dst)))
		return LF_DROP_MARTIAN_SRC;

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
	/*
	 * Group destinations are the router's (or martian), never forwarded:
	 * their TTL is not a hop's (IGMP, OSPF, RIP send TTL 1). Only under a
	 * port's checks, so that tests without them see what they always did.
	 */
	if (unlikely(ip->time_to_live <= 1) && !(ported && ipv4_dst_group(dst)))
		return LF_DROP_TTL_EXPIRED;
	return NO_DROP;
}

/* The IPv6 checks, in the order parse_ipv4 makes them (PORTED, GROUP as there). */
static inline int
parse_ipv6(struct rte_mbuf *m, const uint8_t *data, unsigned int len, struct lf_meta *meta,
	   bool ported, bool group)
{
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(data + meta->l3_off);
	unsigned int off, end, hops = 0;
	bool expired;
	uint8_t nxt;

	if (unlikely(len < meta->l3_off + sizeof(*ip)))
		return LF_DROP_L3_MALFORMED;
	if (unlikely((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6))
		return LF_DROP_L3_MALFORMED;
	end = meta->l3_off + sizeof(*ip) + rte_be_to_cpu_16(ip->payload_len);
	if (unlikely(end > m->pkt_len))
		return LF_DROP_L3_MALFORMED;
	if (unlikely(group) && ip->dst_addr[0] != 0xff)
		return LF_DROP_L2_MCAST_UNICAST_IP;
	if (unlikely(lf_ipv6_src_martian(ip->src_addr, ip->dst_addr)))
		return LF_DROP_MARTIAN_SRC;
	/* As in parse_ipv4: MLD and ND to groups go with hop limit 1 or 255. */
	expired = ip->hop_limits <= 1 && !(ported && ip->dst_addr[0] == 0xff);

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
				return unlikely(expired) ? LF_DROP_TTL_EXPIRED : NO_DROP;
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
	return unlikely(expired) ? LF_DROP_TTL_EXPIRED : NO_DROP;
}

/*
 * PORT: the receiving port's link-layer side, or NULL for none of its
 * checks. Under them a unicast frame must be to the port's MAC unless it is
 * promiscuous, a frame to a group address must carry IP to a group (RFC
 * 1812 5.3.4) or be no IP at all, and ARP is LF_PARSE_ARP.
 */
static inline int
parse_one(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum, const struct lf_port_l3 *port)
{
	const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int len = m->data_len;
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)data;
	bool group = false;
	uint16_t et;
	unsigned int off = sizeof(*eth);
	int tags = 0;

	if (unlikely(len < sizeof(*eth)))
		return LF_DROP_L2_MALFORMED;
	if (port != NULL) {
		group = rte_is_multicast_ether_addr(&eth->dst_addr);
		if (!group && !port->promisc && !rte_is_same_ether_addr(&eth->dst_addr, &port->mac))
			return LF_DROP_L2_NOT_OURS;
	}
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
		return parse_ipv4(m, data, len, meta, sw_cksum, port != NULL, group);
	if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return parse_ipv6(m, data, len, meta, port != NULL, group);
	if (port != NULL && et == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP))
		return LF_PARSE_ARP;
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
	return parse_one(m, meta, sw_cksum, NULL);
}

int
parse_packet_port(struct rte_mbuf *m, struct lf_meta *meta, int *sw_cksum,
		  const struct lf_port_l3 *port)
{
	return parse_one(m, meta, sw_cksum, port);
}

/* The receiving port's link-layer side, or NULL without b->local. */
static inline const struct lf_port_l3 *
parse_port(const struct lf_burst *b)
{
	const struct lf_local *l = b->local;

	return l != NULL && b->rx_port < l->n_ports ? &l->port[b->rx_port] : NULL;
}

/*
 * Everything the fast path does not take, out of line so the burst loop
 * keeps its registers: parsed, then dropped, diverted (not IP to kind
 * other; with b->local, ARP to kind neigh and an expired TTL to kind icmp,
 * which delivers it if it is for the router and otherwise answers it or
 * drops it as [icmp] time_exceeded says) or kept (true: meta is its meta).
 */
static __rte_noinline bool
parse_slow(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta)
{
	int sw = 0;
	int reason = parse_one(m, meta, &sw, parse_port(b));

	b->n_cksum_sw += sw;
	if (likely(reason == NO_DROP))
		return true;
	switch (reason) {
	case LF_DROP_NON_IP:
		lf_burst_divert(b, m, meta, LF_KIND_OTHER);
		break;
	case LF_PARSE_ARP:
		meta->af = 0;
		meta->l4_off = 0;
		meta->l4_proto = 0;
		meta->flags = 0;
		lf_burst_divert(b, m, meta, LF_KIND_NEIGH);
		break;
	case LF_DROP_TTL_EXPIRED:
		if (b->local != NULL) {
			meta->nh = LF_ICMP_TTL;
			lf_burst_divert(b, m, meta, LF_KIND_ICMP);
			break;
		}
		/* fall through */
	default:
		lf_burst_drop(b, m, (enum lf_drop)reason);
	}
	return false;
}

uint16_t
parse_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t dist = b->prefetch_distance;
	const struct lf_l2_want l2 = lf_l2_want(b);
	uint64_t sw = 0;
	uint16_t i, k = 0;

	b->n_cksum_sw = 0;
	for (i = 0; i < dist && i < n; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		unsigned int fast;
		uint32_t dst;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		fast = parse_ipv4_fast(m, &b->meta[k], &dst);
		/* What the fast check takes has its first 34 bytes in place. */
		if (likely(fast != 0) && likely(lf_l2_ours(rte_pktmbuf_mtod(m, uint8_t *), l2))) {
			sw += fast - 1;
			pkts[k++] = m;
			continue;
		}
		if (parse_slow(b, m, &b->meta[k]))
			pkts[k++] = m;
	}
	LF_STAT_ADD(b->stats->ipv4_cksum_sw, sw + b->n_cksum_sw);
	return k;
}
