/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbour rewrite stage: TTL / hop-limit decrement with an incremental
 * IPv4 checksum update, VLAN tags stripped, next-hop MACs written, output
 * port chosen.
 */
#ifndef LF_REWRITE_H
#define LF_REWRITE_H

#include <stdint.h>

#include <rte_ether.h>

#include "config.h"
#include "worker.h"

/**
 * Build the next-hop table read by workers: entry id holds the MACs and the
 * output port; ids without a [nexthop] section are marked invalid.
 * @param port_macs  MAC of each configured port (default source MAC).
 * @param count      Set to the table length.
 * @return the table (rte_zmalloc'd on socket) or NULL with rte_errno set.
 */
struct lf_nh *rewrite_init(const struct lf_config *cfg, const struct rte_ether_addr *port_macs,
			   int socket, uint32_t *count);
void rewrite_free(struct lf_nh *table);

/** Rewrite the burst; returns packets that go on with meta[i].out set. */
uint16_t rewrite_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_REWRITE_H */
