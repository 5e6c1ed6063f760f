/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the neighbour code needs (LF_KIND_NEIGH): ARP frames (parse sorts
 * them by EtherType), ICMPv6 ND messages (the local stage), and packets
 * whose next hop has no MAC yet (a next hop of kind neigh, meta.nh its id).
 * Each goes to the control thread on the worker's own ring (b->to_ctrl),
 * tagged (dp.h LF_CTRL_*), within [neighbour] punt_pps (else
 * punt_ratelimit); a full ring is punt_full. Without a ring (no neighbour
 * code) they are dropped: ARP and ND as non_ip, held packets as
 * neigh_unresolved.
 */
#ifndef LF_NEIGH_STAGE_H
#define LF_NEIGH_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/** The NEIGH kind's stage: everything goes to the control thread; returns 0. */
uint16_t neigh_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_NEIGH_STAGE_H */
