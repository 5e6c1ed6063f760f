/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-gen entry point. It only orchestrates: EAL, options, pools and
 * ports, then one measured run or an NDR search made of trials; each trial
 * launches the TX and RX loops (gen_run.c) and collects their counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "gen_app.h"

#define GEN_ERR_LEN 512
#define GEN_SEARCH_TOP 1000000000000ull /* Search bound meaning "unpaced". */

static volatile bool quit;

/* The run: options, ports, the TX and RX state, the lcores. */
struct gen_ctx {
	struct gen_opts o;
	uint64_t hz;
	uint16_t tx_port, rx_port;
	unsigned int tx_lcore, rx_lcore;
	struct rte_mempool *tx_pool, *rx_pool;
	struct gen_pkt_tmpl tmpl;
	struct gen_sizes sizes;
	struct gen_flows flows;
	struct gen_txer *tx;
	struct gen_rxer *rx;
	char port_desc[160];
	/* Progress line state (whoever prints it). */
	bool progress;
	uint64_t prog_t0, prog_tsc, prog_tx, prog_rx;
};

static void
on_signal(int sig __rte_unused)
{
	quit = true;
}

/* One progress line: rates over the last second, totals so far. */
static void
print_progress(void *arg)
{
	struct gen_ctx *c = arg;
	uint64_t now = rte_rdtsc();
	uint64_t tx = GEN_STAT_READ(c->tx->st.tx) + GEN_STAT_READ(c->tx->st.tx_warmup);
	uint64_t rx = GEN_STAT_READ(c->rx->st.rx);
	uint64_t stamped = GEN_STAT_READ(c->rx->st.stamped);
	uint64_t sent = GEN_STAT_READ(c->tx->st.tx);
	double dt = (double)(now - c->prog_tsc) / (double)c->hz;

	if (dt <= 0)
		return;
	printf("lanefwd-gen: %5.1f s: tx %.3f Mpps rx %.3f Mpps | sent %" PRIu64
	       " received %" PRIu64 " in flight or lost %" PRId64 " reordered %" PRIu64
	       " dup %" PRIu64 "\n",
	       (double)(now - c->prog_t0) / (double)c->hz, (tx - c->prog_tx) / dt / 1e6,
	       (rx - c->prog_rx) / dt / 1e6, sent, stamped,
	       (int64_t)sent - (int64_t)(stamped - GEN_STAT_READ(c->rx->st.dup)),
	       GEN_STAT_READ(c->rx->st.reordered), GEN_STAT_READ(c->rx->st.dup));
	fflush(stdout);
	c->prog_tsc = now;
	c->prog_tx = tx;
	c->prog_rx = rx;
}

/* Reset the TX and RX state for a trial at pps (0: unpaced). */
static void
trial_prepare(struct gen_ctx *c, uint64_t pps, double duration_s)
{
	struct gen_txer *t = c->tx;
	struct gen_rxer *r = c->rx;
	const uint64_t start = rte_rdtsc() + c->hz / 1000;
	const uint64_t drain = (uint64_t)(c->o.drain_s * (double)c->hz);

	memset(&t->st, 0, sizeof(t->st));
	memset(t->seq, 0, sizeof(*t->seq) * c->flows.n_flows);
	gen_select_init(&t->sel, c->o.dist, c->flows.n_flows, c->o.zipf_s, c->o.seed);
	t->sizes = c->sizes;
	t->pps = pps;
	t->t_measure = start + (uint64_t)(c->o.warmup_s * (double)c->hz);
	t->t_end = t->t_measure + (uint64_t)(duration_s * (double)c->hz);
	t->t_give_up = t->t_end + drain / 2;
	gen_pace_init(&t->pace, c->hz, pps, c->o.on_us, c->o.off_us, start);
	t->n_pend = t->pend_off = 0;
	t->done = false;

	memset(&r->st, 0, sizeof(r->st));
	memset(r->flow, 0, sizeof(*r->flow) * c->flows.n_flows);
	lf_hist_reset(r->hist);
	r->t_end = t->t_end + drain;
	r->drain_cycles = drain;
	r->done = false;
	r->quit_seen = false;

	c->prog_t0 = c->prog_tsc = rte_rdtsc();
	c->prog_tx = c->prog_rx = 0;
}

/* Run one prepared trial on the TX and RX lcores; the main lcore prints progress. */
static void
trial_run(struct gen_ctx *c)
{
	const unsigned int main_lcore = rte_get_main_lcore();
	struct gen_role roles[2];
	unsigned int lcores[2], n = 0, i;
	struct gen_role *main_role = NULL;

	memset(roles, 0, sizeof(roles));
	roles[0].hz = roles[1].hz = c->hz;
	lcores[n] = c->tx_lcore;
	roles[n].tx = c->tx;
	if (c->rx_lcore == c->tx_lcore)
		roles[n].rx = c->rx;
	n++;
	if (c->rx_lcore != c->tx_lcore) {
		lcores[n] = c->rx_lcore;
		roles[n].rx = c->rx;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (lcores[i] == main_lcore) {
			main_role = &roles[i];
			continue;
		}
		rte_eal_remote_launch(gen_lcore_run, &roles[i], lcores[i]);
	}
	if (main_role != NULL) {
		if (c->progress) {
			main_role->progress = print_progress;
			main_role->progress_arg = c;
		}
		gen_lcore_run(main_role);
	} else {
		uint64_t next = rte_rdtsc() + c->hz;

		while (!__atomic_load_n(&c->tx->done, __ATOMIC_ACQUIRE) ||
		       !__atomic_load_n(&c->rx->done, __ATOMIC_ACQUIRE)) {
			usleep(10000);
			if (c->progress && rte_rdtsc() >= next) {
				print_progress(c);
				next += c->hz;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (lcores[i] != main_lcore)
			rte_eal_wait_lcore(lcores[i]);
}

static int
setup_lcores(struct gen_ctx *c, char *err, size_t errlen)
{
	const unsigned int main_lcore = rte_get_main_lcore();
	unsigned int w1 = rte_get_next_lcore(-1, 1, 0);
	unsigned int w2 = w1 < RTE_MAX_LCORE ? rte_get_next_lcore(w1, 1, 0) : RTE_MAX_LCORE;

	c->tx_lcore = c->o.tx_lcore;
	c->rx_lcore = c->o.rx_lcore;
	if (c->tx_lcore == GEN_NO_LCORE)
		c->tx_lcore = w1 < RTE_MAX_LCORE ? w1 : main_lcore;
	if (c->rx_lcore == GEN_NO_LCORE) {
		if (c->o.tx_lcore == GEN_NO_LCORE && w2 < RTE_MAX_LCORE)
			c->rx_lcore = w2;
		else
			c->rx_lcore = c->tx_lcore;
	}
	if (!rte_lcore_is_enabled(c->tx_lcore) || !rte_lcore_is_enabled(c->rx_lcore)) {
		snprintf(err, errlen,
			 "--tx-lcore %u / --rx-lcore %u: not in the EAL lcore list (-l / --lcores)",
			 c->tx_lcore, c->rx_lcore);
		return -EINVAL;
	}
	return 0;
}

static int
setup_ports(struct gen_ctx *c, char *err, size_t errlen)
{
	struct gen_opts *o = &c->o;
	struct rte_ether_addr mac;
	struct rte_eth_dev_info ti, ri;
	uint16_t nports = rte_eth_dev_count_avail();
	uint16_t max_len = 0, room;
	unsigned int i;
	bool raised;
	int ret;

	if (o->loopback) {
		ret = gen_port_loopback();
		if (ret < 0) {
			snprintf(err, errlen, "--loopback: cannot create the ring port: %s",
				 rte_strerror(-ret));
			return ret;
		}
		c->tx_port = c->rx_port = (uint16_t)ret;
	} else {
		if (nports == 0) {
			snprintf(err, errlen,
				 "no ethdev port: give one to EAL (--vdev net_memif0,... or -a PCI) "
				 "or use --loopback");
			return -ENODEV;
		}
		c->tx_port = o->tx_port >= 0 ? (uint16_t)o->tx_port : 0;
		c->rx_port = o->rx_port >= 0 ? (uint16_t)o->rx_port : (nports >= 2 ? 1 : 0);
		if (!rte_eth_dev_is_valid_port(c->tx_port) ||
		    !rte_eth_dev_is_valid_port(c->rx_port)) {
			snprintf(err, errlen, "--tx-port %u / --rx-port %u: EAL has ports 0-%u",
				 c->tx_port, c->rx_port, nports - 1);
			return -EINVAL;
		}
	}
	rte_eth_macaddr_get(c->tx_port, &mac);
	if (!o->src_mac_set)
		memcpy(o->src_mac, mac.addr_bytes, 6);
	gen_pkt_tmpl_init(&c->tmpl, o->family, o->proto, o->dst_mac, o->src_mac, o->dst_ip,
			  o->src_ip, o->dport, o->ttl);
	if (o->gtpu.mode != GEN_GTPU_NONE)
		gen_pkt_tmpl_gtpu(&c->tmpl, &o->gtpu);
	ret = gen_sizes_parse(&c->sizes, o->size_spec, c->tmpl.min_frame, &raised, err, errlen);
	if (ret != 0)
		return ret;
	if (raised)
		printf("lanefwd-gen: IPv%u/%s headers and the %u-byte stamp need %u-byte %sframes: "
		       "smaller sizes raised to %u\n",
		       o->family, o->proto == IPPROTO_UDP ? "UDP" : "TCP", GEN_STAMP_LEN,
		       c->tmpl.min_frame, o->gtpu.mode != GEN_GTPU_NONE ? "inner " : "",
		       c->tmpl.min_frame);
	for (i = 0; i < c->sizes.n; i++)
		if (c->sizes.size[i] - GEN_FCS_LEN > max_len)
			max_len = c->sizes.size[i] - GEN_FCS_LEN;
	/* GTP-U: uplink frames are sent encapsulated, downlink ones come back so. */
	if (o->gtpu.mode != GEN_GTPU_NONE) {
		uint16_t encap = o->gtpu.family == 4 ? GEN_GTPU_ENCAP4 : GEN_GTPU_ENCAP6;

		printf("lanefwd-gen: GTP-U frames on N3 are %u bytes longer than --size: up to %u "
		       "bytes\n",
		       encap, max_len + encap + GEN_FCS_LEN);
		max_len += encap;
	}
	room = RTE_MBUF_DEFAULT_BUF_SIZE;
	if (max_len + RTE_PKTMBUF_HEADROOM > room)
		room = max_len + RTE_PKTMBUF_HEADROOM;
	c->tx_pool = gen_pool_create("gen_tx", o->mbufs, room, true);
	c->rx_pool = gen_pool_create("gen_rx", o->mbufs, room, false);
	if (c->tx_pool == NULL || c->rx_pool == NULL) {
		snprintf(err, errlen, "cannot create mbuf pools of %u mbufs: %s", o->mbufs,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	ret = gen_port_start(c->tx_port, c->rx_pool, max_len, err, errlen);
	if (ret == 0 && c->rx_port != c->tx_port)
		ret = gen_port_start(c->rx_port, c->rx_pool, max_len, err, errlen);
	if (ret != 0)
		return ret;
	if (!gen_port_wait_link(c->tx_port, o->link_wait_s, &quit) ||
	    !gen_port_wait_link(c->rx_port, o->link_wait_s, &quit)) {
		snprintf(err, errlen,
			 "link of port %u or %u not up after %.1f s (is the peer running?)",
			 c->tx_port, c->rx_port, o->link_wait_s);
		return -ENOLINK;
	}
	rte_eth_dev_info_get(c->tx_port, &ti);
	rte_eth_dev_info_get(c->rx_port, &ri);
	snprintf(c->port_desc, sizeof(c->port_desc), "tx %u (%s) rx %u (%s)", c->tx_port,
		 ti.driver_name, c->rx_port, ri.driver_name);
	return 0;
}

static int
setup_state(struct gen_ctx *c, char *err, size_t errlen)
{
	struct gen_opts *o = &c->o;
	int ret;

	ret = gen_flows_init(&c->flows, o->flows, o->dst_ips, o->src_ips, o->sport, err, errlen);
	if (ret != 0)
		return ret;
	c->tx = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*c->tx));
	c->rx = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*c->rx));
	if (c->tx == NULL || c->rx == NULL)
		goto nomem;
	memset(c->tx, 0, sizeof(*c->tx));
	memset(c->rx, 0, sizeof(*c->rx));
	c->tx->seq = calloc(o->flows, sizeof(*c->tx->seq));
	c->rx->flow = calloc(o->flows, sizeof(*c->rx->flow));
	c->rx->hist = malloc(sizeof(*c->rx->hist));
	if (c->tx->seq == NULL || c->rx->flow == NULL || c->rx->hist == NULL)
		goto nomem;
	c->tx->port = c->tx_port;
	c->tx->queue = 0;
	c->tx->burst = (uint16_t)o->burst;
	c->tx->pool = c->tx_pool;
	c->tx->tmpl = c->tmpl;
	c->tx->flows = c->flows;
	c->tx->quit = &quit;
	c->rx->port = c->rx_port;
	c->rx->queue = 0;
	c->rx->burst = (uint16_t)o->burst;
	c->rx->n_flows = o->flows;
	c->rx->flows = c->flows;
	c->rx->gtpu = o->gtpu;
	c->rx->quit = &quit;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for %u flows", o->flows);
	return -ENOMEM;
}

static void
state_free(struct gen_ctx *c)
{
	if (c->tx != NULL)
		free(c->tx->seq);
	if (c->rx != NULL) {
		free(c->rx->flow);
		free(c->rx->hist);
	}
	free(c->tx);
	free(c->rx);
}

/* One measured run at --rate. */
static int
run_fixed(struct gen_ctx *c)
{
	struct gen_result r = { 0 };
	int ret = 0;

	c->progress = !c->o.quiet && c->o.duration_s + c->o.warmup_s >= 2;
	trial_prepare(c, c->o.rate, c->o.duration_s);
	trial_run(c);
	gen_result_collect(&r, c->tx, c->rx, c->hz);
	r.hist = c->rx->hist;
	gen_report_table(stdout, &c->o, &r, quit ? "result (interrupted)" : "result");
	if (c->o.json != NULL) {
		ret = gen_report_json(c->o.json, &c->o, &r, NULL, 0, 0, NULL, 0, c->hz,
				      c->port_desc);
		if (ret != 0)
			fprintf(stderr, "lanefwd-gen: --json %s: %s\n", c->o.json, strerror(-ret));
	}
	return ret;
}

/* RFC 2544-style search for the highest rate within --ndr-loss. */
static int
run_search(struct gen_ctx *c)
{
	struct gen_opts *o = &c->o;
	struct gen_result trials[100], at[GEN_NDR_AT_MAX];
	struct lf_hist *hists, *at_hists;
	struct gen_search s;
	unsigned int n = 0, best = UINT32_MAX, n_at = 0, i;
	uint64_t rate;
	int ret = 0;

	hists = malloc(sizeof(*hists) * o->search_trials);
	at_hists = malloc(sizeof(*at_hists) * GEN_NDR_AT_MAX);
	if (hists == NULL || at_hists == NULL) {
		free(hists);
		free(at_hists);
		return -ENOMEM;
	}
	gen_search_init(&s, 0, o->search_max != 0 ? o->search_max : GEN_SEARCH_TOP,
			o->ndr_loss_pct / 100, 1, o->search_trials);
	c->progress = false;
	while (!quit && (rate = gen_search_next(&s)) != 0) {
		struct gen_result *r = &trials[n];
		uint64_t pps = rate >= GEN_SEARCH_TOP ? 0 : rate;

		memset(r, 0, sizeof(*r));
		trial_prepare(c, pps, o->trial_s);
		trial_run(c);
		if (quit)
			break;
		gen_result_collect(r, c->tx, c->rx, c->hz);
		memcpy(&hists[n], c->rx->hist, sizeof(hists[n]));
		r->hist = &hists[n];
		r->pass = gen_search_result_bp(&s, r->tx.tx, r->unique, r->tx.refused,
					       (uint64_t)r->tx_pps);
		if (n == 0)
			s.precision = RTE_MAX((uint64_t)1,
					      (uint64_t)(s.hi * o->search_precision_pct / 100));
		if (r->pass && (best == UINT32_MAX || r->tx_pps > trials[best].tx_pps))
			best = n;
		printf("lanefwd-gen: trial %u: %s %.0f pps offered, loss %" PRIu64
		       " (%.6f%%): %s; bounds [%" PRIu64 ", %" PRIu64 "]\n",
		       n + 1, pps == 0 ? "unpaced," : "paced,", r->tx_pps, r->lost,
		       r->loss_ratio * 100, r->pass ? "pass" : "fail", s.lo, s.hi);
		fflush(stdout);
		n++;
	}
	if (best != UINT32_MAX) {
		char title[128];

		snprintf(title, sizeof(title), "NDR %.0f pps (loss <= %g%%), the trial at it",
			 trials[best].tx_pps, o->ndr_loss_pct);
		gen_report_table(stdout, o, &trials[best], title);
		/* Latency at known loads below the NDR: each a fixed run of --duration. */
		for (i = 0; i < o->n_ndr_at && !quit; i++) {
			struct gen_result *r = &at[i];
			uint64_t pps = (uint64_t)(trials[best].tx_pps * o->ndr_at[i] / 100);

			memset(r, 0, sizeof(*r));
			trial_prepare(c, RTE_MAX(pps, (uint64_t)1), o->duration_s);
			trial_run(c);
			if (quit)
				break;
			gen_result_collect(r, c->tx, c->rx, c->hz);
			memcpy(&at_hists[i], c->rx->hist, sizeof(at_hists[i]));
			r->hist = &at_hists[i];
			snprintf(title, sizeof(title), "at %g%% of the NDR", o->ndr_at[i]);
			gen_report_table(stdout, o, r, title);
			n_at++;
		}
	} else {
		printf("lanefwd-gen: no trial passed: NDR 0 pps\n");
	}
	if (o->json != NULL) {
		ret = gen_report_json(o->json, o, best != UINT32_MAX ? &trials[best] : NULL, trials,
				      n, best != UINT32_MAX ? trials[best].tx_pps : 0, at, n_at,
				      c->hz, c->port_desc);
		if (ret != 0)
			fprintf(stderr, "lanefwd-gen: --json %s: %s\n", o->json, strerror(-ret));
	}
	free(hists);
	free(at_hists);
	return ret;
}

/*
 * --trials: a trial server. The caller (bench/mlrsearch.py) runs the search
 * and sends one "RATE DURATION" line per trial; each answer is one JSON
 * line. EAL start-up, pool set-up and the memif connection are paid once
 * per search instead of once per trial, and the caller can measure each
 * trial's CPU shares between its request and the answer.
 */
static int
run_trials(struct gen_ctx *c)
{
	char line[256];
	struct gen_result r;
	unsigned int n = 0;

	c->progress = false;
	printf("lanefwd-gen: --trials: ready for 'RATE DURATION' lines\n");
	fflush(stdout);
	while (!quit && fgets(line, sizeof(line), stdin) != NULL) {
		uint64_t pps;
		double d;
		int rc = gen_trial_line(line, &pps, &d);

		if (rc == 1)
			continue;
		if (rc < 0) {
			line[strcspn(line, "\n\"\\")] = '\0';
			printf("{\"error\": \"bad trial line '%s': want 'RATE DURATION'\"}\n",
			       line);
			fflush(stdout);
			continue;
		}
		trial_prepare(c, pps, d);
		trial_run(c);
		if (quit)
			break;
		memset(&r, 0, sizeof(r));
		gen_result_collect(&r, c->tx, c->rx, c->hz);
		r.hist = c->rx->hist;
		r.pass = gen_trial_ok(r.tx.tx, r.unique, r.tx.refused, c->o.ndr_loss_pct / 100);
		gen_report_json_line(stdout, &r, c->hz);
		n++;
	}
	printf("lanefwd-gen: --trials: %u trial(s) run\n", n);
	fflush(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct gen_ctx ctx;
	struct gen_ctx *c = &ctx;
	char err[GEN_ERR_LEN];
	struct sigaction sa;
	int ret, rc = EXIT_FAILURE;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "lanefwd-gen: EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	ret = gen_opts_parse(&c->o, argc, argv, err, sizeof(err));
	if (ret != 0) {
		if (ret > 0) {
			gen_usage(stdout, "lanefwd-gen");
			rc = EXIT_SUCCESS;
		} else {
			fprintf(stderr, "lanefwd-gen: %s\n", err);
			rc = 2;
		}
		goto out_eal;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	c->hz = rte_get_tsc_hz();
	if (setup_lcores(c, err, sizeof(err)) != 0 || setup_ports(c, err, sizeof(err)) != 0 ||
	    setup_state(c, err, sizeof(err)) != 0) {
		fprintf(stderr, "lanefwd-gen: %s\n", err);
		rc = 2;
		goto out_ports;
	}
	printf("lanefwd-gen: %s, TX lcore %u, RX lcore %u, TSC %.3f GHz\n", c->port_desc,
	       c->tx_lcore, c->rx_lcore, c->hz / 1e9);
	fflush(stdout);
	ret = c->o.trials ? run_trials(c) : c->o.search ? run_search(c) : run_fixed(c);
	rc = ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	if (c->o.linger_s > 0) {
		bool down = gen_port_wait_down(c->tx_port, c->o.linger_s, &quit) &&
			gen_port_wait_down(c->rx_port, c->o.linger_s, &quit);

		printf("lanefwd-gen: %s\n",
		       down ? "peer closed the links" : "--linger: links still up, closing");
		fflush(stdout);
	}
out_ports:
	state_free(c);
	gen_port_close_all();
out_eal:
	rte_eal_cleanup();
	return rc;
}
