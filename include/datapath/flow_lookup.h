/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The flow cache's burst lookup as both flow stages run it (the staged one,
 * flow_stage.c, and the fused one, fastpath.c): look up b->flow_keys[0..n)
 * and count the leading packets whose entry holds a verdict of the tables
 * in force.
 */
#ifndef LF_FLOW_LOOKUP_H
#define LF_FLOW_LOOKUP_H

#include <stdint.h>

#include "dp.h"
#include "flow.h"

/**
 * @param hash  The keys' hashes (lf_flow_hash_prefetch) when
 *              b->flow_prefetch_distance != 0; unused otherwise.
 * @return how many packets, from the first on, have a valid cached verdict
 *         (b->flow_hit[i]).
 */
static inline uint16_t
lf_flow_lookup_leading(struct lf_burst *b, const uint64_t *hash, uint16_t n)
{
	const uint16_t dist = b->flow_prefetch_distance;
	const uint32_t gen = b->view.gen;
	uint16_t first;

	if (dist != 0)
		lf_flow_lookup_burst_hashed(b->flows, b->flow_keys, hash, n, dist, b->rx_tsc,
					    b->flow_hit);
	else
		lf_flow_lookup_burst(b->flows, b->flow_keys, n, 0, b->rx_tsc, b->flow_hit);
	for (first = 0; first < n; first++) {
		const struct lf_flow_hot *e = b->flow_hit[first];

		if (e == NULL || !lf_flow_verdict_valid(e, gen))
			break;
	}
	return first;
}

#endif /* LF_FLOW_LOOKUP_H */
