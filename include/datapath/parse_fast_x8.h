/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lf_parse_ipv4_plain() for eight packets at once with AVX-512: the same
 * checks, the same verdicts (tests/unit/test_parse.c runs both on the same
 * random and mutated packets), one packet per 64-bit lane. Per packet, 32
 * mbuf bytes (from ol_flags on) and 32 header bytes (2..33) are loaded, two
 * packets to a register, and transposed into lanes with two-source permutes
 * (vector gathers are slower: docs/perf-history.md); every
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

#include "cksum.h"
#include "parse_fast.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
	defined(__AVX512VBMI__) && RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define LF_PARSE_X8 1

#include <immintrin.h>

/* The 32 mbuf bytes read per packet: ol_flags, pkt_len, data_len as below. */
#define LF_X8_MB_OFF offsetof(struct rte_mbuf, ol_flags)
_Static_assert(offsetof(struct rte_mbuf, pkt_len) == LF_X8_MB_OFF + 12, "pkt_len: qword 1, high");
_Static_assert(offsetof(struct rte_mbuf, data_len) == LF_X8_MB_OFF + 16, "data_len: qword 2, low");

/* 32 bytes at lo and 32 at hi, in the low and high half of one register. */
static inline __m512i
lf_x8_load2(const void *lo, const void *hi)
{
	return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(lo)),
				  _mm256_loadu_si256(hi), 1);
}

/**
 * Check pkts[0..7] as lf_parse_ipv4_plain() does each of them.
 * @param dst  Set to the eight destination addresses (host order); only the
 *             lanes of accepted packets are meaningful.
 * @param data Set to the eight packets' data addresses (rte_pktmbuf_mtod).
 * @param sw   Set to the mask of accepted packets whose checksum was
 *             checked in software (lf_parse_ipv4_plain() returned 2).
 * @param ttlw NULL, or set to the eight packets' TTL/protocol/checksum
 *             words (IPv4 header bytes 8..11, loaded little endian) as
 *             lf_ipv4_ttl_cksum_dec_le() makes them: what the rewrite stores
 *             for TTL - 1. Only the lanes of accepted packets are meaningful.
 * @return the mask of accepted packets (bit i: pkts[i]).
 */
static inline __mmask8
lf_parse_ipv4_plain_x8(struct rte_mbuf *const *pkts, uint32_t *dst, uint8_t **data, __mmask8 *sw,
		       uint32_t *ttlw)
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
	__m512i flags, q0, q1, q2, tot, need, plen, dlen, sum;
	__m512i a01, a23, a45, a67, x, y;
	__mmask8 ok, good;
	unsigned int j;

	/*
	 * The 32 mbuf bytes from ol_flags on, two mbufs to a register,
	 * transposed: ol_flags, packet_type + pkt_len, data_len + ... each
	 * fill one register.
	 */
#define LF_LOAD2(j)                                          \
	lf_x8_load2((const uint8_t *)pkts[j] + LF_X8_MB_OFF, \
		    (const uint8_t *)pkts[(j) + 1] + LF_X8_MB_OFF)
	a01 = LF_LOAD2(0);
	a23 = LF_LOAD2(2);
	a45 = LF_LOAD2(4);
	a67 = LF_LOAD2(6);
#undef LF_LOAD2
	x = _mm512_permutex2var_epi64(a01, _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13), a23);
	y = _mm512_permutex2var_epi64(a45, _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13), a67);
	flags = _mm512_shuffle_i64x2(x, y, 0x44);
	plen = _mm512_srli_epi64(_mm512_shuffle_i64x2(x, y, 0xee), 32);
	x = _mm512_permutex2var_epi64(a01, _mm512_setr_epi64(2, 6, 10, 14, 2, 6, 10, 14), a23);
	y = _mm512_permutex2var_epi64(a45, _mm512_setr_epi64(2, 6, 10, 14, 2, 6, 10, 14), a67);
	dlen = _mm512_and_si512(_mm512_shuffle_i64x2(x, y, 0x44), m16);
	for (j = 0; j < 8; j++)
		data[j] = rte_pktmbuf_mtod(pkts[j], uint8_t *);
	/*
	 * The header is read only where the first segment holds it; a group
	 * with a shorter first segment is checked one packet at a time.
	 */
	ok = _mm512_cmpge_epu64_mask(dlen,
				     _mm512_set1_epi64(RTE_ETHER_HDR_LEN +
						       sizeof(struct rte_ipv4_hdr)));
	if (unlikely(ok != 0xff)) {
		__mmask8 sw_mask = 0;
		unsigned int proto, need, r;

		ok = 0;
		for (j = 0; j < 8; j++) {
			r = lf_parse_ipv4_plain(pkts[j], &proto, &need, &dst[j]);
			ok |= (__mmask8)((r != 0) << j);
			sw_mask |= (__mmask8)((r == 2) << j);
			if (ttlw != NULL && r != 0) {
				uint32_t t;

				memcpy(&t, data[j] + RTE_ETHER_HDR_LEN + 8, sizeof(t));
				ttlw[j] = lf_ipv4_ttl_cksum_dec_le(t);
			}
		}
		*sw = sw_mask;
		return ok;
	}
	/*
	 * Bytes 2..33 of each packet, two packets to a register, transposed so
	 * that their qwords 1, 2 and 3 (bytes 10..17, 18..25, 26..33) each
	 * fill one register: q0, q1, q2.
	 */
	a01 = lf_x8_load2(data[0] + 2, data[1] + 2);
	a23 = lf_x8_load2(data[2] + 2, data[3] + 2);
	a45 = lf_x8_load2(data[4] + 2, data[5] + 2);
	a67 = lf_x8_load2(data[6] + 2, data[7] + 2);
	x = _mm512_permutex2var_epi64(a01, _mm512_setr_epi64(1, 5, 9, 13, 2, 6, 10, 14), a23);
	y = _mm512_permutex2var_epi64(a45, _mm512_setr_epi64(1, 5, 9, 13, 2, 6, 10, 14), a67);
	q0 = _mm512_shuffle_i64x2(x, y, 0x44); /* MAC tail, EtherType, ver/IHL, TOS, length */
	q1 = _mm512_shuffle_i64x2(x, y, 0xee); /* id, fragment, TTL, proto, checksum */
	x = _mm512_permutex2var_epi64(a01, _mm512_setr_epi64(3, 7, 11, 15, 3, 7, 11, 15), a23);
	y = _mm512_permutex2var_epi64(a45, _mm512_setr_epi64(3, 7, 11, 15, 3, 7, 11, 15), a67);
	q2 = _mm512_shuffle_i64x2(x, y, 0x44); /* src, dst */

	/* IPv4, IHL 5; fragment offset 0; TTL > 1. */
	ok = _mm512_mask_cmpeq_epi64_mask(ok, _mm512_and_si512(q0, _mm512_set1_epi64(0xffffff0000)),
					  _mm512_set1_epi64(0x4500080000));
	ok = _mm512_mask_testn_epi64_mask(ok, q1, _mm512_set1_epi64(0xff1f0000));
	ok = _mm512_mask_test_epi64_mask(ok, q1, _mm512_set1_epi64(0xfe00000000));
	/* Source's first byte (q2's low byte) in 1..126 or 128..223. */
	x = _mm512_and_si512(q2, _mm512_set1_epi64(0xff));
	ok &= _mm512_cmplt_epu64_mask(_mm512_sub_epi64(x, _mm512_set1_epi64(1)),
				      _mm512_set1_epi64(126)) |
		_mm512_cmplt_epu64_mask(_mm512_sub_epi64(x, _mm512_set1_epi64(128)),
					_mm512_set1_epi64(96));
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
	/*
	 * TTL - 1 with the checksum update is one add to the word (q1's high
	 * half); lf_ipv4_ttl_cksum_dec_le() itself for the two checksums the
	 * add gets wrong.
	 */
	if (ttlw != NULL) {
		const __m512i t = _mm512_srli_epi64(q1, 32);
		__mmask8 slow = _mm512_cmpge_epu64_mask(t, _mm512_set1_epi64(0xfffe0000));

		_mm256_storeu_si256((__m256i *)ttlw,
				    _mm512_cvtepi64_epi32(_mm512_add_epi64(t, m16)));
		while (unlikely(slow != 0)) {
			uint32_t v;

			j = __builtin_ctz(slow);
			slow &= slow - 1;
			memcpy(&v, data[j] + RTE_ETHER_HDR_LEN + 8, sizeof(v));
			ttlw[j] = lf_ipv4_ttl_cksum_dec_le(v);
		}
	}
	return ok;
}

/**
 * lf_l2_ours() for the eight frames at data[0..7] (each with 8 bytes
 * there): bit i set when data[i]'s frame is the port's. Eight scalar loads
 * into one register (a vector gather is slower: docs/perf-history.md), one
 * test.
 */
static inline __mmask8
lf_l2_ours_x8(uint8_t *const *data, struct lf_l2_want w)
{
	uint64_t v[8];
	unsigned int j;
	__m512i x;

	for (j = 0; j < 8; j++)
		memcpy(&v[j], data[j], sizeof(v[j]));
	/* Built from registers (inserts), not stored and reloaded: eight
	 * stores read back as one 64-byte load would not forward. */
	x = _mm512_set_epi64((long long)v[7], (long long)v[6], (long long)v[5], (long long)v[4],
			     (long long)v[3], (long long)v[2], (long long)v[1], (long long)v[0]);
	return _mm512_testn_epi64_mask(_mm512_xor_si512(x, _mm512_set1_epi64((long long)w.val)),
				       _mm512_set1_epi64((long long)w.mask));
}

#else
#define LF_PARSE_X8 0
#endif

#endif /* LF_PARSE_FAST_X8_H */
