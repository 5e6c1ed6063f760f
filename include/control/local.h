/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The router's own side as the workers see it (dp.h struct lf_local): the
 * ports' addresses, MACs, MTUs and exception mirrors, the ICMP switches,
 * each worker's rate limits and its rings to and from the control thread.
 */
#ifndef LF_LOCAL_H
#define LF_LOCAL_H

#include <stddef.h>

struct lf_app;

/**
 * Build it and hand it to the workers (b.local, token buckets, to_ctrl,
 * worker 0's from_ctrl, a TX buffer per mirror, worker 0's RX queue on
 * each mirror). After workers_create and exception_ports_create, before
 * launch.
 * @return 0, or -errno with err set.
 */
int local_create(struct lf_app *a, char *err, size_t errlen);

/** Free it, after the workers stopped and the rings were drained. */
void local_free(struct lf_app *a);

#endif /* LF_LOCAL_H */
