/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The socket-free half of the Prometheus exporter (prom.h, prom.c): the
 * text exposition format 0.0.4 written into a growing buffer, the page of
 * lanefwd's metrics, the latency histograms in seconds, and what an HTTP
 * request asks for. Apart so that the unit tests check them without a
 * server (tests/unit/test_prom.c).
 */
#ifndef LF_PROM_TEXT_H
#define LF_PROM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

struct lf_app;
struct lf_hist;

/** A page being written. failed: out of memory, the page is not to be served. */
struct prom_buf {
	char *p;
	size_t len;
	size_t cap;
	bool failed;
};

void prom_buf_free(struct prom_buf *b);

/** Append to the page. */
void prom_printf(struct prom_buf *b, const char *fmt, ...) __rte_format_printf(2, 3);

/** The # HELP and # TYPE lines of a metric family. */
void prom_family(struct prom_buf *b, const char *name, const char *type, const char *help);

/** A label value, escaped as the format wants (backslash, double quote, line feed). */
void prom_label_value(struct prom_buf *b, const char *v);

/** Upper bounds, in seconds, of the latency histograms' buckets (+Inf apart). */
#define PROM_LAT_BOUNDS 17
extern const double prom_lat_bounds[PROM_LAT_BOUNDS];

/** A struct lf_hist of TSC cycles as a Prometheus histogram in seconds. */
struct prom_hist {
	uint64_t le[PROM_LAT_BOUNDS]; /**< Cumulative: values <= prom_lat_bounds[i]. */
	uint64_t count; /**< All values, the +Inf bucket. */
	double sum; /**< Seconds; from the buckets' midpoints (lf_hist keeps no sum). */
};

/**
 * Fold h into out. A bucket of h counts under the first bound its largest
 * value is not above, so a le bucket never holds a value over its bound.
 */
void prom_hist_from(struct prom_hist *out, const struct lf_hist *h, uint64_t tsc_hz);

/** The _bucket, _sum and _count samples of one series (labels: "" or 'k="v"'). */
void prom_hist_write(struct prom_buf *b, const char *name, const char *labels,
		     const struct prom_hist *h);

/**
 * The whole page for app: workers, ports, latency, reloads, UPF. Takes
 * app->ctl_lock, then app->lat_lock (never both at once), never a lock a
 * worker takes. tsc_hz: rte_get_tsc_hz() (a parameter for the unit tests).
 * @return 0, -ENODEV (lanefwd is stopping) or -ENOMEM.
 */
int prom_render(struct lf_app *app, uint64_t tsc_hz, struct prom_buf *b);

/** Largest request header read; a longer one is answered 431. */
#define PROM_REQ_MAX 8192

/**
 * What the request header in req[0..len) asks: 0 while it is incomplete
 * (no empty line yet), else the HTTP status to answer: 200 (GET or HEAD
 * /metrics, *head set for HEAD), 400 (not an HTTP/1.x request line), 404
 * (another path), 405 (another method on /metrics), 431 (len reached
 * PROM_REQ_MAX without an end).
 */
int prom_http_status(const char *req, size_t len, bool *head);

#endif /* LF_PROM_TEXT_H */
