/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands. Callbacks run on EAL's telemetry thread; they read the
 * workers' counters with relaxed loads and never write anything a worker
 * reads.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_telemetry.h>

#include "latency.h"
#include "lf_log.h"
#include "reload.h"
#include "telemetry.h"
#include "xdp.h"

static struct lf_app *tel_app;

void
telemetry_worker_snapshot(const struct worker *w, struct lf_worker_stats *out)
{
	const struct lf_worker_stats *s = &w->stats;
	unsigned int i;

	out->rx_pkts = LF_STAT_READ(s->rx_pkts);
	out->tx_pkts = LF_STAT_READ(s->tx_pkts);
	out->polls = LF_STAT_READ(s->polls);
	out->busy_polls = LF_STAT_READ(s->busy_polls);
	out->busy_cycles = LF_STAT_READ(s->busy_cycles);
	out->idle_cycles = LF_STAT_READ(s->idle_cycles);
	out->ipv4_cksum_sw = LF_STAT_READ(s->ipv4_cksum_sw);
	out->rx_hw_stamped = LF_STAT_READ(s->rx_hw_stamped);
	out->staged_bursts = LF_STAT_READ(s->staged_bursts);
	out->split_bursts = LF_STAT_READ(s->split_bursts);
	out->stalls = LF_STAT_READ(s->stalls);
	out->stall_cycles = LF_STAT_READ(s->stall_cycles);
	out->stall_max_cycles = LF_STAT_READ(s->stall_max_cycles);
	out->clock_steps = LF_STAT_READ(s->clock_steps);
	for (i = 0; i < LF_DROP_COUNT; i++)
		out->drops[i] = LF_STAT_READ(s->drops[i]);
	for (i = 0; i < LF_EV_COUNT; i++)
		out->ev[i] = LF_STAT_READ(s->ev[i]);
	for (i = 0; i < LF_BURST_HIST_BUCKETS; i++)
		out->burst_hist[i] = LF_STAT_READ(s->burst_hist[i]);
}

void
telemetry_rxm_snapshot(const struct worker *w, struct lf_rxm_stats *out)
{
	const struct lf_rxm_stats *r = &w->rxm.stats;

	out->sleeps = LF_STAT_READ(r->sleeps);
	out->wake_intr = LF_STAT_READ(r->wake_intr);
	out->wake_timeout = LF_STAT_READ(r->wake_timeout);
	out->sleep_cycles = LF_STAT_READ(r->sleep_cycles);
	out->rearm_rx = LF_STAT_READ(r->rearm_rx);
}

uint64_t
telemetry_cpu_percent(const struct lf_worker_stats *s, const struct lf_rxm_stats *r)
{
	const uint64_t used = s->busy_cycles + s->idle_cycles;

	return used + r->sleep_cycles == 0 ? 0 : used * 100 / (used + r->sleep_cycles);
}

void
telemetry_totals(const struct lf_app *app, struct lf_totals *t)
{
	struct lf_worker_stats s;
	unsigned int i, r;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < app->n_workers; i++) {
		telemetry_worker_snapshot(app->workers[i], &s);
		t->rx_pkts += s.rx_pkts;
		t->tx_pkts += s.tx_pkts;
		t->busy_cycles += s.busy_cycles;
		t->idle_cycles += s.idle_cycles;
		for (r = 0; r < LF_DROP_COUNT; r++) {
			t->drop[r] += s.drops[r];
			t->drops += s.drops[r];
		}
		for (r = 0; r < LF_EV_COUNT; r++)
			t->ev[r] += s.ev[r];
	}
}

/* A string value: 22.11 telemetry keeps at most 127 characters of one, so a
 * longer one (an error with a long path) ends in "..." (the log has it all). */
static void
tel_add_long_string(struct rte_tel_data *d, const char *key, const char *s)
{
	char buf[RTE_TEL_MAX_STRING_LEN];

	if (strlen(s) < sizeof(buf)) {
		rte_tel_data_add_dict_string(d, key, s);
		return;
	}
	memcpy(buf, s, sizeof(buf) - 4);
	strcpy(buf + sizeof(buf) - 4, "...");
	rte_tel_data_add_dict_string(d, key, buf);
}

static uint64_t
per_packet(uint64_t cycles, uint64_t pkts)
{
	return pkts ? (cycles + pkts / 2) / pkts : 0;
}

static int
tel_info_locked(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	const struct lf_app *app = tel_app;
	const struct lf_config *cfg;
	unsigned int p;

	if (app == NULL)
		return -ENODEV;
	cfg = &app->cfg;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", LF_VERSION);
	rte_tel_data_add_dict_string(d, "config", cfg->path);
	rte_tel_data_add_dict_u64(d, "uptime_s", time(NULL) - app->start_time);
	rte_tel_data_add_dict_u64(d, "tsc_hz", rte_get_tsc_hz());
	rte_tel_data_add_dict_u64(d, "workers", app->n_workers);
	rte_tel_data_add_dict_u64(d, "ports", cfg->n_ports);
	rte_tel_data_add_dict_u64(d, "burst", cfg->pipeline.burst);
	rte_tel_data_add_dict_u64(d, "prefetch_distance", cfg->pipeline.prefetch_distance);
	rte_tel_data_add_dict_string(d, "prefetch_mode",
				     cfg->pipeline.prefetch_auto ? "auto" : "fixed");
	rte_tel_data_add_dict_u64(d, "tx_drain_us", cfg->pipeline.tx_drain_us);
	rte_tel_data_add_dict_string(d, "latency_clock", cfg->pipeline.latency_clock);
	rte_tel_data_add_dict_u64(d, "ipv4_routes", app->tables->fib.n4);
	rte_tel_data_add_dict_u64(d, "ipv6_routes", app->tables->fib.n6);
	rte_tel_data_add_dict_string(d, "fib_lookup",
				     app->tables->fib.avx512 ? "avx512" : "scalar");
	/* The build of the fused IPv4 stages, chosen at start (fastpath.h). */
	rte_tel_data_add_dict_string(d, "fused_stages",
				     app->n_workers != 0 && app->workers[0]->b.fused_avx512
					     ? "avx512"
					     : "scalar");
	rte_tel_data_add_dict_string(d, "fib_lookup_mode", cfg->routes.fib_lookup);
	rte_tel_data_add_dict_u64(d, "nexthops", cfg->n_nexthops);
	rte_tel_data_add_dict_u64(d, "acl_rules", app->tables->acl_rules);
	rte_tel_data_add_dict_u64(d, "acl6_rules", app->tables->acl6_rules);
	rte_tel_data_add_dict_string(d, "acl_default",
				     app->tables->acl == NULL && app->tables->acl6 == NULL ? "none"
					     : cfg->acl.deny                               ? "deny"
							     : "permit");
	if (cfg->flow.enabled) {
		size_t mem = 0;
		unsigned int i;

		for (i = 0; i < app->n_workers; i++)
			mem += lf_flow_mem_bytes(app->workers[i]->flows);
		rte_tel_data_add_dict_u64(d, "flow_entries_per_worker", cfg->flow.entries);
		rte_tel_data_add_dict_u64(d, "flow_memory_bytes", mem);
	}
	rte_tel_data_add_dict_u64(d, "generation", app->tables->gen);
	rte_tel_data_add_dict_u64(d, "reloads", app->reloads);
	rte_tel_data_add_dict_u64(d, "reload_failures", app->reload_failures);
	tel_add_long_string(d, "last_reload_error", app->reload_error);

	for (p = 0; p < cfg->n_ports; p++) {
		const struct lf_port *port = &app->ports[p];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		char key[LF_NAME_LEN + 8];

		if (pd == NULL)
			return -ENOMEM;
		rte_ether_format_addr(mac, sizeof(mac), &port->mac);
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "device", cfg->ports[p].devname);
		rte_tel_data_add_dict_string(pd, "driver", port->driver);
		rte_tel_data_add_dict_u64(pd, "rx_prefetch", port->prefetch_distance);
		rte_tel_data_add_dict_u64(pd, "port_id", port->port_id);
		rte_tel_data_add_dict_int(pd, "socket", port->socket);
		rte_tel_data_add_dict_string(pd, "mac", mac);
		rte_tel_data_add_dict_u64(pd, "rx_queues", cfg->ports[p].rx_queues);
		rte_tel_data_add_dict_u64(pd, "tx_queues", cfg->ports[p].tx_queues);
		rte_tel_data_add_dict_string(pd, "ipv4_cksum",
					     port->rx_ipv4_cksum ? "offload" : "software");
		snprintf(key, sizeof(key), "port_%s", cfg->ports[p].name);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	return 0;
}

static int
tel_stats(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	struct lf_totals t;
	char key[64];
	unsigned int r;

	if (tel_app == NULL)
		return -ENODEV;
	telemetry_totals(tel_app, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx_packets", t.rx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_packets", t.tx_pkts);
	rte_tel_data_add_dict_u64(d, "drops", t.drops);
	for (r = 0; r < LF_DROP_COUNT; r++) {
		snprintf(key, sizeof(key), "drop_%s", lf_drop_names[r]);
		rte_tel_data_add_dict_u64(d, key, t.drop[r]);
	}
	for (r = 0; r < LF_EV_COUNT; r++)
		rte_tel_data_add_dict_u64(d, lf_event_names[r], t.ev[r]);
	rte_tel_data_add_dict_u64(d, "busy_cycles", t.busy_cycles);
	rte_tel_data_add_dict_u64(d, "idle_cycles", t.idle_cycles);
	rte_tel_data_add_dict_u64(d, "cycles_per_packet", per_packet(t.busy_cycles, t.rx_pkts));
	return 0;
}

/* Bucket labels of the packets-per-poll histogram. */
static const char *const burst_labels[LF_BURST_HIST_BUCKETS] = {
	"0", "1", "2_3", "4_7", "8_15", "16_31", "32_63", "64_127", "128_255", "256",
};

/* What the worker's rx mode costs and saves (docs/telemetry.md). */
static void
worker_rxm_dict(const struct lf_worker_conf *wc, const struct worker *w,
		const struct lf_worker_stats *s, struct rte_tel_data *d)
{
	struct lf_rxm_stats r;

	telemetry_rxm_snapshot(w, &r);
	rte_tel_data_add_dict_string(d, "rx_mode", lf_rx_mode_names[wc->rx_mode]);
	if (wc->rx_mode == LF_RX_PMD_MGMT)
		rte_tel_data_add_dict_string(d, "pmd_mgmt", lf_pmd_mgmt_names[wc->pmd_mgmt]);
	rte_tel_data_add_dict_u64(d, "sleeps", r.sleeps);
	rte_tel_data_add_dict_u64(d, "wakeups_interrupt", r.wake_intr);
	rte_tel_data_add_dict_u64(d, "wakeups_timeout", r.wake_timeout);
	rte_tel_data_add_dict_u64(d, "rearm_rx", r.rearm_rx);
	rte_tel_data_add_dict_u64(d, "sleep_cycles", r.sleep_cycles);
	/* The empty polls: in poll mode all idle time, in hybrid the spin. */
	rte_tel_data_add_dict_u64(d, "spin_cycles", s->idle_cycles);
	rte_tel_data_add_dict_u64(d, "cpu_percent", telemetry_cpu_percent(s, &r));
}

/* One worker as a flat dict (DPDK 22.11 nests containers one level only). */
static void
worker_dict(const struct lf_app *app, const struct worker *w, struct rte_tel_data *d)
{
	const struct lf_worker_conf *wc = &app->cfg.workers[w->index];
	struct lf_worker_stats s;
	char key[64], queues[RTE_TEL_MAX_STRING_LEN];
	size_t off = 0;
	unsigned int i;

	telemetry_worker_snapshot(w, &s);
	queues[0] = '\0';
	for (i = 0; i < wc->n_rxq && off < sizeof(queues); i++)
		off += snprintf(queues + off, sizeof(queues) - off, "%s%s:%u", i ? " " : "",
				app->cfg.ports[wc->rxq[i].port].name, wc->rxq[i].queue);

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcore", w->lcore);
	rte_tel_data_add_dict_int(d, "socket", w->socket);
	rte_tel_data_add_dict_string(d, "rx_queues", queues);
	rte_tel_data_add_dict_u64(d, "rx_packets", s.rx_pkts);
	rte_tel_data_add_dict_u64(d, "tx_packets", s.tx_pkts);
	for (i = 0; i < LF_DROP_COUNT; i++) {
		snprintf(key, sizeof(key), "drop_%s", lf_drop_names[i]);
		rte_tel_data_add_dict_u64(d, key, s.drops[i]);
	}
	for (i = 0; i < LF_EV_COUNT; i++)
		rte_tel_data_add_dict_u64(d, lf_event_names[i], s.ev[i]);
	rte_tel_data_add_dict_u64(d, "ipv4_cksum_sw", s.ipv4_cksum_sw);
	rte_tel_data_add_dict_u64(d, "rx_hw_stamped", s.rx_hw_stamped);
	rte_tel_data_add_dict_u64(d, "staged_bursts", s.staged_bursts);
	rte_tel_data_add_dict_u64(d, "split_bursts", s.split_bursts);
	rte_tel_data_add_dict_u64(d, "polls", s.polls);
	rte_tel_data_add_dict_u64(d, "burst",
				  w->burst_auto ? lf_burstctl_read(&w->bc, NULL) : w->burst);
	rte_tel_data_add_dict_u64(d, "busy_polls", s.busy_polls);
	rte_tel_data_add_dict_u64(d, "busy_cycles", s.busy_cycles);
	rte_tel_data_add_dict_u64(d, "idle_cycles", s.idle_cycles);
	rte_tel_data_add_dict_u64(d, "stalls", s.stalls);
	rte_tel_data_add_dict_u64(d, "stall_cycles", s.stall_cycles);
	rte_tel_data_add_dict_u64(d, "stall_max_cycles", s.stall_max_cycles);
	rte_tel_data_add_dict_u64(d, "clock_steps", s.clock_steps);
	rte_tel_data_add_dict_u64(d, "cycles_per_packet", per_packet(s.busy_cycles, s.rx_pkts));
	rte_tel_data_add_dict_u64(d, "busy_percent",
				  s.busy_cycles + s.idle_cycles == 0
					  ? 0
					  : s.busy_cycles * 100 / (s.busy_cycles + s.idle_cycles));
	for (i = 0; i < LF_BURST_HIST_BUCKETS; i++) {
		snprintf(key, sizeof(key), "burst_%s", burst_labels[i]);
		rte_tel_data_add_dict_u64(d, key, s.burst_hist[i]);
	}
	worker_rxm_dict(wc, w, &s, d);
}

static int worker_param(const struct lf_app *app, const char *params);

/*
 * Per-worker dicts keyed by lcore, made by dict; with a parameter (an lcore
 * id) that worker's alone, or an error dict.
 */
static int
tel_per_worker(const char *params, struct rte_tel_data *d,
	       void (*dict)(const struct lf_app *, const struct worker *, struct rte_tel_data *))
{
	const struct lf_app *app = tel_app;
	unsigned int i;
	int wi;

	if (app == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0') {
		wi = worker_param(app, params);
		if (wi >= 0) {
			dict(app, app->workers[wi], d);
			return 0;
		}
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "error",
					     "unknown worker: the parameter is a worker lcore id, see /lanefwd/workers");
		return 0;
	}
	rte_tel_data_start_dict(d);
	for (i = 0; i < app->n_workers; i++) {
		struct rte_tel_data *wd = rte_tel_data_alloc();
		char key[32];

		if (wd == NULL)
			return -ENOMEM;
		dict(app, app->workers[i], wd);
		snprintf(key, sizeof(key), "%u", app->workers[i]->lcore);
		rte_tel_data_add_dict_container(d, key, wd, 0);
	}
	return 0;
}

static int
tel_workers_locked(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_per_worker(params, d, worker_dict);
}

/* One worker's burst: with burst = auto, the controller's state and decisions. */
static void
burst_dict(const struct lf_app *app, const struct worker *w, struct rte_tel_data *d)
{
	const struct lf_pipeline_conf *p = &app->cfg.pipeline;
	const uint64_t hz = rte_get_tsc_hz();
	struct lf_burstctl_stats st;
	char key[64];
	unsigned int i;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcore", w->lcore);
	rte_tel_data_add_dict_string(d, "mode", w->burst_auto ? "auto" : "fixed");
	if (!w->burst_auto) {
		rte_tel_data_add_dict_u64(d, "burst", w->burst);
		return;
	}
	rte_tel_data_add_dict_u64(d, "burst", lf_burstctl_read(&w->bc, &st));
	rte_tel_data_add_dict_u64(d, "burst_min", p->burst_min);
	rte_tel_data_add_dict_u64(d, "burst_max", p->burst_max);
	rte_tel_data_add_dict_u64(d, "latency_target_us", p->latency_target_us);
	snprintf(key, sizeof(key), "%.10g", p->latency_percentile);
	rte_tel_data_add_dict_string(d, "latency_percentile", key);
	rte_tel_data_add_dict_u64(d, "window_packets", w->bc.window);
	rte_tel_data_add_dict_u64(d, "windows", st.windows);
	rte_tel_data_add_dict_u64(d, "windows_missed", st.windows_missed);
	rte_tel_data_add_dict_u64(d, "grown", st.grown);
	rte_tel_data_add_dict_u64(d, "shrunk", st.shrunk);
	rte_tel_data_add_dict_u64(d, "decayed", st.decayed);
	rte_tel_data_add_dict_u64(d, "target_hits", st.packets - st.misses);
	rte_tel_data_add_dict_u64(d, "target_misses", st.misses);
	rte_tel_data_add_dict_u64(d, "busy_polls", st.busy_polls);
	rte_tel_data_add_dict_u64(d, "full_polls", st.full_polls);
	/* The controller's size buckets are the poll histogram's from 1 up. */
	for (i = 0; i < LF_BURSTCTL_BUCKETS; i++) {
		snprintf(key, sizeof(key), "us_at_%s", burst_labels[i + 1]);
		rte_tel_data_add_dict_u64(d, key, st.ticks_at[i] * 1000000 / hz);
	}
}

static int
tel_burst_locked(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	return tel_per_worker(params, d, burst_dict);
}

static void
flow_dict(const struct worker *w, struct rte_tel_data *d)
{
	const struct lf_flow_stats *st = lf_flow_stats(w->flows);
	const uint64_t cap = lf_flow_capacity(w->flows);
	const uint64_t count = LF_STAT_READ(st->count);
	const uint64_t lookups = LF_STAT_READ(st->lookups);
	const uint64_t hits = LF_STAT_READ(st->hits);

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "lcore", w->lcore);
	rte_tel_data_add_dict_int(d, "socket", w->socket);
	/* The cache runs only in front of an ACL (worker_adopt). */
	rte_tel_data_add_dict_string(d, "state",
				     __atomic_load_n(&w->b.flows, __ATOMIC_RELAXED) != NULL
					     ? "active"
					     : "idle (no ACL)");
	rte_tel_data_add_dict_u64(d, "capacity", cap);
	rte_tel_data_add_dict_u64(d, "flows", count);
	rte_tel_data_add_dict_u64(d, "occupancy_percent", cap ? (count * 100 + cap / 2) / cap : 0);
	rte_tel_data_add_dict_u64(d, "memory_bytes", lf_flow_mem_bytes(w->flows));
	rte_tel_data_add_dict_u64(d, "lookups", lookups);
	rte_tel_data_add_dict_u64(d, "hits", hits);
	rte_tel_data_add_dict_u64(d, "misses", LF_STAT_READ(st->misses));
	rte_tel_data_add_dict_u64(d, "hit_percent",
				  lookups ? (hits * 100 + lookups / 2) / lookups : 0);
	rte_tel_data_add_dict_u64(d, "inserts", LF_STAT_READ(st->inserts));
	rte_tel_data_add_dict_u64(d, "evictions", LF_STAT_READ(st->evictions));
	rte_tel_data_add_dict_u64(d, "expired", LF_STAT_READ(st->expired));
	rte_tel_data_add_dict_u64(d, "overflow", LF_STAT_READ(st->overflow));
}

/* Per worker flow table figures; flow tables are fixed at start (no lock). */
static int
tel_flows(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct lf_app *app = tel_app;
	unsigned int i;

	if (app == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (params != NULL && params[0] != '\0') {
		rte_tel_data_add_dict_string(d, "error", "/lanefwd/flows takes no parameter");
		return 0;
	}
	if (app->n_workers == 0 || app->workers[0]->flows == NULL) {
		rte_tel_data_add_dict_string(d, "error",
					     "no flow tables: the config has no [flow]");
		return 0;
	}
	for (i = 0; i < app->n_workers; i++) {
		struct rte_tel_data *wd = rte_tel_data_alloc();
		char key[32];

		if (wd == NULL)
			return -ENOMEM;
		flow_dict(app->workers[i], wd);
		snprintf(key, sizeof(key), "%u", app->workers[i]->lcore);
		rte_tel_data_add_dict_container(d, key, wd, 0);
	}
	return 0;
}

/* Quantiles reported by /lanefwd/latency, and their key suffixes. */
static const struct {
	double q;
	const char *name;
} lat_quantiles[] = {
	{ 0.5, "p50" }, { 0.9, "p90" }, { 0.99, "p99" }, { 0.999, "p99_9" }, { 0.9999, "p99_99" },
};

static uint64_t
to_ns(uint64_t cycles)
{
	return (uint64_t)((double)cycles * 1e9 / rte_get_tsc_hz());
}

static void
lat_summary(struct rte_tel_data *d, const char *prefix, const struct lf_hist *h)
{
	char key[64];
	unsigned int i;

	snprintf(key, sizeof(key), "%scount", prefix);
	rte_tel_data_add_dict_u64(d, key, h->total);
	snprintf(key, sizeof(key), "%smin_ns", prefix);
	rte_tel_data_add_dict_u64(d, key, h->total ? to_ns(h->min) : 0);
	for (i = 0; i < RTE_DIM(lat_quantiles); i++) {
		snprintf(key, sizeof(key), "%s%s_ns", prefix, lat_quantiles[i].name);
		rte_tel_data_add_dict_u64(d, key, to_ns(lf_hist_quantile(h, lat_quantiles[i].q)));
	}
	snprintf(key, sizeof(key), "%smax_ns", prefix);
	rte_tel_data_add_dict_u64(d, key, to_ns(h->max));
	snprintf(key, sizeof(key), "%soverflow", prefix);
	rte_tel_data_add_dict_u64(d, key, h->overflow);
}

/* Worker index of a telemetry parameter (an lcore id), or -1. */
static int
worker_param(const struct lf_app *app, const char *params)
{
	unsigned long lcore;
	unsigned int i;
	char *end;

	if (params == NULL || !isdigit((unsigned char)params[0]))
		return -1;
	errno = 0;
	lcore = strtoul(params, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	for (i = 0; i < app->n_workers; i++)
		if (app->workers[i]->lcore == lcore)
			return i;
	return -1;
}

static int
tel_latency_locked(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct lf_app *app = tel_app;
	unsigned int i;
	int wi;

	if (app == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (!app->cfg.pipeline.latency) {
		rte_tel_data_add_dict_string(d, "error",
					     "latency recording is off ([pipeline] latency = no)");
		return 0;
	}
	pthread_mutex_lock(&app->lat_lock);
	if (params != NULL && params[0] != '\0') {
		/* One worker: every non-empty bucket of its since-start histogram. */
		struct rte_tel_data *up, *cnt;
		const struct lf_hist *h;

		wi = worker_param(app, params);
		if (wi < 0 || app->lat_total[wi] == NULL) {
			pthread_mutex_unlock(&app->lat_lock);
			rte_tel_data_add_dict_string(d, "error",
						     "unknown worker: the parameter is a worker lcore id, see /lanefwd/workers");
			return 0;
		}
		h = app->lat_total[wi];
		up = rte_tel_data_alloc();
		cnt = rte_tel_data_alloc();
		if (up == NULL || cnt == NULL) {
			pthread_mutex_unlock(&app->lat_lock);
			rte_tel_data_free(up);
			rte_tel_data_free(cnt);
			return -ENOMEM;
		}
		rte_tel_data_start_array(up, RTE_TEL_U64_VAL);
		rte_tel_data_start_array(cnt, RTE_TEL_U64_VAL);
		{
			unsigned int nonempty = 0, per, b, in_group = 0;
			uint64_t acc = 0;

			for (b = 0; b < LF_HIST_BUCKETS; b++)
				nonempty += h->count[b] != 0;
			/* Merge neighbours if the buckets outnumber an array's room. */
			per = (nonempty + RTE_TEL_MAX_ARRAY_ENTRIES - 2) /
				(RTE_TEL_MAX_ARRAY_ENTRIES - 1);
			per = per ? per : 1;
			for (b = 0; b < LF_HIST_BUCKETS; b++) {
				if (h->count[b] == 0)
					continue;
				acc += h->count[b];
				if (++in_group == per) {
					rte_tel_data_add_array_u64(up, to_ns(lf_hist_upper(b)));
					rte_tel_data_add_array_u64(cnt, acc);
					acc = 0;
					in_group = 0;
				}
			}
			if (in_group != 0) {
				rte_tel_data_add_array_u64(up, to_ns(h->max));
				rte_tel_data_add_array_u64(cnt, acc);
			}
		}
		rte_tel_data_add_dict_u64(d, "lcore", app->workers[wi]->lcore);
		lat_summary(d, "", h);
		rte_tel_data_add_dict_container(d, "bucket_upper_ns", up, 0);
		rte_tel_data_add_dict_container(d, "bucket_count", cnt, 0);
		pthread_mutex_unlock(&app->lat_lock);
		return 0;
	}
	rte_tel_data_add_dict_u64(d, "interval_ms", app->lat_interval_ms);
	for (i = 0; i < app->n_workers; i++) {
		struct rte_tel_data *wd = rte_tel_data_alloc();
		char key[32];

		if (wd == NULL)
			break;
		rte_tel_data_start_dict(wd);
		lat_summary(wd, "", app->lat_total[i]);
		lat_summary(wd, "interval_", app->lat_interval[i]);
		snprintf(key, sizeof(key), "%u", app->workers[i]->lcore);
		rte_tel_data_add_dict_container(d, key, wd, 0);
	}
	pthread_mutex_unlock(&app->lat_lock);
	return 0;
}

static int
tel_latency_reset(const char *cmd __rte_unused, const char *params __rte_unused,
		  struct rte_tel_data *d)
{
	if (tel_app == NULL)
		return -ENODEV;
	latency_reset(tel_app);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "status", "latency histograms cleared");
	return 0;
}

/* The commands that read cfg or the tables run under ctl_lock, which a
 * reload holds while it replaces them. */
static int
under_ctl_lock(int (*fn)(const char *, const char *, struct rte_tel_data *), const char *cmd,
	       const char *params, struct rte_tel_data *d)
{
	struct lf_app *app = tel_app;
	int ret;

	if (app == NULL)
		return -ENODEV;
	pthread_mutex_lock(&app->ctl_lock);
	/* No tables: lanefwd is stopping and has freed them. */
	ret = app->tables != NULL ? fn(cmd, params, d) : -ENODEV;
	pthread_mutex_unlock(&app->ctl_lock);
	return ret;
}

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return under_ctl_lock(tel_info_locked, cmd, params, d);
}

static int
tel_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return under_ctl_lock(tel_workers_locked, cmd, params, d);
}

static int
tel_burst(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return under_ctl_lock(tel_burst_locked, cmd, params, d);
}

static int
tel_latency(const char *cmd, const char *params, struct rte_tel_data *d)
{
	return under_ctl_lock(tel_latency_locked, cmd, params, d);
}

static int
tel_reload(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct lf_app *app = tel_app;
	char err[LF_ERR_LEN];
	int ret;

	if (app == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	if (params != NULL && params[0] != '\0') {
		rte_tel_data_add_dict_string(d, "status", "error");
		rte_tel_data_add_dict_string(d, "error", "/lanefwd/reload takes no parameter");
		return 0;
	}
	ret = reload_run(app, err, sizeof(err));
	rte_tel_data_add_dict_string(d, "status", ret == 0 ? "ok" : "error");
	pthread_mutex_lock(&app->ctl_lock);
	if (app->tables != NULL)
		rte_tel_data_add_dict_u64(d, "generation", app->tables->gen);
	pthread_mutex_unlock(&app->ctl_lock);
	if (ret != 0)
		tel_add_long_string(d, "error", err);
	return 0;
}

/* The XDP program's counters of each exception = kernel port (xdp.h). */
static int
tel_xdp(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct lf_app *app = tel_app;
	unsigned int p, i;

	if (app == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (p = 0; p < app->cfg.n_ports; p++) {
		uint64_t st[LF_XDP_STAT_COUNT];
		struct rte_tel_data *pd;
		char key[64];

		if (xdp_kernel_stats(p, st) != 0)
			continue;
		pd = rte_tel_data_alloc();
		if (pd == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(pd);
		for (i = 0; i < LF_XDP_STAT_COUNT; i++)
			rte_tel_data_add_dict_u64(pd, lf_xdp_stat_names[i], st[i]);
		snprintf(key, sizeof(key), "port_%s", app->cfg.ports[p].name);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	return 0;
}

int
telemetry_init(struct lf_app *app)
{
	int ret;

	tel_app = app;
	ret = rte_telemetry_register_cmd("/lanefwd/info", tel_info,
					 "lanefwd version, configuration, uptime, ports. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/stats", tel_stats,
						 "Packet, drop and cycle totals over all workers. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/workers", tel_workers,
						 "Per-worker counters, cycles/packet and packets-per-poll histogram. Parameter: optional worker lcore id");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/latency", tel_latency,
						 "Residence ns per worker (since start, last interval). Param: lcore, for buckets");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/latency_reset", tel_latency_reset,
						 "Clear the latency histograms. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/burst", tel_burst,
						 "Per-worker burst; with burst = auto the controller's burst, decisions, target hits/misses, time at each size. Param: lcore");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/flows", tel_flows,
						 "Per-worker flow table: flows, capacity, memory, hits, misses, evictions. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/reload", tel_reload,
						 "Reload routes, next hops and ACL rules from the config files. No parameters");
	if (ret == 0)
		ret = rte_telemetry_register_cmd("/lanefwd/xdp", tel_xdp,
						 "Counters of lanefwd's XDP program on each [port] exception = kernel: passed to the kernel, redirected, dropped. No parameters");
	if (ret != 0)
		LF_LOG(ERR, tel, "cannot register telemetry commands: %s", strerror(-ret));
	return ret;
}

void
telemetry_free(void)
{
	/* DPDK 22.11 cannot unregister commands; stop serving our data. */
	__atomic_store_n(&tel_app, NULL, __ATOMIC_RELEASE);
}
