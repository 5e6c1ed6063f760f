/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stage order (pipeline.h). A packet kind is a function here that runs
 * its stages in order on a vector of packets of that kind; parse sorts the
 * packets into kinds, and a stage may hand a packet on to a later kind
 * (lf_burst_divert). Adding a kind means a stage file of its own, an entry
 * in LF_KINDS (dp.h) and its function in kinds[] below: no existing stage
 * changes.
 */
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "acl_stage.h"
#include "fib_stage.h"
#include "flow_stage.h"
#include "icmp_stage.h"
#include "local_stage.h"
#include "neigh_stage.h"
#include "parse.h"
#include "pipeline.h"
#include "rewrite.h"
#include "tx.h"
#include "unhandled.h"
#include "upf_stage.h"

/* Hand what a stage left for TX to TX: all to b->out, or by meta[].out. */
static inline void
pipeline_tx(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	if (n == 0)
		return;
	if (b->out != LF_OUT_MIXED)
		tx_burst_port(tx, b->out, b->rx_tsc, pkts, n);
	else
		tx_burst(tx, b->meta, b->rx_tsc, pkts, n);
}

/*
 * LF_KIND_IP: acl -> fib -> rewrite -> tx, and with a flow cache the
 * verdicts cached for the flows that missed it. The drops the tables decide
 * are cached before the forwards, as they happened.
 */
static void
kind_ip(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	/* The ACL stage passes the burst untouched when there is no ACL. */
	if (likely(n != 0))
		n = acl_stage_burst(b, pkts, n);
	if (likely(n != 0))
		n = fib_stage_burst(b, pkts, n);
	if (likely(n != 0))
		n = rewrite_burst(b, pkts, n);
	if (b->flows != NULL) {
		flow_stage_learn_decided(b);
		if (n != 0)
			flow_stage_learn(b, pkts, n);
	}
	b->out = LF_OUT_MIXED;
	pipeline_tx(b, tx, pkts, n);
}

/*
 * The kinds whose own stage passes on IP packets to route: the UPF's
 * (decapsulated, encapsulated, or a GTP-U reply), ICMP errors and echo
 * replies. Packets lanefwd built keep their TTL (rewrite_flagged_burst).
 */
static __rte_always_inline void
kind_then_route(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n,
		const lf_stage_fn stage)
{
	n = stage(b, pkts, n);
	if (likely(n != 0))
		n = fib_stage_burst(b, pkts, n);
	if (likely(n != 0))
		n = rewrite_flagged_burst(b, pkts, n);
	b->out = LF_OUT_MIXED;
	pipeline_tx(b, tx, pkts, n);
}

static void
kind_upf_ul(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	kind_then_route(b, tx, pkts, n, upf_ul_burst);
}

static void
kind_upf_dl(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	kind_then_route(b, tx, pkts, n, upf_dl_burst);
}

/* LF_KIND_ICMP: the errors, routed back to their packets' sources. */
static void
kind_icmp(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	kind_then_route(b, tx, pkts, n, icmp_burst);
}

/* LF_KIND_LOCAL: echo replies routed back; the rest to neigh, punt or dropped. */
static void
kind_local(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	kind_then_route(b, tx, pkts, n, local_burst);
}

/* LF_KIND_NEIGH: all to the control thread. */
static void
kind_neigh(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(tx);
	neigh_burst(b, pkts, n);
}

/* LF_KIND_PUNT: out of meta.out (the kernel's mirror) as they came in. */
static void
kind_punt(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	b->out = LF_OUT_MIXED;
	pipeline_tx(b, tx, pkts, n);
}

/* LF_KIND_OTHER: nothing handles it yet. */
static void
kind_other(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(tx);
	unhandled_burst(b, pkts, n);
}

typedef void (*kind_fn)(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n);

static const kind_fn kinds[LF_KIND_COUNT] = {
	[LF_KIND_IP] = kind_ip,     [LF_KIND_UPF_UL] = kind_upf_ul, [LF_KIND_UPF_DL] = kind_upf_dl,
	[LF_KIND_ICMP] = kind_icmp, [LF_KIND_LOCAL] = kind_local,   [LF_KIND_NEIGH] = kind_neigh,
	[LF_KIND_PUNT] = kind_punt, [LF_KIND_OTHER] = kind_other,
};

/* The packets diverted to kinds after the first, each kind in order. */
static inline void
pipeline_diverted(struct lf_burst *b, struct lf_tx *tx)
{
	unsigned int k;

	for (k = LF_KIND_IP + 1; k < LF_KIND_COUNT; k++) {
		const uint16_t n = b->n_div[k];

		if (likely(n == 0))
			continue;
		/* A stage only diverts to a later kind: kind k's vector is
		 * complete once the kinds before it have run. */
		b->n_div[k] = 0;
		memcpy(b->meta, b->div_meta[k], n * sizeof(b->meta[0]));
		kinds[k](b, tx, b->div[k], n);
	}
}

void
pipeline_run_staged(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	n = parse_burst(b, pkts, n);
	/* Flow-cache hits skip rewrite's MTU check (lf_local.mtu_check). */
	if (b->flows != NULL && likely(n != 0) && !lf_burst_mtu_check(b)) {
		const uint16_t first = flow_stage_burst(b, pkts, n);

		pipeline_tx(b, tx, pkts, flow_stage_hits(b, pkts, first, false));
		n = flow_stage_misses(b, pkts, first, n);
	}
	kind_ip(b, tx, pkts, n);
	pipeline_diverted(b, tx);
	lf_burst_drops_flush(b);
}

/*
 * Can the fused stages take a burst at all? They do not check the egress
 * MTU (lf_local.mtu_check), and never bypass an IPv4 ACL without a flow
 * cache in front of it. They take only IPv4 bursts, so an IPv6 ACL alone
 * cannot be bypassed.
 */
static inline bool
pipeline_fused_applies(const struct lf_burst *b)
{
	return likely(!lf_burst_mtu_check(b)) && (b->flows != NULL || b->view.acl == NULL);
}

bool
pipeline_run_fused(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k;

	if (unlikely(!pipeline_fused_applies(b)))
		return false;
	if (b->flows == NULL) {
		k = b->fused_ip4(b, pkts, n);
		if (k == LF_REFUSED)
			return false;
		pipeline_tx(b, tx, pkts, k);
		/* The fused stage hands packets the FIB gave to another kind on. */
		pipeline_diverted(b, tx);
	} else {
		const uint16_t first = b->fused_flow(b, pkts, n);

		if (first == LF_REFUSED)
			return false;
		pipeline_tx(b, tx, pkts, flow_stage_hits(b, pkts, first, true));
		/* From the first miss on: the slow path, in order. */
		if (first != n) {
			kind_ip(b, tx, pkts, flow_stage_misses(b, pkts, first, n));
			pipeline_diverted(b, tx);
		}
	}
	lf_burst_drops_flush(b);
	return true;
}

/*
 * The fewest IPv4 packets worth a fused run of their own: below one
 * eight-packet group, a mostly IPv6 burst runs faster staged whole
 * (bench.py --ipv6-share 0.9: +2 cycles/packet split at any count).
 */
#define LF_SPLIT_MIN 8

/* Is it an untagged IPv4 frame, the only kind the fused stages take? */
static inline bool
pipeline_ipv4_frame(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	return rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN &&
		eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
}

/*
 * Move the frames that are not untagged IPv4 (IPv6, ARP, a VLAN tag, a
 * runt) behind the others, keeping the order on each side. Returns how
 * many untagged IPv4 frames now lead.
 */
static inline uint16_t
pipeline_ipv4_first(struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *other[LF_BURST_MAX];
	uint16_t i, k = 0, o = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (likely(pipeline_ipv4_frame(m)))
			pkts[k++] = m;
		else
			other[o++] = m;
	}
	memcpy(&pkts[k], other, o * sizeof(other[0]));
	return k;
}

void
pipeline_run(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k;

	if (likely(pipeline_run_fused(b, tx, pkts, n)))
		return;
	/*
	 * A dual-stack mix or one ARP request among plain IPv4 packets no
	 * longer sends the whole burst down the staged path: the untagged
	 * IPv4 frames try the fused one without the others, which run staged
	 * (docs/benchmarks.md, the IPv6 mix; docs/punt-flood.md, the ARP
	 * flood). All of a flow's packets are on one side (one family, one
	 * VLAN), so no flow is reordered; IPv4 and IPv6 packets to one port
	 * may leave in another order than they came, as packets of different
	 * kinds do. A burst refused for one of its IPv4 packets (options, TTL
	 * 1, a group MAC) runs staged whole, as before.
	 */
	if (pipeline_fused_applies(b)) {
		k = pipeline_ipv4_first(pkts, n);
		if (k >= LF_SPLIT_MIN && k != n && pipeline_run_fused(b, tx, pkts, k)) {
			LF_STAT_ADD(b->stats->split_bursts, 1);
			pipeline_run_staged(b, tx, pkts + k, n - k);
			return;
		}
	}
	LF_STAT_ADD(b->stats->staged_bursts, 1);
	pipeline_run_staged(b, tx, pkts, n);
}
