/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device clock -> TSC map of latency_clock = hw (hwclock.h), against
 * exact rational arithmetic: device clocks of 1 GHz (ns), 156.25 MHz and
 * 812.5 MHz against TSCs of 2.6 and 3.0 GHz, stamps before and after the
 * calibration point, across a 2^64 wrap of the device counter, and the
 * sequence lock's publication (a reader sees a whole map, never half).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "hwclock.h"

/* Exact: tsc0 + round_down((dev - dev0) * tsc_hz / dev_hz). */
static int64_t
exact_delta(int64_t ddev, uint64_t tsc_hz, uint64_t dev_hz)
{
	__int128 n = (__int128)ddev * tsc_hz;

	/* Floor division, as the fixed-point shift floors. */
	if (n < 0)
		return (int64_t)((n - (__int128)dev_hz + 1) / (__int128)dev_hz);
	return (int64_t)(n / (__int128)dev_hz);
}

static void
test_rates(void **state)
{
	static const uint64_t tsc_hz[] = { 2600000000ull, 3000000000ull };
	static const uint64_t dev_hz[] = { 1000000000ull, 156250000ull, 812500000ull };
	static const int64_t spans[] = {
		0, 1, -1, 1000, -1000, 123456789, -987654321, 10000000000ll, -10000000000ll
	};
	unsigned int a, b, k;

	(void)state;
	for (a = 0; a < 2; a++) {
		for (b = 0; b < 3; b++) {
			/* Calibrated over 10 s of each clock. */
			const uint64_t mult = lf_hwclock_ratio(10 * tsc_hz[a], 10 * dev_hz[b]);

			for (k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
				const uint64_t dev0 = 0xfffffff000000000ull, tsc0 = 1ull << 40;
				const uint64_t dev = dev0 + (uint64_t)spans[k];
				const int64_t want = exact_delta(spans[k], tsc_hz[a], dev_hz[b]);
				const int64_t got =
					(int64_t)(lf_hwclock_map(dev0, tsc0, mult, dev) - tsc0);
				/* 32 fractional bits: the error grows with the span
				 * by at most span / 2^32 cycles, plus one. */
				const int64_t slack =
					2 + (spans[k] < 0 ? -spans[k] : spans[k]) / (1ll << 30);

				if (got - want > slack || want - got > slack)
					fail_msg("tsc %lu Hz, device %lu Hz, span %ld ticks: %ld cycles, exact %ld",
						 tsc_hz[a], dev_hz[b], spans[k], got, want);
			}
		}
	}
	assert_int_equal(lf_hwclock_ratio(5, 0), 0);
	/* 1:1 is exactly 2^32. */
	assert_int_equal(lf_hwclock_ratio(1000, 1000), 1ull << 32);
}

static void
test_publish_read(void **state)
{
	struct lf_hwclock c = { 0 };

	(void)state;
	lf_hwclock_publish(&c, 1000, 5000, 3ull << 32);
	assert_int_equal(c.seq % 2, 0);
	assert_int_equal(lf_hwclock_to_tsc(&c, 1010), 5030);
	assert_int_equal(lf_hwclock_to_tsc(&c, 990), 4970);
	lf_hwclock_publish(&c, 2000, 9000, 1ull << 31);
	assert_int_equal(c.seq, 4);
	assert_int_equal(lf_hwclock_to_tsc(&c, 2010), 9005);
}

/*
 * A writer republishes maps whose fields are tied together (tsc0 = 3 x dev0,
 * mult = dev0 << 32) as fast as it can; the reader the workers use must
 * always get the three fields of one map.
 */
static struct lf_hwclock shared;
static volatile int stop;

static void *
writer(void *arg)
{
	uint64_t i;

	(void)arg;
	for (i = 1; !stop; i++)
		lf_hwclock_publish(&shared, i, 3 * i, i << 32);
	return NULL;
}

static void
test_seqlock(void **state)
{
	pthread_t t;
	unsigned int n, torn = 0, seq0, published;

	(void)state;
	lf_hwclock_publish(&shared, 1, 3, 1ull << 32);
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	/* Reads while the writer keeps publishing. */
	while (__atomic_load_n(&shared.seq, __ATOMIC_RELAXED) < 2000)
		;
	seq0 = __atomic_load_n(&shared.seq, __ATOMIC_RELAXED);
	/* Until the writer has published 100000 maps during the reads (the
	 * machine may run it late), or 10^9 reads. */
	for (n = 0; n < 1000000000u; n++) {
		uint64_t dev0, tsc0, mult;

		lf_hwclock_read(&shared, &dev0, &tsc0, &mult);
		torn += tsc0 != 3 * dev0 || mult != dev0 << 32;
		if ((n & 1023) == 0 &&
		    __atomic_load_n(&shared.seq, __ATOMIC_RELAXED) - seq0 >= 200000)
			break;
	}
	published = (__atomic_load_n(&shared.seq, __ATOMIC_RELAXED) - seq0) / 2;
	stop = 1;
	pthread_join(t, NULL);
	print_message("seqlock: %u reads while the writer published %u maps, %u torn\n", n,
		      published, torn);
	assert_true(published >= 100000);
	assert_int_equal(torn, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_publish_read),
		cmocka_unit_test(test_seqlock),
	};

	return cmocka_run_group_tests_name("hwclock", tests, NULL, NULL);
}
