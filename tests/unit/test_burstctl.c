/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the adaptive burst controller (include/lib/burstctl.h):
 * invalid parameters first, its single decisions on scripted input, then
 * closed-loop runs against a simulated worker. The simulation is a ring of
 * rx_desc slots fed by Poisson arrivals (steady, on/off, overload, load
 * steps) and a worker whose iteration costs fixed + per-packet * n, so that
 * a larger burst amortises the fixed part. The residence the controller is
 * told is what lanefwd records with the TSC clock: from the poll to the end
 * of the iteration that sent the packet. The checks use the simulation's
 * own per-packet records (a fixed-bin histogram, drops at the ring), not
 * the controller's counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_common.h>

#include "burstctl.h"

#define HZ 1000000000ull /* Ticks are nanoseconds. */
#define RING 1024 /* rx_desc. */
#define BIN_NS 10
#define BINS 100000 /* Residences up to 1 ms, then an overflow count. */
#define IDLE_NS 50 /* An empty poll and loop iteration. */

static const struct lf_burstctl_params defaults = {
	.burst_min = 4,
	.burst_max = 256,
	.target_us = 50,
	.percentile = 99.99,
	.hz = HZ,
};

static void
test_invalid_params(void **state)
{
	struct lf_burstctl c;
	struct lf_burstctl_params p;

	(void)state;
	memset(&c, 0x5a, sizeof(c));
	p = defaults, p.burst_min = 0;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.burst_min = 65, p.burst_max = 64;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.burst_max = 257;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.target_us = 0;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.percentile = 0;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.percentile = 100;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.percentile = NAN;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	p = defaults, p.hz = 0;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), -EINVAL);
	/* Untouched on error. */
	assert_int_equal(c.cur, 0x5a5a);
	p = defaults, p.burst_min = p.burst_max = 256;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), 0);
	assert_int_equal(c.cur, 256);
	p = defaults, p.burst_min = p.burst_max = 1, p.percentile = 1e-9;
	assert_int_equal(lf_burstctl_init(&c, &p, 0), 0);
	assert_int_equal(c.cur, 1);
}

/* One epoch of iterations, each with one poll of n and its residence. */
static uint16_t
epoch(struct lf_burstctl *c, uint64_t *now, uint16_t n, uint64_t res)
{
	uint16_t b = c->cur;
	unsigned int i;

	for (i = 0; i < LF_BURSTCTL_EPOCH; i++) {
		*now += 1000;
		if (n != 0) {
			lf_burstctl_poll(c, RTE_MIN(n, b));
			lf_burstctl_left(c, res, RTE_MIN(n, b));
		}
		b = lf_burstctl_iter(c, *now);
	}
	return b;
}

/* Window length and allowance for p99.99; steps up, halvings, decay. */
static void
test_decisions(void **state)
{
	struct lf_burstctl c;
	struct lf_burstctl_stats st;
	uint64_t now = 0;
	unsigned int i;

	(void)state;
	assert_int_equal(lf_burstctl_init(&c, &defaults, now), 0);
	assert_int_equal(c.window, 100000);
	assert_int_equal(c.allow, 10);
	assert_int_equal(c.step, 8);
	assert_int_equal(c.cur, 4);
	/* Full polls well under the target: doubling up to the step, then one
	 * step per epoch, to the top. */
	assert_int_equal(epoch(&c, &now, 256, 1000), 8);
	assert_int_equal(epoch(&c, &now, 256, 1000), 16);
	assert_int_equal(epoch(&c, &now, 256, 1000), 24);
	for (i = 0; i < 40; i++)
		epoch(&c, &now, 256, 1000);
	assert_int_equal(c.cur, 256);
	/* Half the polls full still grows, fewer does not. */
	assert_int_equal(lf_burstctl_init(&c, &defaults, now), 0);
	for (i = 0; i < LF_BURSTCTL_EPOCH; i++) {
		lf_burstctl_poll(&c, i & 1 ? 4 : 2);
		lf_burstctl_iter(&c, ++now);
	}
	assert_int_equal(c.cur, 8);
	for (i = 0; i < LF_BURSTCTL_EPOCH; i++) {
		lf_burstctl_poll(&c, i < 7 ? 8 : 2);
		lf_burstctl_iter(&c, ++now);
	}
	assert_int_equal(c.cur, 8);
	epoch(&c, &now, 256, 1000);
	assert_int_equal(epoch(&c, &now, 256, 1000), 24);
	/* No headroom: residences between the headroom line and the target
	 * hold the burst (the window allows 10 packets over the line). */
	for (i = 0; i < 20; i++)
		epoch(&c, &now, 256, c.target_tsc - 1);
	assert_int_equal(c.cur, 24);
	/* 11 packets over the target halve it at once, mid-epoch. */
	lf_burstctl_left(&c, c.target_tsc + 1, 10);
	assert_int_equal(c.cur, 24);
	lf_burstctl_left(&c, c.target_tsc + 1, 1);
	assert_int_equal(c.cur, 12);
	/* Held: no growth until a whole window at 12 held the target. */
	epoch(&c, &now, 256, 1000);
	assert_int_equal(c.cur, 12);
	while (lf_burstctl_read(&c, &st) == 12)
		epoch(&c, &now, 256, 1000);
	assert_int_equal(st.windows, 2); /* the one cut short, then a clean one */
	assert_int_equal(c.cur, 20);
	/* At burst_min, misses count but cannot shrink further. */
	assert_int_equal(lf_burstctl_init(&c, &defaults, now), 0);
	lf_burstctl_left(&c, c.target_tsc + 1, 100);
	lf_burstctl_read(&c, &st);
	assert_int_equal(c.cur, 4);
	assert_int_equal(st.windows_missed, 1);
	assert_int_equal(st.shrunk, 0);
	assert_int_equal(st.misses, 100);
	/* Decay: windows with small polls only halve an oversized burst, and
	 * stop once a poll reaches half of it; an idle window ends on time. */
	c.hold = false;
	while (c.cur < 256)
		epoch(&c, &now, 256, 1000);
	for (i = 0; i < 8 * 100000 / (LF_BURSTCTL_EPOCH * 10); i++)
		epoch(&c, &now, 10, 1000);
	assert_int_equal(c.cur, 16); /* 256, 128, 64, 32, 16: a poll of 10 > 16 / 2 */
	lf_burstctl_read(&c, &st);
	assert_int_equal(st.decayed, 4);
	for (i = 0; i < 2; i++) {
		now += (uint64_t)LF_BURSTCTL_WINDOW_MS * 1000000;
		epoch(&c, &now, 0, 0);
	}
	assert_int_equal(c.cur, 8);
	lf_burstctl_read(&c, &st);
	assert_int_equal(st.decayed, 5);
}

/* The simulated worker's cost model and the arrival process of a phase. */
struct model {
	uint32_t fixed_ns; /* Per iteration with packets: poll, loop, TX burst. */
	uint32_t pkt_ns; /* Per packet. */
};

struct phase {
	uint64_t len_ns;
	double load; /* Arrival rate during "on", as a fraction of capacity(256). */
	uint64_t on_ns, off_ns; /* 0, 0: steady. */
};

struct sim {
	struct model m;
	struct lf_burstctl c;
	uint64_t ring[RING];
	unsigned int head, len;
	uint64_t now, next_arr, rng;
	/* Records of the phase being measured. */
	uint64_t arrived, dropped, served, res_over, bins[BINS];
	uint64_t true_max; /* Arrival -> TX, the ring wait included. */
	uint16_t cur_min, cur_max;
};

static double
uniform(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return ((s->rng >> 11) + 0.5) / 9007199254740992.0;
}

static double
capacity(const struct model *m, unsigned int b)
{
	return (double)b / (m->fixed_ns + (double)m->pkt_ns * b); /* packets per ns */
}

/* The next arrival after t of a Poisson process at rate, on during on_ns of
 * every on_ns + off_ns (from start). */
static uint64_t
next_arrival(struct sim *s, uint64_t t, const struct phase *ph, uint64_t start, double rate)
{
	t += (uint64_t)(-log(uniform(s)) / rate) + 1;
	if (ph->on_ns != 0) {
		const uint64_t per = ph->on_ns + ph->off_ns;
		const uint64_t in = (t - start) % per;

		if (in >= ph->on_ns)
			t += per - in;
	}
	return t;
}

static void
sim_reset_records(struct sim *s)
{
	s->arrived = s->dropped = s->served = s->res_over = s->true_max = 0;
	memset(s->bins, 0, sizeof(s->bins));
	s->cur_min = UINT16_MAX;
	s->cur_max = 0;
}

static void
sim_init(struct sim *s, const struct model *m, const struct lf_burstctl_params *p)
{
	memset(s, 0, sizeof(*s));
	s->m = *m;
	s->rng = 0x9e3779b97f4a7c15ull;
	assert_int_equal(lf_burstctl_init(&s->c, p, 0), 0);
	sim_reset_records(s);
}

/* Run one phase; with measure, its records replace the last phase's. */
static void
sim_run(struct sim *s, const struct phase *ph, bool measure)
{
	const uint64_t start = s->now, end = s->now + ph->len_ns;
	const double rate = ph->load * capacity(&s->m, 256);
	uint16_t b = s->c.cur;

	if (measure)
		sim_reset_records(s);
	s->next_arr = next_arrival(s, s->now, ph, start, rate);
	while (s->now < end) {
		uint64_t res;
		unsigned int n, i;

		for (; s->next_arr <= s->now;
		     s->next_arr = next_arrival(s, s->next_arr, ph, start, rate)) {
			s->arrived++;
			if (s->len == RING) {
				s->dropped++;
				continue;
			}
			s->ring[(s->head + s->len++) % RING] = s->next_arr;
		}
		n = RTE_MIN((unsigned int)b, s->len);
		if (n == 0) {
			s->now += IDLE_NS;
			b = lf_burstctl_iter(&s->c, s->now);
			continue;
		}
		lf_burstctl_poll(&s->c, n);
		res = s->m.fixed_ns + (uint64_t)s->m.pkt_ns * n;
		s->now += res;
		for (i = 0; i < n; i++) {
			const uint64_t tr = s->now - s->ring[(s->head + i) % RING];

			s->true_max = RTE_MAX(s->true_max, tr);
		}
		s->head = (s->head + n) % RING;
		s->len -= n;
		s->served += n;
		s->bins[RTE_MIN(res / BIN_NS, (uint64_t)BINS - 1)] += n;
		s->res_over += res > s->c.target_tsc ? n : 0;
		/* What lanefwd records: one run per burst, sent this iteration. */
		lf_burstctl_left(&s->c, res, n);
		b = lf_burstctl_iter(&s->c, s->now);
		s->cur_min = RTE_MIN(s->cur_min, b);
		s->cur_max = RTE_MAX(s->cur_max, b);
	}
}

/* The q-quantile of the measured residences, ns (bin upper bound). */
static uint64_t
sim_quantile(const struct sim *s, double q)
{
	uint64_t need = (uint64_t)ceil(q * s->served), acc = 0;
	unsigned int i;

	for (i = 0; i < BINS; i++) {
		acc += s->bins[i];
		if (acc >= need)
			return (uint64_t)(i + 1) * BIN_NS;
	}
	return UINT64_MAX;
}

static void
sim_report(const char *what, const struct sim *s)
{
	struct lf_burstctl_stats st;
	const uint16_t cur = lf_burstctl_read(&s->c, &st);

	printf("# %s: burst %u (range %u..%u), served %" PRIu64 "/%" PRIu64 " dropped %" PRIu64
	       ", p99.99 %" PRIu64 " ns, max arrival->TX %" PRIu64 " ns; windows %" PRIu64
	       " missed %" PRIu64 " grown %" PRIu64 " shrunk %" PRIu64 " decayed %" PRIu64 "\n",
	       what, cur, s->cur_min, s->cur_max, s->served, s->arrived, s->dropped,
	       sim_quantile(s, 0.9999), s->true_max, st.windows, st.windows_missed, st.grown,
	       st.shrunk, st.decayed);
}

/* A forwarder whose 256-burst iteration is far under the target. */
static const struct model light = { .fixed_ns = 1000, .pkt_ns = 50 };

/* Warm up 100 ms, then measure 300 ms of the same load. */
static void
run_steady(struct sim *s, const struct model *m, const struct lf_burstctl_params *p, double load,
	   uint64_t on_ns, uint64_t off_ns)
{
	struct phase ph = { .len_ns = 100000000, .load = load, .on_ns = on_ns, .off_ns = off_ns };

	sim_init(s, m, p);
	sim_run(s, &ph, false);
	ph.len_ns = 300000000;
	sim_run(s, &ph, true);
}

static struct sim *
new_sim(void)
{
	struct sim *s = malloc(sizeof(*s));

	assert_non_null(s);
	return s;
}

/* 30% of capacity: small bursts keep up, no backlog pulls them up. */
static void
test_steady_30(void **state)
{
	struct sim *s = new_sim();

	(void)state;
	run_steady(s, &light, &defaults, 0.3, 0, 0);
	sim_report("steady 30%", s);
	assert_int_equal(s->dropped, 0);
	assert_true(s->served + RING >= s->arrived);
	assert_true(sim_quantile(s, 0.9999) <= 50000);
	assert_true(s->cur_max <= 64);
	free(s);
}

/* 90%: needs a burst of 101 or more to keep up (capacity(101) = 90%). */
static void
test_steady_90(void **state)
{
	struct sim *s = new_sim();

	(void)state;
	run_steady(s, &light, &defaults, 0.9, 0, 0);
	sim_report("steady 90%", s);
	assert_int_equal(s->dropped, 0);
	assert_true(s->served + RING >= s->arrived);
	assert_true(sim_quantile(s, 0.9999) <= 50000);
	assert_true(s->cur_min >= 101);
	/* Kept up: no packet waited anywhere near the ring's depth. */
	assert_true(s->true_max < 200000);
	free(s);
}

/* On/off: 200 us at 95% of capacity every ms (19% on average). Between
 * bursts the polls are small, but every burst fills some: the burst stays
 * where the bursts need it instead of decaying in between. */
static void
test_bursty(void **state)
{
	struct sim *s = new_sim();

	(void)state;
	run_steady(s, &light, &defaults, 0.95, 200000, 800000);
	sim_report("on/off 95%", s);
	assert_int_equal(s->dropped, 0);
	assert_true(sim_quantile(s, 0.9999) <= 50000);
	assert_true(s->cur_min >= 64);
	free(s);
}

/* 120%: the largest burst's throughput, then small again when it drops. */
static void
test_overload_then_drop(void **state)
{
	struct phase ph = { .len_ns = 100000000, .load = 1.2 };
	struct sim *s = new_sim();
	double served_rate;

	(void)state;
	sim_init(s, &light, &defaults);
	sim_run(s, &ph, false);
	sim_run(s, &ph, true);
	sim_report("overload 120%", s);
	assert_int_equal(lf_burstctl_read(&s->c, &(struct lf_burstctl_stats){ 0 }), 256);
	assert_true(s->cur_min == 256);
	served_rate = (double)s->served / ph.len_ns;
	assert_true(served_rate >= 0.97 * capacity(&light, 256));
	assert_true(s->dropped > 0);
	/* Load drops to 30%: a few windows later the burst is small again. */
	ph.load = 0.3;
	ph.len_ns = 200000000;
	sim_run(s, &ph, false);
	sim_run(s, &ph, true);
	sim_report("then 30%", s);
	assert_true(s->cur_max <= 32);
	assert_int_equal(s->dropped, 0);
	free(s);
}

/*
 * A target that binds: 10 us, where the iteration of a 256 burst takes
 * 13.8 us and any burst over 180 misses. Under overload the burst settles
 * at the largest that holds it; at 90% and on/off it keeps up and holds it.
 */
static void
test_binding_target(void **state)
{
	struct lf_burstctl_params p = defaults;
	struct phase ph = { .len_ns = 100000000, .load = 1.2 };
	struct sim *s = new_sim();

	(void)state;
	p.target_us = 10;
	sim_init(s, &light, &p);
	sim_run(s, &ph, false);
	sim_run(s, &ph, true);
	sim_report("10 us, overload", s);
	assert_true(s->cur_max <= 180);
	assert_true(s->cur_min >= 90);
	assert_true(sim_quantile(s, 0.9999) <= 10000);
	assert_true((double)s->served / ph.len_ns >= 0.9 * capacity(&light, 180));

	run_steady(s, &light, &p, 0.9, 0, 0);
	sim_report("10 us, steady 90%", s);
	assert_int_equal(s->dropped, 0);
	assert_true(sim_quantile(s, 0.9999) <= 10000);

	run_steady(s, &light, &p, 0.9, 200000, 800000);
	sim_report("10 us, on/off 90%", s);
	assert_int_equal(s->dropped, 0);
	assert_true(sim_quantile(s, 0.9999) <= 10000);
	free(s);
}

/* A heavy pipeline (300 ns a packet): bursts over 30 miss a 10 us target.
 * Under overload the burst stops short of that edge (the headroom line
 * assumes no fixed cost) and still takes most of the edge's throughput. */
static void
test_heavy_pipeline(void **state)
{
	static const struct model heavy = { .fixed_ns = 1000, .pkt_ns = 300 };
	struct lf_burstctl_params p = defaults;
	struct sim *s = new_sim();

	(void)state;
	p.target_us = 10;
	run_steady(s, &heavy, &p, 1.5, 0, 0);
	sim_report("heavy, overload", s);
	assert_true(s->cur_max <= 30);
	assert_true(sim_quantile(s, 0.9999) <= 10000);
	assert_true((double)s->served / 300000000 >= 0.95 * capacity(&heavy, 30));
	free(s);
}

/* The pipeline turns heavy under a burst of 256 (a reload added rules, a
 * cache no longer fits): iterations of 78 us miss a 50 us target, the
 * burst halves at once and settles under the target's edge (163). */
static void
test_cost_step(void **state)
{
	struct phase ph = { .len_ns = 100000000, .load = 1.2 };
	struct lf_burstctl_stats st;
	struct sim *s = new_sim();

	(void)state;
	sim_init(s, &light, &defaults);
	sim_run(s, &ph, false);
	assert_int_equal(s->c.cur, 256);
	s->m.pkt_ns = 300;
	ph.len_ns = 20000000;
	sim_run(s, &ph, false);
	ph.len_ns = 300000000;
	sim_run(s, &ph, true);
	sim_report("light -> heavy, overload", s);
	lf_burstctl_read(&s->c, &st);
	assert_true(st.shrunk >= 1);
	assert_true(st.windows_missed >= 1);
	assert_true(s->cur_max <= 163);
	assert_true(s->cur_min >= 128);
	assert_true(sim_quantile(s, 0.9999) <= 50000);
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_params), cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_steady_30),      cmocka_unit_test(test_steady_90),
		cmocka_unit_test(test_bursty),         cmocka_unit_test(test_overload_then_drop),
		cmocka_unit_test(test_binding_target), cmocka_unit_test(test_heavy_pipeline),
		cmocka_unit_test(test_cost_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
