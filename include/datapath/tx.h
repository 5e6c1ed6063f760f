/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * TX stage: packets are buffered per output port in the worker's own TX
 * queue and sent when a full burst is ready, when the worker goes idle, or
 * when the drain timer expires. What the PMD refuses is freed and counted.
 */
#ifndef LF_TX_H
#define LF_TX_H

#include <stdint.h>

#include "worker.h"

/** Send the buffer of one port now. */
void tx_flush(struct worker *w, struct lf_txbuf *b);

/** Queue the burst on the output ports chosen by rewrite; returns n. */
uint16_t tx_burst(struct worker *w, struct rte_mbuf **pkts, uint16_t n);

/**
 * Queue a burst whose packets all go to output port index out (meta[].out
 * need not be set); the same as tx_burst with meta[i].out = out. A full
 * burst with nothing buffered for the port goes to the PMD without a copy.
 */
void tx_burst_port(struct worker *w, uint16_t out, struct rte_mbuf **pkts, uint16_t n);

#endif /* LF_TX_H */
