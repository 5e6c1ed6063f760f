/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd entry point. It only orchestrates: configuration, EAL, pools and
 * ports, tables, workers, telemetry, then waits for a signal and tears down.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pdump.h>

#include "acl.h"
#include "config.h"
#include "fib.h"
#include "flow_stage.h"
#include "lanefwd.h"
#include "latency.h"
#include "lf_log.h"
#include "exception.h"
#include "xdp.h"
#include "local.h"
#include "neigh.h"
#include "netlink.h"
#include "pfcp_agent.h"
#include "prom.h"
#include "port.h"
#include "reload.h"
#include "rxmode_setup.h"
#include "tables.h"
#include "telemetry.h"
#include "worker.h"

#define EXIT_CONFIG 2

static struct lf_app app = {
	.lat_lock = PTHREAD_MUTEX_INITIALIZER,
	.ctl_lock = PTHREAD_MUTEX_INITIALIZER,
};

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		app.reload_req = true;
	else
		app.quit = true;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -c FILE [--check-config]\n"
		"  -c, --config FILE   INI configuration (see README.md)\n"
		"      --check-config  validate FILE, its route and ACL files, print the\n"
		"                      resolved configuration and exit\n"
		"  -V, --version       print the version and exit\n",
		prog);
}

static int
workers_create(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_config *cfg = &a->cfg;
	unsigned int i, k, p;

	for (i = 0; i < cfg->n_workers; i++) {
		const struct lf_worker_conf *wc = &cfg->workers[i];
		int socket = port_lcore_socket(wc->lcore);
		struct worker *w;

		w = rte_zmalloc_socket("lf_worker", sizeof(*w), RTE_CACHE_LINE_SIZE, socket);
		if (w == NULL) {
			snprintf(err, errlen, "cannot allocate worker %u on socket %d", i, socket);
			return -ENOMEM;
		}
		a->workers[i] = w;
		a->n_workers = i + 1;
		w->lcore = wc->lcore;
		w->index = i;
		w->socket = socket;
		w->burst = cfg->pipeline.burst;
		w->burst_auto = cfg->pipeline.burst_auto;
		if (w->burst_auto) {
			const struct lf_burstctl_params bp = {
				.burst_min = cfg->pipeline.burst_min,
				.burst_max = cfg->pipeline.burst_max,
				.target_us = cfg->pipeline.latency_target_us,
				.percentile = cfg->pipeline.latency_percentile,
				.hz = rte_get_tsc_hz(),
			};

			/* config.c validated what lf_burstctl_init checks. */
			if (lf_burstctl_init(&w->bc, &bp, rte_rdtsc()) != 0) {
				snprintf(err, errlen, "burst = auto: invalid parameters");
				return -EINVAL;
			}
		}
		w->b.flow_prefetch_distance = cfg->pipeline.prefetch_distance;
		w->drain_tsc = (rte_get_tsc_hz() + 999999) / 1000000 * cfg->pipeline.tx_drain_us;
		w->stall_tsc = rte_get_tsc_hz() / 1000000 * LF_STALL_US;
		worker_adopt(w, a->tables);
		w->hwclk = a->hwclk;
		w->ts_off = a->ts_off;
		w->ts_flag = a->ts_flag;
		if (cfg->flow.enabled) {
			w->flows = flow_stage_create(&cfg->flow, i, w->lcore, socket, err, errlen);
			if (w->flows == NULL)
				return -ENOMEM;
			w->flow_expire_period = rte_get_tsc_hz() / 1000000 * LF_FLOW_EXPIRE_US;
			LF_LOG(INFO, main,
			       "flow table of lcore %u: %u flows, %.1f MiB on socket %d", w->lcore,
			       lf_flow_capacity(w->flows), lf_flow_mem_bytes(w->flows) / 1048576.0,
			       w->socket);
		}
		w->quit = &a->quit;
		w->n_rxq = wc->n_rxq;
		for (k = 0; k < wc->n_rxq; k++) {
			w->rxq[k].port_idx = wc->rxq[k].port;
			w->rxq[k].port_id = a->ports[wc->rxq[k].port].port_id;
			w->rxq[k].queue_id = wc->rxq[k].queue;
			w->rxq[k].prefetch_distance = a->ports[wc->rxq[k].port].prefetch_distance;
			w->rxq[k].exc_of = LF_NH_INVALID;
		}
		w->tx.n_ports = cfg->n_ports;
		for (p = 0; p < cfg->n_ports; p++) {
			w->tx.buf[p].port_id = a->ports[p].port_id;
			w->tx.buf[p].queue_id = i;
		}
	}
	return 0;
}

/*
 * [upf]: the session store on the first worker's socket, and each worker's
 * view of it (its own counters, meters and rings).
 */
static int
upf_create(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_upf_conf *u = &a->cfg.upf;
	struct upf_store_params p;
	unsigned int i;

	if (!u->enabled)
		return 0;
	memset(&p, 0, sizeof(p));
	p.max_sessions = u->max_sessions;
	p.max_urrs = u->max_sessions * u->urrs_per_session;
	p.max_qers = u->max_sessions * u->qers_per_session;
	p.n_workers = a->n_workers;
	p.socket = port_lcore_socket(a->cfg.workers[0].lcore);
	p.qsv = a->qsv;
	if (u->has_n3_ipv4)
		memcpy(&p.n3_ipv4, u->n3_ipv4, 4);
	if (u->has_n3_ipv6)
		memcpy(p.n3_ipv6, u->n3_ipv6, 16);
	p.ring_size = 4096;
	upf_store_ue_dirs(&p, u);
	a->upf = upf_store_create(&p, err, errlen);
	if (a->upf == NULL)
		return -ENOMEM;
	for (i = 0; i < a->n_workers; i++) {
		struct lf_burst *b = &a->workers[i]->b;

		b->upf = a->upf;
		b->upf_wk = &a->upf->wk[i];
		b->upf_err_ind_cycles = u->err_ind_pps ? rte_get_tsc_hz() / u->err_ind_pps : 0;
	}
	return 0;
}

static void
print_final(const struct lf_app *a)
{
	struct lf_worker_stats s;
	struct lf_totals t;
	unsigned int i, r;

	for (i = 0; i < a->n_workers; i++) {
		const struct lf_hist *h = a->lat_total[i];
		const double ns = 1e9 / rte_get_tsc_hz();

		telemetry_worker_snapshot(a->workers[i], &s);
		printf("lanefwd: worker lcore %u: rx %" PRIu64 " tx %" PRIu64
		       " busy_cycles %" PRIu64 " idle_cycles %" PRIu64 " cycles/packet %.1f\n",
		       a->workers[i]->lcore, s.rx_pkts, s.tx_pkts, s.busy_cycles, s.idle_cycles,
		       s.rx_pkts ? (double)s.busy_cycles / s.rx_pkts : 0.0);
		/* What the machine did to the run, where anything (telemetry.md). */
		if (s.stalls != 0 || s.clock_steps != 0)
			printf("lanefwd: worker lcore %u: stalls %" PRIu64 " longest %.0f us"
			       " clock_steps %" PRIu64 "\n",
			       a->workers[i]->lcore, s.stalls, s.stall_max_cycles * ns / 1e3,
			       s.clock_steps);
		if (h != NULL && h->total != 0)
			printf("lanefwd: worker lcore %u: residence ns: count %" PRIu64
			       " p50 %.0f p99 %.0f p99.99 %.0f max %.0f\n",
			       a->workers[i]->lcore, h->total, lf_hist_quantile(h, 0.5) * ns,
			       lf_hist_quantile(h, 0.99) * ns, lf_hist_quantile(h, 0.9999) * ns,
			       h->max * ns);
	}
	telemetry_totals(a, &t);
	printf("lanefwd: total: rx %" PRIu64 " tx %" PRIu64 " drops %" PRIu64, t.rx_pkts, t.tx_pkts,
	       t.drops);
	for (r = 0; r < LF_DROP_COUNT; r++)
		if (t.drop[r] != 0)
			printf(" %s %" PRIu64, lf_drop_names[r], t.drop[r]);
	printf("\nlanefwd: events:");
	for (r = 0; r < LF_EV_COUNT; r++)
		if (t.ev[r] != 0)
			printf(" %s %" PRIu64, lf_event_names[r], t.ev[r]);
	printf("\n");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lf_table_src src = { 0 };
	struct rte_ether_addr macs[LF_MAX_PORTS];
	char err[LF_ERR_LEN];
	char *eal_argv[128];
	char eal_buf[4096];
	const char *path = NULL;
	bool check_only = false;
	struct sigaction sa;
	unsigned int i;
	int opt, eal_argc, ret, exit_code = EXIT_FAILURE;
	uint64_t last_link = 0;

	while ((opt = getopt_long(argc, argv, "c:Vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'C':
			check_only = true;
			break;
		case 'V':
			printf("lanefwd %s\n", LF_VERSION);
			return 0;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return EXIT_CONFIG;
		}
	}
	if (path == NULL || optind != argc) {
		usage(argv[0]);
		return EXIT_CONFIG;
	}

	if (config_load(path, &app.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "lanefwd: config error: %s\n", err);
		return EXIT_CONFIG;
	}
	if (tables_load_files(&app.cfg, &src, err, sizeof(err)) != 0) {
		fprintf(stderr, "lanefwd: %s\n", err);
		config_free(&app.cfg);
		return EXIT_CONFIG;
	}
	if (check_only) {
		struct lf_mem_estimate est;

		config_dump(&app.cfg, stdout);
		config_mem_estimate(&app.cfg, src.acl.n, src.acl6.n, &est);
		config_mem_print(&est, stdout);
		printf("\n# routes: %zu IPv4, %zu IPv6; acl rules: %zu IPv4, %zu IPv6; "
		       "configuration is valid\n",
		       src.r4.n, src.r6.n, src.acl.n, src.acl6.n);
		tables_src_free(&src);
		config_free(&app.cfg);
		return 0;
	}

	eal_argc = config_eal_args(&app.cfg, argv[0], eal_argv, RTE_DIM(eal_argv), eal_buf,
				   sizeof(eal_buf));
	if (eal_argc < 0) {
		/* config_eal_args() said what else went wrong itself. */
		if (eal_argc == -ENOSPC)
			fprintf(stderr, "lanefwd: config error: %s: [eal] arguments do not fit\n",
				path);
		goto out_routes;
	}
	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		fprintf(stderr, "lanefwd: EAL init failed: %s\n", rte_strerror(rte_errno));
		goto out_routes;
	}
	lf_log_init();
	/* dpdk-dumpcap and dpdk-pdump attach as secondary processes: they
	 * need the shared configuration that in_memory does without. */
	if (app.cfg.eal.pdump && !app.cfg.eal.in_memory && rte_pdump_init() != 0)
		LF_LOG(WARNING, main, "rte_pdump_init: %s; capture with dpdk-dumpcap is off",
		       rte_strerror(rte_errno));
	app.start_tsc = rte_rdtsc();
	app.start_time = time(NULL);

	if (port_pools_create(&app, err, sizeof(err)) != 0 ||
	    port_init_all(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "%s", err);
		goto out_ports;
	}
	if (exception_ports_create(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "%s", err);
		goto out_ports;
	}
	port_check_numa(&app);
	for (i = 0; i < app.cfg.n_ports; i++)
		macs[i] = app.ports[i].mac;
	app.tables = tables_build(&app.cfg, &src, macs, port_lcore_socket(app.cfg.workers[0].lcore),
				  1, err, sizeof(err));
	if (app.tables == NULL) {
		LF_LOG(ERR, main, "%s", err);
		goto out_ports;
	}
	if (app.tables->acl != NULL)
		LF_LOG(INFO, main, "acl: %u IPv4 rules from %s, default %s", app.tables->acl_rules,
		       app.cfg.acl.ipv4, app.cfg.acl.deny ? "deny" : "permit");
	if (app.tables->acl6 != NULL)
		LF_LOG(INFO, main, "acl: %u IPv6 rules from %s, default %s", app.tables->acl6_rules,
		       app.cfg.acl.ipv6, app.cfg.acl.deny ? "deny" : "permit");
	if (workers_create(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "%s", err);
		goto out_workers;
	}
	if (reload_init(&app) != 0) {
		LF_LOG(ERR, main, "cannot set up RCU for the workers");
		goto out_workers;
	}
	if (local_create(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "%s", err);
		goto out_workers;
	}
	if (upf_create(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "[upf]: %s", err);
		goto out_workers;
	}
	if (rxmode_workers_setup(&app, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "%s", err);
		goto out_workers;
	}
	if (latency_init(&app) != 0) {
		LF_LOG(ERR, main, "cannot allocate the latency histograms");
		goto out_workers;
	}
	for (i = 0; i < app.n_workers; i++)
		worker_ready(app.workers[i]);
	if (app.cfg.flow.enabled && app.tables->acl == NULL && app.tables->acl6 == NULL)
		LF_LOG(NOTICE, main,
		       "[flow]: no [acl] to put the flow cache in front of; it stays idle until a reload brings one (a FIB lookup alone is cheaper than a cache hit)");
	telemetry_init(&app);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	for (i = 0; i < app.n_workers; i++) {
		ret = rte_eal_remote_launch(worker_main, app.workers[i], app.workers[i]->lcore);
		if (ret != 0) {
			LF_LOG(ERR, main, "cannot launch worker on lcore %u: %s",
			       app.workers[i]->lcore, strerror(-ret));
			app.quit = true;
			break;
		}
	}
	if (ret == 0 && app.upf != NULL &&
	    pfcp_agent_start(&app.cfg, app.upf, err, sizeof(err)) != 0) {
		LF_LOG(ERR, main, "[upf]: %s", err);
		app.quit = true;
		ret = -1;
	}
	if (ret == 0 &&
	    (exception_kernel_setup(&app, err, sizeof(err)) != 0 ||
	     xdp_kernel_setup(&app, err, sizeof(err)) != 0 ||
	     neigh_start(&app, err, sizeof(err)) != 0 ||
	     netlink_start(&app, err, sizeof(err)) != 0 ||
	     prom_start(&app, err, sizeof(err)) != 0)) {
		LF_LOG(ERR, main, "%s", err);
		app.quit = true;
		ret = -1;
	}
	/* Tests and scripts wait for this line: only when everything started. */
	if (ret == 0) {
		LF_LOG(INFO, main,
		       "lanefwd %s running: %u workers, %u ports, telemetry prefix '%s'",
		       LF_VERSION, app.n_workers, app.cfg.n_ports, app.cfg.eal.file_prefix);
		printf("lanefwd: running\n");
		fflush(stdout);
	}

	while (!app.quit) {
		usleep(100 * 1000);
		if (app.reload_req) {
			app.reload_req = false;
			reload_run(&app, err, sizeof(err)); /* logs its outcome */
		}
		if (rte_rdtsc() - app.lat_last_tsc >= rte_get_tsc_hz())
			latency_collect(&app);
		if (app.hwclk != NULL && rte_rdtsc() - app.hwclk_last_tsc >= rte_get_tsc_hz() / 10)
			port_hwclock_update(&app, false);
		if (rte_rdtsc() - last_link > rte_get_tsc_hz() || last_link == 0) {
			port_log_links(&app);
			last_link = rte_rdtsc();
		}
	}
	LF_LOG(INFO, main, "stopping workers");
	prom_stop();
	netlink_stop(&app);
	rte_eal_mp_wait_lcore();
	neigh_stop(&app);
	if (app.upf != NULL)
		pfcp_agent_stop();
	latency_drain(&app);
	print_final(&app);
	exit_code = ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	telemetry_free();

out_workers:
	port_close_all(&app);
	rxmode_workers_free(&app);
	local_free(&app);
	latency_free(&app);
	for (i = 0; i < app.n_workers; i++) {
		lf_flow_free(app.workers[i]->flows);
		rte_free(app.workers[i]);
	}
	app.n_workers = 0;
	upf_store_free(app.upf);
	app.upf = NULL;
	/* A reload the telemetry thread may still be running finishes first. */
	pthread_mutex_lock(&app.ctl_lock);
	reload_free(&app);
	tables_free(app.tables);
	app.tables = NULL;
	pthread_mutex_unlock(&app.ctl_lock);
out_ports:
	port_close_all(&app);
	xdp_kernel_free(&app);
	exception_free(&app);
	port_hwclock_free(&app);
	port_pools_free(&app);
	if (app.cfg.eal.pdump && !app.cfg.eal.in_memory)
		rte_pdump_uninit();
	rte_eal_cleanup();
out_routes:
	tables_src_free(&src);
	config_free(&app.cfg);
	return exit_code;
}
