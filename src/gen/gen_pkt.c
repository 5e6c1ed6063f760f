/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: frame headers from a template, L4 checksums, stamp lookup. */
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
	t->l3_off = sizeof(struct rte_ether_hdr);
	t->l4_off = t->l3_off +
		(family == 4 ? sizeof(struct rte_ipv4_hdr) : sizeof(struct rte_ipv6_hdr));
	t->hdr_len = t->l4_off +
		(proto == IPPROTO_UDP ? sizeof(struct rte_udp_hdr) : sizeof(struct rte_tcp_hdr));
	t->min_frame = RTE_MAX(t->hdr_len + GEN_STAMP_LEN + GEN_FCS_LEN, GEN_FRAME_MIN);
}

/* Address base + off (network order, 4 or 16 bytes): off added to the last 32 bits. */
static inline void
put_addr(uint8_t *dst, const uint8_t *base, unsigned int alen, uint32_t off)
{
	uint32_t low;

	memcpy(dst, base, alen);
	memcpy(&low, base + alen - 4, 4);
	low = rte_cpu_to_be_32(rte_be_to_cpu_32(low) + off);
	memcpy(dst + alen - 4, &low, 4);
}

/*
 * L4 checksum over the pseudo header and the L4 header only. The payload is
 * the stamp and zeros: zeros add nothing, and a complete stamp adds its 16
 * bytes' sum S plus its check ~S, which is 0xffff, the ones'-complement
 * negative zero, which leaves any sum unchanged. So the checksum does not
 * depend on the stamp, and gen_pkt_finish only has to write the TSC and the
 * check: the stamping pass right before tx_burst stays short.
 */
static inline void
l4_cksum(const struct gen_pkt_tmpl *t, uint8_t *buf)
{
	uint32_t sum;
	uint16_t ck;

	if (t->family == 4)
		sum = rte_ipv4_phdr_cksum((const struct rte_ipv4_hdr *)(buf + t->l3_off), 0);
	else
		sum = rte_ipv6_phdr_cksum((const struct rte_ipv6_hdr *)(buf + t->l3_off), 0);
	sum += rte_raw_cksum(buf + t->l4_off, t->hdr_len - t->l4_off);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	if (t->proto == IPPROTO_UDP) {
		if (ck == 0)
			ck = 0xffff; /* 0 would mean "no checksum". */
		((struct rte_udp_hdr *)(buf + t->l4_off))->dgram_cksum = ck;
	} else {
		((struct rte_tcp_hdr *)(buf + t->l4_off))->cksum = ck;
	}
}

uint16_t
gen_pkt_build(const struct gen_pkt_tmpl *t, uint8_t *buf, const struct gen_flow_tuple *ft,
	      uint16_t frame_size, uint16_t magic, uint32_t flow, uint32_t seq)
{
	const uint16_t len = frame_size - GEN_FCS_LEN;
	const uint16_t l4_len = len - t->l4_off;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;

	memcpy(&eth->dst_addr, t->dst_mac, 6);
	memcpy(&eth->src_addr, t->src_mac, 6);
	if (t->family == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + t->l3_off);

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
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

		eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16(l4_len);
		ip6->proto = t->proto;
		ip6->hop_limits = t->ttl;
		put_addr(ip6->src_addr, t->src_ip, 16, ft->src_off);
		put_addr(ip6->dst_addr, t->dst_ip, 16, ft->dst_off);
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
	l4_cksum(t, buf);
	return len;
}

void
gen_pkt_finish(const struct gen_pkt_tmpl *t, uint8_t *buf, uint64_t tsc)
{
	gen_stamp_put_tsc(buf + t->hdr_len, tsc);
}

int
gen_payload_offset(const uint8_t *frame, uint32_t len)
{
	uint32_t off = sizeof(struct rte_ether_hdr);
	uint16_t et;
	uint8_t proto;

	if (len < off)
		return -1;
	et = (uint16_t)(frame[12] << 8 | frame[13]);
	if (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) {
		if (len < off + 4)
			return -1;
		et = (uint16_t)(frame[16] << 8 | frame[17]);
		off += 4;
	}
	if (et == RTE_ETHER_TYPE_IPV4) {
		uint32_t ihl;

		if (len < off + sizeof(struct rte_ipv4_hdr) || (frame[off] >> 4) != 4)
			return -1;
		ihl = (frame[off] & 0xf) * 4u;
		if (ihl < sizeof(struct rte_ipv4_hdr))
			return -1;
		proto = frame[off + 9];
		off += ihl;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (len < off + sizeof(struct rte_ipv6_hdr) || (frame[off] >> 4) != 6)
			return -1;
		proto = frame[off + 6];
		off += sizeof(struct rte_ipv6_hdr);
	} else {
		return -1;
	}
	if (proto == IPPROTO_UDP) {
		off += sizeof(struct rte_udp_hdr);
	} else if (proto == IPPROTO_TCP) {
		if (len < off + sizeof(struct rte_tcp_hdr) || (frame[off + 12] >> 4) < 5)
			return -1;
		off += (frame[off + 12] >> 4) * 4u;
	} else {
		return -1;
	}
	return off <= len ? (int)off : -1;
}
