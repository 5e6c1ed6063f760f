/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The fused IPv4 stage, in the manner of l3fwd's x4 paths: when every packet
 * of a burst is plain IPv4 (lf_parse_ipv4_plain), one pass checks the
 * packets and collects their destinations (fused.h), one bulk FIB lookup
 * runs, and one pass rewrites them. The staged pipeline (parse -> fib ->
 * rewrite) stays the reference: for such a burst the fused stage gives
 * exactly its output and counters (tests/unit/test_pipeline.c runs both on
 * the same bursts).
 *
 * It has no ACL and no flow cache: the pipeline runs it only for a worker
 * without an IPv4 ACL and without an active flow cache (pipeline.c).
 */
#ifndef LF_FASTPATH_H
#define LF_FASTPATH_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/**
 * Route the burst if every packet is plain IPv4.
 * @return LF_REFUSED, having changed nothing, if a packet is not; else the
 *         packets kept, at the front of pkts, for TX: all to port b->out,
 *         or (b->out == LF_OUT_MIXED) each to its b->meta[i].out.
 */
uint16_t fastpath_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_FASTPATH_H */
