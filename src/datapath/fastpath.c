/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whole-burst fast path for bursts of plain IPv4 packets. It keeps no
 * per-packet meta beyond the data address, and the output port for a burst
 * to several ports: l3_off is 14 and the family is IPv4 for every packet it
 * takes. The check runs eight packets at a time with AVX-512
 * (parse_fast_x8.h) where the build has it. On the pcap->null benchmark
 * harness it took lanefwd from 73.7 to 68.8 cycles/packet (scripts/bench.sh
 * medians, before and after); the eight-packet check, the one-add TTL
 * update and the copy-free TX of a whole one-port burst took that to about
 * 56 (bench.py --quick), and the spill-free pass 2, one TSC read per loop
 * iteration and straight group prefetches to about 52.6, and a pass 2
 * that compacts only from its first drop on to about 52 (docs/benchmarks.md).
 * Taking each packet's new TTL/checksum word from the eight-packet check,
 * rather than updating it in place in pass 2, saved 0.26 more (median of 24
 * pairs, 18 faster, with the residence record inlined in worker_main).
 */
#include <rte_fib.h>
#include <rte_prefetch.h>

#include "fastpath.h"
#include "fib.h"
#include "flow_stage.h"
#include "parse.h"
#include "parse_fast.h"
#include "parse_fast_x8.h"
#include "rewrite.h"
#include "tx.h"

#if LF_PARSE_X8
/*
 * Prefetch the data of pkts[from..from+8) that exist (below n): a whole
 * group as eight straight prefetches, the tail of a burst one by one.
 */
static inline void
lf_prefetch_group(struct rte_mbuf **pkts, uint16_t from, uint16_t n)
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

bool
fastpath_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t dist = w->data_prefetch;
	const struct lf_nh *table;
	uint64_t nh_count;
	unsigned int out_or = 0, out_and = UINT16_MAX;
	uint64_t sw = 0;
	uint16_t i, k, n8 = 0;

	/*
	 * The fused path has no ACL or flow stage: never bypass an IPv4 ACL or
	 * a flow table. It takes only bursts of IPv4 packets, so an IPv6 ACL
	 * alone cannot be bypassed.
	 */
	if (w->acl != NULL || w->flows != NULL)
		return false;
	RTE_BUILD_BUG_ON(LF_MAX_NEXTHOPS > LF_NH_NONE); /* nh_count <= LF_NH_NONE */
	/*
	 * Pass 1: check every packet (reads only) and collect the keys, eight
	 * at a time where the CPU has AVX-512, then one at a time. The groups
	 * prefetch a group ahead at least: packet i + max(dist, 8) while
	 * packet i is checked.
	 */
	i = 0;
#if LF_PARSE_X8
	if (n >= 8) {
		const uint16_t ahead = dist == 0 ? 0 : RTE_MAX(dist, (uint16_t)8);

		for (k = 0; k < ahead && k < n; k++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
		for (; i + 8 <= n; i += 8) {
			__mmask8 swm;

			lf_prefetch_group(pkts, i + ahead, ahead != 0 ? n : 0);
			if (unlikely(lf_parse_ipv4_plain_x8(&pkts[i], &w->ip4[i], &w->data[i], &swm,
							    &w->ttlw[i]) != 0xff))
				return false;
			sw += __builtin_popcount(swm);
		}
	}
	n8 = i;
#endif
	for (k = i; k < i + dist && k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
	for (; i < n; i++) {
		unsigned int proto, need, r;

		if (dist != 0 && i + dist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + dist], void *));
		r = lf_parse_ipv4_plain(pkts[i], &proto, &need, &w->ip4[i]);
		if (unlikely(r == 0))
			return false;
		sw += r - 1;
		w->data[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
	}
	LF_STAT_ADD(w->stats.ipv4_cksum_sw, sw);

	rte_fib_lookup_bulk(w->fib->v4, w->ip4, w->nh4, n);

	/*
	 * Pass 2: rewrite and keep what has a route and a next hop. The table
	 * is read after the lookup call, so that it lives in a register and not
	 * in a spill slot across it. No meta[].out is stored here: when all go
	 * to one port (out_or == out_and, the port), TX takes them as they are.
	 * Up to the first drop every packet stays where it is; only from there
	 * on do the kept ones move down over the dropped (compacting every
	 * burst measured 0.5-0.7 cycles/packet slower: bench harness, A/B).
	 */
	table = w->nh_table;
	nh_count = w->nh_count;
	/* The packets the groups checked: their TTL/checksum word is ready. */
	for (i = 0; i < n8; i++) {
		const uint64_t nh = w->nh4[i];
		unsigned int out;

		if (unlikely(nh >= nh_count || (out = table[nh].out) == LF_NH_INVALID))
			break;
		memcpy(w->data[i] + RTE_ETHER_HDR_LEN + 8, &w->ttlw[i], sizeof(uint32_t));
		memcpy(w->data[i], &table[nh].dst, 2 * RTE_ETHER_ADDR_LEN);
		out_or |= out;
		out_and &= out;
	}
	if (i < n8)
		goto compact;
	for (; i < n; i++) {
		const uint64_t nh = w->nh4[i];
		unsigned int out;

		/* No route (LF_NH_NONE) is past the table too: one compare. */
		if (unlikely(nh >= nh_count || (out = table[nh].out) == LF_NH_INVALID))
			break;
		lf_rewrite_ipv4_plain_at(w->data[i], &table[nh].dst);
		out_or |= out;
		out_and &= out;
	}
	/* From the first drop on, the packets kept move down over the dropped. */
compact:
	for (k = i; i < n; i++) {
		const uint64_t nh = w->nh4[i];
		unsigned int out;

		if (nh >= nh_count || (out = table[nh].out) == LF_NH_INVALID) {
			lf_drop(w, pkts[i],
				nh == LF_NH_NONE ? LF_DROP_NO_ROUTE : LF_DROP_NO_NEXTHOP);
			continue;
		}
		lf_rewrite_ipv4_plain_at(w->data[i], &table[nh].dst);
		out_or |= out;
		out_and &= out;
		pkts[k++] = pkts[i]; /* k < i: pkts[i] is still the packet */
	}
	if (k == 0)
		return true;
	if (out_or == out_and) {
		tx_burst_port(w, out_or, pkts, k);
		return true;
	}
	/* Several ports: meta[].out of the kept packets, skipping the drops as above. */
	for (i = 0, k = 0; i < n; i++) {
		const uint64_t nh = w->nh4[i];

		if (nh < nh_count && table[nh].out != LF_NH_INVALID)
			w->meta[k++].out = table[nh].out;
	}
	tx_burst(w, pkts, k);
	return true;
}

bool
fastpath_flow_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t dist = w->prefetch; /* flow table */
	const uint16_t ddist = w->data_prefetch; /* packet data */
	const uint32_t gen = w->gen;
	uint64_t hash[LF_BURST_MAX];
	uint64_t n_sw = 0;
	uint16_t out = 0, out_or = 0, out_and = UINT16_MAX;
	uint16_t i, k, first;

	/*
	 * Pass 1: check every packet (reads only) and build its flow key,
	 * eight at a time where the CPU has AVX-512 (the check as
	 * fastpath_burst runs it), then one at a time.
	 */
	i = 0;
#if LF_PARSE_X8
	if (n >= 8) {
		const uint16_t ahead = ddist == 0 ? 0 : RTE_MAX(ddist, (uint16_t)8);

		for (k = 0; k < ahead && k < n; k++)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
		for (; i + 8 <= n; i += 8) {
			__mmask8 swm;
			uint16_t j;

			lf_prefetch_group(pkts, i + ahead, ahead != 0 ? n : 0);
			if (unlikely(lf_parse_ipv4_plain_x8(&pkts[i], &w->ip4[i], &w->data[i], &swm,
							    NULL) != 0xff))
				return false;
			n_sw += __builtin_popcount(swm);
			for (j = i; j < i + 8; j++) {
				const uint8_t *d = w->data[j];
				const unsigned int proto =
					d[RTE_ETHER_HDR_LEN +
					  offsetof(struct rte_ipv4_hdr, next_proto_id)];

				lf_meta_plain_ipv4(&w->meta[j], proto, lf_l4_min_len[proto]);
				lf_flow_key_plain_ipv4_at(d, proto, w->rx_port, &w->flow_keys[j]);
				if (dist != 0)
					hash[j] = lf_flow_hash_prefetch(w->flows, &w->flow_keys[j]);
			}
		}
	}
#endif
	for (k = i; k < i + ddist && k < n; k++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[k], void *));
	for (; i < n; i++) {
		unsigned int proto, need, r;
		uint32_t dst;

		if (ddist != 0 && i + ddist < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + ddist], void *));
		r = lf_parse_ipv4_plain(pkts[i], &proto, &need, &dst);
		if (unlikely(r == 0))
			return false;
		n_sw += r - 1;
		w->data[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		/* What parse_burst would give it, kept for the slow tail. */
		lf_meta_plain_ipv4(&w->meta[i], proto, need);
		lf_flow_key_plain_ipv4(pkts[i], proto, w->rx_port, &w->flow_keys[i]);
		/* Hash now and start the bucket load: it overlaps the next keys. */
		if (dist != 0)
			hash[i] = lf_flow_hash_prefetch(w->flows, &w->flow_keys[i]);
	}
	if (dist != 0)
		lf_flow_lookup_burst_hashed(w->flows, w->flow_keys, hash, n, dist, w->rx_tsc,
					    w->flow_hit);
	else
		lf_flow_lookup_burst(w->flows, w->flow_keys, n, 0, w->rx_tsc, w->flow_hit);

	/* Pass 2: the packets up to the first miss take their cached verdict. */
	for (first = 0; first < n; first++) {
		const struct lf_flow_hot *e = w->flow_hit[first];

		if (e == NULL || !lf_flow_verdict_valid(e, gen))
			break;
	}
	for (i = 0, k = 0; i < first; i++) {
		struct lf_flow_hot *e = w->flow_hit[i];
		struct rte_mbuf *m = pkts[i];

		lf_flow_count(e, m->pkt_len);
		if (unlikely(e->action != LF_FLOW_FORWARD)) {
			lf_drop(w, m, (enum lf_drop)e->action);
			continue;
		}
		out = e->out_port;
		lf_rewrite_ipv4_plain_at(w->data[i], &e->dst_mac);
		w->meta[k].out = out;
		out_or |= out;
		out_and &= out;
		pkts[k++] = m;
	}
	LF_STAT_ADD(w->stats.ipv4_cksum_sw, n_sw);
	/* All to one port (out_or == out_and): TX takes them as they are. */
	if (out_or == out_and && k != 0)
		tx_burst_port(w, out, pkts, k);
	else if (k != 0)
		tx_burst(w, pkts, k);
	if (first == n)
		return true;

	/*
	 * From the first miss on: the slow path, in order, with the meta and
	 * the key pass 1 made for each packet (meta[i] for i >= first is
	 * untouched by the hits, which only fill meta[0..first)).
	 */
	for (i = first, k = 0; i < n; i++, k++) {
		pkts[k] = pkts[i];
		w->meta[k] = w->meta[i];
		w->meta[k].fkey = i;
	}
	worker_slow_tail(w, pkts, k);
	return true;
}
