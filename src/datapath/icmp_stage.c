/* SPDX-License-Identifier: BSD-3-Clause */
/* ICMP and ICMPv6 errors, built in place (icmp_stage.h). */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "cksum.h"
#include "fib.h"
#include "icmp_stage.h"

/* What the error may quote, with its own headers: RFC 1812 4.3.2.3, RFC 4443 2.4(c). */
#define ICMP4_MAX_LEN 576
#define ICMP6_MAX_LEN 1280
#define ICMP_HDR_LEN 8
#define ICMP_TTL 64

/* ICMP types and codes (RFC 792, RFC 1191, RFC 4443). */
#define ICMP4_UNREACH 3
#define ICMP4_UNREACH_NET 0
#define ICMP4_UNREACH_FRAG 4
#define ICMP4_TIME_EXCEEDED 11
#define ICMP6_UNREACH 1
#define ICMP6_UNREACH_NO_ROUTE 0
#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_TIME_EXCEEDED 3

static const uint8_t why_drop[] = {
	[LF_ICMP_TTL] = LF_DROP_TTL_EXPIRED,
	[LF_ICMP_NO_ROUTE] = LF_DROP_NO_ROUTE,
	[LF_ICMP_MTU] = LF_DROP_MTU,
};

static const uint8_t why_event[] = {
	[LF_ICMP_TTL] = LF_EV_ICMP_TIME_EXCEEDED,
	[LF_ICMP_NO_ROUTE] = LF_EV_ICMP_UNREACHABLE,
	[LF_ICMP_MTU] = LF_EV_ICMP_FRAG_NEEDED,
};

static inline bool
why_enabled(const struct lf_local *l, unsigned int why)
{
	return why == LF_ICMP_TTL         ? l->time_exceeded
		: why == LF_ICMP_NO_ROUTE ? l->unreachable
					  : l->frag_needed;
}

/* May the router send an error about this IPv4 packet (RFC 1812 4.3.2.7)? */
static bool
may_err4(const struct rte_mbuf *m, const struct lf_meta *meta, const struct rte_ipv4_hdr *ip)
{
	const uint8_t *s = (const uint8_t *)&ip->src_addr, *d = (const uint8_t *)&ip->dst_addr;
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if ((ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return false;
	if (rte_is_multicast_ether_addr(&eth->dst_addr))
		return false;
	if (s[0] == 0 || s[0] == 127 || s[0] >= 224 || d[0] >= 224)
		return false;
	if (meta->l4_proto == IPPROTO_ICMP) {
		const uint8_t *t;

		if (meta->l4_off == 0 || rte_pktmbuf_data_len(m) <= meta->l4_off)
			return false;
		t = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l4_off);
		/* Only about queries: echo (8, 0), timestamp (13, 14), ... */
		if (*t == 3 || *t == 4 || *t == 5 || *t == 11 || *t == 12)
			return false;
	}
	return true;
}

/* And about this IPv6 one (RFC 4443 2.4(e)); a packet too big may go to a group. */
static bool
may_err6(const struct rte_mbuf *m, const struct lf_meta *meta, const struct rte_ipv6_hdr *ip,
	 unsigned int why)
{
	static const uint8_t unspec[16];
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	if (ip->src_addr[0] == 0xff || memcmp(ip->src_addr, unspec, 16) == 0)
		return false;
	if (why != LF_ICMP_MTU &&
	    (ip->dst_addr[0] == 0xff || rte_is_multicast_ether_addr(&eth->dst_addr)))
		return false;
	if (meta->l4_proto == IPPROTO_ICMPV6) {
		const uint8_t *t;

		if (meta->l4_off == 0 || rte_pktmbuf_data_len(m) <= meta->l4_off)
			return false;
		t = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l4_off);
		if (*t < 128) /* an error message */
			return false;
	}
	/* A later fragment: parse stopped at its fragment header (l4_proto 44). */
	if (meta->l4_proto == IPPROTO_FRAGMENT)
		return false;
	return true;
}

/*
 * Make room for hdr bytes (new IP + ICMP header) and an Ethernet header in
 * front of the original IP header, and cut the quote to max bytes in all.
 * Returns the new IP header, or NULL (one segment only, and the headroom).
 */
static uint8_t *
icmp_frame(struct rte_mbuf *m, struct lf_meta *meta, unsigned int ip_len, unsigned int hdr,
	   unsigned int max)
{
	const unsigned int front = RTE_ETHER_HDR_LEN + hdr;
	struct rte_ether_hdr *eth;

	/* What follows the IP packet (Ethernet padding) is not quoted. */
	if (ip_len > rte_pktmbuf_pkt_len(m) - meta->l3_off)
		ip_len = rte_pktmbuf_pkt_len(m) - meta->l3_off;
	if (rte_pktmbuf_pkt_len(m) - meta->l3_off > ip_len)
		rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - meta->l3_off - ip_len));

	if (m->nb_segs != 1 || meta->l3_off > front ||
	    rte_pktmbuf_headroom(m) < front - meta->l3_off)
		return NULL;
	if (rte_pktmbuf_prepend(m, (uint16_t)(front - meta->l3_off)) == NULL)
		return NULL;
	if (ip_len > max - hdr) {
		rte_pktmbuf_trim(m, (uint16_t)(ip_len - (max - hdr)));
		ip_len = max - hdr;
	}
	eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(eth, 0, sizeof(*eth));
	meta->l3_off = RTE_ETHER_HDR_LEN;
	return (uint8_t *)(eth + 1);
}

static bool
icmp4_error(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, unsigned int why)
{
	const struct lf_port_l3 *in = &b->local->port[b->rx_port];
	const struct rte_ipv4_hdr *oip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, meta->l3_off);
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;
	uint32_t dst = oip->src_addr;
	uint16_t mtu = 0;
	uint8_t type, code;

	if (!in->has_ip4 || !may_err4(m, meta, oip))
		return false;
	if (why == LF_ICMP_MTU) {
		if (!(oip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)))
			return false;
		mtu = meta->out < b->local->n_ports ? b->local->port[meta->out].mtu : 0;
		type = ICMP4_UNREACH, code = ICMP4_UNREACH_FRAG;
	} else if (why == LF_ICMP_TTL) {
		type = ICMP4_TIME_EXCEEDED, code = 0;
	} else {
		type = ICMP4_UNREACH, code = ICMP4_UNREACH_NET;
	}
	ip = (struct rte_ipv4_hdr *)icmp_frame(m, meta, rte_be_to_cpu_16(oip->total_length),
					       sizeof(*ip) + ICMP_HDR_LEN, ICMP4_MAX_LEN);
	if (ip == NULL)
		return false;
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0xc0; /* Internetwork control, as routers send errors. */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_pktmbuf_pkt_len(m) - meta->l3_off));
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = ICMP_TTL;
	ip->next_proto_id = IPPROTO_ICMP;
	memcpy(&ip->src_addr, in->ip4, 4);
	ip->dst_addr = dst;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~lf_ipv4_hdr_sum(ip, sizeof(*ip));
	ic = (struct rte_icmp_hdr *)(ip + 1);
	ic->icmp_type = type;
	ic->icmp_code = code;
	ic->icmp_cksum = 0;
	ic->icmp_ident = 0;
	ic->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	ic->icmp_cksum =
		(uint16_t)~rte_raw_cksum(ic, rte_pktmbuf_pkt_len(m) - meta->l3_off - sizeof(*ip));
	meta->af = 4;
	meta->l4_off = RTE_ETHER_HDR_LEN + sizeof(*ip);
	meta->l4_proto = IPPROTO_ICMP;
	return true;
}

static bool
icmp6_error(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, unsigned int why)
{
	const struct lf_port_l3 *in = &b->local->port[b->rx_port];
	const struct rte_ipv6_hdr *oip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, meta->l3_off);
	struct rte_ipv6_hdr *ip;
	struct rte_icmp_hdr *ic;
	uint8_t dst[16];
	uint32_t mtu = 0;
	uint8_t type, code = 0;

	if (!in->has_ip6 || !may_err6(m, meta, oip, why))
		return false;
	memcpy(dst, oip->src_addr, 16);
	if (why == LF_ICMP_MTU) {
		mtu = meta->out < b->local->n_ports ? b->local->port[meta->out].mtu : 0;
		type = ICMP6_PACKET_TOO_BIG;
	} else if (why == LF_ICMP_TTL) {
		type = ICMP6_TIME_EXCEEDED;
	} else {
		type = ICMP6_UNREACH, code = ICMP6_UNREACH_NO_ROUTE;
	}
	ip = (struct rte_ipv6_hdr *)icmp_frame(m, meta,
					       sizeof(*ip) + rte_be_to_cpu_16(oip->payload_len),
					       sizeof(*ip) + ICMP_HDR_LEN, ICMP6_MAX_LEN);
	if (ip == NULL)
		return false;
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len =
		rte_cpu_to_be_16((uint16_t)(rte_pktmbuf_pkt_len(m) - meta->l3_off - sizeof(*ip)));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = ICMP_TTL;
	memcpy(ip->src_addr, in->ip6, 16);
	memcpy(ip->dst_addr, dst, 16);
	ic = (struct rte_icmp_hdr *)(ip + 1);
	ic->icmp_type = type;
	ic->icmp_code = code;
	ic->icmp_cksum = 0;
	/* Packet Too Big's MTU, or the unused word of the others. */
	ic->icmp_ident = rte_cpu_to_be_16((uint16_t)(mtu >> 16));
	ic->icmp_seq_nb = rte_cpu_to_be_16((uint16_t)mtu);
	ic->icmp_cksum = rte_ipv6_udptcp_cksum(ip, ic);
	meta->af = 6;
	meta->l4_off = RTE_ETHER_HDR_LEN + sizeof(*ip);
	meta->l4_proto = IPPROTO_ICMPV6;
	return true;
}

/*
 * TTL is checked only when forwarding (RFC 1812 5.3.1): parse sends an
 * expired one here before any lookup, so look its destination up, and one
 * for the router itself goes on to the local kind instead. Returns the
 * next hop if it is of kind local, else LF_NH_INVALID.
 */
static uint32_t
ttl_local_nh(const struct lf_burst *b, const struct rte_mbuf *m, const struct lf_meta *meta)
{
	uint64_t nh = LF_NH_NONE;

	if (b->view.fib == NULL)
		return LF_NH_INVALID;
	if (meta->af == 4) {
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, meta->l3_off);
		uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);

		rte_fib_lookup_bulk(lf_fib_v4(b->view.fib), &dst, &nh, 1);
	} else {
		const struct rte_ipv6_hdr *ip =
			rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, meta->l3_off);
		uint8_t dst[1][RTE_FIB6_IPV6_ADDR_SIZE];

		memcpy(dst[0], ip->dst_addr, sizeof(dst[0]));
		rte_fib6_lookup_bulk(lf_fib_v6(b->view.fib), dst, &nh, 1);
	}
	if (nh < b->view.nh_count && b->view.nh_table[nh].out == LF_NH_INVALID &&
	    b->view.nh_table[nh].kind == LF_KIND_LOCAL)
		return (uint32_t)nh;
	return LF_NH_INVALID;
}

uint16_t
icmp_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const uint64_t now = b->rx_tsc; /* one TSC read per burst, the loop's */
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct lf_meta *meta = &b->meta[i];
		const unsigned int why = meta->nh <= LF_ICMP_MTU ? meta->nh : LF_ICMP_NO_ROUTE;
		bool sent;

		if (why == LF_ICMP_TTL) {
			const uint32_t local = ttl_local_nh(b, m, meta);

			if (local != LF_NH_INVALID) {
				meta->nh = local;
				lf_burst_divert(b, m, meta, LF_KIND_LOCAL);
				continue;
			}
		}
		sent = b->local != NULL && why_enabled(b->local, why) &&
			lf_tbucket_take(&b->icmp_tb, now) &&
			(meta->af == 4 ? icmp4_error(b, m, meta, why)
				       : icmp6_error(b, m, meta, why));
		if (!sent) {
			if (b->local != NULL)
				LF_STAT_ADD(b->stats->ev[LF_EV_ICMP_SUPPRESSED], 1);
			lf_burst_drop(b, m, (enum lf_drop)why_drop[why]);
			continue;
		}
		meta->flags |= LF_META_TTL_DONE;
		LF_STAT_ADD(b->stats->ev[why_event[why]], 1);
		k = lf_burst_keep(b, pkts, i, k);
	}
	return k;
}
