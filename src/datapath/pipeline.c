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
#include "fastpath.h"
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
	uint64_t w[LF_DIV_WORDS], any = 0;
	unsigned int k;

	/* Most bursts divert nothing: one test of every count at once
	 * instead of a test per kind. */
	memcpy(w, b->n_div, sizeof(w));
	for (k = 0; k < RTE_DIM(w); k++)
		any |= w[k];
	if (likely(any == 0))
		return;
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
 * cache in front of it. The IPv6 one also checks for an IPv6 ACL
 * (pipeline_run_fused6).
 */
static inline bool
pipeline_fused_applies(const struct lf_burst *b)
{
	return likely(!lf_burst_mtu_check(b)) && (b->flows != NULL || b->view.acl == NULL);
}

static void pipeline_run_aside(struct lf_burst *b, struct lf_tx *tx);

/* pipeline_run_fused's body, inlined into pipeline_run's first call: the
 * plain path pays one call layer, not two. */
static __rte_always_inline bool
run_fused(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
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
		/* And those it set aside as not IPv4 go after them. */
		if (unlikely((b->n_aside6 | b->n_aside) != 0))
			pipeline_run_aside(b, tx);
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

bool
pipeline_run_fused(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	return run_fused(b, tx, pkts, n);
}

/*
 * Sort a burst by frame: untagged IPv4 first, then untagged IPv6, then
 * the rest (ARP, VLAN-tagged frames, runts), keeping the order within
 * each. *n4 and *n6 are the counts of the first two.
 */
static inline void
pipeline_sort_families(struct rte_mbuf **pkts, uint16_t n, uint16_t *n4, uint16_t *n6)
{
	struct rte_mbuf *v6[LF_BURST_MAX], *other[LF_BURST_MAX];
	uint16_t i, k = 0, k6 = 0, o = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
			other[o++] = m;
		else if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
			pkts[k++] = m;
		else if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
			v6[k6++] = m;
		else
			other[o++] = m;
	}
	memcpy(&pkts[k], v6, k6 * sizeof(v6[0]));
	memcpy(&pkts[k + k6], other, o * sizeof(other[0]));
	*n4 = k;
	*n6 = k6;
}

/*
 * The fused IPv6 stage on a burst of the IPv6 frames pipeline_run sorted
 * out; false, having changed nothing, if it does not take it.
 */
static bool
pipeline_run_fused6(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k;

	/* Never bypass an IPv6 ACL, nor a flow cache (it may front one). */
	if (b->flows != NULL || b->view.acl6 != NULL)
		return false;
	k = fastpath6_burst(b, pkts, n);
	if (k == LF_REFUSED)
		return false;
	pipeline_tx(b, tx, pkts, k);
	pipeline_diverted(b, tx);
	lf_burst_drops_flush(b);
	return true;
}

/*
 * The frames the fused IPv4 check set aside (fused.h: IPv6, and ARP,
 * tagged frames, runts among IPv4 ones): the IPv6 ones through their
 * fused stage if it takes them, the rest staged, as pipeline_run does
 * with a burst it sorts by family. They are run from the arrays they are
 * in: no stage they go to sets frames aside.
 */
static __rte_noinline void
pipeline_run_aside(struct lf_burst *b, struct lf_tx *tx)
{
	const uint16_t n6 = b->n_aside6, no = b->n_aside;

	b->n_aside6 = 0;
	b->n_aside = 0;
	LF_STAT_ADD(b->stats->split_bursts, 1);
	if (n6 != 0 && !pipeline_run_fused6(b, tx, b->aside6, n6))
		pipeline_run_staged(b, tx, b->aside6, n6);
	if (no != 0)
		pipeline_run_staged(b, tx, b->aside, no);
}

void
pipeline_run(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t n4, n6;
	bool took4, took6;

	if (likely(run_fused(b, tx, pkts, n)))
		return;
	/*
	 * A dual-stack burst, or one with an ARP request among plain IPv4
	 * packets, does not go down the staged path whole: sorted by family,
	 * its IPv4 and its IPv6 frames each try their fused stage, and only
	 * what neither takes runs staged (docs/benchmarks-dualstack.md;
	 * docs/punt-flood.md, the ARP flood). All of a flow's packets are on
	 * one side (one family, one VLAN), so no flow is reordered; a burst's
	 * IPv4 and IPv6 packets to one port may leave in another order than
	 * they came, as packets of different kinds do. An all-IPv4 burst
	 * refused for one of its packets (options, TTL 1, a group MAC) runs
	 * staged whole, as before.
	 */
	if (!pipeline_fused_applies(b)) {
		LF_STAT_ADD(b->stats->staged_bursts, 1);
		pipeline_run_staged(b, tx, pkts, n);
		return;
	}
	pipeline_sort_families(pkts, n, &n4, &n6);
	/* Even a few packets of a family run faster fused than staged
	 * (docs/benchmarks-dualstack/ab.txt: no floor beats a floor of 8). */
	took4 = n4 != 0 && n4 != n && pipeline_run_fused(b, tx, pkts, n4);
	took6 = n6 != 0 && pipeline_run_fused6(b, tx, pkts + n4, n6);
	if (!took4 && !took6) {
		LF_STAT_ADD(b->stats->staged_bursts, 1);
		pipeline_run_staged(b, tx, pkts, n);
		return;
	}
	LF_STAT_ADD(b->stats->split_bursts, 1);
	/* What is left, in at most two runs: [IPv4][IPv6][others]. */
	if (!took6) {
		if (n != n4)
			pipeline_run_staged(b, tx, pkts + n4, n - n4);
		return;
	}
	if (!took4 && n4 != 0)
		pipeline_run_staged(b, tx, pkts, n4);
	if (n != n4 + n6)
		pipeline_run_staged(b, tx, pkts + n4 + n6, n - n4 - n6);
}
