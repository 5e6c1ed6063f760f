/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Flow stage: the worker's flow table (flow.h) as a cache of the ACL and
 * FIB decisions, between parse and the ACL.
 *
 *   parse -> flow -+- hit:  cached verdict; forward: rewrite from the entry
 *                  |        (next-hop MACs and output port are in it), TX
 *                  +- miss: acl -> fib -> rewrite, then the verdict is
 *                           written into the flow's entry (flow_learn_burst,
 *                           lf_drop_decided) for the packets that follow
 *
 * A cached verdict carries the table generation it was made under; after a
 * reload (reload.h) every older verdict is a miss and is made again. The
 * verdicts cached are the ones the tables decide: forward (with output port
 * and MACs), acl_deny, no_route, no_nexthop. Per-packet checks (length,
 * checksum, TTL) run in parse, before the lookup, for every packet.
 *
 * The packets of a burst up to its first miss take their cached verdicts;
 * from the first miss on, the rest of the burst takes the slow path, so the
 * output keeps the input order. They are rewritten and handed to TX before
 * any miss is inserted, so an insert that moves or evicts an entry never
 * changes a verdict in use.
 */
#ifndef LF_FLOW_STAGE_H
#define LF_FLOW_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "config.h"
#include "flow.h"
#include "worker.h"

/** lf_flow_hot.action of a flow that is forwarded; drops store their reason. */
#define LF_FLOW_FORWARD 0xff

/** Create the flow table of worker w from [flow] (on the worker's socket). */
int flow_stage_init(struct worker *w, const struct lf_flow_conf *conf, char *err, size_t errlen);

/** Free it (NULL table allowed). */
void flow_stage_free(struct worker *w);

/**
 * Look up the burst. The hits before the first miss are counted, forwarded
 * or dropped by their cached verdict; the packets from the first miss on are
 * moved to the front of pkts (and w->meta, with meta->fkey set) and their
 * number returned, for the rest of the pipeline.
 */
uint16_t flow_stage_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/** Cache "forward" for the packets the slow path is about to send. */
void flow_learn_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/** Cache drop verdict reason for the flow of meta (slow path only). */
void flow_learn_drop(struct worker *w, const struct rte_mbuf *m, const struct lf_meta *meta,
		     enum lf_drop reason);

/**
 * Drop a packet for a reason the tables decided (ACL, FIB, next hop): with
 * a flow table the reason is cached for its flow as well.
 */
static inline void
lf_drop_decided(struct worker *w, struct rte_mbuf *m, const struct lf_meta *meta,
		enum lf_drop reason)
{
	if (w->flows != NULL)
		flow_learn_drop(w, m, meta, reason);
	lf_drop(w, m, reason);
}

/**
 * Entries examined per aging slice, one slice every LF_FLOW_EXPIRE_US: a
 * worker sweeps 2.56M entries per second, a 16M-flow table in about 7 s.
 */
#define LF_FLOW_EXPIRE_BUDGET 256
#define LF_FLOW_EXPIRE_US 100

/** Housekeeping between bursts: age out idle flows a little at a time. */
void flow_stage_expire(struct worker *w, uint64_t now, unsigned int budget);

#endif /* LF_FLOW_STAGE_H */
