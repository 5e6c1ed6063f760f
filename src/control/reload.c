/* SPDX-License-Identifier: BSD-3-Clause */
/* Hot reload: build a generation aside, publish it, wait out RCU, free. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "lf_log.h"
#include "neigh.h"
#include "netlink.h"
#include "reload.h"
#include "tables.h"

int
reload_init(struct lf_app *a)
{
	size_t sz = rte_rcu_qsbr_get_memsize(a->n_workers ? a->n_workers : 1);
	unsigned int i;

	a->qsv = rte_zmalloc("lf_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (a->qsv == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(a->qsv, a->n_workers ? a->n_workers : 1) != 0)
		return -rte_errno;
	for (i = 0; i < a->n_workers; i++) {
		if (rte_rcu_qsbr_thread_register(a->qsv, i) != 0)
			return -rte_errno;
		a->workers[i]->qsv = a->qsv;
		a->workers[i]->tables = &a->tables;
	}
	return 0;
}

void
reload_free(struct lf_app *a)
{
	rte_free(a->qsv);
	a->qsv = NULL;
}

/* The sections a reload cannot apply, or NULL when only reloadable ones changed. */
static const char *
restart_needed(const struct lf_config *o, const struct lf_config *n)
{
	unsigned int i;

	if (memcmp(&o->eal, &n->eal, sizeof(o->eal)) != 0)
		return "[eal]";
	if (memcmp(&o->pipeline, &n->pipeline, sizeof(o->pipeline)) != 0)
		return "[pipeline]";
	if (memcmp(&o->flow, &n->flow, sizeof(o->flow)) != 0)
		return "[flow]";
	/* The router's own side is set up once (local.c, neigh.c, netlink.c,
	 * prom.c, the mirrors). */
	if (memcmp(&o->icmp, &n->icmp, sizeof(o->icmp)) != 0)
		return "[icmp]";
	if (memcmp(&o->neigh, &n->neigh, sizeof(o->neigh)) != 0)
		return "[neighbour]";
	if (memcmp(&o->exception, &n->exception, sizeof(o->exception)) != 0)
		return "[exception]";
	if (memcmp(&o->prom, &n->prom, sizeof(o->prom)) != 0)
		return "[prometheus]";
	if (memcmp(&o->netlink, &n->netlink, sizeof(o->netlink)) != 0)
		return "[netlink]";
	/* The PFCP agent, the session store and the UE pools are set up once
	 * (main.c's upf_create); a reload that moved the pools' routes would
	 * leave the agent handing out the old ones. */
	if (memcmp(&o->upf, &n->upf, sizeof(o->upf)) != 0)
		return "[upf] or a [network_instance]";
	if (o->n_ports != n->n_ports)
		return "the set of [port] sections";
	for (i = 0; i < n->n_ports; i++)
		if (memcmp(&o->ports[i], &n->ports[i], sizeof(o->ports[i])) != 0)
			return n->ports[i].section;
	if (o->n_workers != n->n_workers)
		return "the set of [worker] sections";
	for (i = 0; i < n->n_workers; i++)
		if (memcmp(&o->workers[i], &n->workers[i], sizeof(o->workers[i])) != 0)
			return n->workers[i].section;
	return NULL;
}

static int
reload_locked(struct lf_app *a, char *err, size_t errlen)
{
	struct rte_ether_addr macs[LF_MAX_PORTS];
	struct lf_tables *t, *old = a->tables;
	struct lf_table_src src;
	struct lf_config *ncfg, ocfg;
	char why[LF_ERR_LEN];
	const char *what;
	unsigned int i;
	int ret;

	ncfg = malloc(sizeof(*ncfg));
	if (ncfg == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = config_load(a->cfg.path, ncfg, why, sizeof(why));
	if (ret != 0) {
		snprintf(err, errlen, "config error: %s", why);
		free(ncfg);
		return ret;
	}
	what = restart_needed(&a->cfg, ncfg);
	if (what != NULL) {
		snprintf(err, errlen,
			 "%s changed: needs a restart (a reload applies [routes], [acl], [nexthop])",
			 what);
		ret = -EINVAL;
		goto fail;
	}
	ret = tables_load_files(ncfg, &src, why, sizeof(why));
	if (ret != 0) {
		snprintf(err, errlen, "%s", why);
		goto fail;
	}
	for (i = 0; i < a->cfg.n_ports; i++)
		macs[i] = a->ports[i].mac;
	t = tables_build(ncfg, &src, macs, old->socket, old->gen + 1, why, sizeof(why));
	if (t == NULL) {
		snprintf(err, errlen, "%s", why);
		ret = -ENOMEM;
		goto fail;
	}

	/*
	 * The new configuration is in force for what fills the new tables
	 * with what was learnt at run time: the neighbours resolved for its
	 * next hops, the kernel's routes. They read a->cfg under ctl_lock.
	 */
	ocfg = a->cfg;
	a->cfg = *ncfg;
	free(ncfg);
	neigh_tables_fill(a, t);
	ret = netlink_tables_fill(a, t, why, sizeof(why));
	if (ret != 0) {
		snprintf(err, errlen, "%s", why);
		config_free(&a->cfg);
		a->cfg = ocfg;
		tables_free(t);
		return ret;
	}
	/* Publish; after the grace period no worker can see old any more. */
	__atomic_store_n(&a->tables, t, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(a->qsv, RTE_QSBR_THRID_INVALID);
	tables_free(old);
	config_free(&ocfg);
	return 0;
fail:
	config_free(ncfg);
	free(ncfg);
	return ret;
}

int
reload_run(struct lf_app *a, char *err, size_t errlen)
{
	uint64_t t0 = rte_rdtsc();
	int ret;

	pthread_mutex_lock(&a->ctl_lock);
	if (a->tables == NULL || a->qsv == NULL) {
		/* Shutting down: the tables are gone. */
		pthread_mutex_unlock(&a->ctl_lock);
		snprintf(err, errlen, "lanefwd is stopping");
		return -ESHUTDOWN;
	}
	ret = reload_locked(a, err, errlen);
	a->reload_time = time(NULL);
	if (ret == 0) {
		a->reloads++;
		a->reload_error[0] = '\0';
		LF_LOG(INFO, main,
		       "reload: generation %u in force (%u IPv4, %u IPv6 routes, %u IPv4, %u IPv6 ACL rules, %u next hops) after %.1f ms",
		       a->tables->gen, a->tables->fib.n4, a->tables->fib.n6, a->tables->acl_rules,
		       a->tables->acl6_rules, a->tables->nh_count,
		       (rte_rdtsc() - t0) * 1e3 / rte_get_tsc_hz());
	} else {
		a->reload_failures++;
		snprintf(a->reload_error, sizeof(a->reload_error), "%s", err);
		LF_LOG(ERR, main, "reload rejected, generation %u stays in force: %s",
		       a->tables->gen, err);
	}
	pthread_mutex_unlock(&a->ctl_lock);
	return ret;
}
