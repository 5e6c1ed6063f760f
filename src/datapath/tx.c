/* SPDX-License-Identifier: BSD-3-Clause */
/* TX stage: per-port buffering into the worker's own TX queue, no locks. */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "tx.h"

/*
 * Residence of the packets just sent: they left now, but the worker reads
 * the TSC once per loop iteration, so note them as pending, one entry per
 * run of packets that came in the same RX burst (consecutive runs of one
 * burst merge); the worker records them at its next TSC read.
 */
static void
tx_record_latency(struct worker *w, struct lf_txbuf *b, uint16_t sent)
{
	uint16_t r;

	for (r = 0; r < b->n_runs && sent != 0; r++) {
		uint16_t k = RTE_MIN(b->runs[r].n, sent);

		worker_lat_pend(w, b->runs[r].rx_tsc, k);
		sent -= k;
	}
}

/* Account k more packets received at rx_tsc in the buffer. */
static inline void
tx_run_add(struct lf_txbuf *b, uint64_t rx_tsc, uint16_t k)
{
	if (b->n_runs != 0 && b->runs[b->n_runs - 1].rx_tsc == rx_tsc) {
		b->runs[b->n_runs - 1].n += k;
	} else {
		b->runs[b->n_runs].rx_tsc = rx_tsc;
		b->runs[b->n_runs++].n = k;
	}
}

/* Count what the PMD took of n; what it refused is freed and counted tx_full. */
static inline void
tx_account(struct worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t sent)
{
	LF_STAT_ADD(w->stats.tx_pkts, sent);
	if (unlikely(sent < n)) {
		LF_STAT_ADD(w->stats.drops[LF_DROP_TX_FULL], n - sent);
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
}

void
tx_flush(struct worker *w, struct lf_txbuf *b)
{
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(b->port_id, b->queue_id, b->pkts, b->n);
	if (w->latency) {
		tx_record_latency(w, b, sent);
		b->n_runs = 0;
	}
	tx_account(w, b->pkts, b->n, sent);
	b->n = 0;
}

uint16_t
tx_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const uint16_t burst = w->burst;
	const bool latency = w->latency;
	const uint64_t ts = w->rx_tsc;
	uint16_t i = 0;

	/*
	 * Packets come in runs to the same port. Copy a run with the buffer
	 * count in a register: a per-packet b->n++ through memory made a
	 * store-to-load chain that was 65% of this stage's samples.
	 */
	while (i < n) {
		const uint16_t out = w->meta[i].out;
		struct lf_txbuf *b = &w->tx[out];
		uint16_t cnt = b->n, first = cnt;

		do {
			b->pkts[cnt++] = pkts[i++];
			if (unlikely(cnt >= burst)) {
				b->n = cnt;
				if (latency)
					tx_run_add(b, ts, cnt - first);
				tx_flush(w, b);
				cnt = 0;
				first = 0;
			}
		} while (i < n && w->meta[i].out == out);
		b->n = cnt;
		if (latency && cnt != first)
			tx_run_add(b, ts, cnt - first);
	}
	return n;
}

void
tx_burst_port(struct worker *w, uint16_t out, struct rte_mbuf **pkts, uint16_t n)
{
	struct lf_txbuf *b = &w->tx[out];
	uint16_t sent;

	/*
	 * A whole burst for one port with nothing buffered before it: what
	 * tx_burst would copy into the buffer and flush at once, sent from
	 * where it is.
	 */
	if (b->n != 0 || n < w->burst) {
		uint16_t i;

		for (i = 0; i < n; i++)
			w->meta[i].out = out;
		tx_burst(w, pkts, n);
		return;
	}
	sent = rte_eth_tx_burst(b->port_id, b->queue_id, pkts, n);
	if (w->latency && sent != 0)
		worker_lat_pend(w, w->rx_tsc, sent);
	tx_account(w, pkts, n, sent);
}
