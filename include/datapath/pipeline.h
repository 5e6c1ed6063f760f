/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The pipeline: the one owner of the stage order and the only place that
 * hands packets to TX. The worker loop (worker.c) calls it once per
 * received burst; it calls the stages (dp.h), each of which returns how
 * many packets go on. docs/architecture.md draws the whole graph.
 *
 *   fused:   [fastpath]                              -> tx
 *            [fastpath flow] -> hits                 -> tx
 *                         -> misses -> kind ip
 *   staged:  parse -+- ip:    [flow] -> hits         -> tx
 *                   |                -> misses -> acl -> fib -> rewrite
 *                   |                   [-> learn]   -> tx
 *                   +- other: unhandled (non_ip)
 *
 * The fused stages take a burst only when every packet is plain IPv4; any
 * other burst is sorted by frame: its untagged IPv4 packets try the fused
 * IPv4 stage again, its untagged IPv6 ones the fused IPv6 stage
 * (fastpath6_burst), and what neither takes runs staged, from the same
 * untouched packets.
 */
#ifndef LF_PIPELINE_H
#define LF_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"
#include "tx.h"

/** Run one received burst: fused where it can, staged otherwise. */
void pipeline_run(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n);

/**
 * The fused path alone.
 * @return false, having changed nothing, if it does not take the burst (a
 *         packet that is not plain IPv4, or an IPv4 ACL with no flow cache
 *         in front of it).
 */
bool pipeline_run_fused(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n);

/** The staged path alone: the reference the fused one must equal. */
void pipeline_run_staged(struct lf_burst *b, struct lf_tx *tx, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_PIPELINE_H */
