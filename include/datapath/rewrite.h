/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Neighbour rewrite stage: the next-hop table (built by rewrite_init for
 * each table generation) and the stage that rewrites each routed packet for
 * its next hop (rewrite_pkt.h does the rewriting).
 */
#ifndef LF_REWRITE_H
#define LF_REWRITE_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "config.h"
#include "dp.h"

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

/**
 * The rewrite stage: rewrite each packet for its next hop (meta[i].nh);
 * returns the packets that go on, with meta[i].out set. A next hop without
 * a [nexthop] section is a no_nexthop drop; one that the tables gave to
 * another packet kind (an N3 address, a UE pool) hands the packet on to it.
 */
uint16_t rewrite_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * rewrite_burst() for kinds that also send packets lanefwd built (the
 * UPF's encapsulations and replies): those marked LF_META_TTL_DONE keep
 * their TTL. A next hop that hands packets to a kind this packet has
 * passed is a loop drop.
 */
uint16_t rewrite_flagged_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_REWRITE_H */
