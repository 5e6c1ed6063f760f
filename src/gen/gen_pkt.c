/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-gen: frame headers from a template (with GTP-U uplink
 * encapsulation), L4 checksums, finding the stamp in a received frame
 * (through GTP-U too).
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gen.h"

void
gen_pkt_tmpl_init(struct gen_pkt_tmpl *t, uint8_t family, uint8_t proto, const uint8_t *dst_mac,
		  const uint8_t *src_mac, const uint8_t *dst_ip, const uint8_t *src_ip,
		  uint16_t dport, uint8_t ttl)
{
	unsigned int alen = family == 4 ? 4 : 16;

	memset(t, 0, sizeof(*t));
	t->family = family;
	t->proto = proto;
	t->ttl = ttl;
	memcpy(t->dst_mac, dst_mac, 6);
	memcpy(t->src_mac, src_mac, 6);
	memcpy(t->dst_ip, dst_ip, alen);
	memcpy(t->src_ip, src_ip, alen);
	t->dport = dport;
	t->src_pos = alen - 4;
	t->dst_pos = alen - 4;
	t->eth_type = rte_cpu_to_be_16(family == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	t->l3_off = sizeof(struct rte_ether_hdr);
	t->l4_off = t->l3_off +
		(family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr));
	t->hdr_len = t->l4_off +
		(proto == IPPROTO_UDP ? sizeof(struct rte_udp_hdr) : sizeof(struct rte_tcp_hdr));
	t->min_frame = RTE_MAX(t->hdr_len + GEN_STAMP_LEN + GEN_FCS_LEN, GEN_FRAME_MIN);
}

/*
 * Offsets within the encapsulation (t->encap, which starts at the outer IP
 * header): the outer UDP header, the GTP-U header.
 */
static inline uint16_t
encap_udp_off(const struct gen_pkt_tmpl *t)
{
	return t->gtpu.family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr);
}

void
gen_pkt_tmpl_gtpu(struct gen_pkt_tmpl *t, const struct gen_gtpu *g)
{
	uint8_t *e = t->encap;
	uint16_t u;

	t->gtpu = *g;
	/* An IPv6 UE is a /64 (TS 23.501 5.8.2.2.3): UEs step through bits 32-63. */
	if (t->family == 6) {
		if (g->mode == GEN_GTPU_UL)
			t->src_pos = 4;
		else
			t->dst_pos = 4;
	}
	if (g->mode != GEN_GTPU_UL)
		return;
	t->encap_len = g->family == 4 ? GEN_GTPU_ENCAP4 : GEN_GTPU_ENCAP6;
	t->eth_type = rte_cpu_to_be_16(g->family == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	t->l3_off += t->encap_len;
	t->l4_off += t->encap_len;
	t->hdr_len += t->encap_len;
	/* min_frame stays the inner packet's: sizes are those of the frame after decap. */
	memset(e, 0, sizeof(t->encap));
	if (g->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)e;

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->time_to_live = t->ttl;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->dst_addr, g->n3_ip, 4);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)e;

		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->proto = IPPROTO_UDP;
		ip6->hop_limits = t->ttl;
		memcpy(ip6->dst_addr, g->n3_ip, 16);
	}
	u = encap_udp_off(t);
	/* TS 29.281 4.4.2.3: a G-PDU goes to port 2152; 2152 as the source too. */
	e[u] = GEN_GTPU_PORT >> 8;
	e[u + 1] = GEN_GTPU_PORT & 0xff;
	e[u + 2] = GEN_GTPU_PORT >> 8;
	e[u + 3] = GEN_GTPU_PORT & 0xff;
	u += sizeof(struct rte_udp_hdr);
	/* GTP-U (29.281 5.1): E set, so the 4 optional octets follow: seq 0, N-PDU 0, next 0x85. */
	e[u] = GEN_GTPU_FLAGS_E;
	e[u + 1] = GEN_GTPU_GPDU;
	e[u + 11] = GEN_GTPU_EXT_PSC;
	/* PDU Session Container (29.281 5.2.2.7, 38.415 5.5.2.2): 1 x 4 octets, UL, QFI, end. */
	e[u + 12] = 1;
	e[u + 13] = GEN_PSC_UL << 4;
	e[u + 14] = g->qfi & 0x3f;
	e[u + 15] = 0;
}

/* Address base + off (network order, alen bytes): off added to the 32 bits at byte pos. */
static inline void
put_addr_at(uint8_t *dst, const uint8_t *base, unsigned int alen, unsigned int pos, uint32_t off)
{
	uint32_t w;

	memcpy(dst, base, alen);
	memcpy(&w, base + pos, 4);
	w = rte_cpu_to_be_32(rte_be_to_cpu_32(w) + off);
	memcpy(dst + pos, &w, 4);
}

/* Address base + off: off added to the last 32 bits. */
static inline void
put_addr(uint8_t *dst, const uint8_t *base, unsigned int alen, uint32_t off)
{
	put_addr_at(dst, base, alen, alen - 4, off);
}

/*
 * The L4 checksum of the IP packet at l3 (family 4 or 6) whose L4 header
 * is at l4, over the pseudo header and the n bytes from l4 only. The rest
 * is the stamp and zeros: zeros add nothing, and a complete stamp adds its
 * 16 bytes' sum S plus its check ~S, which is 0xffff, the ones'-complement
 * negative zero, which leaves any sum unchanged. So the checksum does not
 * depend on the stamp, and gen_pkt_finish only has to write the TSC and the
 * check: the stamping pass right before tx_burst stays short. (n is even
 * for every header combination, so the stamp's words line up.)
 */
static inline uint16_t
l4_cksum(uint8_t family, const uint8_t *l3, const uint8_t *l4, uint32_t n)
{
	uint32_t sum;

	if (family == 4)
		sum = rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)l3, 0);
	else
		sum = rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)l3, 0);
	sum += rte_raw_cksum(l4, n);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* A UDP checksum: 0 would mean "no checksum". */
static inline uint16_t
udp_cksum(uint16_t ck)
{
	return ck == 0 ? 0xffff : ck;
}

/*
 * Write the GTP-U encapsulation of a frame of len bytes whose inner packet
 * (headers and checksums) is written, for session s. The outer UDP
 * checksum covers the inner packet: its headers are summed, its stamp and
 * zeros add nothing (l4_cksum).
 */
static inline void
put_encap(const struct gen_pkt_tmpl *t, uint8_t *buf, uint16_t len, uint32_t s)
{
	const struct gen_gtpu *g = &t->gtpu;
	uint8_t *l3 = buf + sizeof(struct rte_ether_hdr);
	uint8_t *udp = l3 + encap_udp_off(t);
	uint8_t *gtp = udp + sizeof(struct rte_udp_hdr);
	const uint16_t ulen = (uint16_t)(len - (udp - buf));
	const uint16_t glen = ulen - sizeof(struct rte_udp_hdr) - GEN_GTPU_HDR_LEN;
	const uint32_t gnb = g->n_gnb > 1 ? s % g->n_gnb : 0;
	const uint32_t teid = g->teid_base + s;
	uint16_t ck;

	memcpy(l3, t->encap, t->encap_len);
	if (g->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->total_length = rte_cpu_to_be_16(len - sizeof(struct rte_ether_hdr));
		put_addr((uint8_t *)&ip->src_addr, g->gnb_ip, 4, gnb);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;

		ip6->payload_len = rte_cpu_to_be_16(ulen);
		put_addr(ip6->src_addr, g->gnb_ip, 16, gnb);
	}
	udp[4] = ulen >> 8;
	udp[5] = ulen & 0xff;
	gtp[2] = glen >> 8;
	gtp[3] = glen & 0xff;
	gtp[4] = teid >> 24;
	gtp[5] = (teid >> 16) & 0xff;
	gtp[6] = (teid >> 8) & 0xff;
	gtp[7] = teid & 0xff;
	ck = udp_cksum(l4_cksum(g->family, l3, udp, (uint32_t)(t->hdr_len - (udp - buf))));
	memcpy(udp + 6, &ck, 2);
}

uint16_t
gen_pkt_build(const struct gen_pkt_tmpl *t, uint8_t *buf, const struct gen_flow_tuple *ft,
	      uint16_t frame_size, uint16_t magic, uint32_t flow, uint32_t seq)
{
	const uint16_t len = frame_size - GEN_FCS_LEN + t->encap_len;
	const uint16_t l4_len = len - t->l4_off;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	uint16_t ck;

	memcpy(&eth->dst_addr, t->dst_mac, 6);
	memcpy(&eth->src_addr, t->src_mac, 6);
	eth->ether_type = t->eth_type;
	if (t->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + t->l3_off);

		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->type_of_service = 0;
		ip->total_length = rte_cpu_to_be_16(len - t->l3_off);
		ip->packet_id = 0;
		ip->fragment_offset = 0;
		ip->time_to_live = t->ttl;
		ip->next_proto_id = t->proto;
		ip->hdr_checksum = 0;
		put_addr((uint8_t *)&ip->src_addr, t->src_ip, 4, ft->src_off);
		put_addr((uint8_t *)&ip->dst_addr, t->dst_ip, 4, ft->dst_off);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(buf + t->l3_off);

		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(l4_len);
		ip6->proto = t->proto;
		ip6->hop_limits = t->ttl;
		put_addr_at(ip6->src_addr, t->src_ip, 16, t->src_pos, ft->src_off);
		put_addr_at(ip6->dst_addr, t->dst_ip, 16, t->dst_pos, ft->dst_off);
	}
	if (t->proto == IPPROTO_UDP) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(buf + t->l4_off);

		udp->src_port = rte_cpu_to_be_16(ft->sport);
		udp->dst_port = rte_cpu_to_be_16(t->dport);
		udp->dgram_len = rte_cpu_to_be_16(l4_len);
		udp->dgram_cksum = 0;
	} else {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(buf + t->l4_off);

		tcp->src_port = rte_cpu_to_be_16(ft->sport);
		tcp->dst_port = rte_cpu_to_be_16(t->dport);
		tcp->sent_seq = rte_cpu_to_be_32(seq);
		tcp->recv_ack = 0;
		tcp->data_off = 5 << 4;
		tcp->tcp_flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		tcp->rx_win = rte_cpu_to_be_16(65535);
		tcp->cksum = 0;
		tcp->tcp_urp = 0;
	}
	gen_stamp_put_id(buf + t->hdr_len, magic, flow, seq);
	ck = l4_cksum(t->family, buf + t->l3_off, buf + t->l4_off, t->hdr_len - t->l4_off);
	if (t->proto == IPPROTO_UDP)
		((struct rte_udp_hdr *)(buf + t->l4_off))->dgram_cksum = udp_cksum(ck);
	else
		((struct rte_tcp_hdr *)(buf + t->l4_off))->cksum = ck;
	/* Uplink: the session is the flow's UE, its source. */
	if (t->encap_len != 0)
		put_encap(t, buf, len, ft->src_off);
	return len;
}

void
gen_pkt_finish(const struct gen_pkt_tmpl *t, uint8_t *buf, uint64_t tsc)
{
	gen_stamp_put_tsc(buf + t->hdr_len, tsc);
}

/* Offset of the IP header of an Ethernet frame (one optional tag) and its version, or -1. */
static inline int
eth_l3(const uint8_t *f, uint32_t len, unsigned int *ver)
{
	uint32_t off = sizeof(struct rte_ether_hdr);
	uint16_t et;

	if (len < off)
		return -1;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) {
		if (len < off + 4)
			return -1;
		et = (uint16_t)(f[16] << 8 | f[17]);
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4)
		*ver = 4;
	else if (et == RTE_ETHER_TYPE_IPV6)
		*ver = 6;
	else
		return -1;
	return (int)off;
}

/*
 * The L4 offset of the IP packet at off (version ver: IPv4 with options,
 * IPv6 without extension headers) and its protocol, or -1.
 */
static inline int
ip_l4(const uint8_t *f, uint32_t len, uint32_t off, unsigned int ver, uint8_t *proto)
{
	if (ver == 4) {
		uint32_t ihl;

		if (len < off + sizeof(struct rte_ipv4_hdr) || (f[off] >> 4) != 4)
			return -1;
		ihl = (f[off] & 0xf) * 4u;
		if (ihl < sizeof(struct rte_ipv4_hdr))
			return -1;
		*proto = f[off + 9];
		return (int)(off + ihl);
	}
	if (len < off + sizeof(struct rte_ipv6_hdr) || (f[off] >> 4) != 6)
		return -1;
	*proto = f[off + 6];
	return (int)(off + sizeof(struct rte_ipv6_hdr));
}

/* The payload offset of the UDP or TCP header at off, or -1. */
static inline int
l4_payload(const uint8_t *f, uint32_t len, uint32_t off, uint8_t proto)
{
	if (proto == IPPROTO_UDP) {
		off += sizeof(struct rte_udp_hdr);
	} else if (proto == IPPROTO_TCP) {
		if (len < off + sizeof(struct rte_tcp_hdr) || (f[off + 12] >> 4) < 5)
			return -1;
		off += (f[off + 12] >> 4) * 4u;
	} else {
		return -1;
	}
	return off <= len ? (int)off : -1;
}

int
gen_payload_offset(const uint8_t *frame, uint32_t len)
{
	unsigned int ver;
	uint8_t proto;
	int off;

	off = eth_l3(frame, len, &ver);
	if (off < 0)
		return -1;
	off = ip_l4(frame, len, (uint32_t)off, ver, &proto);
	if (off < 0)
		return -1;
	return l4_payload(frame, len, (uint32_t)off, proto);
}

int
gen_payload_offset_gtpu(const uint8_t *frame, uint32_t len, struct gen_rx_tun *tun)
{
	uint32_t l3, l4, g, end, p, ulen, glen;
	unsigned int ver, i;
	uint8_t proto, next;
	int off;

	tun->encap = false;
	tun->has_psc = false;
	off = eth_l3(frame, len, &ver);
	if (off < 0)
		return -1;
	l3 = (uint32_t)off;
	off = ip_l4(frame, len, l3, ver, &proto);
	if (off < 0)
		return -1;
	l4 = (uint32_t)off;
	if (proto != IPPROTO_UDP || len < l4 + sizeof(struct rte_udp_hdr) ||
	    (frame[l4 + 2] << 8 | frame[l4 + 3]) != GEN_GTPU_PORT)
		return l4_payload(frame, len, l4, proto);
	/* GTP-U: everything is bounded by the UDP length, itself within the frame. */
	ulen = (uint32_t)(frame[l4 + 4] << 8 | frame[l4 + 5]);
	if (ulen < sizeof(struct rte_udp_hdr) + GEN_GTPU_HDR_LEN || l4 + ulen > len)
		return -1;
	g = l4 + sizeof(struct rte_udp_hdr);
	/* Version 1, PT 1 (not GTP'), a G-PDU: anything else is not our traffic. */
	if ((frame[g] >> 5) != 1 || (frame[g] & 0x10) == 0 || frame[g + 1] != GEN_GTPU_GPDU)
		return -1;
	glen = (uint32_t)(frame[g + 2] << 8 | frame[g + 3]);
	end = g + GEN_GTPU_HDR_LEN + glen;
	if (end > l4 + ulen)
		return -1;
	tun->teid = (uint32_t)frame[g + 4] << 24 | (uint32_t)frame[g + 5] << 16 |
		(uint32_t)frame[g + 6] << 8 | frame[g + 7];
	p = g + GEN_GTPU_HDR_LEN;
	if ((frame[g] & 0x07) != 0) {
		/* Any of E, S, PN: sequence number, N-PDU number and next type follow. */
		if (end < p + GEN_GTPU_OPT_LEN)
			return -1;
		next = (frame[g] & 0x04) != 0 ? frame[p + 3] : 0;
		p += GEN_GTPU_OPT_LEN;
		for (i = 0; next != 0; i++) {
			uint32_t elen;

			if (i == GEN_GTPU_EXT_MAX || end < p + 1)
				return -1;
			elen = frame[p] * 4u;
			if (elen == 0 || end < p + elen)
				return -1;
			if (next == GEN_GTPU_EXT_PSC) {
				tun->has_psc = true;
				tun->pdu_type = frame[p + 1] >> 4;
				tun->qfi = frame[p + 2] & 0x3f;
			}
			next = frame[p + elen - 1];
			p += elen;
		}
	}
	if (end < p + 1)
		return -1;
	tun->encap = true;
	tun->family = (uint8_t)ver;
	tun->outer_l3 = (uint16_t)l3;
	ver = frame[p] >> 4;
	if (ver != 4 && ver != 6)
		return -1;
	off = ip_l4(frame, end, p, ver, &proto);
	if (off < 0)
		return -1;
	return l4_payload(frame, end, (uint32_t)off, proto);
}

bool
gen_gtpu_rx_ok(const struct gen_gtpu *g, const struct gen_flows *fl, uint32_t flow,
	       const uint8_t *frame, const struct gen_rx_tun *tun)
{
	struct gen_flow_tuple ft;
	const uint8_t *src, *dst;
	uint8_t gnb[16];
	unsigned int alen;

	if (g->mode == GEN_GTPU_UL)
		return !tun->encap;
	if (g->mode != GEN_GTPU_DL)
		return true;
	if (!tun->encap || !tun->has_psc || tun->pdu_type != GEN_PSC_DL || tun->qfi != g->qfi ||
	    tun->family != g->family)
		return false;
	/* Downlink: the session is the flow's UE, its destination. */
	gen_flow_tuple(fl, flow, &ft);
	if (tun->teid != g->teid_base + ft.dst_off)
		return false;
	alen = g->family == 4 ? 4 : 16;
	src = frame + tun->outer_l3 + (g->family == 4 ? 12 : 8);
	dst = src + alen;
	put_addr(gnb, g->gnb_ip, alen, g->n_gnb > 1 ? ft.dst_off % g->n_gnb : 0);
	return memcmp(src, g->n3_ip, alen) == 0 && memcmp(dst, gnb, alen) == 0;
}
