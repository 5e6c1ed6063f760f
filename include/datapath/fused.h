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

/*
 * What the check reads of the burst context once, before it writes any of
 * its arrays (after which the compiler would have to load them again).
 */
struct lf_fused_args {
	uint16_t dist; /**< b->prefetch_distance. */
	bool flow_pf; /**< b->flow_prefetch_distance != 0. */
	/** The port's link-layer check (none without b->local): a frame it
	 * would not take, or a group frame, goes to the staged parse. */
	struct lf_l2_want l2;
};

static __rte_always_inline struct lf_fused_args
lf_fused_args(const struct lf_burst *b)
{
	return (struct lf_fused_args){ .dist = b->prefetch_distance,
				       .flow_pf = b->flow_prefetch_distance != 0,
				       .l2 = lf_l2_want(b) };
}

#if LF_FUSED_X8
/*
 * The eight-packet check of the groups of pkts[i..n), collecting what
 * lf_fused_check() says; *sw counts the software checksum checks. Returns
 * where it stopped: the first packet past the last whole group, or the
 * first of a group it does not take (then fewer than n - 8); -1 when a
 * frame of a group is IPv4 but not the port's (lf_l2_ours).
 */
static __rte_always_inline int
lf_fused_check_groups(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t i, uint16_t n,
		      uint64_t *sw, uint64_t *hash, const struct lf_fused_args *a, const bool flow)
{
	const bool flow_pf = flow && a->flow_pf;
	const struct lf_l2_want l2 = a->l2;
	const uint16_t ahead = a->dist == 0 ? 0 : RTE_MAX(a->dist, (uint16_t)8);
	uint16_t k;

	for (; i + 8 <= n; i += 8) {
		__mmask8 swm;

		lf_fused_prefetch_group(pkts, i + ahead, ahead != 0 ? n : 0);
		if (unlikely(lf_parse_ipv4_plain_x8(&pkts[i], &b->ip4[i], &b->data[i], &swm,
						    flow ? NULL : &b->ttlw[i]) != 0xff))
			return i;
		if (l2.mask != 0 && unlikely(lf_l2_ours_x8(&b->data[i], l2) != 0xff))
			return -1;
		*sw += __builtin_popcount(swm);
		if (flow) {
			for (k = i; k < i + 8; k++) {
				const uint8_t *d = b->data[k];
				const unsigned int proto =
					d[RTE_ETHER_HDR_LEN +
					  offsetof(struct rte_ipv4_hdr, next_proto_id)];

				lf_meta_plain_ipv4(&b->meta[k], proto, lf_l4_min_len[proto]);
				lf_flow_key_plain_ipv4_at(d, proto, b->rx_port, &b->flow_keys[k]);
				if (flow_pf)
					hash[k] = lf_flow_hash_prefetch(b->flows, &b->flow_keys[k]);
			}
		}
	}
	return i;
}
#endif

/**
 * The one-packet check of pkts[i..n) (the tail after the groups of eight,
 * or all of a burst without them), collecting what lf_fused_check() says;
 * *sw counts the software checksum checks. Returns the index of the first
 * packet it does not take, or n.
 */
static __rte_always_inline uint16_t
lf_fused_check_tail(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t i, uint16_t n,
		    uint64_t *sw, uint64_t *hash, const struct lf_fused_args *a, const bool flow)
{
	const uint16_t dist = a->dist;
	const bool flow_pf = flow && a->flow_pf;
	const struct lf_l2_want l2 = a->l2;
	uint16_t k;

	for (k = i; k < i + dist && k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
	for (; i < n; i++) {
		unsigned int proto, need, r;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		r = lf_parse_ipv4_plain(pkts[i], &proto, &need, &b->ip4[i]);
		if (unlikely(r == 0))
			return i;
		*sw += r - 1;
		b->data[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		if (l2.mask != 0 && unlikely(!lf_l2_ours(b->data[i], l2)))
			return i;
		if (flow) {
			lf_meta_plain_ipv4(&b->meta[i], proto, need);
			lf_flow_key_plain_ipv4_at(b->data[i], proto, b->rx_port, &b->flow_keys[i]);
			/* Hash now and start the bucket load: it overlaps the next keys. */
			if (flow_pf)
				hash[i] = lf_flow_hash_prefetch(b->flows, &b->flow_keys[i]);
		}
	}
	RTE_SET_USED(hash);
	return n;
}

/* The EtherType of m, or 0 for a frame shorter than an Ethernet header. */
static inline uint16_t
lf_fused_ether_type(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN ? eh->ether_type : 0;
}

/*
 * The check failed at pkts[i] (the packets before it taken, the first *n8
 * by groups, sw software checksums among them): the frames of pkts[i..n)
 * that are not IPv4 at all (an ARP request among IPv4 traffic:
 * docs/punt-flood.md; IPv6 to b->aside6, tagged frames, runts and the
 * rest to b->aside), the
 * IPv4 ones move down over them in order and are checked as the rest of
 * the burst would have been. Returns their count, or -1 with the burst
 * refused: when none was set aside (an IPv4 frame failed), when an IPv4
 * frame after them fails (the set-aside frames are put back after the IPv4
 * ones), and when the burst's first frame is not IPv4 (a burst of another
 * family, which pipeline_run sorts without this pass). Out of line: a
 * plain IPv4 burst never comes here.
 */
static __rte_noinline int
lf_fused_check_aside(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t i, uint16_t n,
		     uint16_t *n8, uint64_t sw)
{
	const struct lf_fused_args a = lf_fused_args(b);
	uint16_t j, k = i;
	int r;

	if (lf_fused_ether_type(pkts[0]) != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	/* By family already, so that the IPv6 ones go to their fused stage
	 * as they are (pipeline.c) and a dual-stack burst is sorted once. */
	for (j = i; j < n; j++) {
		struct rte_mbuf *m = pkts[j];
		const uint16_t et = lf_fused_ether_type(m);

		if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
			pkts[k++] = m;
		else if (et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
			b->aside6[b->n_aside6++] = m;
		else
			b->aside[b->n_aside++] = m;
	}
	if (k == n)
		return -1;
#if LF_FUSED_X8
	/* Groups only where the check was at groups (i is *n8). */
	if (i == *n8) {
		r = lf_fused_check_groups(b, pkts, i, k, &sw, NULL, &a, false);
		if (r < 0 || r + 8 <= k)
			goto refuse;
		i = (uint16_t)r;
		*n8 = i;
	}
#endif
	if (lf_fused_check_tail(b, pkts, i, k, &sw, NULL, &a, false) != k)
		goto refuse;
	LF_STAT_ADD(b->stats->ipv4_cksum_sw, sw);
	return k;
refuse:
	memcpy(&pkts[k], b->aside6, b->n_aside6 * sizeof(b->aside6[0]));
	memcpy(&pkts[k + b->n_aside6], b->aside, b->n_aside * sizeof(b->aside[0]));
	b->n_aside6 = 0;
	b->n_aside = 0;
	RTE_SET_USED(r);
	RTE_SET_USED(n8);
	return -1;
}

/**
 * Check the burst and collect, for every packet: b->ip4[i] (destination,
 * host order) and b->data[i] (its mtod); without flow, b->ttlw[i] for the
 * packets the eight-packet groups checked (the first *n8); with flow,
 * b->meta[i] (what parse would give it), its flow key b->flow_keys[i] and,
 * when b->flow_prefetch_distance != 0, hash[i] with its bucket prefetched.
 * Packet data is prefetched b->prefetch_distance ahead; the groups prefetch
 * a group ahead at least.
 *
 * Without flow, frames that are not IPv4 at all do not refuse a burst of
 * IPv4 ones (lf_fused_check_aside): they go to b->aside6 and b->aside
 * for the caller to run after the burst, and the count returned is of the
 * IPv4 frames left in pkts[].
 * @return the count of packets to forward (n but for those set aside), or
 *         -1, having written nothing to any packet, with pkts[] holding
 *         the same packets (set-aside frames moved after the others), if
 *         an IPv4 frame is not plain IPv4 (parse_fast.h) or, with b->local,
 *         not a unicast frame the port takes (lf_l2_ours); with flow, if
 *         any frame is not.
 */
static __rte_always_inline int
lf_fused_check(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n, uint16_t *n8, uint64_t *hash,
	       const bool flow)
{
	const struct lf_fused_args a = lf_fused_args(b);
	uint64_t sw = 0;
	uint16_t i = 0, k;

#if LF_FUSED_X8
	if (n >= 8) {
		const uint16_t ahead = a.dist == 0 ? 0 : RTE_MAX(a.dist, (uint16_t)8);
		int r;

		for (k = 0; k < ahead && k < n; k++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
		r = lf_fused_check_groups(b, pkts, 0, n, &sw, hash, &a, flow);
		if (unlikely(r < 0))
			return -1;
		i = (uint16_t)r;
		if (unlikely(i + 8 <= n)) {
			*n8 = i;
			goto failed;
		}
	}
#endif
	*n8 = i;
	k = lf_fused_check_tail(b, pkts, i, n, &sw, hash, &a, flow);
	if (unlikely(k != n)) {
		i = k;
		goto failed;
	}
	LF_STAT_ADD(b->stats->ipv4_cksum_sw, sw);
	return n;
failed:
	return flow ? -1 : lf_fused_check_aside(b, pkts, i, n, n8, sw);
}

#endif /* LF_FUSED_H */
