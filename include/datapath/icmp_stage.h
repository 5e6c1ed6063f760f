/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ICMP and ICMPv6 errors (LF_KIND_ICMP): a packet parse, the FIB stage or
 * rewrite could not forward comes here with why in meta.nh (enum
 * lf_icmp_why), and leaves as the error about it, built in place: the
 * original IP header and as much of its data as fits in 576 bytes (IPv4,
 * RFC 1812 4.3.2.3) or 1280 (IPv6, RFC 4443 2.4(c)) behind a new IP and
 * ICMP header, from the address of the port it came in on, to its source;
 * no allocation. The errors passed on are routed like any packet.
 *
 * Not sent (RFC 1812 4.3.2.7, RFC 4443 2.4(e)), the packet then dropped by
 * its own reason (ttl_expired, no_route, mtu_exceeded) and counted
 * icmp_suppressed: the error is turned off in [icmp], the worker's ICMP
 * token bucket is empty, the packet is an ICMP error itself, a fragment
 * other than the first, to or from a group or broadcast address, or there
 * is no address to send it from; an IPv4 packet over the MTU without DF
 * is never fragmented, only dropped.
 */
#ifndef LF_ICMP_STAGE_H
#define LF_ICMP_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/** The ICMP kind's stage: returns the errors to route, in order. */
uint16_t icmp_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_ICMP_STAGE_H */
