/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The fused IPv4 stages (and the IPv6 one, fastpath6_burst, last below),
 * in the manner of l3fwd's x4 paths: when every
 * packet of a burst is plain IPv4 (lf_parse_ipv4_plain), one pass checks the
 * packets and collects what the rest needs (fused.h), then
 *  - fastpath_burst: one bulk FIB lookup and one pass that rewrites them;
 *  - fastpath_flow_burst: one flow cache lookup (the flow stage's hits and
 *    misses follow in the pipeline).
 * The staged pipeline stays the reference: for such a burst the fused
 * stages give exactly its output and counters (tests/unit/test_pipeline.c
 * runs both on the same bursts).
 *
 * Each comes in two builds of one body: _scalar for any x86-64 CPU and
 * _avx512 with the eight-packet check (parse_fast_x8.h). fastpath_select()
 * puts the pair the CPU can run into b->fused_ip4 and b->fused_flow.
 *
 * fastpath_burst has no ACL and no flow cache: the pipeline runs it only
 * for tables without an IPv4 ACL and a worker without an active flow cache
 * (pipeline.c).
 */
#ifndef LF_FASTPATH_H
#define LF_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"

/**
 * Route the burst if every packet is plain IPv4.
 * @return LF_REFUSED, having changed nothing, if a packet is not; else the
 *         packets kept, at the front of pkts, for TX: all to port b->out,
 *         or (b->out == LF_OUT_MIXED) each to its b->meta[i].out.
 */
uint16_t fastpath_burst_scalar(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);
uint16_t fastpath_burst_avx512(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * Route the burst if every packet is plain IPv6 (lf_parse_ipv6_plain), as
 * fastpath_burst does plain IPv4: the IPv6 side of a dual-stack burst
 * (pipeline.c). One build: an IPv6 rewrite has no checksum to vectorise.
 * No ACL and no flow cache: the pipeline runs it only without them.
 * @return as fastpath_burst.
 */
uint16_t fastpath6_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * The flow lookup of a burst of plain IPv4 packets, fused with their check;
 * b->meta and b->data are filled as parse and the check would.
 * @return LF_REFUSED, having changed nothing, if a packet is not plain IPv4;
 *         else how many packets, from the first on, have a valid cached
 *         verdict (as flow_stage_burst).
 */
uint16_t fastpath_flow_burst_scalar(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);
uint16_t fastpath_flow_burst_avx512(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n);

/**
 * lf_parse_ipv4_plain_x8() from the AVX-512 build, for the tests: the mask
 * of accepted packets; *sw the mask checked in software.
 */
unsigned int fastpath_check_avx512(struct rte_mbuf *const *pkts, uint32_t *dst, uint8_t **data,
				   unsigned int *sw, uint32_t *ttlw);

/** The builds of the fused stages. */
enum lf_fused_simd {
	LF_FUSED_AUTO, /**< AVX-512 where the CPU and EAL allow it, else scalar. */
	LF_FUSED_SCALAR,
	LF_FUSED_AVX512,
};

/**
 * Whether the AVX-512 build can run here: it was compiled in, the CPU has
 * AVX-512 F, BW, VL and VBMI, and EAL's max SIMD width is not forced below
 * 512 bits (--force-max-simd-bitwidth).
 */
bool fastpath_avx512_usable(void);

/**
 * Point b->fused_ip4 and b->fused_flow at the build want names (auto: the
 * AVX-512 one where usable).
 * @return 0, or -ENOTSUP for LF_FUSED_AVX512 where it is not usable (b is
 *         then left as it was).
 */
int fastpath_select(struct lf_burst *b, enum lf_fused_simd want);

#endif /* LF_FASTPATH_H */
