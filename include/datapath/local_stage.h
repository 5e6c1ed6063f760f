/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packets addressed to the router (LF_KIND_LOCAL: the FIB routed them to a
 * next hop of kind local, tables.c) and what goes from it to the kernel
 * (LF_KIND_PUNT). docs/control-plane.md has the model.
 *
 * local_burst: by the next hop's argument (enum lf_local_arg):
 * - martian: dropped (martian_dst);
 * - the router's own unicast address: an ICMP or ICMPv6 echo request is
 *   answered here ([icmp] echo, the worker's ICMP token bucket), turned
 *   into the reply in place and passed on to be routed back; an ND
 *   message goes to the neigh kind; anything else goes to the kernel;
 * - a group or broadcast address: ND to the neigh kind, the rest to the
 *   kernel.
 * To the kernel means the PUNT kind with meta.out the TAP mirror of the port
 * it came in on, within [exception] punt_pps (else punt_ratelimit), or a
 * drop (no_exception) without a mirror.
 */
#ifndef LF_LOCAL_STAGE_H
#define LF_LOCAL_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/** The LOCAL kind's stage: returns the echo replies to route, in order. */
uint16_t local_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_LOCAL_STAGE_H */
