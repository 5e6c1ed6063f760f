/* SPDX-License-Identifier: BSD-3-Clause */
/* ARP, ND and held packets to the control thread (neigh_stage.h). */
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ring.h>

#include "neigh_stage.h"

/* The tag of a packet: ARP, ND, or held for its next hop. */
static inline uint32_t
neigh_tag(const struct lf_meta *meta)
{
	if (meta->af != 4 && meta->af != 6) /* parse sent it: ARP */
		return LF_CTRL_ARP;
	/* The local stage marks ND; a held packet carries the id of the
	 * next hop it waits for. */
	return (meta->flags & LF_META_ND) != 0 ? LF_CTRL_ND
					       : LF_CTRL_HELD | (meta->nh & ~LF_CTRL_TAG_MASK);
}

uint16_t
neigh_burst(struct lf_burst *b, struct rte_mbuf **pkts, uint16_t n)
{
	const uint64_t now = b->rx_tsc; /* one TSC read per burst, the loop's */
	struct rte_mbuf *q[LF_BURST_MAX];
	unsigned int nq = 0, done, i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct lf_meta *meta = &b->meta[i];
		const uint32_t tag = neigh_tag(meta);

		if (b->to_ctrl == NULL) {
			lf_burst_drop(b, m,
				      (tag & LF_CTRL_TAG_MASK) == LF_CTRL_HELD
					      ? LF_DROP_NEIGH_UNRESOLVED
					      : LF_DROP_NON_IP);
			continue;
		}
		if (!lf_tbucket_take(&b->neigh_tb, now)) {
			lf_burst_drop(b, m, LF_DROP_PUNT_RATE);
			continue;
		}
		m->hash.usr = tag;
		m->hash.fdir.hi = b->rx_port;
		q[nq++] = m;
	}
	if (nq == 0)
		return 0;
	done = rte_ring_sp_enqueue_burst(b->to_ctrl, (void **)q, nq, NULL);
	LF_STAT_ADD(b->stats->ev[LF_EV_PUNT_CTRL], done);
	for (i = done; i < nq; i++)
		lf_burst_drop(b, q[i], LF_DROP_PUNT_FULL);
	return 0;
}
