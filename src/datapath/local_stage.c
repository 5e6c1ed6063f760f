/* SPDX-License-Identifier: BSD-3-Clause */
/* Packets to the router itself (local_stage.h). */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_icmp.h>
#include <rte_ip.h>

#include "cksum.h"
#include "local_stage.h"

/* ICMPv6 types (RFC 4443, RFC 4861). */
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ICMP6_ND_FIRST 133 /* Router Solicitation */
#define ICMP6_ND_LAST 137 /* Redirect */

/* Hop limit / TTL of what the router sends itself (RFC 1700's default). */
#define LOCAL_TTL 64

/* Hand a packet to the kernel mirror of the port it came in on. */
static inline void
local_punt(struct lf_burst *b, struct rte_mbuf *m, struct lf_meta *meta, uint64_t now)
{
	const uint16_t exc = b->local != NULL ? b->local->port[b->rx_port].exc_out : LF_NH_INVALID;

	if (exc == LF_NH_INVALID) {
		lf_burst_drop(b, m, LF_DROP_NO_EXCEPTION);
		return;
	}
	if (!lf_tbucket_take(&b->exc_tb, now)) {
		lf_burst_drop(b, m, LF_DROP_PUNT_RATE);
		return;
	}
	meta->out = exc;
	LF_STAT_ADD(b->stats->ev[LF_EV_PUNT_EXCEPTION], 1);
	lf_burst_divert(b, m, meta, LF_KIND_PUNT);
}

/*
 * An IPv4 echo request to our address into its reply, in place: addresses
 * swapped, type 0, TTL 64 and both checksums updated. Returns false if it
 * is not a whole, unfragmented echo request.
 */
static inline bool
echo4_reply(struct rte_mbuf *m, struct lf_meta *meta)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, meta->l3_off);
	struct rte_icmp_hdr *ic;
	uint32_t a;

	if (meta->l4_off == 0 || rte_pktmbuf_data_len(m) < meta->l4_off + sizeof(*ic) ||
	    (ip->fragment_offset &
	     rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) != 0)
		return false;
	ic = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, meta->l4_off);
	if (ic->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || ic->icmp_code != 0)
		return false;
	ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	/* Type and code are the first 16-bit word: 0x0800 -> 0x0000. */
	ic->icmp_cksum = lf_cksum_update16(ic->icmp_cksum, rte_cpu_to_be_16(0x0800), 0);
	a = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = a;
	ip->time_to_live = LOCAL_TTL;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = (uint16_t)~lf_ipv4_hdr_sum(ip, rte_ipv4_hdr_len(ip));
	return true;
}

/* The IPv6 one: the pseudo-header sum does not change with the swap. */
static inline bool
echo6_reply(struct rte_mbuf *m, struct lf_meta *meta)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, meta->l3_off);
	struct rte_icmp_hdr *ic;
	uint8_t a[16];

	if (meta->l4_off == 0 || rte_pktmbuf_data_len(m) < meta->l4_off + sizeof(*ic))
		return false;
	ic = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, meta->l4_off);
	if (ic->icmp_type != ICMP6_ECHO_REQUEST || ic->icmp_code != 0)
		return false;
	ic->icmp_type = ICMP6_ECHO_REPLY;
	ic->icmp_cksum =
		lf_cksum_update16(ic->icmp_cksum, rte_cpu_to_be_16(ICMP6_ECHO_REQUEST << 8),
				  rte_cpu_to_be_16(ICMP6_ECHO_REPLY << 8));
	memcpy(a, ip->src_addr, 16);
	memcpy(ip->src_addr, ip->dst_addr, 16);
	memcpy(ip->dst_addr, a, 16);
	ip->hop_limits = LOCAL_TTL;
	return true;
}

/* Is it an ICMPv6 neighbour discovery message (RFC 4861: types 133-137)? */
static inline bool
is_nd(const struct rte_mbuf *m, const struct lf_meta *meta)
{
	const uint8_t *t;

	if (meta->af != 6 || meta->l4_proto != IPPROTO_ICMPV6 || meta->l4_off == 0 ||
	    rte_pktmbuf_data_len(m) <= meta->l4_off)
		return false;
	t = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l4_off);
	return *t >= ICMP6_ND_FIRST && *t <= ICMP6_ND_LAST;
}

uint16_t
local_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const struct lf_nh *table = b->view.nh_table;
	const uint32_t count = b->view.nh_count;
	const bool echo = b->local != NULL && b->local->echo;
	const uint64_t now = b->rx_tsc; /* one TSC read per burst, the loop's */
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct lf_meta *meta = &b->meta[i];
		const unsigned int arg = meta->nh < count ? table[meta->nh].arg : LF_LOCAL_MARTIAN;
		bool is_echo;

		if (arg == LF_LOCAL_MARTIAN) {
			lf_burst_drop(b, m, LF_DROP_MARTIAN_DST);
			continue;
		}
		if (is_nd(m, meta)) {
			meta->flags |= LF_META_ND;
			lf_burst_divert(b, m, meta, LF_KIND_NEIGH);
			continue;
		}
		is_echo = arg == LF_LOCAL_DELIVER && echo &&
			(meta->af == 4 ? meta->l4_proto == IPPROTO_ICMP
				       : meta->l4_proto == IPPROTO_ICMPV6);
		if (is_echo) {
			/* Look before spending a token: only an echo request takes one. */
			const uint8_t *t =
				meta->l4_off != 0 && rte_pktmbuf_data_len(m) > meta->l4_off
				? rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l4_off)
				: NULL;

			is_echo = t != NULL &&
				*t ==
					(meta->af == 4 ? RTE_IP_ICMP_ECHO_REQUEST
						       : ICMP6_ECHO_REQUEST);
		}
		if (!is_echo) {
			local_punt(b, m, meta, now);
			continue;
		}
		if (!lf_tbucket_take(&b->icmp_tb, now)) {
			LF_STAT_ADD(b->stats->ev[LF_EV_ICMP_SUPPRESSED], 1);
			lf_burst_drop(b, m, LF_DROP_PUNT_RATE);
			continue;
		}
		if (!(meta->af == 4 ? echo4_reply(m, meta) : echo6_reply(m, meta))) {
			local_punt(b, m, meta, now);
			continue;
		}
		meta->flags |= LF_META_TTL_DONE;
		LF_STAT_ADD(b->stats->ev[LF_EV_ICMP_ECHO_REPLY], 1);
		k = lf_burst_keep(b, pkts, i, k);
	}
	return k;
}
