/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The Prometheus exporter ([prometheus]): GET /metrics on address:port, the
 * counters of every worker, port and drop reason, cycles/packet and the
 * latency histograms (docs/telemetry.md). Its own thread, never a worker's
 * time; it reads counters as telemetry does.
 */
#ifndef LF_PROM_H
#define LF_PROM_H

#include <stddef.h>

struct lf_app;

/** Listen and start serving; 0 without [prometheus]. @return 0 or -errno with err set. */
int prom_start(struct lf_app *a, char *err, size_t errlen);

/** Stop serving. Safe if never started. */
void prom_stop(void);

#endif /* LF_PROM_H */
