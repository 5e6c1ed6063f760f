/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * FIB stage: bulk longest-prefix match of the whole burst in the FIBs of
 * the generation in use (b->view.fib, fib.h), IPv4 and IPv6. Writes the
 * next-hop id into b->meta[i].nh and drops packets with no route (no_route,
 * a verdict the flow cache may keep).
 */
#ifndef LF_FIB_STAGE_H
#define LF_FIB_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/** Look up the burst; returns the packets that have a route. */
uint16_t fib_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_FIB_STAGE_H */
