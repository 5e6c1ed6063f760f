/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run-to-completion worker loop: poll each owned RX queue, hand the
 * burst to the pipeline, account busy and idle TSC cycles and packets per
 * poll, drain partial TX buffers, adopt new table generations and age flows
 * between iterations.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "fastpath.h"
#include "flow_stage.h"
#include "hwclock.h"
#include "lf_log.h"
#include "pipeline.h"
#include "rxmode.h"
#include "tables.h"
#include "tx.h"
#include "worker.h"

const char *const lf_drop_names[LF_DROP_COUNT] = {
#define X(e, s) [LF_DROP_##e] = s,
	LF_DROP_REASONS(X)
#undef X
};

const char *const lf_event_names[LF_EV_COUNT] = {
#define X(e, n) [LF_EV_##e] = n,
	LF_EVENTS(X)
#undef X
};

/* The flow cache fronts only an ACL: a FIB lookup alone costs less than a
 * cache lookup (docs/pipeline-scale.md), so without one it stays idle. */
static void
worker_flows_update(struct worker *w)
{
	const bool acl = w->b.view.acl != NULL || w->b.view.acl6 != NULL;

	/* Telemetry reads it (the cache's state). */
	__atomic_store_n(&w->b.flows, acl ? w->flows : NULL, __ATOMIC_RELAXED);
}

void
worker_ready(struct worker *w)
{
	w->b.stats = &w->stats;
	w->tx.stats = &w->stats;
	w->tx.burst = w->burst_auto ? w->bc.cur : w->burst;
	w->tx.latency = w->latency;
	w->tx.lat = w->lat[w->lat_cur];
	if (w->b.fused_ip4 == NULL)
		fastpath_select(&w->b, LF_FUSED_AUTO);
	worker_flows_update(w);
}

void
worker_adopt(struct worker *w, const struct lf_tables *t)
{
	w->b.view.fib = &t->fib;
	w->b.view.acl = t->acl;
	w->b.view.acl6 = t->acl6;
	w->b.view.nh_table = t->nh_table;
	w->b.view.nh_count = t->nh_count;
	w->fib_epoch = __atomic_load_n(&t->fib.epoch, __ATOMIC_ACQUIRE);
	w->nh_epoch = __atomic_load_n(&t->nh_epoch, __ATOMIC_ACQUIRE);
	w->b.view.gen = ++w->flow_tag;
	w->cur_tables = t;
	worker_flows_update(w);
}

/*
 * The generation in use changed in place (kernel routes, a neighbour's
 * MAC): the flow cache's verdicts made before may be stale, so its tag
 * moves on. Two loads per loop iteration.
 */
static inline void
worker_epochs_check(struct worker *w)
{
	const struct lf_tables *t = w->cur_tables;
	const uint32_t fe = __atomic_load_n(&t->fib.epoch, __ATOMIC_ACQUIRE);
	const uint32_t ne = __atomic_load_n(&t->nh_epoch, __ATOMIC_ACQUIRE);

	if (unlikely(fe != w->fib_epoch || ne != w->nh_epoch)) {
		w->fib_epoch = fe;
		w->nh_epoch = ne;
		w->b.view.gen = ++w->flow_tag;
	}
}

void
worker_flush_tx(struct worker *w)
{
	tx_flush_all(&w->tx);
	if (w->tx.lat_pend_n != 0)
		tx_lat_record(&w->tx, rte_rdtsc());
}

/*
 * burst = auto: the controller judges the residences tx_lat_record is about
 * to record (one run per RX burst and port), so it holds the percentile of
 * what /lanefwd/latency shows. Runs recorded early because the pending list
 * filled (tx_lat_pend) are not judged: that takes 64 RX bursts in one
 * iteration.
 */
static inline void
worker_burst_judge(struct worker *w, uint64_t now)
{
	const struct lf_tx *t = &w->tx;
	unsigned int i;

	for (i = 0; i < t->lat_pend_n; i++)
		lf_burstctl_left(&w->bc, now - t->lat_pend[i].rx_tsc, t->lat_pend[i].n);
}

/* The loop's flush: with burst = auto the controller sees what it sends. */
static __rte_always_inline void
worker_flush(struct worker *w, const bool adapt)
{
	uint64_t now;

	if (!adapt) {
		worker_flush_tx(w);
		return;
	}
	tx_flush_all(&w->tx);
	if (w->tx.lat_pend_n != 0) {
		now = rte_rdtsc();
		worker_burst_judge(w, now);
		tx_lat_record(&w->tx, now);
	}
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
	if (t < w->b.rx_tsc)
		w->b.rx_tsc = t;
	LF_STAT_ADD(w->stats.rx_hw_stamped, 1);
}

/*
 * What the UPF's control thread hands back to worker 0: released FAR BUFF
 * packets, run through the pipeline as if just received (but not counted
 * as received again: they were when they first came in), and packets it
 * did not keep, counted here as drops by reason, so that received = sent +
 * dropped holds once nothing is held.
 */
static void
worker_from_ctrl(struct worker *w, struct rte_mbuf **pkts, uint16_t burst)
{
	struct lf_burst *b = &w->b;
	unsigned int n =
		rte_ring_sc_dequeue_burst(b->upf_wk->from_ctrl, (void **)pkts, burst, NULL);
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->hash.usr == UPF_CTRL_DISCARD) {
			const uint32_t why = m->hash.fdir.hi < UPF_DROP_COUNT
				? m->hash.fdir.hi
				: UPF_DROP_BUFFER_DISCARD;

			LF_STAT_ADD(b->upf_wk->stats.drops[why], 1);
			lf_burst_drop(b, m, LF_DROP_UPF);
			continue;
		}
		pkts[k++] = m;
	}
	lf_burst_drops_flush(b);
	b->prefetch_distance = 0;
	b->rx_tsc = rte_rdtsc();
	/* Each run of frames from one port as a burst of that port (the port
	 * index they first came in on: upf_stage's to_ctrl). */
	for (i = 0; i < k; i = n) {
		b->rx_port = (uint16_t)pkts[i]->hash.fdir.hi;
		for (n = i + 1; n < k && pkts[n]->hash.fdir.hi == b->rx_port; n++)
			;
		pipeline_run(b, &w->tx, pkts + i, (uint16_t)(n - i));
	}
}

/*
 * What the neighbour code hands worker 0 (dp.h LF_CTRL_*): frames it built,
 * sent as they are out of the port they name, and packets it held for a
 * next hop now resolved, run through the pipeline as if just received
 * (they were counted received when they first came in).
 */
static void
worker_from_neigh(struct worker *w, struct rte_mbuf **pkts, uint16_t burst)
{
	struct lf_burst *b = &w->b;
	const unsigned int n = rte_ring_sc_dequeue_burst(w->from_ctrl, (void **)pkts, burst, NULL);
	const uint64_t now = rte_rdtsc();
	unsigned int i, j;

	for (i = 0; i < n; i = j) {
		const uint32_t tag = pkts[i]->hash.usr;
		const uint32_t port = pkts[i]->hash.fdir.hi;

		/* A run of one tag and one port goes as one burst. */
		for (j = i + 1; j < n && pkts[j]->hash.usr == tag && pkts[j]->hash.fdir.hi == port;
		     j++)
			;
		if (port >= w->tx.n_ports || (tag != LF_CTRL_TX && tag != LF_CTRL_RERUN)) {
			rte_pktmbuf_free_bulk(pkts + i, j - i);
			continue;
		}
		if (tag == LF_CTRL_TX) {
			LF_STAT_ADD(w->stats.ev[LF_EV_CTRL_TX], j - i);
			tx_burst_port(&w->tx, (uint16_t)port, now, pkts + i, (uint16_t)(j - i));
			continue;
		}
		LF_STAT_ADD(w->stats.ev[LF_EV_CTRL_RERUN], j - i);
		b->rx_port = (uint16_t)port;
		b->prefetch_distance = 0;
		b->rx_tsc = now;
		pipeline_run(b, &w->tx, pkts + i, (uint16_t)(j - i));
	}
}

/*
 * interrupt, hybrid: nothing came for a while (lf_rxm_idle); TX is flushed
 * and every table reference dropped. Sleep reported offline, so that a
 * reload's grace period never waits on a sleeping worker.
 */
static uint64_t
worker_sleep(struct worker *w)
{
	uint64_t now;

	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_offline(w->qsv, w->index);
	now = lf_rxm_sleep(&w->rxm);
	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_online(w->qsv, w->index);
	return now;
}

/*
 * The loop, one instance for the modes that poll only (poll; pmd-mgmt, whose
 * callbacks run inside rx_burst) and one for those that sleep (interrupt,
 * hybrid: spin_tsc is 0 for interrupt). sleeps is a constant, so the poll
 * instance has no trace of the sleeping, as l3fwd's lpm_event_loop() with
 * its flags; always-inline so that each instance is specialised.
 */
/*
 * An iteration of `cycles` over w->stall_tsc (dp.h LF_STALL_US). @return the
 * cycles it counts for: 0 if the TSC stepped back (tbucket.h lf_tsc_due),
 * which wraps the difference to nearly 2^64.
 */
static __rte_noinline __rte_cold uint64_t
worker_stall(struct lf_worker_stats *s, uint64_t cycles)
{
	if (cycles > INT64_MAX) {
		LF_STAT_ADD(s->clock_steps, 1);
		return 0;
	}
	LF_STAT_ADD(s->stalls, 1);
	LF_STAT_ADD(s->stall_cycles, cycles);
	if (cycles > s->stall_max_cycles)
		__atomic_store_n(&s->stall_max_cycles, cycles, __ATOMIC_RELAXED);
	return cycles;
}

static __rte_always_inline int
worker_loop(struct worker *w, const bool sleeps, const bool adapt)
{
	struct rte_mbuf *pkts[LF_BURST_MAX];
	struct lf_worker_stats *s = &w->stats;
	uint16_t burst = adapt ? w->bc.cur : w->burst;
	uint64_t prev, now, poll_tsc, took;
	bool backlog = false; /* queue 0's last poll returned a whole burst */
	unsigned int q;

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
				worker_adopt(w, t);
			else if (w->flows != NULL)
				worker_epochs_check(w);
		}

		for (q = 0; q < w->n_rxq; q++) {
			const struct lf_rxq *rq = &w->rxq[q];
			uint16_t n = rte_eth_rx_burst(rq->port_id, rq->queue_id, pkts, burst);

			LF_STAT_ADD(s->burst_hist[lf_burst_bucket(n)], 1);
			if (n == 0) {
				backlog &= q != 0;
				continue;
			}
			if (adapt)
				lf_burstctl_poll(&w->bc, n);
			/* A kernel mirror's queue: what the kernel sends leaves
			 * through the port it mirrors, as it is. */
			if (unlikely(rq->exc_of != LF_NH_INVALID)) {
				LF_STAT_ADD(s->ev[LF_EV_EXC_RX], n);
				tx_burst_port(&w->tx, rq->exc_of, rte_rdtsc(), pkts, n);
				continue;
			}
			got += n;
			w->b.rx_port = rq->port_idx;
			w->b.prefetch_distance = rq->prefetch_distance;
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
			w->b.rx_tsc = q == 0 && backlog ? poll_tsc : rte_rdtsc();
			if (q == 0)
				backlog = n == burst;
			if (w->hwclk != NULL)
				worker_rx_time_hw(w, pkts[0], rq->port_idx);
			pipeline_run(&w->b, &w->tx, pkts, n);
		}
		/* Worker 0 also takes what the UPF's control thread hands back
		 * (released FAR BUFF packets), as if just received. */
		if (w->b.upf_wk != NULL && w->index == 0 &&
		    unlikely(!rte_ring_empty(w->b.upf_wk->from_ctrl)))
			worker_from_ctrl(w, pkts, burst);
		if (w->from_ctrl != NULL && unlikely(!rte_ring_empty(w->from_ctrl)))
			worker_from_neigh(w, pkts, burst);
		now = rte_rdtsc();
		/* What this iteration sent has left: its residence ends now. */
		if (adapt) {
			worker_burst_judge(w, now);
			w->tx.burst = burst = lf_burstctl_iter(&w->bc, now);
		}
		tx_lat_record(&w->tx, now);
		poll_tsc = now;
		LF_STAT_ADD(s->polls, w->n_rxq);
		/* Between bursts: hand the latency buffer over if asked. */
		if (unlikely(__atomic_load_n(&w->lat_req, __ATOMIC_ACQUIRE) != w->lat_ack)) {
			w->lat_cur ^= 1;
			w->tx.lat = w->lat[w->lat_cur];
			__atomic_store_n(&w->lat_ack, w->lat_req, __ATOMIC_RELEASE);
		}
		took = now - prev;
		if (unlikely(took > w->stall_tsc))
			took = worker_stall(s, took);
		if (got != 0) {
			LF_STAT_ADD(s->rx_pkts, got);
			LF_STAT_ADD(s->busy_polls, 1);
			LF_STAT_ADD(s->busy_cycles, took);
			/* Under load, partial bursts wait at most drain_tsc. */
			if (now - w->last_drain >= w->drain_tsc) {
				worker_flush(w, adapt);
				w->last_drain = now;
				poll_tsc = rte_rdtsc();
			}
		} else {
			LF_STAT_ADD(s->idle_cycles, took);
			/* Nothing more is coming now: holding packets only adds latency. */
			worker_flush(w, adapt);
			w->last_drain = now;
			poll_tsc = rte_rdtsc();
		}
		/* Flow aging, a slice at a time: every ~100 us, busy or not. */
		if (w->flows != NULL &&
		    lf_tsc_due(now, w->flow_expire_tsc, w->flow_expire_period)) {
			lf_flow_expire(w->flows, now, LF_FLOW_EXPIRE_BUDGET);
			w->flow_expire_tsc = now + w->flow_expire_period;
			poll_tsc = rte_rdtsc();
		}
		prev = now;
		/* Every packet of this iteration is past the lookups: none
		 * refers to a table any more (TX buffers hold rewritten mbufs). */
		if (w->qsv != NULL)
			rte_rcu_qsbr_quiescent(w->qsv, w->index);
		/* Empty (TX flushed above): arm, re-poll once armed, then sleep. */
		if (sleeps && lf_rxm_idle(&w->rxm, got, now)) {
			prev = worker_sleep(w);
			poll_tsc = prev;
		}
	}
	if (w->qsv != NULL)
		rte_rcu_qsbr_thread_offline(w->qsv, w->index);
	worker_flush_tx(w);
	return 0;
}

static __rte_noinline __rte_hot int
worker_loop_poll(struct worker *w)
{
	return worker_loop(w, false, false);
}

static __rte_noinline __rte_hot int
worker_loop_sleep(struct worker *w)
{
	return worker_loop(w, true, false);
}

/* burst = auto: the same loops with the controller (a fixed burst's loops
 * carry none of it). */
static __rte_noinline __rte_hot int
worker_loop_poll_auto(struct worker *w)
{
	return worker_loop(w, false, true);
}

static __rte_noinline __rte_hot int
worker_loop_sleep_auto(struct worker *w)
{
	return worker_loop(w, true, true);
}

int
worker_main(void *arg)
{
	struct worker *w = arg;

	/* Logs here, not in the loop: rte_log() is cold, and a cold call on
	 * every path through the loop function makes GCC optimise it all for
	 * size (it did so to the single loop before rx modes). */
	LF_LOG(INFO, worker,
	       "worker %u on lcore %u (socket %d): %u RX queues, rx_mode %s, burst %s%u, fused stages %s, flow cache %s, flow prefetch %u",
	       w->index, w->lcore, w->socket, w->n_rxq, lf_rx_mode_names[w->rxm.mode],
	       w->burst_auto ? "auto up to " : "", w->burst,
	       w->b.fused_avx512 ? "AVX-512" : "scalar",
	       w->flows == NULL             ? "off"
		       : w->b.flows != NULL ? "in front of the ACL"
					    : "idle (no ACL)",
	       w->b.flow_prefetch_distance);

	if (w->rxm.mode == LF_RX_INTERRUPT || w->rxm.mode == LF_RX_HYBRID)
		w->burst_auto ? worker_loop_sleep_auto(w) : worker_loop_sleep(w);
	else
		w->burst_auto ? worker_loop_poll_auto(w) : worker_loop_poll(w);
	LF_LOG(INFO, worker, "worker %u on lcore %u stopped", w->index, w->lcore);
	return 0;
}
