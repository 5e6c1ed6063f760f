/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Internet checksums of IPv4 headers: the full sum a parser checks, and
 * the incremental update (RFC 1624, equation 3) the rewrite stage makes when
 * it decrements the TTL.
 */
#ifndef LF_CKSUM_H
#define LF_CKSUM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ip.h>

/** A 64-bit accumulator of 16- or 32-bit words folded to the 16-bit one's complement sum. */
static inline uint16_t
lf_cksum_fold64(uint64_t s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/**
 * Plain sum of the five 32-bit words of a 20-byte IPv4 header, as loaded.
 * The header is 2-byte aligned after Ethernet: copy, never cast. One copy
 * per word, each a load from the packet: a single 20-byte copy went
 * through a 16-byte store to the stack and 4-byte loads back, which the
 * store cannot forward (upf-bench.md, "inner checksum").
 */
static inline uint64_t
lf_ipv4_hdr_words(const void *hdr)
{
	const uint8_t *p = hdr;
	uint32_t w0, w1, w2, w3, w4;

	memcpy(&w0, p, 4);
	memcpy(&w1, p + 4, 4);
	memcpy(&w2, p + 8, 4);
	memcpy(&w3, p + 12, 4);
	memcpy(&w4, p + 16, 4);
	return (uint64_t)w0 + w1 + w2 + w3 + w4;
}

/**
 * One's complement sum of an IPv4 header of ihl bytes: 0xffff when its
 * checksum is right. The common 20-byte header is summed as five 32-bit
 * words in a 64-bit accumulator (the one's complement sum does not depend
 * on word size or byte order); options fall back to rte_raw_cksum.
 */
static inline uint16_t
lf_ipv4_hdr_sum(const void *hdr, unsigned int ihl)
{
	if (unlikely(ihl != sizeof(struct rte_ipv4_hdr)))
		return rte_raw_cksum(hdr, ihl);
	return lf_cksum_fold64(lf_ipv4_hdr_words(hdr));
}

/**
 * Whether an IPv4 header of ihl bytes verifies: lf_ipv4_hdr_sum() ==
 * 0xffff, without the folds. As 2^16 = 1 mod 0xffff, the plain sum of the
 * five 32-bit words is congruent to the ones' complement sum of the 16-bit
 * ones (byte order only multiplies it by 256, which is prime to 0xffff),
 * and that folds to 0xffff exactly when it is a non-zero multiple of
 * 0xffff; the version nibble makes it non-zero. One modulo by a constant
 * (a multiply and a shift) in place of four dependent folds, as
 * lf_parse_ipv4_plain() does for the outer header.
 */
static inline bool
lf_ipv4_hdr_ok(const void *hdr, unsigned int ihl)
{
	if (unlikely(ihl != sizeof(struct rte_ipv4_hdr)))
		return rte_raw_cksum(hdr, ihl) == 0xffff;
	return lf_ipv4_hdr_words(hdr) % 0xffff == 0;
}

/**
 * New checksum after one 16-bit word of the header changed.
 * All values in network byte order, as they sit in the packet.
 *   HC' = ~(~HC + ~m + m')
 */
static inline uint16_t
lf_cksum_update16(uint16_t hc, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~hc;

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * Checksum after the TTL, the high byte of the TTL/protocol word, dropped
 * by one. This is lf_cksum_update16() with new = old - 0x0100, for which
 * ~old + new is the constant 0xfeff: one add and one fold. One's complement
 * arithmetic commutes with byte swapping, so it runs on the checksum as
 * stored, with the constant in network byte order.
 */
static inline uint16_t
lf_cksum_ttl_dec(uint16_t hc)
{
	uint32_t sum = (uint16_t)~hc;

	sum += rte_cpu_to_be_16(0xfeff);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * TTL decrement and checksum update on the 32-bit word at IPv4 header
 * offset 8, loaded little endian: [TTL, protocol, checksum high byte,
 * checksum low byte] from bit 0 up. Requires TTL > 1.
 *
 * The update is HC' = HC + 0x0100 in one's complement (lf_cksum_ttl_dec),
 * so TTL - 1 and the checksum update are the single add w + 0xffff: the
 * -1 takes nothing from the protocol byte (TTL > 1), the +0x10000 is +1 on
 * the checksum's high byte, and a carry out of that byte lands in its low
 * byte, which is the end-around carry. Two checksums come out wrong:
 * 0xffff, whose carry would leave the word, and 0xfeff, which gives 0xffff
 * where a recompute gives 0x0000. Both can sit in a header that verifies
 * (0xffff and 0x0000 are the same one's complement value), so those two
 * (w >= 0xfffe0000) take lf_cksum_ttl_dec() instead.
 */
static inline uint32_t
lf_ipv4_ttl_cksum_dec_le(uint32_t w)
{
	if (likely(w < 0xfffe0000u))
		return w + 0xffffu;
	/* The checksum is stored big endian: as a u16 read LE it is w >> 16. */
	return ((uint32_t)lf_cksum_ttl_dec((uint16_t)(w >> 16)) << 16) | ((w - 1) & 0xffffu);
}

/**
 * Checksum of an IPv4 header from sum, the ones' complement sum (folded,
 * not inverted, as rte_raw_cksum() gives it) of the header with its total
 * length and checksum fields 0, and its total length tl as it sits in the
 * packet (network order): a header whose other fields are fixed (an
 * encapsulation's template, upf_far_dp.hdr4) gets its checksum in one
 * addition, one fold and an inversion. Both operands are at most 0xffff,
 * so one fold takes the carry.
 */
static inline uint16_t
lf_ipv4_cksum_add_len(uint16_t sum, uint16_t tl)
{
	const uint32_t s = (uint32_t)sum + tl;

	return (uint16_t) ~((s & 0xffff) + (s >> 16));
}

#endif /* LF_CKSUM_H */
