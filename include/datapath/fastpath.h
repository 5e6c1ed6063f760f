/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Whole-burst fast path for the common case, in the manner of l3fwd's x4
 * paths: when every packet of a burst is plain IPv4 (lf_parse_ipv4_plain),
 * one pass checks the packets and collects their destinations, one bulk FIB
 * lookup runs, and one pass rewrites them and hands them to the TX stage.
 * The staged pipeline (parse -> fib -> rewrite -> tx) stays the reference:
 * for such a burst the fast path gives exactly its output and counters
 * (tests/unit/test_pipeline.c runs both on the same bursts).
 *
 * It has no ACL stage, so a worker with an ACL (w->acl != NULL) never takes
 * it: fastpath_burst() returns false at once and every burst goes through
 * the staged pipeline, parse -> acl -> fib -> rewrite -> tx.
 */
#ifndef LF_FASTPATH_H
#define LF_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "worker.h"

/**
 * Forward the burst if every packet is plain IPv4 and the worker has no ACL.
 * @return false, having changed nothing, if one is not or w->acl is set: the
 *         caller then runs the staged pipeline.
 */
bool fastpath_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/**
 * The fused path of a worker with a flow table (w->flows): when every packet
 * of the burst is plain IPv4, one pass checks them and builds their flow
 * keys, one lookup serves the burst, and the packets up to the first miss
 * take their cached verdict: rewritten from the entry (next-hop MACs,
 * output port) or dropped. From the first miss on, the packets go through
 * parse and the slow tail (ACL, FIB, rewrite, verdict cached, TX), in
 * order. Same output and counters as the staged pipeline with the flow
 * stage (tests/unit/test_pipeline.c).
 * @return false, having changed nothing, if a packet is not plain IPv4.
 */
bool fastpath_flow_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_FASTPATH_H */
