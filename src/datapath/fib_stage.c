/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB stage. The burst is split by address family into dense key arrays,
 * looked up with one bulk call per family, and the results scattered back.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "fib.h"
#include "fib_stage.h"

/* Compact away the packets without a route; returns how many are left. */
static inline uint16_t
fib_compact(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, k;

	for (i = 0, k = 0; i < n; i++) {
		if (unlikely(b->meta[i].nh == LF_NH_NONE)) {
			lf_burst_no_route(b, pkts[i], &b->meta[i]);
			continue;
		}
		k = lf_burst_keep(b, pkts, i, k);
	}
	return k;
}

static inline uint32_t
dst4(const struct rte_mbuf *m, const struct lf_meta *meta)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, meta->l3_off);

	return rte_be_to_cpu_32(ip->dst_addr);
}

uint16_t
fib_stage_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const struct lf_fib *fib = b->view.fib;
	struct lf_meta *meta = b->meta;
	uint16_t i, j, n4 = 0, n6 = 0;

	/* Common case, an all-IPv4 burst: keys and results are indexed like
	 * the packets, no gather or scatter. */
	for (i = 0; i < n && meta[i].af == 4; i++)
		b->ip4[i] = dst4(pkts[i], &meta[i]);
	if (likely(i == n)) {
		rte_fib_lookup_bulk(lf_fib_v4(fib), b->ip4, b->nh4, n);
		for (i = 0; i < n; i++)
			meta[i].nh = b->nh4[i];
		return fib_compact(b, pkts, n);
	}

	for (i = 0; i < n; i++) {
		if (meta[i].af == 4) {
			b->ip4[n4] = dst4(pkts[i], &meta[i]);
			b->idx4[n4++] = i;
		} else {
			const struct rte_ipv6_hdr *ip =
				rte_pktmbuf_mtod_offset(pkts[i], const struct rte_ipv6_hdr *,
							meta[i].l3_off);

			memcpy(b->ip6[n6], ip->dst_addr, 16);
			b->idx6[n6++] = i;
		}
	}
	if (n4 != 0) {
		rte_fib_lookup_bulk(lf_fib_v4(fib), b->ip4, b->nh4, n4);
		for (j = 0; j < n4; j++)
			meta[b->idx4[j]].nh = b->nh4[j];
	}
	if (n6 != 0) {
		rte_fib6_lookup_bulk(lf_fib_v6(fib), b->ip6, b->nh6, n6);
		for (j = 0; j < n6; j++)
			meta[b->idx6[j]].nh = b->nh6[j];
	}
	return fib_compact(b, pkts, n);
}
