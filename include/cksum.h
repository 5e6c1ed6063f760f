/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Incremental Internet checksum update (RFC 1624, equation 3), used when the
 * rewrite stage decrements the IPv4 TTL.
 */
#ifndef LF_CKSUM_H
#define LF_CKSUM_H

#include <stdint.h>

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

#endif /* LF_CKSUM_H */
