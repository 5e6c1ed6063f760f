/* SPDX-License-Identifier: BSD-3-Clause */
/* The packets no kind handles: counted and freed (unhandled.h). */
#include "unhandled.h"

uint16_t
unhandled_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		lf_burst_drop(b, pkts[i], LF_DROP_NON_IP);
	return 0;
}
