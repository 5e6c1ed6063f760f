/* SPDX-License-Identifier: BSD-3-Clause */
/* TX stage: per-port buffering into the worker's own TX queue, no locks. */
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "tx.h"

int
tx_init(void)
{
	return 0;
}

void
tx_free(void)
{
}

void
tx_flush(struct worker *w, struct lf_txbuf *b)
{
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(b->port_id, b->queue_id, b->pkts, b->n);
	LF_STAT_ADD(w->stats.tx_pkts, sent);
	if (unlikely(sent < b->n)) {
		LF_STAT_ADD(w->stats.drops[LF_DROP_TX_FULL], b->n - sent);
		rte_pktmbuf_free_bulk(&b->pkts[sent], b->n - sent);
	}
	b->n = 0;
}

uint16_t
tx_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t burst = w->burst;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct lf_txbuf *b = &w->tx[w->meta[i].out];

		b->pkts[b->n++] = pkts[i];
		if (unlikely(b->n >= burst))
			tx_flush(w, b);
	}
	return n;
}
