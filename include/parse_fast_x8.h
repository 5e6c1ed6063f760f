/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lf_parse_ipv4_plain() for eight packets at once with AVX-512: the same
 * checks, the same verdicts (tests/unit/test_parse.c runs both on the same
 * random and mutated packets), one packet per 64-bit lane. The mbuf fields
 * and the 24 header bytes from offset 10 on are gathered into lanes, every
 * condition becomes a mask, and the software checksum is summed across the
 * lanes. Compiled only where the compiler targets AVX-512 F/BW/VL/VBMI
 * (LF_PARSE_X8 is then 1); the scalar check is the reference and the
 * fallback, and handles what is left of a burst after the groups of eight.
 */
#ifndef LF_PARSE_FAST_X8_H
#define LF_PARSE_FAST_X8_H

#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "parse_fast.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
	defined(__AVX512VBMI__) && RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define LF_PARSE_X8 1

#include <immintrin.h>

/* data_len is read with pkt_len, as the upper half of one 64-bit load. */
_Static_assert(offsetof(struct rte_mbuf, data_len) == offsetof(struct rte_mbuf, pkt_len) + 4,
	       "pkt_len and data_len adjacent");

/*
 * Gather the 64-bit word at byte offset off from each of the eight addresses
 * in addr (lanes outside k read as zero and are not accessed).
 */
#define LF_GATHER8(k, addr, off)                                         \
	_mm512_mask_i64gather_epi64(_mm512_setzero_si512(), (k), (addr), \
				    (const void *)(uintptr_t)(off), 1)

/**
 * Check pkts[0..7] as lf_parse_ipv4_plain() does each of them.
 * @param dst  Set to the eight destination addresses (host order); only the
 *             lanes of accepted packets are meaningful.
 * @param data Set to the eight packets' data addresses (rte_pktmbuf_mtod).
 * @param sw   Set to the mask of accepted packets whose checksum was
 *             checked in software (lf_parse_ipv4_plain() returned 2).
 * @return the mask of accepted packets (bit i: pkts[i]).
 */
static inline __mmask8
lf_parse_ipv4_plain_x8(struct rte_mbuf *const *pkts, uint32_t *dst, uint8_t **data, __mmask8 *sw)
{
	/* Per 128-bit lane: bytes 7, 6 (total length) and 15, 14 to byte 0, 1. */
	const __m512i tot_shuf = _mm512_broadcast_i32x4(
		_mm_setr_epi8(7, 6, -1, -1, -1, -1, -1, -1, 15, 14, -1, -1, -1, -1, -1, -1));
	/* The protocol, byte 5 of the second header word, to byte 0. */
	const __m512i proto_shuf = _mm512_broadcast_i32x4(
		_mm_setr_epi8(5, -1, -1, -1, -1, -1, -1, -1, 13, -1, -1, -1, -1, -1, -1, -1));
	/* lf_l4_min_len[0..63] (the rest are 0: test_parse checks the table). */
	const __m512i l4_tbl = _mm512_loadu_si512(lf_l4_min_len);
	const __m512i m16 = _mm512_set1_epi64(0xffff);
	const __m512i m32 = _mm512_set1_epi64(0xffffffff);
	const __m512i ck_mask = _mm512_set1_epi64(RTE_MBUF_F_RX_IP_CKSUM_MASK);
	__m512i mb, d, flags, lens, q0, q1, q2, tot, need, plen, dlen, sum;
	__mmask8 ok, good;

	mb = _mm512_loadu_si512(pkts);
	lens = LF_GATHER8(0xff, mb, offsetof(struct rte_mbuf, pkt_len));
	flags = LF_GATHER8(0xff, mb, offsetof(struct rte_mbuf, ol_flags));
	d = LF_GATHER8(0xff, mb, offsetof(struct rte_mbuf, data_off));
	d = _mm512_add_epi64(_mm512_and_si512(d, m16),
			     LF_GATHER8(0xff, mb, offsetof(struct rte_mbuf, buf_addr)));
	_mm512_storeu_si512(data, d);
	plen = _mm512_and_si512(lens, m32);
	dlen = _mm512_and_si512(_mm512_srli_epi64(lens, 32), m16);
	/* The header is read only where the first segment holds it. */
	ok = _mm512_cmpge_epu64_mask(dlen,
				     _mm512_set1_epi64(RTE_ETHER_HDR_LEN +
						       sizeof(struct rte_ipv4_hdr)));
	q0 = LF_GATHER8(ok, d, 10); /* MAC tail, EtherType, ver/IHL, TOS, length */
	q1 = LF_GATHER8(ok, d, 18); /* id, fragment, TTL, proto, checksum */
	q2 = LF_GATHER8(ok, d, 26); /* src, dst */

	/* IPv4, IHL 5; fragment offset 0; TTL > 1. */
	ok = _mm512_mask_cmpeq_epi64_mask(ok, _mm512_and_si512(q0, _mm512_set1_epi64(0xffffff0000)),
					  _mm512_set1_epi64(0x4500080000));
	ok = _mm512_mask_testn_epi64_mask(ok, q1, _mm512_set1_epi64(0xff1f0000));
	ok = _mm512_mask_test_epi64_mask(ok, q1, _mm512_set1_epi64(0xfe00000000));
	/* Lengths: L4 header inside the datagram, datagram inside the packet. */
	tot = _mm512_shuffle_epi8(q0, tot_shuf);
	need = _mm512_permutexvar_epi8(_mm512_shuffle_epi8(q1, proto_shuf), l4_tbl);
	need = _mm512_maskz_mov_epi64(_mm512_testn_epi64_mask(q1,
							      _mm512_set1_epi64(0xc00000000000)),
				      need);
	ok = _mm512_mask_cmpge_epu64_mask(ok, tot,
					  _mm512_add_epi64(need,
							   _mm512_set1_epi64(
								   sizeof(struct rte_ipv4_hdr))));
	ok = _mm512_mask_cmple_epu64_mask(ok,
					  _mm512_add_epi64(tot,
							   _mm512_set1_epi64(RTE_ETHER_HDR_LEN)),
					  plen);
	ok = _mm512_mask_cmpge_epu64_mask(ok, dlen,
					  _mm512_add_epi64(need,
							   _mm512_set1_epi64(
								   RTE_ETHER_HDR_LEN +
								   sizeof(struct rte_ipv4_hdr))));
	/* RX checksum flag GOOD, or UNKNOWN and checked here. */
	flags = _mm512_and_si512(flags, ck_mask);
	good = _mm512_cmpeq_epi64_mask(flags, _mm512_set1_epi64(RTE_MBUF_F_RX_IP_CKSUM_GOOD));
	/*
	 * The header's words are bytes 14..33: q0 >> 32, q1 and q2. Summed as
	 * 32-bit pieces (2^16 = 1 mod 0xffff) and folded to 16 bits, the sum is
	 * 0xffff exactly when lf_parse_ipv4_plain's sum is a non-zero multiple
	 * of 0xffff (version 4 makes it non-zero).
	 */
	sum = _mm512_add_epi64(_mm512_srli_epi64(q0, 32), _mm512_and_si512(q1, m32));
	sum = _mm512_add_epi64(sum, _mm512_srli_epi64(q1, 32));
	sum = _mm512_add_epi64(sum, _mm512_and_si512(q2, m32));
	sum = _mm512_add_epi64(sum, _mm512_srli_epi64(q2, 32));
	sum = _mm512_add_epi64(_mm512_and_si512(sum, m32), _mm512_srli_epi64(sum, 32));
	sum = _mm512_add_epi64(_mm512_and_si512(sum, m16), _mm512_srli_epi64(sum, 16));
	sum = _mm512_add_epi64(_mm512_and_si512(sum, m16), _mm512_srli_epi64(sum, 16));
	ok &= good |
		_mm512_mask_cmpeq_epi64_mask(_mm512_testn_epi64_mask(flags, ck_mask), sum, m16);
	/* Destinations: the high half of q2, byte-swapped. */
	_mm256_storeu_si256((__m256i *)dst,
			    _mm256_shuffle_epi8(_mm512_cvtepi64_epi32(_mm512_srli_epi64(q2, 32)),
						_mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9,
								 8, 15, 14, 13, 12, 3, 2, 1, 0, 7,
								 6, 5, 4, 11, 10, 9, 8, 15, 14, 13,
								 12)));
	*sw = ok & ~good;
	return ok;
}

#undef LF_GATHER8

#else
#define LF_PARSE_X8 0
#endif

#endif /* LF_PARSE_FAST_X8_H */
