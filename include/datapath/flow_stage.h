/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Flow stage: the worker's flow table (flow.h) as a cache of the verdicts
 * of the ACL and FIB, in front of them.
 *
 *   parse -> flow -+- hit:  cached verdict; forward: rewrite from the entry
 *                  |        (next-hop MACs and output port are in it), TX
 *                  +- miss: acl -> fib -> rewrite, then the verdict is
 *                           cached for the flow (flow_stage_learn,
 *                           flow_stage_learn_decided) for the packets that
 *                           follow
 *
 * The pipeline (pipeline.c) runs these steps in that order; none of them
 * calls another stage. A burst of plain IPv4 packets has its lookup fused
 * with their check instead (fastpath_flow_burst, fastpath.h). The cache is active only in front of an ACL: a plain
 * FIB lookup is cheaper than a cache lookup, so without an ACL the worker
 * does not consult it (b->flows is NULL, worker.c).
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

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "config.h"
#include "dp.h"
#include "flow.h"

/** lf_flow_hot.action of a flow that is forwarded; drops store their reason. */
#define LF_FLOW_FORWARD 0xff

/**
 * Create the flow table of worker index (on lcore, socket) from [flow].
 * @return the table, or NULL with err naming the key and the cause.
 */
struct lf_flow_table *flow_stage_create(const struct lf_flow_conf *conf, unsigned int index,
					unsigned int lcore, int socket, char *err, size_t errlen);

/**
 * Look up a parsed burst (pkts, b->meta): build the keys, look them up.
 * @return how many packets, from the first on, have a valid cached verdict.
 */
uint16_t flow_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * Apply the cached verdicts of pkts[0..hits): forward (rewritten from the
 * entry) or drop. The forwarded ones are compacted to the front for TX, to
 * port b->out or (LF_OUT_MIXED) to each b->meta[i].out; their number is
 * returned. plain: the packets passed the fused check (b->data is set).
 */
uint16_t flow_stage_hits(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t hits, bool plain);

/**
 * Move the misses, pkts[first..n), to the front of pkts and b->meta with
 * meta.fkey pointing at their keys; returns n - first.
 */
uint16_t flow_stage_misses(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t first, uint16_t n);

/** Cache "forward" for the packets the slow path is about to send. */
void flow_stage_learn(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/** Cache the drop verdicts the slow path's stages noted (lf_burst_drop_decided). */
void flow_stage_learn_decided(struct lf_burst *b);

/**
 * Entries examined per aging slice, one slice every LF_FLOW_EXPIRE_US: a
 * worker sweeps 2.56M entries per second, a 16M-flow table in about 7 s.
 */
#define LF_FLOW_EXPIRE_BUDGET 256
#define LF_FLOW_EXPIRE_US 100

#endif /* LF_FLOW_STAGE_H */
