/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: the final human table and the JSON result. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_app.h"

/* Latency quantiles reported, and their JSON names. */
static const struct {
	double q;
	const char *name;
} quantiles[] = {
	{ 0.5, "p50_ns" },     { 0.9, "p90_ns" },       { 0.99, "p99_ns" },
	{ 0.999, "p99_9_ns" }, { 0.9999, "p99_99_ns" },
};

/* An address of the options as text. */
static const char *
addr_str(uint8_t family, const uint8_t *a, char *buf, size_t len)
{
	if (inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

static double
ns(const struct gen_result *r, uint64_t cycles)
{
	return (double)cycles * r->ns_per_cycle;
}

void
gen_report_table(FILE *f, const struct gen_opts *o, const struct gen_result *r, const char *title)
{
	const struct lf_hist *h = r->hist;
	unsigned int i;

	fprintf(f, "lanefwd-gen: %s\n", title);
	fprintf(f, "  %-22s %s, IPv%u %s, %u flows (%s), size %s, burst %u\n", "traffic",
		r->target_pps != 0 ? "paced" : "unpaced", o->family,
		o->proto == IPPROTO_UDP ? "UDP" : "TCP", o->flows, gen_dist_names[o->dist],
		o->size_spec, o->burst);
	if (o->gtpu.mode != GEN_GTPU_NONE) {
		const struct gen_gtpu *g = &o->gtpu;
		char n3[INET6_ADDRSTRLEN], gnb[INET6_ADDRSTRLEN], ue[INET6_ADDRSTRLEN];

		fprintf(f,
			"  %-22s %s, %u sessions, TEID %u-%u, QFI %u, N3 %s, gNB %s (%u), UE %s; "
			"size is the inner frame's\n",
			"gtp-u", g->mode == GEN_GTPU_UL ? "uplink" : "downlink", g->sessions,
			g->teid_base, g->teid_base + (g->sessions - 1), g->qfi,
			addr_str(g->family, g->n3_ip, n3, sizeof(n3)),
			addr_str(g->family, g->gnb_ip, gnb, sizeof(gnb)), g->n_gnb,
			addr_str(o->family, o->ue_ip, ue, sizeof(ue)));
	}
	if (r->target_pps != 0)
		fprintf(f, "  %-22s %" PRIu64 " pps\n", "target rate", r->target_pps);
	fprintf(f, "  %-22s %.3f s\n", "measured window", r->duration_s);
	fprintf(f, "  %-22s %" PRIu64 " (%.0f pps, %.3f Gbit/s with FCS)\n", "tx", r->tx.tx,
		r->tx_pps, r->tx_gbps);
	fprintf(f, "  %-22s %" PRIu64 " (%.0f pps unique)\n", "rx stamped", r->rx.stamped,
		r->rx_pps);
	fprintf(f, "  %-22s %" PRIu64 " (%.6f%%)\n", "lost", r->lost, r->loss_ratio * 100);
	fprintf(f, "  %-22s %" PRIu64 "\n", "reordered", r->rx.reordered);
	fprintf(f, "  %-22s %" PRIu64 "\n", "duplicates", r->rx.dup);
	fprintf(f, "  %-22s %" PRIu64 " / %" PRIu64 "\n", "flows seen / sent", r->flows_seen,
		(uint64_t)o->flows);
	fprintf(f,
		"  %-22s rx %" PRIu64 " warm-up %" PRIu64 " foreign %" PRIu64 " corrupt %" PRIu64
		"\n",
		"all received", r->rx.rx, r->rx.warmup, r->rx.foreign, r->rx.corrupt);
	if (o->gtpu.mode != GEN_GTPU_NONE)
		fprintf(f, "  %-22s %" PRIu64 "\n", "gtp-u mismatch", r->rx.mismatch);
	fprintf(f,
		"  %-22s refused %" PRIu64 " (%.6f%%) in %" PRIu64
		" calls, lag mean %.0f ns max %.0f ns\n",
		"tx backpressure", r->tx.refused,
		r->tx.tx != 0 ? 100.0 * (double)r->tx.refused / (double)r->tx.tx : 0.0,
		r->tx.refused_calls, r->tx.tx != 0 ? ns(r, r->tx.lag_sum) / (double)r->tx.tx : 0.0,
		ns(r, r->tx.lag_max));
	if (r->tx.alloc_fail != 0 || r->tx.unsent != 0)
		fprintf(f, "  %-22s alloc_fail %" PRIu64 " unsent %" PRIu64 "\n", "tx problems",
			r->tx.alloc_fail, r->tx.unsent);
	if (h == NULL || h->total == 0) {
		fprintf(f, "  %-22s none\n", "latency");
		return;
	}
	fprintf(f, "  %-22s count %" PRIu64 " min %.0f", "latency ns", h->total, ns(r, h->min));
	for (i = 0; i < RTE_DIM(quantiles); i++)
		fprintf(f, " %s %.0f", quantiles[i].name,
			ns(r, lf_hist_quantile(h, quantiles[i].q)));
	fprintf(f, " max %.0f\n", ns(r, h->max));
}

static void
json_result(FILE *f, const struct gen_result *r, const char *indent)
{
	const struct lf_hist *h = r->hist;
	unsigned int i;

	fprintf(f, "%s\"target_pps\": %" PRIu64 ",\n", indent, r->target_pps);
	fprintf(f, "%s\"duration_s\": %.6f,\n", indent, r->duration_s);
	fprintf(f, "%s\"tx\": %" PRIu64 ",\n", indent, r->tx.tx);
	fprintf(f, "%s\"tx_warmup\": %" PRIu64 ",\n", indent, r->tx.tx_warmup);
	fprintf(f, "%s\"tx_bytes\": %" PRIu64 ",\n", indent, r->tx.bytes);
	fprintf(f, "%s\"tx_alloc_fail\": %" PRIu64 ",\n", indent, r->tx.alloc_fail);
	fprintf(f, "%s\"tx_unsent\": %" PRIu64 ",\n", indent, r->tx.unsent);
	fprintf(f, "%s\"tx_refused\": %" PRIu64 ",\n", indent, r->tx.refused);
	fprintf(f, "%s\"tx_refused_calls\": %" PRIu64 ",\n", indent, r->tx.refused_calls);
	fprintf(f, "%s\"refused_ratio\": %.9f,\n", indent,
		r->tx.tx != 0 ? (double)r->tx.refused / (double)r->tx.tx : 0.0);
	fprintf(f, "%s\"tx_lag_mean_ns\": %.0f,\n", indent,
		r->tx.tx != 0 ? ns(r, r->tx.lag_sum) / (double)r->tx.tx : 0.0);
	fprintf(f, "%s\"tx_lag_max_ns\": %.0f,\n", indent, ns(r, r->tx.lag_max));
	fprintf(f, "%s\"rx\": %" PRIu64 ",\n", indent, r->unique);
	fprintf(f, "%s\"rx_stamped\": %" PRIu64 ",\n", indent, r->rx.stamped);
	fprintf(f, "%s\"rx_all\": %" PRIu64 ",\n", indent, r->rx.rx);
	fprintf(f, "%s\"rx_bytes\": %" PRIu64 ",\n", indent, r->rx.bytes);
	fprintf(f, "%s\"rx_warmup\": %" PRIu64 ",\n", indent, r->rx.warmup);
	fprintf(f, "%s\"rx_foreign\": %" PRIu64 ",\n", indent, r->rx.foreign);
	fprintf(f, "%s\"rx_corrupt\": %" PRIu64 ",\n", indent, r->rx.corrupt);
	fprintf(f, "%s\"rx_mismatch\": %" PRIu64 ",\n", indent, r->rx.mismatch);
	fprintf(f, "%s\"loss\": %" PRIu64 ",\n", indent, r->lost);
	fprintf(f, "%s\"loss_ratio\": %.9f,\n", indent, r->loss_ratio);
	fprintf(f, "%s\"reorder\": %" PRIu64 ",\n", indent, r->rx.reordered);
	fprintf(f, "%s\"dup\": %" PRIu64 ",\n", indent, r->rx.dup);
	fprintf(f, "%s\"flows_seen\": %" PRIu64 ",\n", indent, r->flows_seen);
	fprintf(f, "%s\"tx_pps\": %.1f,\n", indent, r->tx_pps);
	fprintf(f, "%s\"rx_pps\": %.1f,\n", indent, r->rx_pps);
	fprintf(f, "%s\"tx_gbps\": %.6f,\n", indent, r->tx_gbps);
	fprintf(f,
		"%s\"latency\": {\"count\": %" PRIu64 ", \"overflow\": %" PRIu64
		", \"min_ns\": %.0f",
		indent, h != NULL ? h->total : 0, h != NULL ? h->overflow : 0,
		h != NULL && h->total != 0 ? ns(r, h->min) : 0.0);
	for (i = 0; i < RTE_DIM(quantiles); i++)
		fprintf(f, ", \"%s\": %.0f", quantiles[i].name,
			h != NULL ? ns(r, lf_hist_quantile(h, quantiles[i].q)) : 0.0);
	fprintf(f, ", \"max_ns\": %.0f}", h != NULL ? ns(r, h->max) : 0.0);
}

int
gen_report_json_line(FILE *f, const struct gen_result *r, uint64_t hz)
{
	char *buf = NULL, *p, *q;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m == NULL)
		return -errno;
	json_result(m, r, "");
	if (fclose(m) != 0) {
		free(buf);
		return -errno;
	}
	/* The same fields as a --json result, on one line: newlines become spaces. */
	for (p = q = buf; *p != '\0'; p++)
		*q++ = *p == '\n' ? ' ' : *p;
	*q = '\0';
	fprintf(f, "{\"tsc_hz\": %" PRIu64 ", \"pass\": %s, %s}\n", hz, r->pass ? "true" : "false",
		buf);
	fflush(f);
	free(buf);
	return 0;
}

int
gen_report_json(const char *path, const struct gen_opts *o, const struct gen_result *r,
		const struct gen_result *trials, unsigned int n_trials, double ndr_pps,
		const struct gen_result *at, unsigned int n_at, uint64_t hz, const char *port_desc)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	unsigned int i;
	int ret = 0;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"version\": \"%s\",\n", LF_VERSION);
	fprintf(f, "  \"mode\": \"%s\",\n", o->search ? "search" : "fixed");
	fprintf(f, "  \"ports\": \"%s\",\n", port_desc);
	fprintf(f, "  \"tsc_hz\": %" PRIu64 ",\n", hz);
	fprintf(f,
		"  \"config\": {\"family\": %u, \"proto\": \"%s\", \"flows\": %u, \"dist\": "
		"\"%s\", \"zipf_s\": %g, \"size\": \"%s\", \"burst\": %u, \"rate_pps\": %" PRIu64
		", \"on_us\": %" PRIu64 ", \"off_us\": %" PRIu64
		", \"duration_s\": %g, \"warmup_s\": %g, \"drain_s\": %g},\n",
		o->family, o->proto == IPPROTO_UDP ? "udp" : "tcp", o->flows,
		gen_dist_names[o->dist], o->zipf_s, o->size_spec, o->burst, o->rate, o->on_us,
		o->off_us, o->search ? o->trial_s : o->duration_s, o->warmup_s, o->drain_s);
	if (o->gtpu.mode != GEN_GTPU_NONE) {
		const struct gen_gtpu *g = &o->gtpu;
		char n3[INET6_ADDRSTRLEN], gnb[INET6_ADDRSTRLEN], ue[INET6_ADDRSTRLEN];

		fprintf(f,
			"  \"gtpu\": {\"mode\": \"%s\", \"sessions\": %u, \"teid_base\": %u, "
			"\"qfi\": %u, \"n3_ip\": \"%s\", \"gnb_ip\": \"%s\", \"gnb_ips\": %u, "
			"\"ue_ip\": \"%s\", \"size\": \"inner\"},\n",
			g->mode == GEN_GTPU_UL ? "ul" : "dl", g->sessions, g->teid_base, g->qfi,
			addr_str(g->family, g->n3_ip, n3, sizeof(n3)),
			addr_str(g->family, g->gnb_ip, gnb, sizeof(gnb)), g->n_gnb,
			addr_str(o->family, o->ue_ip, ue, sizeof(ue)));
	}
	if (o->search) {
		fprintf(f, "  \"ndr_loss_pct\": %g,\n", o->ndr_loss_pct);
		fprintf(f, "  \"ndr_pps\": %.1f,\n", ndr_pps);
		fprintf(f, "  \"trials\": [\n");
		for (i = 0; i < n_trials; i++) {
			fprintf(f, "    {\"pass\": %s,\n", trials[i].pass ? "true" : "false");
			json_result(f, &trials[i], "     ");
			fprintf(f, "}%s\n", i + 1 < n_trials ? "," : "");
		}
		fprintf(f, "  ],\n");
		fprintf(f, "  \"ndr_at\": [\n");
		for (i = 0; i < n_at; i++) {
			fprintf(f, "    {\"pct\": %g,\n", o->ndr_at[i]);
			json_result(f, &at[i], "     ");
			fprintf(f, "}%s\n", i + 1 < n_at ? "," : "");
		}
		fprintf(f, "  ],\n");
	}
	fprintf(f, "  \"result\": {\n");
	if (r != NULL)
		json_result(f, r, "    ");
	else
		fprintf(f, "    \"none\": true");
	fprintf(f, "\n  }\n}\n");
	if (f != stdout) {
		if (fclose(f) != 0)
			ret = -errno;
	} else {
		fflush(f);
	}
	return ret;
}
