/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Incremental Internet checksum update (RFC 1624, equation 3), used when the
 * rewrite stage decrements the IPv4 TTL.
 */
#ifndef LF_CKSUM_H
#define LF_CKSUM_H

#include <stdint.h>

#include <rte_byteorder.h>

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

#endif /* LF_CKSUM_H */
