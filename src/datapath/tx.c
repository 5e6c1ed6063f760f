/* SPDX-License-Identifier: BSD-3-Clause */
/* TX: per-port buffering into the worker's own TX queue, no locks (tx.h). */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "tx.h"

/*
 * Residence of the packets just sent: one pending entry per run of packets
 * that came in the same RX burst (consecutive runs of one burst merge).
 */
static void
tx_record_latency(struct lf_tx *t, struct lf_txbuf *b, uint16_t sent)
{
	uint16_t r;

	for (r = 0; r < b->n_runs && sent != 0; r++) {
		uint16_t k = RTE_MIN(b->runs[r].n, sent);

		tx_lat_pend(t, b->runs[r].rx_tsc, k);
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
tx_account(struct lf_tx *t, struct rte_mbuf **pkts, uint16_t n, uint16_t sent)
{
	LF_STAT_ADD(t->stats->tx_pkts, sent);
	if (unlikely(sent < n)) {
		LF_STAT_ADD(t->stats->drops[LF_DROP_TX_FULL], n - sent);
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
}

void
tx_flush(struct lf_tx *t, struct lf_txbuf *b)
{
	uint16_t sent;

	if (b->n == 0)
		return;
	sent = rte_eth_tx_burst(b->port_id, b->queue_id, b->pkts, b->n);
	if (t->latency) {
		tx_record_latency(t, b, sent);
		b->n_runs = 0;
	}
	tx_account(t, b->pkts, b->n, sent);
	b->n = 0;
}

void
tx_flush_all(struct lf_tx *t)
{
	unsigned int i;

	for (i = 0; i < t->n_ports; i++)
		tx_flush(t, &t->buf[i]);
}

/*
 * Append pkts[i..) to port out's buffer while they go to out (meta NULL:
 * all of them), sending it whenever it fills; returns the index of the
 * first packet for another port. The buffer count stays in a register: a
 * per-packet b->n++ through memory makes a store-to-load chain.
 */
static inline uint16_t
tx_append(struct lf_tx *t, uint16_t out, const struct lf_meta *meta, uint64_t rx_tsc,
	  struct rte_mbuf **pkts, uint16_t i, uint16_t n)
{
	struct lf_txbuf *b = &t->buf[out];
	const uint16_t burst = t->burst;
	uint16_t cnt = b->n, first = cnt;

	do {
		b->pkts[cnt++] = pkts[i++];
		if (unlikely(cnt >= burst)) {
			b->n = cnt;
			if (t->latency)
				tx_run_add(b, rx_tsc, cnt - first);
			tx_flush(t, b);
			cnt = 0;
			first = 0;
		}
	} while (i < n && (meta == NULL || meta[i].out == out));
	b->n = cnt;
	if (t->latency && cnt != first)
		tx_run_add(b, rx_tsc, cnt - first);
	return i;
}

void
tx_burst(struct lf_tx *t, const struct lf_meta *meta, uint64_t rx_tsc, struct rte_mbuf **pkts,
	 uint16_t n)
{
	uint16_t i = 0;

	/* Packets come in runs to the same port: one run at a time. */
	while (i < n)
		i = tx_append(t, meta[i].out, meta, rx_tsc, pkts, i, n);
}

void
tx_burst_port(struct lf_tx *t, uint16_t out, uint64_t rx_tsc, struct rte_mbuf **pkts, uint16_t n)
{
	struct lf_txbuf *b = &t->buf[out];
	uint16_t sent;

	/*
	 * Less than half a burst, or anything while the buffer holds some:
	 * gathered with what follows into whole TX calls. Half a burst or
	 * more into an empty buffer goes now, as l3fwd's send_packetsx4 does
	 * (MAX_TX_BURST): buffered, it would cost a TX call of its own later
	 * all the same (a burst short by a punted or dropped packet,
	 * docs/punt-flood.md), plus the copy and the wait.
	 */
	if (n < t->burst && (n < t->burst / 2 || b->n != 0)) {
		if (n != 0)
			tx_append(t, out, NULL, rx_tsc, pkts, 0, n);
		return;
	}
	/*
	 * A whole burst is sent from where it is. What a short burst left in
	 * the buffer goes first, in a call of its own: appended instead, the
	 * full bursts after it would each fill the buffer, flush it and leave
	 * the same remainder, copying every packet until the drain timer
	 * empties it (docs/punt-flood.md).
	 */
	if (unlikely(b->n != 0))
		tx_flush(t, b);
	sent = rte_eth_tx_burst(b->port_id, b->queue_id, pkts, n);
	if (t->latency && sent != 0)
		tx_lat_pend(t, rx_tsc, sent);
	tx_account(t, pkts, n, sent);
}
