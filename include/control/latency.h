/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Control side of the per-worker residence-time histograms: allocation,
 * the periodic buffer swap with each worker, merging into "since start"
 * and "last interval" histograms, and reset. Workers only record (see
 * struct worker); nothing here runs on a worker lcore.
 */
#ifndef LF_LATENCY_H
#define LF_LATENCY_H

#include "lanefwd.h"

/** Allocate the workers' buffers and the control histograms. */
int latency_init(struct lf_app *app);

/**
 * Swap every worker's buffer and merge the one it wrote. Called by the
 * control thread about once a second; waits at most a few milliseconds for
 * each worker.
 */
void latency_collect(struct lf_app *app);

/** After the workers stopped: merge what both their buffers still hold. */
void latency_drain(struct lf_app *app);

/** Forget everything recorded so far (telemetry reset command). */
void latency_reset(struct lf_app *app);

void latency_free(struct lf_app *app);

#endif /* LF_LATENCY_H */
