/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused IPv4 stages (fastpath.h): whole-burst specialisations for
 * bursts of plain IPv4 packets, of parse -> fib -> rewrite and of the flow
 * cache's lookup. The first keeps no per-packet meta beyond the data
 * address, and the output port only for a burst to several ports: l3_off is
 * 14 and the family is IPv4 for every packet it takes. How it came to its
 * present shape, measured step by step, is in docs/perf-history.md.
 *
 * This file is compiled twice: as it is, for any x86-64 CPU (the _scalar
 * functions), and with AVX-512 enabled and LF_FUSED_BUILD_AVX512 defined (the
 * _avx512 functions, with the eight-packet check of parse_fast_x8.h).
 * fastpath_select() picks one pair at start from the CPU's flags, as rte_fib
 * picks its lookup, so that one build runs on any x86-64 server.
 */
#include <string.h>

#include <rte_fib.h>

#include "fastpath.h"
#include "fib.h"
#include "flow_lookup.h"
#include "parse_fast_x8.h"
#include "rewrite_pkt.h"

#ifdef LF_FUSED_BUILD_AVX512
#if !LF_PARSE_X8
#error "LF_FUSED_BUILD_AVX512 needs AVX-512 F/BW/VL/VBMI enabled for this file"
#endif
#define LF_FUSED_X8 1
#define FUSED_FN(f) f##_avx512
#else
#define LF_FUSED_X8 0
#define FUSED_FN(f) f##_scalar
#endif
#include "fused.h"

uint16_t
FUSED_FN(fastpath_burst)(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const struct lf_nh *table;
	uint64_t nh_count;
	unsigned int out_or = 0, out_and = UINT16_MAX;
	uint16_t i, k, n8;
	int c;

	RTE_BUILD_BUG_ON(LF_MAX_NEXTHOPS > LF_NH_NONE); /* nh_count <= LF_NH_NONE */
	c = lf_fused_check(b, pkts, n, &n8, NULL, false);
	if (c < 0)
		return LF_REFUSED;
	/* Fewer when frames were set aside (b->n_aside: pipeline.c runs them). */
	n = (uint16_t)c;

	rte_fib_lookup_bulk(lf_fib_v4(b->view.fib), b->ip4, b->nh4, n);

	/*
	 * Pass 2: rewrite and keep what has a route and a next hop. The table
	 * is read after the lookup call, so that it lives in a register and not
	 * in a spill slot across it. No meta[].out is stored here: when all go
	 * to one port (out_or == out_and, the port), TX takes them as they are.
	 * Up to the first drop every packet stays where it is; only from there
	 * on do the kept ones move down over the dropped (compacting every
	 * burst costs more: docs/perf-history.md).
	 */
	table = b->view.nh_table;
	nh_count = b->view.nh_count;
	/* The packets the groups checked: their TTL/checksum word is ready. */
	for (i = 0; i < n8; i++) {
		const uint64_t nh = b->nh4[i];
		const unsigned int out = lf_nh_out(table, nh_count, nh);

		if (unlikely(out == LF_NH_INVALID))
			break;
		memcpy(b->data[i] + RTE_ETHER_HDR_LEN + 8, &b->ttlw[i], sizeof(uint32_t));
		memcpy(b->data[i], &table[nh].dst, 2 * RTE_ETHER_ADDR_LEN);
		out_or |= out;
		out_and &= out;
	}
	if (i < n8)
		goto compact;
	for (; i < n; i++) {
		const uint64_t nh = b->nh4[i];
		const unsigned int out = lf_nh_out(table, nh_count, nh);

		if (unlikely(out == LF_NH_INVALID))
			break;
		lf_rewrite_ipv4_plain_at(b->data[i], &table[nh].dst);
		out_or |= out;
		out_and &= out;
	}
	/* From the first drop on, the packets kept move down over the dropped. */
compact:
	for (k = i; i < n; i++) {
		const uint64_t nh = b->nh4[i];
		const unsigned int out = lf_nh_out(table, nh_count, nh);

		if (out == LF_NH_INVALID) {
			const unsigned int kind = lf_nh_kind(table, nh_count, nh);

			if (kind != 0 || nh == LF_NH_NONE) {
				/* Another kind's (the UPF's, the router's own), or no
				 * route (an ICMP error, lf_burst_no_route): untouched so
				 * far, handed on with the meta parse would give it. */
				struct lf_meta meta = { 0 };
				const unsigned int proto =
					b->data[i][RTE_ETHER_HDR_LEN +
						   offsetof(struct rte_ipv4_hdr, next_proto_id)];

				lf_meta_plain_ipv4(&meta, proto, lf_l4_min_len[proto]);
				meta.nh = (uint32_t)nh;
				if (kind != 0)
					lf_burst_divert(b, pkts[i], &meta, (enum lf_kind)kind);
				else
					lf_burst_no_route(b, pkts[i], &meta);
				continue;
			}
			lf_burst_drop(b, pkts[i], LF_DROP_NO_NEXTHOP);
			continue;
		}
		lf_rewrite_ipv4_plain_at(b->data[i], &table[nh].dst);
		out_or |= out;
		out_and &= out;
		pkts[k++] = pkts[i]; /* k < i: pkts[i] is still the packet */
	}
	if (out_or == out_and || k == 0) {
		b->out = (uint16_t)out_or;
		return k;
	}
	/* Several ports: meta[].out of the kept packets, skipping the drops as above. */
	b->out = LF_OUT_MIXED;
	for (i = 0, k = 0; i < n; i++) {
		const unsigned int out = lf_nh_out(table, nh_count, b->nh4[i]);

		if (out != LF_NH_INVALID)
			b->meta[k++].out = (uint16_t)out;
	}
	return k;
}

uint16_t
FUSED_FN(fastpath_flow_burst)(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t hash[LF_BURST_MAX];
	uint16_t n8;

	if (lf_fused_check(b, pkts, n, &n8, hash, true) < 0)
		return LF_REFUSED;
	return lf_flow_lookup_leading(b, hash, n);
}

#ifdef LF_FUSED_BUILD_AVX512
unsigned int
fastpath_check_avx512(struct rte_mbuf *const *pkts, uint32_t *dst, uint8_t **data, unsigned int *sw,
		      uint32_t *ttlw)
{
	__mmask8 m;
	const __mmask8 ok = lf_parse_ipv4_plain_x8(pkts, dst, data, &m, ttlw);

	*sw = m;
	return ok;
}
#endif
