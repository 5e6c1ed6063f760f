/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-gen data path: the TX poll (pace, build, stamp, send), the RX poll
 * (stamp, per-flow accounting, latency) and the lcore loop that runs either
 * or both for one trial. No allocation and no logging per packet; counters
 * are stored once per burst by their only writer.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "gen_app.h"

/* Send what is pending; returns how many the PMD took. */
static uint16_t
tx_send_pending(struct gen_txer *t, uint64_t now)
{
	uint16_t sent;
	uint64_t bytes = 0;
	uint16_t i;

	const uint16_t offered = t->n_pend - t->pend_off;

	sent = rte_eth_tx_burst(t->port, t->queue, t->pend + t->pend_off, offered);
	if (sent < offered && !t->pend_warm) {
		/* Backpressure: count each refused packet once, every short call. */
		GEN_STAT_ADD(t->st.refused_calls, 1);
		if (!t->pend_refused) {
			GEN_STAT_ADD(t->st.refused, offered - sent);
			t->pend_refused = true;
		}
	}
	if (sent == 0)
		return 0;
	if (t->pend_warm) {
		GEN_STAT_ADD(t->st.tx_warmup, sent);
	} else {
		const uint64_t lag = now > t->pend_due ? now - t->pend_due : 0;

		for (i = 0; i < sent; i++)
			bytes += t->pend[t->pend_off + i]->pkt_len + GEN_FCS_LEN;
		if (t->st.tx == 0)
			GEN_STAT_ADD(t->st.first_tsc, now);
		GEN_STAT_ADD(t->st.tx, sent);
		GEN_STAT_ADD(t->st.bytes, bytes);
		GEN_STAT_ADD(t->st.lag_sum, lag * sent);
		if (lag > t->st.lag_max)
			__atomic_store_n(&t->st.lag_max, lag, __ATOMIC_RELAXED);
		__atomic_store_n(&t->st.last_tsc, now, __ATOMIC_RELAXED);
	}
	t->pend_off += sent;
	if (t->pend_off == t->n_pend)
		t->n_pend = t->pend_off = 0;
	return sent;
}

/* Build n frames into t->pend: flow, size and sequence number per packet. */
static void
tx_build(struct gen_txer *t, unsigned int n, bool warm)
{
	const uint16_t magic = warm ? GEN_MAGIC_WARMUP : GEN_MAGIC;
	struct gen_flow_tuple ft;
	uint64_t tsc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = t->pend[i];
		uint32_t f = gen_select_next(&t->sel);
		uint16_t size = gen_sizes_next(&t->sizes);
		uint16_t len;

		gen_flow_tuple(&t->flows, f, &ft);
		len = gen_pkt_build(&t->tmpl, rte_pktmbuf_mtod(m, uint8_t *), &ft, size, magic, f,
				    t->seq[f]++);
		m->data_len = len;
		m->pkt_len = len;
	}
	/* One TSC for the burst, read after the build, right before the send. */
	tsc = rte_rdtsc();
	for (i = 0; i < n; i++)
		gen_pkt_finish(&t->tmpl, rte_pktmbuf_mtod(t->pend[i], uint8_t *), tsc);
	t->n_pend = (uint16_t)n;
	t->pend_off = 0;
	t->pend_warm = warm;
	t->pend_refused = false;
}

/*
 * One TX iteration at TSC now; returns true once TX is over for this trial.
 * Packets due before t_end are all sent, however late the last poll comes,
 * so a paced trial sends exactly rate x duration (unless interrupted).
 */
static bool
gen_tx_poll(struct gen_txer *t, uint64_t now)
{
	const uint64_t first_due = t->pace.next;
	unsigned int n;
	bool stop = now >= t->t_end || *t->quit;

	if (t->n_pend != 0) {
		tx_send_pending(t, now);
		if (t->n_pend != 0) {
			if (!stop || now < t->t_give_up)
				return false;
			/* The PMD refused them until the end: not sent, and nothing
			 * more is built (what is still due was never offered). */
			GEN_STAT_ADD(t->st.unsent, t->n_pend - t->pend_off);
			rte_pktmbuf_free_bulk(t->pend + t->pend_off, t->n_pend - t->pend_off);
			t->n_pend = t->pend_off = 0;
			return true;
		}
	}
	if (*t->quit || (stop && t->pps == 0))
		return true;
	n = gen_pace_due(&t->pace, stop ? t->t_end - 1 : now, t->burst);
	if (n == 0)
		return stop;
	if (unlikely(rte_pktmbuf_alloc_bulk(t->pool, t->pend, n) != 0)) {
		GEN_STAT_ADD(t->st.alloc_fail, 1);
		return false;
	}
	/* Warm-up or measured: by the due time of the burst's first packet. */
	tx_build(t, n, t->pps != 0 ? first_due < t->t_measure : now < t->t_measure);
	t->pend_due = t->pps != 0 ? first_due : now;
	tx_send_pending(t, now);
	return false;
}

/* One RX iteration at TSC now; returns true once RX is over for this trial. */
static bool
gen_rx_poll(struct gen_rxer *r, uint64_t now)
{
	struct rte_mbuf *pkts[GEN_BURST_MAX];
	struct gen_rx_counts c = { 0 };
	uint16_t n, i;
	uint64_t tsc48;

	if (unlikely(*r->quit) && !r->quit_seen) {
		r->quit_seen = true;
		if (now + r->drain_cycles < r->t_end)
			r->t_end = now + r->drain_cycles;
	}
	if (now >= r->t_end)
		return true;
	n = rte_eth_rx_burst(r->port, r->queue, pkts, r->burst);
	if (n == 0)
		return false;
	tsc48 = rte_rdtsc() & GEN_TSC_MASK;
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(pkts[i]);
		struct gen_rx_tun tun;
		struct gen_stamp st;
		int off, rc;

		if (i + 2 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void *));
		c.bytes += rte_pktmbuf_pkt_len(pkts[i]);
		if (r->gtpu.mode == GEN_GTPU_NONE)
			off = gen_payload_offset(d, len);
		else
			off = gen_payload_offset_gtpu(d, len, &tun);
		if (unlikely(off < 0)) {
			c.foreign++;
			continue;
		}
		rc = gen_stamp_get(d + off, len - off, &st);
		if (unlikely(rc != GEN_STAMP_OK)) {
			if (rc == GEN_STAMP_CORRUPT)
				c.corrupt++;
			else
				c.foreign++;
			continue;
		}
		if (unlikely(st.flow >= r->n_flows)) {
			c.corrupt++;
			continue;
		}
		/* GTP-U: ours, but not as the UPF should have sent it on: not received. */
		if (r->gtpu.mode != GEN_GTPU_NONE &&
		    unlikely(!gen_gtpu_rx_ok(&r->gtpu, &r->flows, st.flow, d, &tun))) {
			c.mismatch++;
			continue;
		}
		if (st.magic == GEN_MAGIC_WARMUP) {
			c.warmup++;
			continue;
		}
		c.stamped++;
		switch (gen_seq_account(&r->flow[st.flow], st.seq)) {
		case GEN_SEQ_DUP:
			c.dup++;
			continue; /* A copy: its latency is not a delivery's. */
		case GEN_SEQ_LATE:
		case GEN_SEQ_LATE_OLD:
			c.reordered++;
			break;
		default:
			break;
		}
		lf_hist_record_n(r->hist, (tsc48 - st.tsc) & GEN_TSC_MASK, 1);
	}
	rte_pktmbuf_free_bulk(pkts, n);
	GEN_STAT_ADD(r->st.rx, n);
	GEN_STAT_ADD(r->st.bytes, c.bytes);
	if (c.stamped != 0)
		GEN_STAT_ADD(r->st.stamped, c.stamped);
	if (c.reordered != 0)
		GEN_STAT_ADD(r->st.reordered, c.reordered);
	if (c.dup != 0)
		GEN_STAT_ADD(r->st.dup, c.dup);
	if (c.warmup != 0)
		GEN_STAT_ADD(r->st.warmup, c.warmup);
	if (c.foreign != 0)
		GEN_STAT_ADD(r->st.foreign, c.foreign);
	if (c.corrupt != 0)
		GEN_STAT_ADD(r->st.corrupt, c.corrupt);
	if (c.mismatch != 0)
		GEN_STAT_ADD(r->st.mismatch, c.mismatch);
	return false;
}

int
gen_lcore_run(void *arg)
{
	struct gen_role *role = arg;
	uint64_t next_progress = rte_rdtsc() + role->hz;
	bool tx_done = role->tx == NULL, rx_done = role->rx == NULL;

	while (!tx_done || !rx_done) {
		uint64_t now = rte_rdtsc();

		if (!tx_done)
			tx_done = gen_tx_poll(role->tx, now);
		if (!rx_done)
			rx_done = gen_rx_poll(role->rx, now);
		if (role->progress != NULL && now >= next_progress) {
			role->progress(role->progress_arg);
			next_progress += role->hz;
		}
	}
	if (role->tx != NULL)
		role->tx->done = true;
	if (role->rx != NULL)
		role->rx->done = true;
	return 0;
}

void
gen_result_collect(struct gen_result *r, const struct gen_txer *tx, const struct gen_rxer *rx,
		   uint64_t hz)
{
	uint64_t cycles = 0;
	uint32_t f;

	r->tx = tx->st;
	r->rx = rx->st;
	r->target_pps = tx->pps;
	r->unique = gen_rx_unique(&rx->st);
	r->lost = r->tx.tx > r->unique ? r->tx.tx - r->unique : 0;
	r->loss_ratio = r->tx.tx != 0 ? (double)r->lost / (double)r->tx.tx : 0;
	/* The measured window: from the end of warm-up to the last send. */
	if (r->tx.tx != 0)
		cycles = r->tx.last_tsc - RTE_MIN(tx->t_measure, r->tx.first_tsc);
	if (cycles == 0 || r->tx.tx < 2)
		cycles = tx->t_end - tx->t_measure;
	r->duration_s = (double)cycles / (double)hz;
	r->tx_pps = r->duration_s > 0 ? r->tx.tx / r->duration_s : 0;
	r->rx_pps = r->duration_s > 0 ? r->unique / r->duration_s : 0;
	r->tx_gbps = r->duration_s > 0 ? r->tx.bytes * 8 / r->duration_s / 1e9 : 0;
	r->flows_seen = 0;
	for (f = 0; f < rx->n_flows; f++)
		r->flows_seen += rx->flow[f].win != 0;
	r->ns_per_cycle = 1e9 / (double)hz;
}
