/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run-to-completion worker loop: poll each owned RX queue, run the burst
 * through parse -> ACL -> FIB -> rewrite -> TX, account busy and idle TSC cycles and
 * packets per poll, and drain partial TX buffers.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_rcu_qsbr.h>

#include "acl_stage.h"
#include "fastpath.h"
#include "fib.h"
#include "flow_stage.h"
#include "hwclock.h"
#include "lf_log.h"
#include "parse.h"
#include "rewrite.h"
#include "tables.h"
#include "tx.h"
#include "worker.h"

const char *const lf_drop_names[LF_DROP_COUNT] = {
#define X(e, s) [LF_DROP_##e] = s,
	LF_DROP_REASONS(X)
#undef X
};

void
worker_process_staged(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	n = parse_burst(w, pkts, n);
	if (w->flows != NULL && likely(n != 0))
		n = flow_stage_burst(w, pkts, n);
	worker_slow_tail(w, pkts, n);
	lf_drops_flush(w);
}

void
worker_slow_tail(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	if ((w->acl != NULL || w->acl6 != NULL) && likely(n != 0))
		n = acl_stage_burst(w, pkts, n);
	if (likely(n != 0))
		n = fib_burst(w, pkts, n);
	if (likely(n != 0))
		n = rewrite_burst(w, pkts, n);
	if (w->flows != NULL && n != 0)
		flow_learn_burst(w, pkts, n);
	if (likely(n != 0))
		tx_burst(w, pkts, n);
}

void
worker_process_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	if (likely(w->flows != NULL ? fastpath_flow_burst(w, pkts, n)
				    : fastpath_burst(w, pkts, n))) {
		lf_drops_flush(w);
		return;
	}
	worker_process_staged(w, pkts, n);
}

void
worker_flush_tx(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < w->n_tx; i++)
		tx_flush(w, &w->tx[i]);
	if (w->lat_pend_n != 0)
		worker_lat_record(w, rte_rdtsc());
}

void
worker_lat_record(struct worker *w, uint64_t now)
{
	struct lf_hist *h = w->lat[w->lat_cur];
	unsigned int i;

	for (i = 0; i < w->lat_pend_n; i++)
		lf_hist_record_n(h, now - w->lat_pend[i].rx_tsc, w->lat_pend[i].n);
	w->lat_pend_n = 0;
}

/*
 * latency_clock = hw: the burst arrived when its first (oldest) packet was
 * stamped by the port, which may be well before rx_burst returned; never
 * later (a map slightly off must not make residence shorter than software
 * would measure).
 */
static inline void
worker_rx_time_hw(struct worker *w, const struct rte_mbuf *m, uint16_t port_idx)
{
	uint64_t t;

	if (unlikely(!(m->ol_flags & w->ts_flag)))
		return;
	t = lf_hwclock_to_tsc(&w->hwclk[port_idx],
			      *RTE_MBUF_DYNFIELD(m, w->ts_off, const rte_mbuf_timestamp_t *));
	if (t < w->rx_tsc)
		w->rx_tsc = t;
	LF_STAT_ADD(w->stats.rx_hw_stamped, 1);
}

int
worker_main(void *arg)
{
	struct worker *w = arg;
	struct rte_mbuf *pkts[LF_BURST_MAX];
	struct lf_worker_stats *s = &w->stats;
	const uint16_t burst = w->burst;
	uint64_t prev, now, poll_tsc;
	bool backlog = false; /* queue 0's last poll returned a whole burst */
	unsigned int q;

	LF_LOG(INFO, worker,
	       "worker %u on lcore %u (socket %d): %u RX queues, burst %u, flow prefetch %u",
	       w->index, w->lcore, w->socket, w->n_rxq, w->burst, w->prefetch);

	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_online(w->qsv, w->index);
	prev = rte_rdtsc();
	poll_tsc = prev;
	w->last_drain = prev;
	while (!*w->quit) {
		uint32_t got = 0;

		/* A reload published a new generation: adopt it whole. */
		if (w->tables != NULL) {
			const struct lf_tables *t = __atomic_load_n(w->tables, __ATOMIC_ACQUIRE);

			if (unlikely(t != w->cur_tables))
				tables_adopt(w, t);
		}

		for (q = 0; q < w->n_rxq; q++) {
			const struct lf_rxq *rq = &w->rxq[q];
			uint16_t n = rte_eth_rx_burst(rq->port_id, rq->queue_id, pkts, burst);

			LF_STAT_ADD(s->burst_hist[lf_burst_bucket(n)], 1);
			if (n == 0) {
				backlog &= q != 0;
				continue;
			}
			got += n;
			w->rx_port = rq->port_idx;
			w->data_prefetch = rq->prefetch;
			/*
			 * RX time. When the first queue's last poll filled a
			 * whole burst, the ring was backlogged: these packets
			 * were waiting when this poll began, at the TSC read
			 * that ended the last iteration (or the housekeeping
			 * after it), and that read serves. Otherwise they may
			 * have come during the poll (or a preemption before
			 * it), and so may a later queue's after the bursts
			 * before it: read the TSC afresh.
			 */
			w->rx_tsc = q == 0 && backlog ? poll_tsc : rte_rdtsc();
			if (q == 0)
				backlog = n == burst;
			if (w->hwclk != NULL)
				worker_rx_time_hw(w, pkts[0], rq->port_idx);
			worker_process_burst(w, pkts, n);
		}
		now = rte_rdtsc();
		/* What this iteration sent has left: its residence ends now. */
		if (w->lat_pend_n == 1) {
			/* One run sent (the common case): recorded here, no call. */
			lf_hist_record_n(w->lat[w->lat_cur], now - w->lat_pend[0].rx_tsc,
					 w->lat_pend[0].n);
			w->lat_pend_n = 0;
		} else if (w->lat_pend_n != 0) {
			worker_lat_record(w, now);
		}
		poll_tsc = now;
		LF_STAT_ADD(s->polls, w->n_rxq);
		/* Between bursts: hand the latency buffer over if asked. */
		if (unlikely(__atomic_load_n(&w->lat_req, __ATOMIC_ACQUIRE) != w->lat_ack)) {
			w->lat_cur ^= 1;
			__atomic_store_n(&w->lat_ack, w->lat_req, __ATOMIC_RELEASE);
		}
		if (got != 0) {
			LF_STAT_ADD(s->rx_pkts, got);
			LF_STAT_ADD(s->busy_polls, 1);
			LF_STAT_ADD(s->busy_cycles, now - prev);
			/* Under load, partial bursts wait at most drain_tsc. */
			if (now - w->last_drain >= w->drain_tsc) {
				worker_flush_tx(w);
				w->last_drain = now;
				poll_tsc = rte_rdtsc();
			}
		} else {
			LF_STAT_ADD(s->idle_cycles, now - prev);
			/* Nothing more is coming now: holding packets only adds latency. */
			worker_flush_tx(w);
			w->last_drain = now;
			poll_tsc = rte_rdtsc();
		}
		/* Flow aging, a slice at a time: every ~100 us, busy or not. */
		if (w->flows != NULL && now >= w->flow_expire_tsc) {
			flow_stage_expire(w, now, LF_FLOW_EXPIRE_BUDGET);
			w->flow_expire_tsc = now + w->flow_expire_period;
			poll_tsc = rte_rdtsc();
		}
		prev = now;
		/* Every packet of this iteration is past the lookups: none
		 * refers to a table any more (TX buffers hold rewritten mbufs). */
		if (w->qsv != NULL)
			rte_rcu_qsbr_quiescent(w->qsv, w->index);
	}
	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_offline(w->qsv, w->index);
	worker_flush_tx(w);
	LF_LOG(INFO, worker, "worker %u on lcore %u stopped", w->index, w->lcore);
	return 0;
}
