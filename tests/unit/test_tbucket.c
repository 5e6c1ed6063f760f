/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the TSC token bucket (include/lib/tbucket.h): its answers on
 * random monotonic clocks against a naive credit-counting bucket, its depth
 * and rate at the boundaries, and what it does when the clock steps back,
 * which a plain GCRA answers with nothing until the clock catches up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tbucket.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * The reference: credit in cycles, earned one per cycle up to depth tokens'
 * worth, a token costs period cycles of it. It starts full.
 */
struct ref_bucket {
	uint64_t credit, cap, period, last;
};

static void
ref_init(struct ref_bucket *r, uint64_t period, uint32_t depth, uint64_t now)
{
	r->period = period;
	r->cap = (uint64_t)depth * period;
	r->credit = r->cap;
	r->last = now;
}

static int
ref_take(struct ref_bucket *r, uint64_t now)
{
	r->credit += now - r->last;
	if (r->credit > r->cap)
		r->credit = r->cap;
	r->last = now;
	if (r->credit < r->period)
		return 0;
	r->credit -= r->period;
	return 1;
}

static void
test_against_reference(void **state)
{
	static const struct {
		uint64_t hz;
		uint32_t rate, depth;
	} cases[] = {
		{ 2000000000, 1000, 1 }, { 2000000000, 1000, 50 }, { 3000000000, 7, 3 },
		{ 1000, 1000, 4 },       { 1000, 3000, 2 },        { 2500000000, 1000000, 256 },
	};
	unsigned int c, i;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct lf_tbucket tb;
		struct ref_bucket ref;
		/* Far from 0, as a TSC is: the bucket must not lean on tat = 0. */
		uint64_t now = (rnd64() >> 4) + (1ull << 40);
		unsigned int given = 0;

		lf_tbucket_init(&tb, cases[c].hz, cases[c].rate, cases[c].depth);
		ref_init(&ref, tb.period, cases[c].depth, now);
		assert_int_equal(tb.period, (cases[c].hz + cases[c].rate - 1) / cases[c].rate);
		for (i = 0; i < 20000; i++) {
			/*
			 * Bursts at one instant, short gaps and a period's
			 * worth, which drain the bucket (a request every
			 * 0.4 period on average), and now and then a long gap
			 * that fills it.
			 */
			if (rnd64() % (4 * cases[c].depth) == 0) {
				now += rnd64() % (cases[c].depth * tb.period * 3 + 1);
			} else {
				switch (rnd64() % 3) {
				case 0:
					break;
				case 1:
					now += rnd64() % (tb.period / 4 + 1);
					break;
				default:
					now += rnd64() % (2 * tb.period + 1);
				}
			}
			int got = lf_tbucket_take(&tb, now);

			assert_int_equal(got, ref_take(&ref, now));
			given += got;
		}
		/* Both answers must have occurred for the walk to test anything. */
		if (given == 0 || given == i)
			fail_msg("case %u: %u of %u given", c, given, i);
	}
}

static void
test_depth_and_rate(void **state)
{
	struct lf_tbucket tb;
	const uint64_t t0 = 5000000000000ull;
	unsigned int i;

	(void)state;
	/* 100 per second, 5 at once, at 1 GHz: a token every 10 ms. */
	lf_tbucket_init(&tb, 1000000000, 100, 5);
	for (i = 0; i < 5; i++)
		assert_true(lf_tbucket_take(&tb, t0));
	/* Empty: tat is exactly slack + period ahead, which is no clock step. */
	assert_false(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, t0 + 9999999));
	assert_true(lf_tbucket_take(&tb, t0 + 10000000));
	assert_false(lf_tbucket_take(&tb, t0 + 10000000));
	/* A second later: full again, no more than 5. */
	for (i = 0; i < 5; i++)
		assert_true(lf_tbucket_take(&tb, t0 + 1010000000));
	assert_false(lf_tbucket_take(&tb, t0 + 1010000000));

	/* Rate 0 gives nothing, however long one waits. */
	lf_tbucket_init(&tb, 1000000000, 0, 8);
	assert_false(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, UINT64_MAX));
	/* Depth 1: one at a time. */
	lf_tbucket_init(&tb, 1000, 10, 1);
	assert_true(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, t0 + 99));
	assert_true(lf_tbucket_take(&tb, t0 + 100));
}

/*
 * A clock that stepped back by far more than a token's period (as a CI
 * guest's did, ~1,000 s): the bucket re-anchors at once, full, and then keeps
 * its rate from the new reading.
 */
static void
test_clock_steps_back(void **state)
{
	struct lf_tbucket tb;
	const uint64_t hz = 2000000000;
	const uint64_t t0 = 3000000000000ull;
	const uint64_t back = t0 - 1000 * hz;
	unsigned int i;

	(void)state;
	lf_tbucket_init(&tb, hz, 10, 4);
	for (i = 0; i < 4; i++)
		assert_true(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, t0 + 1));
	for (i = 0; i < 4; i++)
		assert_true(lf_tbucket_take(&tb, back));
	assert_false(lf_tbucket_take(&tb, back));
	assert_true(lf_tbucket_take(&tb, back + hz / 10));
	assert_false(lf_tbucket_take(&tb, back + hz / 10));

	/*
	 * A step back within the bucket's reach (tat no more than slack +
	 * period ahead) is not told from a bucket short of tokens: three of
	 * four taken, half a period back is refused, and the fourth is there
	 * at t0 again.
	 */
	lf_tbucket_init(&tb, hz, 10, 4);
	for (i = 0; i < 3; i++)
		assert_true(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, t0 - hz / 20));
	assert_true(lf_tbucket_take(&tb, t0));
	assert_false(lf_tbucket_take(&tb, t0));
}

static void
test_tsc_due(void **state)
{
	const uint64_t p = 1000;

	(void)state;
	assert_false(lf_tsc_due(5000, 5001, p));
	assert_true(lf_tsc_due(5001, 5001, p));
	assert_true(lf_tsc_due(9000, 5001, p));
	/* The furthest a deadline is set ahead: not due. */
	assert_false(lf_tsc_due(4001, 5001, p));
	/* Further than that: the clock stepped back, due now. */
	assert_true(lf_tsc_due(4000, 5001, p));
	assert_true(lf_tsc_due(0, UINT64_MAX, p));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		/* one per line */
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_depth_and_rate),
		cmocka_unit_test(test_clock_steps_back),
		cmocka_unit_test(test_tsc_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
