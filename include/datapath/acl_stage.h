/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ACL stage: parse -> acl -> fib -> rewrite -> tx. Classifies the IPv4
 * packets of a burst with one acl_classify() call against the worker's IPv4
 * ACL (b->view.acl, acl.h) and the IPv6 packets with one call against its IPv6
 * ACL (b->view.acl6), and drops those the ACL denies (drop reason acl_deny). The
 * key is the 5-tuple: source and destination address, protocol
 * (meta.l4_proto: for IPv6 the upper-layer protocol after the extension
 * headers) and, for UDP and TCP packets whose L4 header parse found
 * (meta.l4_off != 0), the ports; ports are 0 for other protocols and for
 * non-first fragments (IPv4 fragment offset or IPv6 Fragment header offset
 * not 0). Packets of a family without an ACL are not classified: they pass.
 */
#ifndef LF_ACL_STAGE_H
#define LF_ACL_STAGE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/**
 * Run the ACL on a parsed burst (pkts and b->meta) and compact both to the
 * packets that pass, in order. Without a classifier for either family it
 * passes the burst untouched.
 * @return the number of packets that pass.
 */
uint16_t acl_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_ACL_STAGE_H */
