/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The check behind every fast path: is this the common packet, untagged
 * IPv4 without options, not a non-first fragment, its headers in the first
 * segment, TTL above 1, a source a router may forward from (not 0/8, 127/8,
 * 224/4 or 240/4: RFC 1812 5.3.7), checksum good or unchecked by the NIC
 * (then checked here)? It only reads the packet. What it accepts, the
 * general parser (parse_packet) accepts too, with l3_off 14; what it
 * refuses goes there. The link-layer check of a port (lf_l2_ours) is apart:
 * it depends on the port, not on the packet alone.
 */
#ifndef LF_PARSE_FAST_H
#define LF_PARSE_FAST_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dp.h"

/** Minimal L4 header length by IP protocol (0: not inspected). */
static const uint8_t lf_l4_min_len[256] = {
	[IPPROTO_UDP] = 8,
	[IPPROTO_TCP] = 20,
	[IPPROTO_ICMP] = 4,
	[IPPROTO_ICMPV6] = 4,
};

/**
 * @return 0: not the common packet (or a bad checksum); 1: accepted;
 *         2: accepted after a software checksum check. On acceptance,
 *         *proto, *l4_need (lf_l4_min_len of it) and *dst (host order).
 */
static inline unsigned int
lf_parse_ipv4_plain(const struct rte_mbuf *m, unsigned int *proto, unsigned int *l4_need,
		    uint32_t *dst)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint64_t a, b, c, sum;
	unsigned int tot, need, p, s0;
	bool ok;

	/*
	 * The 22 header bytes from the EtherType on are read as three 64-bit
	 * words and every condition is combined before a single branch (the
	 * byte-wise version kept the compiler spilling registers).
	 */
	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)))
		return 0;
	memcpy(&a, d + 12, sizeof(a)); /* EtherType, ver/IHL, TOS, length, id */
	memcpy(&b, d + 20, sizeof(b)); /* fragment, TTL, proto, checksum, src */
	memcpy(&c, d + 26, sizeof(c)); /* src, dst */
	tot = rte_be_to_cpu_16((uint16_t)(a >> 32));
	p = (b >> 24) & 0xff;
	need = lf_l4_min_len[p];
	s0 = c & 0xff; /* the source's first byte */
	ok = ((a & 0xffffff) == 0x450008) & /* IPv4, IHL 5 */
		((b & 0xff1f) == 0) & /* fragment offset 0 */
		(((b >> 16) & 0xff) > 1) & /* TTL */
		/* Source in 1..126 or 128..223: not martian (the rest, and the
		 * exceptions, are parse_packet's). */
		((s0 - 1u < 126u) | (s0 - 128u < 96u)) &
		(tot >= sizeof(struct rte_ipv4_hdr) + need) & /* L4 header inside */
		(RTE_ETHER_HDR_LEN + tot <= m->pkt_len) &
		(m->data_len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr) + need) &
		((ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD) | (ck == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN));
	if (unlikely(!ok))
		return 0;
	*proto = p;
	*l4_need = need;
	*dst = rte_be_to_cpu_32((uint32_t)(c >> 32));
	if (ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD)
		return 1;
	/*
	 * The header's 16-bit words are bytes 14..33: a >> 16, b and c >> 16.
	 * Its one's complement sum is 0xffff exactly when their plain sum is a
	 * non-zero multiple of 0xffff (2^16 = 1 mod 0xffff; version 4 makes it
	 * non-zero): one modulo by a constant instead of four folds.
	 */
	sum = (a >> 16) + (b & 0xffffffff) + (b >> 32) + (c >> 16);
	return sum % 0xffff == 0 ? 2 : 0;
#else
	RTE_SET_USED(m);
	RTE_SET_USED(proto);
	RTE_SET_USED(l4_need);
	RTE_SET_USED(dst);
	return 0;
#endif
}

/*
 * RFC 4291: a router never forwards from ::, ::1 or a multicast source.
 * :: is let through to link-scope multicast (ff02::/16) only: duplicate
 * address detection's solicitations and MLD reports (RFC 4862, 3810), for
 * the router (the FIB routes ff02::/16 to it), never forwarded.
 */
static inline bool
lf_ipv6_src_martian(const uint8_t *src, const uint8_t *dst)
{
	static const uint8_t zero[15];

	if (src[0] == 0xff)
		return true;
	if (memcmp(src, zero, 15) != 0 || src[15] > 1)
		return false;
	return src[15] == 1 || dst[0] != 0xff || dst[1] != 0x02;
}

/**
 * The IPv6 counterpart of lf_parse_ipv4_plain: untagged IPv6 with no
 * extension header, its header and the upper-layer header's first bytes
 * in the first segment, the payload inside the packet, hop limit above 1,
 * a source a router may forward from. What it accepts, parse_packet
 * accepts too, with l3_off 14 and no drop; the rest goes there.
 * @return whether it accepts; then *proto and *l4_need (lf_l4_min_len).
 */
static inline bool
lf_parse_ipv6_plain(const struct rte_mbuf *m, unsigned int *proto, unsigned int *l4_need)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(d + RTE_ETHER_HDR_LEN);
	unsigned int p, need, plen;

	if (unlikely(m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip)))
		return false;
	p = ip->proto;
	need = lf_l4_min_len[p];
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (d[12] != 0x86 || d[13] != 0xdd || (d[14] >> 4) != 6 || ip->hop_limits <= 1 ||
	    /* Extension headers are parse_packet's to walk. */
	    p == IPPROTO_HOPOPTS || p == IPPROTO_ROUTING || p == IPPROTO_FRAGMENT ||
	    p == IPPROTO_DSTOPTS || plen < need ||
	    RTE_ETHER_HDR_LEN + sizeof(*ip) + plen > m->pkt_len ||
	    m->data_len < RTE_ETHER_HDR_LEN + sizeof(*ip) + need ||
	    lf_ipv6_src_martian(ip->src_addr, ip->dst_addr))
		return false;
	*proto = p;
	*l4_need = need;
	return true;
}

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
 * The meta parse gives a packet lf_parse_ipv6_plain() accepted with proto
 * and l4_need.
 */
static inline void
lf_meta_plain_ipv6(struct lf_meta *meta, unsigned int proto, unsigned int l4_need)
{
	memset(meta, 0, sizeof(*meta));
	meta->l3_off = RTE_ETHER_HDR_LEN;
	meta->l4_off = l4_need ? RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv6_hdr) : 0;
	meta->af = 6;
	meta->l4_proto = (uint8_t)proto;
	meta->kind = LF_KIND_IP;
}

/**
 * A port's link-layer acceptance as two 64-bit words: a frame is the port's
 * when its first 8 bytes d satisfy ((d ^ val) & mask) == 0. A routed port
 * takes frames to its own MAC (mask: the 6 address bytes); a promiscuous
 * one any unicast MAC (mask: the group bit); without b->local (tests,
 * benchmarks) every frame (mask 0). A group frame (broadcast, multicast) is
 * never taken here: parse_packet decides it. Made once per burst.
 */
struct lf_l2_want {
	uint64_t mask;
	uint64_t val;
};

static inline struct lf_l2_want
lf_l2_want(const struct lf_burst *b)
{
	static const uint8_t mac_mask[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0 };
	static const uint8_t group_bit[8] = { 0x01, 0, 0, 0, 0, 0, 0, 0 };
	const struct lf_local *l = b->local;
	struct lf_l2_want w = { 0, 0 };

	if (l == NULL || b->rx_port >= l->n_ports)
		return w;
	if (l->port[b->rx_port].promisc) {
		memcpy(&w.mask, group_bit, sizeof(w.mask));
		return w;
	}
	memcpy(&w.mask, mac_mask, sizeof(w.mask));
	memcpy(&w.val, &l->port[b->rx_port].mac, RTE_ETHER_ADDR_LEN);
	return w;
}

/**
 * Whether a frame whose first 8 bytes are at d (the caller knows they are
 * there) is the port's, as lf_l2_want() made w.
 */
static inline bool
lf_l2_ours(const uint8_t *d, struct lf_l2_want w)
{
	uint64_t x;

	memcpy(&x, d, sizeof(x));
	return ((x ^ w.val) & w.mask) == 0;
}

#endif /* LF_PARSE_FAST_H */
