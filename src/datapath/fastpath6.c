/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused IPv6 stage (fastpath.h): parse -> fib -> rewrite for a burst of
 * plain IPv6 packets (lf_parse_ipv6_plain), the IPv6 side of a dual-stack
 * burst that pipeline_run has sorted by family. It has the IPv4 stage's
 * shape: a check pass that only reads the packets, one bulk FIB lookup,
 * then a pass that rewrites them in place until the first packet it does
 * not forward and compacts from there. An IPv6 rewrite has no checksum to
 * update, so there is no eight-packet build of it. Pass 2's two ends (what
 * becomes of a packet not forwarded, the ports of the kept ones) repeat
 * fastpath_burst's: shared as always-inline helpers they changed that
 * function's code and cost it 0.25 cycles/packet (bench.py --ab, 12 pairs).
 */
#include <stddef.h>
#include <string.h>

#include <rte_fib6.h>
#include <rte_prefetch.h>

#include "fastpath.h"
#include "fib.h"
#include "parse_fast.h"

/* Offsets in an untagged frame of the IPv6 header fields the stage reads. */
#define PROTO_OFF (RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, proto))
#define HLIM_OFF (RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, hop_limits))
#define DST6_OFF (RTE_ETHER_HDR_LEN + offsetof(struct rte_ipv6_hdr, dst_addr))

uint16_t
fastpath6_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t dist = b->prefetch_distance;
	const struct lf_l2_want l2 = lf_l2_want(b);
	const struct lf_nh *table;
	uint64_t nh_count;
	unsigned int out_or = 0, out_and = UINT16_MAX;
	uint16_t i, k;

	/* Pass 1: check every packet and gather its destination. */
	for (k = 0; k < dist && k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
	for (i = 0; i < n; i++) {
		unsigned int proto, need;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		if (unlikely(!lf_parse_ipv6_plain(pkts[i], &proto, &need)))
			return LF_REFUSED;
		b->data[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		if (l2.mask != 0 && unlikely(!lf_l2_ours(b->data[i], l2)))
			return LF_REFUSED;
		memcpy(b->ip6[i], b->data[i] + DST6_OFF, 16);
	}

	rte_fib6_lookup_bulk(lf_fib_v6(b->view.fib), b->ip6, b->nh6, n);

	/*
	 * Pass 2: rewrite and keep what has a next hop; in place up to the
	 * first packet that is not forwarded, compacting from there, as the
	 * IPv4 stage does. What goes to another kind or has no route is
	 * handed on with the meta parse would give it.
	 */
	table = b->view.nh_table;
	nh_count = b->view.nh_count;
	for (i = 0, k = 0; i < n; i++) {
		const uint64_t nh = b->nh6[i];
		const unsigned int out = lf_nh_out(table, nh_count, nh);
		uint8_t *d = b->data[i];

		if (unlikely(out == LF_NH_INVALID)) {
			const unsigned int kind = lf_nh_kind(table, nh_count, nh);

			if (kind != 0 || nh == LF_NH_NONE) {
				struct lf_meta meta;
				unsigned int proto = d[PROTO_OFF];

				lf_meta_plain_ipv6(&meta, proto, lf_l4_min_len[proto]);
				meta.nh = (uint32_t)nh;
				if (kind != 0)
					lf_burst_divert(b, pkts[i], &meta, (enum lf_kind)kind);
				else
					lf_burst_no_route(b, pkts[i], &meta);
				continue;
			}
			lf_burst_drop(b, pkts[i], LF_DROP_NO_NEXTHOP);
			continue;
		}
		memcpy(d, &table[nh].dst, 2 * RTE_ETHER_ADDR_LEN);
		d[HLIM_OFF]--;
		out_or |= out;
		out_and &= out;
		pkts[k++] = pkts[i]; /* k <= i: pkts[i] is still the packet */
	}
	if (out_or == out_and || k == 0) {
		b->out = (uint16_t)out_or;
		return k;
	}
	/* Several ports: meta[].out of the kept packets, in their order. */
	b->out = LF_OUT_MIXED;
	for (i = 0, k = 0; i < n; i++) {
		const unsigned int out = lf_nh_out(table, nh_count, b->nh6[i]);

		if (out != LF_NH_INVALID)
			b->meta[k++].out = (uint16_t)out;
	}
	return k;
}
