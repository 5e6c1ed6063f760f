/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Pass 1 of the fused IPv4 stages (fastpath.h, and the flow cache's fused
 * lookup in flow_stage.h), written once: check that every packet of the
 * burst is plain IPv4 (parse_fast.h), eight at a time with AVX-512 where the
 * build has it (parse_fast_x8.h), then one at a time, and collect what the
 * caller's next pass needs. It only reads the packets, so a burst it refuses
 * goes to the staged pipeline untouched.
 *
 * It is an always-inline template on the constant flag flow, in the manner
 * of l3fwd's lpm_event_loop(..., flags): each caller compiles to its own
 * loop with the other's work removed, so one body serves both without a
 * runtime branch.
 */
#ifndef LF_FUSED_H
#define LF_FUSED_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dp.h"
#include "flow.h"
#include "parse_fast.h"
#include "parse_fast_x8.h"

#ifndef LF_FUSED_X8
#error "define LF_FUSED_X8 (0 or 1) before including fused.h"
#endif

#if LF_FUSED_X8
/*
 * Prefetch the data of pkts[from..from+8) that exist (below n): a whole
 * group as eight straight prefetches, the tail of a burst one by one.
 */
static inline void
lf_fused_prefetch_group(struct rte_mbuf **pkts, uint16_t from, uint16_t n)
{
	uint16_t k;

	if (likely(from + 8 <= n)) {
		for (k = 0; k < 8; k++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[from + k], void *));
		return;
	}
	for (k = from; k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
}
#endif

/**
 * Check the burst and collect, for every packet: b->ip4[i] (destination,
 * host order) and b->data[i] (its mtod); without flow, b->ttlw[i] for the
 * packets the eight-packet groups checked (the first *n8); with flow,
 * b->meta[i] (what parse would give it), its flow key b->flow_keys[i] and,
 * when b->flow_prefetch_distance != 0, hash[i] with its bucket prefetched.
 * Packet data is prefetched b->prefetch_distance ahead; the groups prefetch
 * a group ahead at least.
 * @return false, having written nothing to any packet, if one is not plain
 *         IPv4 (parse_fast.h) or, with b->local, not a unicast frame the
 *         port takes (lf_l2_ours).
 */
static __rte_always_inline bool
lf_fused_check(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n, uint16_t *n8, uint64_t *hash,
	       const bool flow)
{
	const uint16_t dist = b->prefetch_distance;
	const bool flow_pf = flow && b->flow_prefetch_distance != 0;
	/* The port's link-layer check (none without b->local): a frame it
	 * would not take, or a group frame, goes to the staged parse. */
	const struct lf_l2_want l2 = lf_l2_want(b);
	uint64_t sw = 0;
	uint16_t i = 0, k;

#if LF_FUSED_X8
	if (n >= 8) {
		const uint16_t ahead = dist == 0 ? 0 : RTE_MAX(dist, (uint16_t)8);

		for (k = 0; k < ahead && k < n; k++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
		for (; i + 8 <= n; i += 8) {
			__mmask8 swm;

			lf_fused_prefetch_group(pkts, i + ahead, ahead != 0 ? n : 0);
			if (unlikely(lf_parse_ipv4_plain_x8(&pkts[i], &b->ip4[i], &b->data[i], &swm,
							    flow ? NULL : &b->ttlw[i]) != 0xff))
				return false;
			if (l2.mask != 0 && unlikely(lf_l2_ours_x8(&b->data[i], l2) != 0xff))
				return false;
			sw += __builtin_popcount(swm);
			if (flow) {
				for (k = i; k < i + 8; k++) {
					const uint8_t *d = b->data[k];
					const unsigned int proto =
						d[RTE_ETHER_HDR_LEN +
						  offsetof(struct rte_ipv4_hdr, next_proto_id)];

					lf_meta_plain_ipv4(&b->meta[k], proto,
							   lf_l4_min_len[proto]);
					lf_flow_key_plain_ipv4_at(d, proto, b->rx_port,
								  &b->flow_keys[k]);
					if (flow_pf)
						hash[k] = lf_flow_hash_prefetch(b->flows,
										&b->flow_keys[k]);
				}
			}
		}
	}
#endif
	*n8 = i;
	for (k = i; k < i + dist && k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
	for (; i < n; i++) {
		unsigned int proto, need, r;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		r = lf_parse_ipv4_plain(pkts[i], &proto, &need, &b->ip4[i]);
		if (unlikely(r == 0))
			return false;
		sw += r - 1;
		b->data[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		if (l2.mask != 0 && unlikely(!lf_l2_ours(b->data[i], l2)))
			return false;
		if (flow) {
			lf_meta_plain_ipv4(&b->meta[i], proto, need);
			lf_flow_key_plain_ipv4_at(b->data[i], proto, b->rx_port, &b->flow_keys[i]);
			/* Hash now and start the bucket load: it overlaps the next keys. */
			if (flow_pf)
				hash[i] = lf_flow_hash_prefetch(b->flows, &b->flow_keys[i]);
		}
	}
	LF_STAT_ADD(b->stats->ipv4_cksum_sw, sw);
	RTE_SET_USED(hash);
	return true;
}

#endif /* LF_FUSED_H */
