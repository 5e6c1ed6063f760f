/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The per-lcore worker and its run-to-completion loop. One struct worker per
 * lcore, written only by that lcore once running; the control thread and
 * telemetry only read the stats block and the latency handshake. The loop
 * polls the worker's RX queues and hands each burst to the pipeline
 * (pipeline.h); between iterations it adopts new table generations, drains
 * TX, records residence times and ages flows. Nothing below it (the
 * pipeline, the stages) includes this header.
 */
#ifndef LF_WORKER_H
#define LF_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "burstctl.h"
#include "config.h"
#include "dp.h"
#include "flow.h"
#include "hist.h"
#include "rxmode.h"
#include "tx.h"

/** One RX queue a worker polls. */
struct lf_rxq {
	uint16_t port_id; /**< ethdev port id. */
	uint16_t queue_id;
	uint16_t port_idx; /**< Index in the configuration. */
	uint16_t prefetch_distance; /**< Packet data (lf_port.prefetch_distance). */
	/**
	 * LF_NH_INVALID for a port's own queue. For the queue of a kernel
	 * TAP mirror: the port index its frames are sent out of, as they
	 * are (the kernel's own traffic: BGP, ARP it sends, ...).
	 */
	uint16_t exc_of;
};

struct lf_tables;
struct lf_hwclock;
struct rte_rcu_qsbr;

struct worker {
	/* control: writes before launch; worker: reads. */
	unsigned int lcore;
	unsigned int index;
	int socket;
	uint16_t burst; /* The largest burst (burst_max with burst = auto). */
	bool burst_auto; /* [pipeline] burst = auto: bc chooses each poll's burst. */
	uint64_t drain_tsc;
	uint64_t stall_tsc; /**< LF_STALL_US in TSC cycles. */
	unsigned int n_rxq;
	struct lf_rxq rxq[LF_MAX_RXQ_PER_WORKER];
	const volatile bool *quit;
	bool latency; /* Record residence times. */
	/*
	 * Hot reload (reload.h). control: publishes *tables (release store)
	 * and waits on qsv; worker: loads *tables once per loop iteration and
	 * reports a quiescent state on qsv after it, holding no table
	 * reference across. NULL tables: fixed tables (unit tests).
	 */
	struct lf_tables *const *tables;
	struct rte_rcu_qsbr *qsv;
	const struct lf_tables *cur_tables; /* worker only: the generation in use. */
	/*
	 * worker only: the in-place changes of cur_tables seen (its fib.epoch
	 * and nh_epoch), and the tag of the flow cache's verdicts (b.view.gen),
	 * a new one at each adoption or change: a verdict made before is stale.
	 */
	uint32_t fib_epoch;
	uint32_t nh_epoch;
	uint32_t flow_tag;
	/* [flow]: the worker's own flow table, NULL without one. control:
	 * creates and frees it; worker: the only user. It serves as b.flows
	 * while the tables have an ACL (worker_adopt). */
	struct lf_flow_table *flows;
	uint64_t flow_expire_tsc; /* worker only: next incremental aging. */
	uint64_t flow_expire_period; /* control: writes before launch. */
	/*
	 * latency_clock = hw: a burst's RX time is the hardware timestamp of
	 * its first packet, mapped to the TSC through hwclk[port index]
	 * (hwclock.h). control: sets these before launch and publishes the
	 * maps; worker: reads. hwclk NULL: the TSC.
	 */
	const struct lf_hwclock *hwclk;
	int ts_off;
	uint64_t ts_flag;
	/*
	 * Residence (RX time -> end of the iteration that handed it to TX)
	 * histograms, double-buffered: the worker records into lat[lat_cur].
	 * The control thread asks for a swap by bumping lat_req; the worker
	 * flips lat_cur between bursts and echoes lat_req into lat_ack, after
	 * which the other buffer is the control thread's to read and clear.
	 */
	struct lf_hist *lat[2]; /* control: allocates; worker: records into one. */
	uint32_t lat_req; /* control: writes; worker: reads. */
	uint32_t lat_ack; /* worker: writes; control: reads. */
	unsigned int lat_cur; /* worker only. */
	uint64_t last_drain; /* worker only. */

	/*
	 * Control thread -> this worker (SP/SC: the neighbour code produces,
	 * the worker consumes), or NULL: frames to send (LF_CTRL_TX) and held
	 * packets released (LF_CTRL_RERUN), dp.h. Only worker 0 has one.
	 */
	struct rte_ring *from_ctrl;

	/* burst = auto. control: initialises it before launch; worker: the
	 * only writer; telemetry: reads its burst and statistics. */
	struct lf_burstctl bc;

	/* worker only (control: sets the configured fields before launch):
	 * the per-burst context the stages get, and the TX side. */
	struct lf_burst b;
	struct lf_tx tx;

	/* worker: writes; control and telemetry: read. */
	struct lf_worker_stats stats;

	/* How it waits for packets (rxmode.h). control: sets up before launch. */
	struct lf_rxm rxm;
} __rte_cache_aligned;

/**
 * Link the worker's parts once control has set its fields (burst, latency,
 * lat, flows, b.flow_prefetch_distance, tx.n_ports and tx.buf ports, and
 * the tables or b.view): before launch, or in a test before the first burst.
 */
void worker_ready(struct worker *w);

/** Adopt table generation t: the worker's view of the tables (between bursts). */
void worker_adopt(struct worker *w, const struct lf_tables *t);

/** Send every buffered packet now and record the residence of what left. */
void worker_flush_tx(struct worker *w);

/** lcore entry point: the run-to-completion loop. arg is a struct worker. */
int worker_main(void *arg);

#endif /* LF_WORKER_H */
