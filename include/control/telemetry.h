/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * lanefwd commands on the standard DPDK telemetry socket (read them with
 * dpdk-telemetry.py -f FILE_PREFIX):
 *   /lanefwd/info      version, configuration, uptime, ports, workers
 *   /lanefwd/stats     totals over all workers
 *   /lanefwd/workers   per worker counters, cycles/packet, burst histogram;
 *                      with ",LCORE" one worker only
 * Readers only load the workers' single-writer counters.
 */
#ifndef LF_TELEMETRY_H
#define LF_TELEMETRY_H

#include <stdint.h>

#include "lanefwd.h"

/** Totals over all workers. */
struct lf_totals {
	uint64_t rx_pkts;
	uint64_t tx_pkts;
	uint64_t busy_cycles;
	uint64_t idle_cycles;
	uint64_t drops;
	uint64_t drop[LF_DROP_COUNT];
	uint64_t ev[LF_EV_COUNT]; /**< The router's own side (dp.h LF_EVENTS). */
};

/** Register the commands; app must outlive telemetry_free(). */
int telemetry_init(struct lf_app *app);
void telemetry_free(void);

/** Snapshot one worker's counters (relaxed loads). */
void telemetry_worker_snapshot(const struct worker *w, struct lf_worker_stats *out);

/** Add up every worker. */
void telemetry_totals(const struct lf_app *app, struct lf_totals *t);

/** Snapshot one worker's rx mode counters (rxmode.h), relaxed loads. */
void telemetry_rxm_snapshot(const struct worker *w, struct lf_rxm_stats *out);

/**
 * Percent of the time a worker used its core, since start: busy and idle
 * (spinning) cycles against those and the cycles it slept (rx_mode).
 */
uint64_t telemetry_cpu_percent(const struct lf_worker_stats *s, const struct lf_rxm_stats *r);

#endif /* LF_TELEMETRY_H */
