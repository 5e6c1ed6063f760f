/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The stage of the packets no kind handles (LF_KIND_OTHER): today whatever
 * is not IPv4 or IPv6, counted non_ip and freed. When lanefwd learns a new
 * L2 protocol (ARP, a punt to the kernel), that becomes a kind of its own and
 * parse stops sending it here.
 */
#ifndef LF_UNHANDLED_H
#define LF_UNHANDLED_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/** Drop the burst (non_ip); returns 0. */
uint16_t unhandled_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_UNHANDLED_H */
