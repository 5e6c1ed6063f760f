/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Prometheus exporter (prom.h): GET /metrics on [prometheus]
 * address:port, in the text exposition format 0.0.4 (docs/telemetry.md).
 *
 * One control thread (rte_ctrl_thread_create, so never on a worker's core)
 * serves one connection at a time: Prometheus scrapes every few seconds and
 * a page takes well under a millisecond, so a queue of waiting clients is
 * all a second scraper costs. Every connection has a deadline (PROM_REQ_MS
 * to send its request, PROM_SEND_MS to take the answer), so a slow or
 * silent client holds the thread for seconds at most, and the answer always
 * closes the connection.
 *
 * The page reads what telemetry reads, the same way: the workers'
 * single-writer counters with relaxed loads, cfg and the tables' figures
 * under ctl_lock, the latency histograms under lat_lock. Neither lock is a
 * worker's.
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "hist.h"
#include "lanefwd.h"
#include "lf_log.h"
#include "prom.h"
#include "prom_text.h"
#include "telemetry.h"
#include "upf.h"

#define PROM_REQ_MS 2000 /* To send the whole request header. */
#define PROM_SEND_MS 5000 /* To take the whole answer. */
#define PROM_DRAIN_MS 200 /* Reading what the client still sends, after the answer. */
#define PROM_POLL_MS 100 /* How soon the thread sees prom_stop(). */

/* ---- The text format ------------------------------------------------- */

void
prom_buf_free(struct prom_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static bool
buf_room(struct prom_buf *b, size_t need)
{
	size_t cap;
	char *p;

	if (b->failed)
		return false;
	if (b->len + need < b->cap)
		return true;
	cap = b->cap ? b->cap : 16384;
	while (cap <= b->len + need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void
prom_printf(struct prom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!buf_room(b, 256))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		/* Longer than the room there was: make room and write it again. */
		if (!buf_room(b, n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

void
prom_family(struct prom_buf *b, const char *name, const char *type, const char *help)
{
	prom_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void
prom_label_value(struct prom_buf *b, const char *v)
{
	for (; *v != '\0'; v++) {
		if (!buf_room(b, 2))
			return;
		if (*v == '\\' || *v == '"') {
			b->p[b->len++] = '\\';
			b->p[b->len++] = *v;
		} else if (*v == '\n') {
			b->p[b->len++] = '\\';
			b->p[b->len++] = 'n';
		} else {
			b->p[b->len++] = *v;
		}
	}
	if (buf_room(b, 1))
		b->p[b->len] = '\0';
}

/*
 * From a quarter microsecond, a little over what a packet that waits for
 * nothing spends in lanefwd, to a second, far past any ring or burst wait:
 * 1-2.5-5 steps, as coarse as a PromQL quantile between them can stand.
 */
const double prom_lat_bounds[PROM_LAT_BOUNDS] = {
	250e-9, 500e-9, 1e-6, 2.5e-6, 5e-6, 10e-6, 25e-6,  50e-6, 100e-6,
	250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 100e-3, 1.0,
};

void
prom_hist_from(struct prom_hist *out, const struct lf_hist *h, uint64_t tsc_hz)
{
	uint64_t bound[PROM_LAT_BOUNDS], in[PROM_LAT_BOUNDS] = { 0 }, acc = 0;
	double sum = 0;
	unsigned int i, j;

	for (j = 0; j < PROM_LAT_BOUNDS; j++)
		bound[j] = (uint64_t)(prom_lat_bounds[j] * (double)tsc_hz);
	for (i = 0; i < LF_HIST_BUCKETS; i++) {
		const uint64_t n = h->count[i];
		const uint64_t up = lf_hist_upper(i);

		if (n == 0)
			continue;
		sum += (double)n * ((double)lf_hist_lower(i) + (double)up) / 2;
		for (j = 0; j < PROM_LAT_BOUNDS && up > bound[j]; j++)
			;
		if (j < PROM_LAT_BOUNDS)
			in[j] += n;
	}
	/* Values past the histogram's range: max is the largest of them. */
	sum += (double)h->overflow * (double)h->max;
	for (j = 0; j < PROM_LAT_BOUNDS; j++) {
		acc += in[j];
		out->le[j] = acc;
	}
	/* total counts every value; never let +Inf fall below a le bucket. */
	out->count = RTE_MAX(h->total, acc);
	out->sum = tsc_hz ? sum / (double)tsc_hz : 0;
}

void
prom_hist_write(struct prom_buf *b, const char *name, const char *labels, const struct prom_hist *h)
{
	const char *sep = labels[0] != '\0' ? "," : "";
	unsigned int j;

	for (j = 0; j < PROM_LAT_BOUNDS; j++)
		prom_printf(b, "%s_bucket{%s%sle=\"%g\"} %" PRIu64 "\n", name, labels, sep,
			    prom_lat_bounds[j], h->le[j]);
	prom_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, sep, h->count);
	if (labels[0] != '\0') {
		prom_printf(b, "%s_sum{%s} %.9g\n", name, labels, h->sum);
		prom_printf(b, "%s_count{%s} %" PRIu64 "\n", name, labels, h->count);
	} else {
		prom_printf(b, "%s_sum %.9g\n%s_count %" PRIu64 "\n", name, h->sum, name, h->count);
	}
}

/* ---- The page -------------------------------------------------------- */

/* One u64 field of struct lf_worker_stats per family. */
static const struct {
	const char *name, *type, *help;
	size_t off;
} worker_fields[] = {
	{ "lanefwd_worker_rx_packets_total", "counter", "Packets the worker received.",
	  offsetof(struct lf_worker_stats, rx_pkts) },
	{ "lanefwd_worker_tx_packets_total", "counter",
	  "Packets the worker handed to a port's TX queue and the port took.",
	  offsetof(struct lf_worker_stats, tx_pkts) },
	{ "lanefwd_worker_polls_total", "counter", "RX polls, empty ones included.",
	  offsetof(struct lf_worker_stats, polls) },
	{ "lanefwd_worker_busy_polls_total", "counter", "RX polls that returned packets.",
	  offsetof(struct lf_worker_stats, busy_polls) },
	{ "lanefwd_worker_busy_cycles_total", "counter",
	  "TSC cycles of loop iterations with packets (divide by lanefwd_tsc_hz for seconds).",
	  offsetof(struct lf_worker_stats, busy_cycles) },
	{ "lanefwd_worker_idle_cycles_total", "counter",
	  "TSC cycles of empty loop iterations (divide by lanefwd_tsc_hz for seconds).",
	  offsetof(struct lf_worker_stats, idle_cycles) },
	{ "lanefwd_worker_staged_bursts_total", "counter",
	  "Bursts the staged pipeline ran whole: the fused IPv4 stages could not take them.",
	  offsetof(struct lf_worker_stats, staged_bursts) },
	{ "lanefwd_worker_split_bursts_total", "counter",
	  "Bursts split by family: IPv4 and IPv6 each through their fused stage, the rest (ARP) staged.",
	  offsetof(struct lf_worker_stats, split_bursts) },
	{ "lanefwd_worker_stalls_total", "counter",
	  "Loop iterations longer than 1 ms: the worker lost its CPU (kernel, hypervisor) or did far more than a burst's work.",
	  offsetof(struct lf_worker_stats, stalls) },
	{ "lanefwd_worker_stall_cycles_total", "counter",
	  "TSC cycles of those iterations (divide by lanefwd_tsc_hz for seconds).",
	  offsetof(struct lf_worker_stats, stall_cycles) },
	{ "lanefwd_worker_clock_steps_total", "counter",
	  "Loop iterations that ended before they began: the CPU's TSC stepped back (a hypervisor's doing); timers re-anchor.",
	  offsetof(struct lf_worker_stats, clock_steps) },
};

static uint64_t
stat_at(const struct lf_worker_stats *s, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

/*
 * A u64 counter family per entry, one sample per worker, read at `off` in
 * each worker's stats snapshot. An entry with no help continues the
 * family above it with another label (a cause, a decision).
 */
struct prom_u64_field {
	const char *name, *help, *label;
	size_t off;
};

/* burst = auto's counters per worker (struct lf_burstctl_stats), by family. */
static const struct prom_u64_field burst_fields[] = {
	{ "lanefwd_worker_burst_packets_total", "Packets whose residence burst = auto judged.", "",
	  offsetof(struct lf_burstctl_stats, packets) },
	{ "lanefwd_worker_burst_misses_total", "Of them, residence over latency_target_us.", "",
	  offsetof(struct lf_burstctl_stats, misses) },
	{ "lanefwd_worker_burst_decisions_total",
	  "Changes burst = auto made: grown (a backlog), shrunk (misses), decayed (unused).",
	  ",decision=\"grown\"", offsetof(struct lf_burstctl_stats, grown) },
	{ "lanefwd_worker_burst_decisions_total", NULL, ",decision=\"shrunk\"",
	  offsetof(struct lf_burstctl_stats, shrunk) },
	{ "lanefwd_worker_burst_decisions_total", NULL, ",decision=\"decayed\"",
	  offsetof(struct lf_burstctl_stats, decayed) },
};

/* The rx modes' counters per worker (struct lf_rxm_stats, rxmode.h). */
static const struct prom_u64_field rxm_fields[] = {
	{ "lanefwd_worker_sleeps_total", "Sleeps in epoll (rx_mode interrupt or hybrid).", "",
	  offsetof(struct lf_rxm_stats, sleeps) },
	{ "lanefwd_worker_wakeups_total",
	  "Wakeups from those sleeps by cause: an RX queue's interrupt or the sleep_max_us timeout.",
	  ",cause=\"interrupt\"", offsetof(struct lf_rxm_stats, wake_intr) },
	{ "lanefwd_worker_wakeups_total", NULL, ",cause=\"timeout\"",
	  offsetof(struct lf_rxm_stats, wake_timeout) },
	{ "lanefwd_worker_sleep_cycles_total",
	  "TSC cycles asleep (divide by lanefwd_tsc_hz for seconds).", "",
	  offsetof(struct lf_rxm_stats, sleep_cycles) },
};

/* fields[] over n workers' snapshots, `stride` bytes apart from `snaps`. */
static void
render_u64_fields(const struct lf_app *app, struct prom_buf *b, const struct prom_u64_field *fields,
		  unsigned int n_fields, const void *snaps, size_t stride)
{
	unsigned int i, f;
	uint64_t v;

	for (f = 0; f < n_fields; f++) {
		if (fields[f].help != NULL)
			prom_family(b, fields[f].name, "counter", fields[f].help);
		for (i = 0; i < app->n_workers; i++) {
			memcpy(&v, (const char *)snaps + i * stride + fields[f].off, sizeof(v));
			prom_printf(b, "%s{worker=\"%u\"%s} %" PRIu64 "\n", fields[f].name,
				    app->workers[i]->lcore, fields[f].label, v);
		}
	}
}

static void
render_burst(const struct lf_app *app, struct prom_buf *b)
{
	struct lf_burstctl_stats *st;
	unsigned int i, n = app->n_workers;

	st = calloc(n, sizeof(*st));
	if (st == NULL) {
		b->failed = true;
		return;
	}
	prom_family(b, "lanefwd_worker_burst", "gauge", "The RX burst burst = auto asks for now.");
	for (i = 0; i < n; i++)
		prom_printf(b, "lanefwd_worker_burst{worker=\"%u\"} %u\n", app->workers[i]->lcore,
			    lf_burstctl_read(&app->workers[i]->bc, &st[i]));
	render_u64_fields(app, b, burst_fields, RTE_DIM(burst_fields), st, sizeof(*st));
	free(st);
}

static void
render_workers(const struct lf_app *app, struct prom_buf *b)
{
	struct lf_worker_stats *s;
	unsigned int i, k, f, n = app->n_workers;

	/* Snapshots first, so that every family shows the same instant. */
	s = calloc(RTE_MAX(n, 1u), sizeof(*s));
	if (s == NULL) {
		b->failed = true;
		return;
	}
	for (i = 0; i < n; i++)
		telemetry_worker_snapshot(app->workers[i], &s[i]);
	for (f = 0; f < RTE_DIM(worker_fields); f++) {
		prom_family(b, worker_fields[f].name, worker_fields[f].type, worker_fields[f].help);
		for (i = 0; i < n; i++)
			prom_printf(b, "%s{worker=\"%u\"} %" PRIu64 "\n", worker_fields[f].name,
				    app->workers[i]->lcore, stat_at(&s[i], worker_fields[f].off));
	}
	prom_family(b, "lanefwd_worker_drops_total", "counter",
		    "Packets the worker dropped, by reason (docs/telemetry.md).");
	for (i = 0; i < n; i++)
		for (k = 0; k < LF_DROP_COUNT; k++)
			prom_printf(b,
				    "lanefwd_worker_drops_total{worker=\"%u\",reason=\"%s\"} %" PRIu64
				    "\n",
				    app->workers[i]->lcore, lf_drop_names[k], s[i].drops[k]);
	prom_family(b, "lanefwd_worker_events_total", "counter",
		    "The router's own work that is not a drop: ICMP sent, punts to the kernel or the control thread, what came back.");
	for (i = 0; i < n; i++)
		for (k = 0; k < LF_EV_COUNT; k++)
			prom_printf(b,
				    "lanefwd_worker_events_total{worker=\"%u\",event=\"%s\"} %" PRIu64
				    "\n",
				    app->workers[i]->lcore, lf_event_names[k], s[i].ev[k]);
	prom_family(b, "lanefwd_worker_cycles_per_packet", "gauge",
		    "Busy cycles per received packet since start (rate() the two counters for a recent figure).");
	for (i = 0; i < n; i++) {
		const uint64_t rx = s[i].rx_pkts;

		prom_printf(b, "lanefwd_worker_cycles_per_packet{worker=\"%u\"} %" PRIu64 "\n",
			    app->workers[i]->lcore, rx ? (s[i].busy_cycles + rx / 2) / rx : 0);
	}
	free(s);
	if (n != 0 && app->workers[0]->burst_auto)
		render_burst(app, b);
}

/* The workers' rx modes: sleeps, wakeups by cause, time asleep (rxmode.h). */
static void
render_rxmode(const struct lf_app *app, struct prom_buf *b)
{
	struct lf_worker_stats s;
	struct lf_rxm_stats r[LF_MAX_WORKERS];
	uint64_t pct[LF_MAX_WORKERS];
	unsigned int i;

	for (i = 0; i < app->n_workers; i++) {
		telemetry_worker_snapshot(app->workers[i], &s);
		telemetry_rxm_snapshot(app->workers[i], &r[i]);
		pct[i] = telemetry_cpu_percent(&s, &r[i]);
	}
	render_u64_fields(app, b, rxm_fields, RTE_DIM(rxm_fields), r, sizeof(r[0]));
	prom_family(b, "lanefwd_worker_cpu_ratio", "gauge",
		    "Share of its core the worker used since start: busy and spinning against asleep.");
	for (i = 0; i < app->n_workers; i++)
		prom_printf(b, "lanefwd_worker_cpu_ratio{worker=\"%u\",mode=\"%s\"} %.2f\n",
			    app->workers[i]->lcore, lf_rx_mode_names[app->workers[i]->rxm.mode],
			    pct[i] / 100.0);
}

/* The ethdev counters, under Prometheus names. */
static const struct {
	const char *name, *help;
	size_t off;
} port_fields[] = {
	{ "lanefwd_port_rx_packets_total", "Packets the port received (ethdev ipackets).",
	  offsetof(struct rte_eth_stats, ipackets) },
	{ "lanefwd_port_tx_packets_total", "Packets the port sent (ethdev opackets).",
	  offsetof(struct rte_eth_stats, opackets) },
	{ "lanefwd_port_rx_bytes_total", "Bytes the port received (ethdev ibytes).",
	  offsetof(struct rte_eth_stats, ibytes) },
	{ "lanefwd_port_tx_bytes_total", "Bytes the port sent (ethdev obytes).",
	  offsetof(struct rte_eth_stats, obytes) },
	{ "lanefwd_port_rx_missed_total",
	  "Packets the port dropped because no RX descriptor was free (ethdev imissed).",
	  offsetof(struct rte_eth_stats, imissed) },
	{ "lanefwd_port_rx_errors_total", "Erroneous packets received (ethdev ierrors).",
	  offsetof(struct rte_eth_stats, ierrors) },
	{ "lanefwd_port_tx_errors_total", "Packets the port failed to send (ethdev oerrors).",
	  offsetof(struct rte_eth_stats, oerrors) },
	{ "lanefwd_port_rx_nombuf_total", "RX mbuf allocation failures (ethdev rx_nombuf).",
	  offsetof(struct rte_eth_stats, rx_nombuf) },
};

/* The label set of port index p: a configured port by its [port NAME], a
 * kernel TAP mirror by its interface, role saying which. */
static void
port_labels(const struct lf_app *app, unsigned int p, struct prom_buf *b)
{
	const struct lf_config *cfg = &app->cfg;

	prom_printf(b, "port=\"");
	if (p < cfg->n_ports) {
		prom_label_value(b, cfg->ports[p].name);
		prom_printf(b, "\",role=\"port\"");
	} else {
		prom_label_value(b, cfg->ports[app->exc_of[p - cfg->n_ports]].exception_if);
		prom_printf(b, "\",role=\"exception\",mirror_of=\"");
		prom_label_value(b, cfg->ports[app->exc_of[p - cfg->n_ports]].name);
		prom_printf(b, "\"");
	}
}

static void
render_ports(const struct lf_app *app, struct prom_buf *b)
{
	const unsigned int n = app->cfg.n_ports + app->n_exc;
	struct rte_eth_stats *st;
	bool *ok;
	unsigned int p, f;

	st = calloc(RTE_MAX(n, 1u), sizeof(*st));
	ok = calloc(RTE_MAX(n, 1u), sizeof(*ok));
	if (st == NULL || ok == NULL) {
		free(st);
		free(ok);
		b->failed = true;
		return;
	}
	for (p = 0; p < n; p++)
		ok[p] = app->ports[p].started &&
			rte_eth_stats_get(app->ports[p].port_id, &st[p]) == 0;
	for (f = 0; f < RTE_DIM(port_fields); f++) {
		prom_family(b, port_fields[f].name, "counter", port_fields[f].help);
		for (p = 0; p < n; p++) {
			uint64_t v;

			if (!ok[p])
				continue;
			memcpy(&v, (const char *)&st[p] + port_fields[f].off, sizeof(v));
			prom_printf(b, "%s{", port_fields[f].name);
			port_labels(app, p, b);
			prom_printf(b, "} %" PRIu64 "\n", v);
		}
	}
	free(st);
	free(ok);
}

static void
render_upf(const struct upf_store *st, const struct lf_app *app, struct prom_buf *b)
{
	const unsigned int n = RTE_MIN(st->p.n_workers, app->n_workers);
	unsigned int w, k;

	prom_family(b, "lanefwd_upf_packets_total", "counter",
		    "UPF packets forwarded, uplink after decapsulation, downlink after encapsulation.");
	for (w = 0; w < n; w++) {
		const struct upf_wk_stats *s = &st->wk[w].stats;

		prom_printf(b,
			    "lanefwd_upf_packets_total{worker=\"%u\",direction=\"uplink\"} %" PRIu64
			    "\nlanefwd_upf_packets_total{worker=\"%u\",direction=\"downlink\"} "
			    "%" PRIu64 "\n",
			    app->workers[w]->lcore, LF_STAT_READ(s->ul_pkts),
			    app->workers[w]->lcore, LF_STAT_READ(s->dl_pkts));
	}
	prom_family(b, "lanefwd_upf_bytes_total", "counter",
		    "Bytes of the UPF packets forwarded, as lanefwd_upf_packets_total counts them.");
	for (w = 0; w < n; w++) {
		const struct upf_wk_stats *s = &st->wk[w].stats;

		prom_printf(b,
			    "lanefwd_upf_bytes_total{worker=\"%u\",direction=\"uplink\"} %" PRIu64
			    "\nlanefwd_upf_bytes_total{worker=\"%u\",direction=\"downlink\"} "
			    "%" PRIu64 "\n",
			    app->workers[w]->lcore, LF_STAT_READ(s->ul_bytes),
			    app->workers[w]->lcore, LF_STAT_READ(s->dl_bytes));
	}
	prom_family(b, "lanefwd_upf_drops_total", "counter",
		    "UPF packets dropped, by reason (docs/upf.md).");
	for (w = 0; w < n; w++)
		for (k = 0; k < UPF_DROP_COUNT; k++)
			prom_printf(b,
				    "lanefwd_upf_drops_total{worker=\"%u\",reason=\"%s\"} %" PRIu64
				    "\n",
				    app->workers[w]->lcore, upf_drop_names[k],
				    LF_STAT_READ(st->wk[w].stats.drops[k]));
}

/* What is read under ctl_lock: cfg, the tables, the reload figures. */
static int
render_locked(struct lf_app *app, uint64_t tsc_hz, struct prom_buf *b)
{
	if (app->tables == NULL)
		return -ENODEV; /* Stopping: the tables are gone. */
	prom_family(b, "lanefwd_info", "gauge", "lanefwd's version; always 1.");
	prom_printf(b, "lanefwd_info{version=\"");
	prom_label_value(b, LF_VERSION);
	prom_printf(b, "\"} 1\n");
	prom_family(b, "lanefwd_start_time_seconds", "gauge",
		    "When lanefwd started, seconds since the Unix epoch.");
	prom_printf(b, "lanefwd_start_time_seconds %" PRIu64 "\n", (uint64_t)app->start_time);
	prom_family(b, "lanefwd_tsc_hz", "gauge",
		    "TSC cycles per second, the unit of the _cycles_total counters.");
	prom_printf(b, "lanefwd_tsc_hz %" PRIu64 "\n", tsc_hz);
	prom_family(b, "lanefwd_reloads_total", "counter",
		    "Successful reloads (SIGHUP, /lanefwd/reload).");
	prom_printf(b, "lanefwd_reloads_total %" PRIu64 "\n", app->reloads);
	prom_family(b, "lanefwd_reload_failures_total", "counter",
		    "Reloads refused; the tables in force stayed.");
	prom_printf(b, "lanefwd_reload_failures_total %" PRIu64 "\n", app->reload_failures);
	prom_family(b, "lanefwd_table_generation", "gauge", "Generation of the tables in force.");
	prom_printf(b, "lanefwd_table_generation %" PRIu64 "\n", (uint64_t)app->tables->gen);
	prom_family(b, "lanefwd_routes", "gauge", "Routes in the FIB, by address family.");
	prom_printf(b, "lanefwd_routes{family=\"ipv4\"} %" PRIu64 "\n",
		    (uint64_t)app->tables->fib.n4);
	prom_printf(b, "lanefwd_routes{family=\"ipv6\"} %" PRIu64 "\n",
		    (uint64_t)app->tables->fib.n6);
	render_workers(app, b);
	render_rxmode(app, b);
	render_ports(app, b);
	return 0;
}

static void
render_latency(struct lf_app *app, uint64_t tsc_hz, struct prom_buf *b)
{
	static const char name[] = "lanefwd_worker_latency_seconds";
	struct prom_hist *h;
	bool *have;
	unsigned int i, n = app->n_workers;

	if (!app->cfg.pipeline.latency || n == 0)
		return;
	h = calloc(n, sizeof(*h));
	have = calloc(n, sizeof(*have));
	if (h == NULL || have == NULL) {
		free(h);
		free(have);
		b->failed = true;
		return;
	}
	/* Fold under the lock (a few thousand adds), write after it. */
	pthread_mutex_lock(&app->lat_lock);
	for (i = 0; i < n; i++) {
		have[i] = app->lat_total[i] != NULL;
		if (have[i])
			prom_hist_from(&h[i], app->lat_total[i], tsc_hz);
	}
	pthread_mutex_unlock(&app->lat_lock);
	prom_family(b, name, "histogram",
		    "Residence of transmitted packets, RX to TX, since start or /lanefwd/latency_reset; _sum from bucket midpoints (within 1%).");
	for (i = 0; i < n; i++) {
		char labels[32];

		if (!have[i])
			continue;
		snprintf(labels, sizeof(labels), "worker=\"%u\"", app->workers[i]->lcore);
		prom_hist_write(b, name, labels, &h[i]);
	}
	free(h);
	free(have);
}

int
prom_render(struct lf_app *app, uint64_t tsc_hz, struct prom_buf *b)
{
	int ret;

	pthread_mutex_lock(&app->ctl_lock);
	ret = render_locked(app, tsc_hz, b);
	pthread_mutex_unlock(&app->ctl_lock);
	if (ret != 0)
		return ret;
	render_latency(app, tsc_hz, b);
	if (app->upf != NULL)
		render_upf(app->upf, app, b);
	return b->failed ? -ENOMEM : 0;
}

/* ---- HTTP ------------------------------------------------------------ */

/* Where the header ends (after its empty line), or NULL. */
static const char *
header_end(const char *req, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (req[i] != '\n')
			continue;
		if (req[i + 1] == '\n')
			return req + i + 2;
		if (req[i + 1] == '\r' && i + 2 < len && req[i + 2] == '\n')
			return req + i + 3;
	}
	return NULL;
}

static bool
is_tchar(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		(c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

int
prom_http_status(const char *req, size_t len, bool *head)
{
	const char *end = header_end(req, len), *p = req, *m, *t;
	size_t mlen, tlen;

	*head = false;
	if (end == NULL)
		return len >= PROM_REQ_MAX ? 431 : 0;
	/* RFC 9112 2.2: empty lines before the request line are ignored. */
	while (p < end && (*p == '\r' || *p == '\n'))
		p++;
	for (m = p; p < end && is_tchar(*p); p++)
		;
	mlen = p - m;
	if (mlen == 0 || p >= end || *p++ != ' ')
		return 400;
	for (t = p; p < end && *p != ' ' && *p != '\r' && *p != '\n'; p++)
		;
	tlen = p - t;
	if (tlen == 0 || p >= end || *p++ != ' ')
		return 400;
	if ((size_t)(end - p) < 8 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9')
		return 400;
	p += 8;
	if (*p == '\r')
		p++;
	if (*p != '\n')
		return 400;
	if (!((tlen == 8 && memcmp(t, "/metrics", 8) == 0) ||
	      (tlen > 8 && memcmp(t, "/metrics?", 9) == 0)))
		return 404;
	if (mlen == 4 && memcmp(m, "HEAD", 4) == 0)
		*head = true;
	else if (mlen != 3 || memcmp(m, "GET", 3) != 0)
		return 405;
	return 200;
}

static struct {
	struct lf_app *app;
	int fd;
	bool running;
	bool stop; /* prom_stop: sets; the thread: reads. */
	pthread_t thread;
	uint64_t scrapes;
} prom = { .fd = -1 };

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for fd to be ready for events until deadline; false on timeout or stop. */
static bool
wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t left;
	int r;

	while ((left = deadline - now_ms()) > 0 && !__atomic_load_n(&prom.stop, __ATOMIC_RELAXED)) {
		r = poll(&pfd, 1, (int)RTE_MIN(left, PROM_POLL_MS));
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
	return false;
}

static bool
send_all(int fd, const char *p, size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!wait_fd(fd, POLLOUT, deadline))
				return false;
		} else {
			return false;
		}
	}
	return true;
}

static const char *
reason(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 431:
		return "Request Header Fields Too Large";
	case 503:
		return "Service Unavailable";
	default:
		return "Internal Server Error";
	}
}

static void
answer(int fd, int status, const char *ctype, const char *body, size_t len, bool head)
{
	const int64_t deadline = now_ms() + PROM_SEND_MS;
	char hdr[256];
	int n;

	n = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		     "Connection: close\r\n\r\n",
		     status, reason(status), ctype, len,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (send_all(fd, hdr, n, deadline) && !head)
		send_all(fd, body, len, deadline);
}

static void
answer_text(int fd, int status, const char *msg)
{
	answer(fd, status, "text/plain; charset=utf-8", msg, strlen(msg), false);
}

static void
serve(int fd)
{
	char req[PROM_REQ_MAX];
	const int64_t deadline = now_ms() + PROM_REQ_MS;
	size_t len = 0;
	bool head = false;
	int status = 0;

	while (status == 0) {
		ssize_t n = recv(fd, req + len, sizeof(req) - len, 0);

		if (n > 0) {
			len += n;
			status = prom_http_status(req, len, &head);
		} else if (n == 0) {
			return; /* Closed before a whole request: nobody to answer. */
		} else if (errno == EINTR) {
			continue;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
			return;
		} else if (!wait_fd(fd, POLLIN, deadline)) {
			answer_text(fd, 408, "request not received in time\n");
			return;
		}
	}
	if (status == 200) {
		struct prom_buf b = { 0 };
		int ret = prom_render(prom.app, rte_get_tsc_hz(), &b);

		if (ret == 0) {
			prom.scrapes++;
			answer(fd, 200, "text/plain; version=0.0.4; charset=utf-8", b.p, b.len,
			       head);
		} else {
			answer_text(fd, 503,
				    ret == -ENODEV ? "lanefwd is stopping\n" : "out of memory\n");
		}
		prom_buf_free(&b);
	} else if (status == 404) {
		answer_text(fd, 404, "not found: the metrics are at /metrics\n");
	} else if (status == 405) {
		answer_text(fd, 405, "method not allowed: GET or HEAD /metrics\n");
	} else if (status == 431) {
		answer_text(fd, 431, "request header too large\n");
	} else {
		answer_text(fd, 400, "bad request\n");
	}
}

/* After the answer: read (and discard) what the client still sends for a
 * moment, so that closing does not reset the connection before the client
 * read the answer (a request body we never read would). */
static void
linger_close(int fd)
{
	const int64_t deadline = now_ms() + PROM_DRAIN_MS;
	char sink[1024];

	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t n = recv(fd, sink, sizeof(sink), 0);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			break;
		if (n < 0 && errno != EINTR && !wait_fd(fd, POLLIN, deadline))
			break;
	}
	close(fd);
}

static void *
prom_thread(void *arg __rte_unused)
{
	while (!__atomic_load_n(&prom.stop, __ATOMIC_RELAXED)) {
		struct pollfd pfd = { .fd = prom.fd, .events = POLLIN };
		int c;

		if (poll(&pfd, 1, PROM_POLL_MS) <= 0)
			continue;
		c = accept4(prom.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (c < 0)
			continue; /* EAGAIN, a client gone already, EMFILE: try again later. */
		serve(c);
		linger_close(c);
	}
	return NULL;
}

int
prom_start(struct lf_app *a, char *err, size_t errlen)
{
	const struct lf_prom_conf *pc = &a->cfg.prom;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, ret;

	if (!pc->enabled)
		return 0;
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, pc->addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(pc->port);
		sl = sizeof(*s4);
	} else if (inet_pton(AF_INET6, pc->addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(pc->port);
		sl = sizeof(*s6);
	} else {
		snprintf(err, errlen,
			 "[prometheus] address = %s: not a numeric IPv4 or IPv6 address", pc->addr);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 16) != 0) {
		ret = -errno;
		snprintf(err, errlen, "[prometheus] cannot listen on %s port %u: %s", pc->addr,
			 pc->port, strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	prom.app = a;
	prom.fd = fd;
	prom.stop = false;
	ret = rte_ctrl_thread_create(&prom.thread, "lf-prom", NULL, prom_thread, NULL);
	if (ret != 0) {
		snprintf(err, errlen, "[prometheus] cannot start its thread: %s", strerror(ret));
		close(fd);
		prom.fd = -1;
		return -ret;
	}
	prom.running = true;
	LF_LOG(INFO, tel, "prometheus: serving http://%s%s%s:%u/metrics",
	       ss.ss_family == AF_INET6 ? "[" : "", pc->addr, ss.ss_family == AF_INET6 ? "]" : "",
	       pc->port);
	return 0;
}

void
prom_stop(void)
{
	if (!prom.running)
		return;
	__atomic_store_n(&prom.stop, true, __ATOMIC_RELAXED);
	/* Wakes an accept that is about to block; the poll sees stop within PROM_POLL_MS. */
	shutdown(prom.fd, SHUT_RDWR);
	pthread_join(prom.thread, NULL);
	close(prom.fd);
	prom.fd = -1;
	prom.running = false;
	LF_LOG(INFO, tel, "prometheus: stopped after %" PRIu64 " scrapes", prom.scrapes);
}
