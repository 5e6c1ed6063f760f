/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TX: packets are buffered per output port in the worker's own TX queue
 * and sent when a full burst is ready, when the worker goes idle, or when
 * the drain timer expires. What the PMD refuses is freed and counted
 * tx_full. Only the pipeline (pipeline.c) and the worker loop call it.
 *
 * With latency on, TX also notes when what it sent had arrived: the
 * residence (RX time -> the end of the loop iteration that sent it) is
 * recorded into t->lat at the worker's next TSC read (tx_lat_record), so
 * that one read per loop iteration serves every TX of the iteration.
 */
#ifndef LF_TX_H
#define LF_TX_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "config.h"
#include "dp.h"
#include "hist.h"

/** Residence entries kept between two TSC reads. */
#define LF_LAT_PEND_MAX 64

/** TX buffer of one worker for one output port (its own TX queue). */
struct lf_txbuf {
	uint16_t port_id;
	uint16_t queue_id;
	uint16_t n;
	struct rte_mbuf *pkts[LF_BURST_MAX];
	/** With latency on: runs of buffered packets that share an RX time. */
	uint16_t n_runs;
	struct {
		uint64_t rx_tsc; /**< RX time of their burst. */
		uint16_t n;
	} runs[LF_BURST_MAX];
};

/** A worker's TX side. worker only, once running. */
struct lf_tx {
	uint16_t burst; /**< Send a buffer when it holds this many. */
	bool latency; /**< Note residences. */
	unsigned int n_ports; /**< Buffers in use: buf[0..n_ports). */
	struct lf_worker_stats *stats; /**< The worker's counters. */
	struct lf_hist *lat; /**< Where residences go (the worker swaps it). */
	/** Packets sent since the last TSC read, by RX time. */
	uint16_t lat_pend_n;
	struct {
		uint64_t rx_tsc;
		uint32_t n;
	} lat_pend[LF_LAT_PEND_MAX];
	struct lf_txbuf buf[LF_MAX_DP_PORTS]; /**< By output port index. */
};

/** Record the pending residences as ending at now. */
static inline void
tx_lat_record(struct lf_tx *t, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < t->lat_pend_n; i++)
		lf_hist_record_n(t->lat, now - t->lat_pend[i].rx_tsc, t->lat_pend[i].n);
	t->lat_pend_n = 0;
}

/**
 * Note n packets received at rx_tsc as sent; their residence is recorded at
 * the worker's next TSC read. A full list is first recorded at once, on a
 * fresh TSC read.
 */
static inline void
tx_lat_pend(struct lf_tx *t, uint64_t rx_tsc, uint32_t n)
{
	uint16_t k = t->lat_pend_n;

	if (k != 0 && t->lat_pend[k - 1].rx_tsc == rx_tsc) {
		t->lat_pend[k - 1].n += n;
		return;
	}
	if (unlikely(k == LF_LAT_PEND_MAX)) {
		tx_lat_record(t, rte_rdtsc());
		k = 0;
	}
	t->lat_pend[k].rx_tsc = rx_tsc;
	t->lat_pend[k].n = n;
	t->lat_pend_n = k + 1;
}

/** Send the buffer of one port now. */
void tx_flush(struct lf_tx *t, struct lf_txbuf *b);

/** Send every buffered packet now (residences stay pending). */
void tx_flush_all(struct lf_tx *t);

/** Queue the burst on the ports meta[i].out, packets received at rx_tsc. */
void tx_burst(struct lf_tx *t, const struct lf_meta *meta, uint64_t rx_tsc, struct rte_mbuf **pkts,
	      uint16_t n);

/**
 * Queue a burst whose packets all go to output port index out; the same as
 * tx_burst with every meta[i].out = out. A full burst, or half a burst or
 * more with nothing buffered for the port, goes to the PMD without a copy.
 */
void tx_burst_port(struct lf_tx *t, uint16_t out, uint64_t rx_tsc, struct rte_mbuf **pkts,
		   uint16_t n);

#endif /* LF_TX_H */
