/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the Prometheus exporter's socket-free half (prom_text.h):
 * what an HTTP request asks for (status per method, path, version, size),
 * label escaping, the latency histogram in seconds (cumulative buckets,
 * a bucket never under a bound its values exceed, overflow only in +Inf,
 * the sum), and a whole page rendered from a hand-made lf_app: every
 * counter a worker holds appears once under its name and labels, and every
 * sample follows a # TYPE line of its family.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "lanefwd.h"
#include "prom_text.h"

static int
status_of(const char *req, bool *head)
{
	return prom_http_status(req, strlen(req), head);
}

static void
test_http_status(void **state)
{
	static const struct {
		const char *req;
		int status;
		bool head;
	} cases[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200, false },
		{ "GET /metrics HTTP/1.0\r\n\r\n", 200, false },
		{ "GET /metrics HTTP/1.1\n\n", 200, false },
		{ "\r\nGET /metrics HTTP/1.1\r\n\r\n", 200, false },
		{ "GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 200, false },
		{ "HEAD /metrics HTTP/1.1\r\n\r\n", 200, true },
		{ "GET / HTTP/1.1\r\n\r\n", 404, false },
		{ "GET /metricsx HTTP/1.1\r\n\r\n", 404, false },
		{ "GET /metrics/ HTTP/1.1\r\n\r\n", 404, false },
		{ "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", 405, false },
		{ "DELETE /metrics HTTP/1.1\r\n\r\n", 405, false },
		{ "get /metrics HTTP/1.1\r\n\r\n", 405, false }, /* Methods are case-sensitive. */
		{ "POST /other HTTP/1.1\r\n\r\n", 404, false },
		{ "GET /metrics\r\n\r\n", 400, false }, /* HTTP/0.9 */
		{ "GET /metrics HTTP/2.0\r\n\r\n", 400, false },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", 400, false },
		{ "GET /metrics HTTP/1.1 x\r\n\r\n", 400, false },
		{ "G(T /metrics HTTP/1.1\r\n\r\n", 400, false },
		{ "\r\n\r\n", 400, false },
		{ "GET /metrics HTTP/1.1\r\n", 0, false }, /* Not complete yet. */
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r", 0, false },
		{ "", 0, false },
	};
	unsigned int i;
	bool head;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		int st = status_of(cases[i].req, &head);

		if (st != cases[i].status || head != cases[i].head)
			fail_msg("request %u '%s': status %d head %d, expected %d %d", i,
				 cases[i].req, st, head, cases[i].status, cases[i].head);
	}
}

static void
test_http_too_large(void **state)
{
	char *req = malloc(PROM_REQ_MAX);
	bool head;

	(void)state;
	assert_non_null(req);
	memset(req, 'a', PROM_REQ_MAX);
	memcpy(req, "GET /metrics HTTP/1.1\r\nX: ", 26);
	assert_int_equal(prom_http_status(req, PROM_REQ_MAX - 1, &head), 0);
	assert_int_equal(prom_http_status(req, PROM_REQ_MAX, &head), 431);
	/* An end in the last bytes is still a request. */
	memcpy(req + PROM_REQ_MAX - 4, "\r\n\r\n", 4);
	assert_int_equal(prom_http_status(req, PROM_REQ_MAX, &head), 200);
	free(req);
}

static char *
text(struct prom_buf *b)
{
	assert_false(b->failed);
	assert_non_null(b->p);
	assert_true(b->len < b->cap);
	assert_int_equal(b->p[b->len], '\0');
	return b->p;
}

static void
test_label_escape_and_growth(void **state)
{
	struct prom_buf b = { 0 };
	unsigned int i;

	(void)state;
	prom_label_value(&b, "a\"b\\c\nd");
	assert_string_equal(text(&b), "a\\\"b\\\\c\\nd");
	/* Past the first allocation, in pieces and in one long line. */
	for (i = 0; i < 5000; i++)
		prom_printf(&b, "%u\n", i);
	prom_printf(&b, "%0*d\n", 70000, 7);
	assert_true(strstr(text(&b), "\n4999\n") != NULL);
	assert_int_equal(strlen(b.p), b.len);
	assert_int_equal(b.p[b.len - 2], '7');
	prom_buf_free(&b);
}

static struct lf_hist *
new_hist(void)
{
	struct lf_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	lf_hist_reset(h);
	return h;
}

static void
test_hist_seconds(void **state)
{
	struct lf_hist *h = new_hist();
	struct prom_hist p;
	const uint64_t hz = 1000000000; /* One cycle, one nanosecond. */
	uint64_t big = 1ull << 43;
	double want_sum;
	unsigned int j;

	(void)state;
	lf_hist_record_n(h, 100, 3); /* An exact bucket: le 250 ns. */
	lf_hist_record_n(h, 249, 1); /* Bucket [248, 249]: le 250 ns. */
	lf_hist_record_n(h, 250, 1); /* Bucket [250, 251] reaches past 250 ns: le 500 ns. */
	lf_hist_record_n(h, 999, 2); /* Bucket [992, 999]: le 1 us. */
	lf_hist_record_n(h, 1000, 1); /* Bucket [1000, 1007] reaches past 1 us: le 2.5 us. */
	lf_hist_record_n(h, 2000000, 4); /* 2 ms: le 2.5 ms. */
	lf_hist_record_n(h, 3000000000ull, 1); /* 3 s: past the last bound. */
	lf_hist_record_n(h, big, 1); /* Past the histogram itself: +Inf only. */
	prom_hist_from(&p, h, hz);

	for (j = 0; j < PROM_LAT_BOUNDS; j++) {
		uint64_t want = 0;
		double le = prom_lat_bounds[j];

		want += le >= 250e-9 ? 4 : 0;
		want += le >= 500e-9 ? 1 : 0;
		want += le >= 1e-6 ? 2 : 0;
		want += le >= 2.5e-6 ? 1 : 0;
		want += le >= 2.5e-3 ? 4 : 0;
		if (p.le[j] != want)
			fail_msg("le %g: %" PRIu64 ", expected %" PRIu64, le, p.le[j], want);
		if (j > 0)
			assert_true(prom_lat_bounds[j] > prom_lat_bounds[j - 1]);
	}
	assert_int_equal(p.count, 14);
	/* Midpoints of each bucket; the overflow at max. */
	want_sum = (3 * 100 + 248.5 + 250.5 + 2 * 995.5 + 1003.5) * 1e-9 +
		4 *
			(double)(lf_hist_lower(lf_hist_index(2000000)) +
				 lf_hist_upper(lf_hist_index(2000000))) /
			2 * 1e-9 +
		(double)(lf_hist_lower(lf_hist_index(3000000000ull)) +
			 lf_hist_upper(lf_hist_index(3000000000ull))) /
			2 * 1e-9 +
		(double)big * 1e-9;
	assert_float_equal(p.sum, want_sum, want_sum * 1e-12);
	/* Within a bucket's width of the true sum. */
	assert_float_equal(p.sum, (300 + 249 + 250 + 1998 + 1000 + 8e6 + 3e9 + (double)big) * 1e-9,
			   p.sum / 64);

	/* An empty one: all zero. */
	lf_hist_reset(h);
	prom_hist_from(&p, h, hz);
	assert_int_equal(p.count, 0);
	assert_int_equal(p.le[PROM_LAT_BOUNDS - 1], 0);
	assert_true(p.sum == 0);
	free(h);
}

static void
test_hist_write(void **state)
{
	struct prom_hist p;
	struct prom_buf b = { 0 };
	unsigned int j;

	(void)state;
	for (j = 0; j < PROM_LAT_BOUNDS; j++)
		p.le[j] = j;
	p.count = 20;
	p.sum = 0.5;
	prom_hist_write(&b, "x_seconds", "worker=\"2\"", &p);
	prom_hist_write(&b, "y_seconds", "", &p);
	assert_true(strncmp(text(&b), "x_seconds_bucket{worker=\"2\",le=\"2.5e-07\"} 0\n", 44) ==
		    0);
	assert_non_null(strstr(b.p, "x_seconds_bucket{worker=\"2\",le=\"0.001\"} 11\n"));
	assert_non_null(strstr(b.p, "x_seconds_bucket{worker=\"2\",le=\"1\"} 16\n"));
	assert_non_null(strstr(b.p,
			       "x_seconds_bucket{worker=\"2\",le=\"+Inf\"} 20\n"
			       "x_seconds_sum{worker=\"2\"} 0.5\n"
			       "x_seconds_count{worker=\"2\"} 20\n"));
	assert_non_null(strstr(b.p, "y_seconds_bucket{le=\"1e-06\"} 2\n"));
	assert_non_null(strstr(b.p,
			       "y_seconds_bucket{le=\"+Inf\"} 20\n"
			       "y_seconds_sum 0.5\ny_seconds_count 20\n"));
	prom_buf_free(&b);
}

/* One line of the page, whole, or fail. */
static void
has_line(const char *page, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = page; (p = strstr(p, line)) != NULL; p++)
		if ((p == page || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line '%s' on the page", line);
}

/*
 * Every sample line: a name, optional {labels}, a space, a number; its
 * family (the name less _bucket/_sum/_count for a histogram) was declared
 * by the last # TYPE line, and every family is declared once.
 */
static void
check_format(const char *page)
{
	char family[128] = "", type[16] = "", seen[8192] = " ";
	const char *p = page;
	unsigned int lines = 0;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		char line[512], name[128];
		size_t len;

		assert_non_null(nl);
		len = nl - p;
		assert_true(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;
		lines++;
		if (strncmp(line, "# TYPE ", 7) == 0) {
			char key[140];

			assert_int_equal(sscanf(line, "# TYPE %127s %15s", family, type), 2);
			assert_true(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
				    strcmp(type, "histogram") == 0);
			snprintf(key, sizeof(key), " %s ", family);
			if (strstr(seen, key) != NULL)
				fail_msg("family %s declared twice", family);
			assert_true(strlen(seen) + strlen(family) + 2 < sizeof(seen));
			strcat(seen, family);
			strcat(seen, " ");
			if (strcmp(type, "counter") == 0)
				assert_true(len > 6 &&
					    strcmp(family + strlen(family) - 6, "_total") == 0);
			continue;
		}
		if (strncmp(line, "# HELP ", 7) == 0)
			continue;
		assert_true(line[0] != '#' && line[0] != '\0');
		{
			size_t n = strcspn(line, "{ ");
			const char *v;
			char *end;

			memcpy(name, line, n);
			name[n] = '\0';
			if (strcmp(type, "histogram") == 0) {
				size_t f = strlen(family);

				if (strncmp(name, family, f) != 0 ||
				    (strcmp(name + f, "_bucket") != 0 &&
				     strcmp(name + f, "_sum") != 0 &&
				     strcmp(name + f, "_count") != 0))
					fail_msg("'%s' is not of histogram %s", line, family);
			} else if (strcmp(name, family) != 0) {
				fail_msg("'%s' follows # TYPE %s", line, family);
			}
			if (line[n] == '{') {
				const char *c = strchr(line, '}');

				assert_non_null(c);
				assert_int_equal(c[1], ' ');
				v = c + 2;
			} else {
				v = line + n + 1;
			}
			strtod(v, &end);
			if (end == v || *end != '\0')
				fail_msg("'%s': no number", line);
		}
	}
	assert_true(lines > 20);
}

struct fake {
	struct lf_app *app;
	struct worker *w[2];
	struct lf_tables *tables;
	struct lf_hist *lat[2];
};

static void
fake_app(struct fake *f)
{
	static const unsigned int lcores[2] = { 3, 5 };
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->app = calloc(1, sizeof(*f->app));
	f->tables = calloc(1, sizeof(*f->tables));
	assert_non_null(f->app);
	assert_non_null(f->tables);
	pthread_mutex_init(&f->app->ctl_lock, NULL);
	pthread_mutex_init(&f->app->lat_lock, NULL);
	f->app->tables = f->tables;
	f->tables->gen = 4;
	f->app->reloads = 3;
	f->app->reload_failures = 1;
	f->app->start_time = 1700000000;
	f->app->cfg.pipeline.latency = true;
	f->app->n_workers = 2;
	for (i = 0; i < 2; i++) {
		struct lf_worker_stats *s;

		f->w[i] = aligned_alloc(RTE_CACHE_LINE_SIZE,
					RTE_ALIGN(sizeof(struct worker), RTE_CACHE_LINE_SIZE));
		assert_non_null(f->w[i]);
		memset(f->w[i], 0, sizeof(struct worker));
		f->w[i]->lcore = lcores[i];
		f->w[i]->index = i;
		s = &f->w[i]->stats;
		s->rx_pkts = 1000 * (i + 1);
		s->tx_pkts = 900 * (i + 1);
		s->polls = 50;
		s->busy_polls = 20;
		s->busy_cycles = 123457 * (i + 1);
		s->idle_cycles = 99;
		s->drops[LF_DROP_COUNT - 1] = 100 * (i + 1);
		s->ev[LF_EV_COUNT - 1] = 7 + i;
		if (i == 1) {
			/* An interrupt worker: (246914 + 99) / (246914 + 99 + 741039) = 25%. */
			f->w[i]->rxm.mode = LF_RX_INTERRUPT;
			f->w[i]->rxm.stats.sleeps = 40;
			f->w[i]->rxm.stats.wake_intr = 30;
			f->w[i]->rxm.stats.wake_timeout = 10;
			f->w[i]->rxm.stats.sleep_cycles = 741039;
		}
		f->app->workers[i] = f->w[i];
		f->lat[i] = new_hist();
		f->app->lat_total[i] = f->lat[i];
	}
	lf_hist_record_n(f->lat[0], 2000, 900); /* 2 us at 1 GHz. */
}

static void
fake_free(struct fake *f)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		free(f->w[i]);
		free(f->lat[i]);
	}
	free(f->tables);
	free(f->app);
}

static void
test_render(void **state)
{
	struct prom_buf b = { 0 };
	struct fake f;
	char line[256];
	const char *page;
	unsigned int i;

	(void)state;
	fake_app(&f);
	assert_int_equal(prom_render(f.app, 1000000000, &b), 0);
	page = text(&b);
	check_format(page);
	has_line(page, "lanefwd_info{version=\"" LF_VERSION "\"} 1");
	has_line(page, "lanefwd_tsc_hz 1000000000");
	has_line(page, "lanefwd_start_time_seconds 1700000000");
	has_line(page, "lanefwd_reloads_total 3");
	has_line(page, "lanefwd_reload_failures_total 1");
	has_line(page, "lanefwd_table_generation 4");
	has_line(page, "lanefwd_worker_rx_packets_total{worker=\"3\"} 1000");
	has_line(page, "lanefwd_worker_rx_packets_total{worker=\"5\"} 2000");
	has_line(page, "lanefwd_worker_tx_packets_total{worker=\"5\"} 1800");
	has_line(page, "lanefwd_worker_polls_total{worker=\"3\"} 50");
	has_line(page, "lanefwd_worker_busy_polls_total{worker=\"3\"} 20");
	has_line(page, "lanefwd_worker_busy_cycles_total{worker=\"5\"} 246914");
	has_line(page, "lanefwd_worker_idle_cycles_total{worker=\"5\"} 99");
	/* rx modes: worker 3 polls, worker 5 sleeps on interrupts. */
	has_line(page, "lanefwd_worker_sleeps_total{worker=\"3\"} 0");
	has_line(page, "lanefwd_worker_sleeps_total{worker=\"5\"} 40");
	has_line(page, "lanefwd_worker_wakeups_total{worker=\"5\",cause=\"interrupt\"} 30");
	has_line(page, "lanefwd_worker_wakeups_total{worker=\"5\",cause=\"timeout\"} 10");
	has_line(page, "lanefwd_worker_sleep_cycles_total{worker=\"5\"} 741039");
	has_line(page, "lanefwd_worker_cpu_ratio{worker=\"3\",mode=\"poll\"} 1.00");
	has_line(page, "lanefwd_worker_cpu_ratio{worker=\"5\",mode=\"interrupt\"} 0.25");
	/* 123457 / 1000, rounded. */
	has_line(page, "lanefwd_worker_cycles_per_packet{worker=\"3\"} 123");
	snprintf(line, sizeof(line), "lanefwd_worker_drops_total{worker=\"5\",reason=\"%s\"} 200",
		 lf_drop_names[LF_DROP_COUNT - 1]);
	has_line(page, line);
	snprintf(line, sizeof(line), "lanefwd_worker_drops_total{worker=\"5\",reason=\"%s\"} 0",
		 lf_drop_names[0]);
	has_line(page, line);
	snprintf(line, sizeof(line), "lanefwd_worker_events_total{worker=\"5\",event=\"%s\"} 8",
		 lf_event_names[LF_EV_COUNT - 1]);
	has_line(page, line);
	has_line(page, "lanefwd_worker_latency_seconds_bucket{worker=\"3\",le=\"1e-06\"} 0");
	has_line(page, "lanefwd_worker_latency_seconds_bucket{worker=\"3\",le=\"2.5e-06\"} 900");
	has_line(page, "lanefwd_worker_latency_seconds_count{worker=\"3\"} 900");
	has_line(page, "lanefwd_worker_latency_seconds_count{worker=\"5\"} 0");
	/* No ports, no UPF: no samples of theirs; a fixed burst: no controller. */
	assert_null(strstr(page, "lanefwd_port_rx_packets_total{"));
	assert_null(strstr(page, "lanefwd_upf_"));
	assert_null(strstr(page, "lanefwd_worker_burst"));
	prom_buf_free(&b);

	/* burst = auto: each worker's burst, verdicts and decisions. */
	for (i = 0; i < 2; i++) {
		f.w[i]->burst_auto = true;
		f.w[i]->bc.cur = 64 << i;
		f.w[i]->bc.st.packets = 1000;
		f.w[i]->bc.st.misses = 3;
		f.w[i]->bc.st.grown = 9;
		f.w[i]->bc.st.shrunk = 1;
		f.w[i]->bc.st.decayed = 2 + i;
	}
	assert_int_equal(prom_render(f.app, 1000000000, &b), 0);
	page = text(&b);
	check_format(page);
	has_line(page, "lanefwd_worker_burst{worker=\"3\"} 64");
	has_line(page, "lanefwd_worker_burst{worker=\"5\"} 128");
	has_line(page, "lanefwd_worker_burst_packets_total{worker=\"3\"} 1000");
	has_line(page, "lanefwd_worker_burst_misses_total{worker=\"5\"} 3");
	has_line(page, "lanefwd_worker_burst_decisions_total{worker=\"5\",decision=\"grown\"} 9");
	has_line(page, "lanefwd_worker_burst_decisions_total{worker=\"3\",decision=\"shrunk\"} 1");
	has_line(page, "lanefwd_worker_burst_decisions_total{worker=\"5\",decision=\"decayed\"} 3");
	prom_buf_free(&b);

	/* Without latency recording, no histogram family at all. */
	f.app->cfg.pipeline.latency = false;
	assert_int_equal(prom_render(f.app, 1000000000, &b), 0);
	assert_null(strstr(text(&b), "latency_seconds"));
	check_format(b.p);
	prom_buf_free(&b);

	/* Stopping (the tables freed): no page. */
	f.app->tables = NULL;
	assert_int_equal(prom_render(f.app, 1000000000, &b), -ENODEV);
	prom_buf_free(&b);
	fake_free(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_status),
		cmocka_unit_test(test_http_too_large),
		cmocka_unit_test(test_label_escape_and_growth),
		cmocka_unit_test(test_hist_seconds),
		cmocka_unit_test(test_hist_write),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
