/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UE address pools the UP allocates from (UE IP Address CHOOSE, TS 29.244
 * 5.21.3): one per network instance and family, made of the prefixes of
 * `[network_instance] ue_alloc`. An IPv4 pool hands out addresses, an
 * IPv6 pool prefixes of one length: /64s (the PDU session's default
 * prefix), or shorter ones down to /48 for pools that delegate prefixes
 * (TS 23.501 5.8.2.2.4; `ue_alloc_ipv6_len`).
 *
 * The pool keeps no set of its own: whether a candidate is in use is asked
 * of the caller (the agent asks the UE table, which every session's
 * downlink PDR is in), so an address the CP assigned from the same range
 * is never handed out twice, and an address comes free as soon as no
 * session holds it. The cursor walks the pool round, so an address freed
 * is not given again until every other one has been tried: late downlink
 * packets for a released UE do not reach its successor.
 *
 * Control thread only.
 */
#ifndef LF_UPF_UEPOOL_H
#define LF_UPF_UEPOOL_H

#include <stdbool.h>
#include <stdint.h>

#define UPF_UEPOOL_MAX_RANGES 8

struct upf_uepool {
	uint8_t af; /**< 4 or 6; 0: the pool is empty. */
	/** What one candidate is: 32 (an IPv4 address), or an IPv6 /48 to /64. */
	uint8_t blen;
	unsigned int n_range;
	struct {
		uint8_t a[16]; /**< The prefix, network order, host bits zero. */
		uint8_t plen;
		uint64_t first; /**< Offset of its first candidate in the prefix. */
		uint64_t n; /**< Candidates in it. */
	} r[UPF_UEPOOL_MAX_RANGES];
	uint64_t total; /**< Candidates in all ranges. */
	uint64_t cursor; /**< Index of the candidate tried next. */
};

/**
 * An empty pool of family af (4 or 6): no range, so every alloc fails.
 * An IPv6 pool hands out /64s.
 */
void upf_uepool_init(struct upf_uepool *p, uint8_t af);

/**
 * An empty IPv6 pool that hands out /len prefixes (48 to 64).
 * @return 0, or -EINVAL for another length.
 */
int upf_uepool_init6(struct upf_uepool *p, uint8_t len);

/**
 * Add a prefix (network order, host bits zero) to the pool: IPv4 /8 to
 * /32, whose network and broadcast addresses are left out when the prefix
 * is /30 or shorter; IPv6 /32 up to the pool's length, handed out in
 * prefixes of that length.
 * @return 0, or -EINVAL (wrong family or length, or more than
 * UPF_UEPOOL_MAX_RANGES prefixes).
 */
int upf_uepool_add(struct upf_uepool *p, uint8_t af, const uint8_t *a, uint8_t plen);

/**
 * Candidate i (below p->total) into out[16]: the IPv4 address in out[0..3],
 * or the IPv6 prefix in out[0..7] (its bits past p->blen zero); the rest
 * zero.
 */
void upf_uepool_addr(const struct upf_uepool *p, uint64_t i, uint8_t out[16]);

/**
 * Whether addr is one of the pool's candidates: an IPv4 address in
 * addr[0..3], or an IPv6 address inside one of its prefixes (only
 * addr[0..7] is read).
 */
bool upf_uepool_contains(const struct upf_uepool *p, const uint8_t addr[16]);

/** Whether addr (as upf_uepool_addr writes it) is in use. */
typedef bool (*upf_uepool_taken_fn)(void *ctx, const uint8_t addr[16]);

/**
 * The first candidate from the cursor on that taken() says is free, into
 * out; the cursor moves past it. At most limit candidates are tried (0:
 * the whole pool).
 * @return 0, or -ENOSPC when none of those tried was free.
 */
int upf_uepool_alloc(struct upf_uepool *p, upf_uepool_taken_fn taken, void *ctx, uint64_t limit,
		     uint8_t out[16]);

#endif /* LF_UPF_UEPOOL_H */
