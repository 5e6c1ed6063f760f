/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Port and mempool setup on the control thread: NUMA-local mbuf pools, RSS
 * over the configured RX queues, one TX queue per worker on every port.
 */
#ifndef LF_PORT_H
#define LF_PORT_H

#include <stddef.h>

#include "lanefwd.h"

/** Socket a worker lcore runs on (0 when EAL does not know). */
int port_lcore_socket(unsigned int lcore);

/**
 * Create one mbuf pool per NUMA socket used by a worker or a port, and check
 * with libnuma where its memory landed.
 */
int port_pools_create(struct lf_app *app, char *err, size_t errlen);
void port_pools_free(struct lf_app *app);

/** Find, configure and start every port. */
int port_init_all(struct lf_app *app, char *err, size_t errlen);

/**
 * latency_clock = hw: sample every port's device clock against the TSC and
 * publish the maps the workers convert RX timestamps with (every 100 ms
 * from the main loop; first: the initial 10 ms calibration).
 */
void port_hwclock_update(struct lf_app *app, bool first);
void port_hwclock_free(struct lf_app *app);

/**
 * Stop every started port and close every configured one, started or not.
 * Call it before port_pools_free(): a configured port's RX queues may hold
 * mbufs, and EAL's cleanup would close the port only after the pools are gone.
 */
void port_close_all(struct lf_app *app);

/** Log link status of every port; returns ports that are up. */
unsigned int port_log_links(struct lf_app *app);

/** Warn about workers, ports and pools that sit on different sockets. */
unsigned int port_check_numa(const struct lf_app *app);

#endif /* LF_PORT_H */
