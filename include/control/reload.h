/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Hot reload of routes, next hops and ACL rules, without stopping or
 * locking a worker.
 *
 * The control thread re-reads the configuration file and every file it
 * names, builds a whole new table generation aside (tables.h), publishes it
 * with one release store of lf_app.tables, waits with rte_rcu_qsbr until
 * every worker has passed a quiescent state (it finished the loop iteration
 * it was in, so it holds no reference to the old generation and has adopted
 * the new one), then frees the old generation. A reload that fails at any
 * step (syntax, a bad route or rule, a change that needs a restart, memory)
 * changes nothing: the old generation stays in force.
 *
 * Only [routes], [acl] and [nexthop] reload; a change to [eal], [pipeline],
 * [port] or [worker] sections rejects the reload. Triggers: SIGHUP and the
 * /lanefwd/reload telemetry command; both run reload_run().
 */
#ifndef LF_RELOAD_H
#define LF_RELOAD_H

#include <stddef.h>

#include "lanefwd.h"

/** Create the workers' RCU variable and register every worker on it. */
int reload_init(struct lf_app *a);

/** Free it (after the workers stopped). */
void reload_free(struct lf_app *a);

/**
 * Reload from a->cfg.path. Serialised with itself and with the telemetry
 * readers of the tables by a->ctl_lock (never taken by a worker). Returns
 * once no worker can use the old generation any more.
 * @return 0, or -errno with err saying what was wrong; nothing changed then.
 */
int reload_run(struct lf_app *a, char *err, size_t errlen);

#endif /* LF_RELOAD_H */
