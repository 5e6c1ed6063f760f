/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the log-linear latency histogram (include/hist.h): bucket
 * index against a reference computed from the bucket bounds, the bounds'
 * width (relative error), boundary values and overflow, merge, and
 * quantiles against the exact order statistics of known and random data.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct lf_hist *
new_hist(void)
{
	struct lf_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	lf_hist_reset(h);
	return h;
}

/* Bounds tile the value range: contiguous, increasing, width <= lower/64. */
static void
test_bounds_tile_the_range(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(lf_hist_lower(0), 0);
	for (i = 0; i < LF_HIST_BUCKETS; i++) {
		uint64_t lo = lf_hist_lower(i), up = lf_hist_upper(i);

		assert_true(lo <= up);
		if (i > 0)
			assert_int_equal(lo, lf_hist_upper(i - 1) + 1);
		if (lo >= LF_HIST_SUB)
			assert_true((up - lo + 1) * LF_HIST_SUB <= lo);
		/* Both ends map back to the bucket. */
		assert_int_equal(lf_hist_index(lo), i);
		assert_int_equal(lf_hist_index(up), i);
	}
	assert_int_equal(lf_hist_upper(LF_HIST_BUCKETS - 1), (1ull << LF_HIST_MAX_BITS) - 1);
}

/* The index of any value is the bucket whose bounds hold it. */
static void
test_index_matches_bounds(void **state)
{
	unsigned int k;

	(void)state;
	for (k = 0; k < 2000000; k++) {
		/* Spread over every magnitude: random value >> random shift. */
		uint64_t v = rnd64() >> (rnd64() % 64);
		unsigned int i = lf_hist_index(v);

		if (v >= (1ull << LF_HIST_MAX_BITS)) {
			assert_int_equal(i, LF_HIST_BUCKETS);
			continue;
		}
		assert_true(i < LF_HIST_BUCKETS);
		assert_true(lf_hist_lower(i) <= v);
		assert_true(v <= lf_hist_upper(i));
	}
}

static void
test_boundary_values(void **state)
{
	static const uint64_t vals[] = { 0,         1,   63,  64,   65,   127,  128,
					 129,       255, 256, 1000, 4095, 4096, (1ull << 41) - 1,
					 1ull << 41 };
	struct lf_hist *h = new_hist();
	unsigned int k;

	(void)state;
	assert_int_equal(lf_hist_index(0), 0);
	assert_int_equal(lf_hist_index(63), 63);
	assert_int_equal(lf_hist_index(64), 64);
	assert_int_equal(lf_hist_index(127), 127);
	assert_int_equal(lf_hist_index(128), 128);
	assert_int_equal(lf_hist_index(129), 128); /* width 2 from 128 on */
	assert_int_equal(lf_hist_index((1ull << LF_HIST_MAX_BITS) - 1), LF_HIST_BUCKETS - 1);
	assert_int_equal(lf_hist_index(1ull << LF_HIST_MAX_BITS), LF_HIST_BUCKETS);
	assert_int_equal(lf_hist_index(UINT64_MAX), LF_HIST_BUCKETS);

	/* Empty: no quantile, min/max neutral. */
	assert_int_equal(h->total, 0);
	assert_int_equal(lf_hist_quantile(h, 0.5), 0);
	for (k = 0; k < RTE_DIM(vals); k++)
		lf_hist_record_n(h, vals[k], 1);
	assert_int_equal(h->total, RTE_DIM(vals));
	assert_int_equal(h->overflow, 0);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->max, 1ull << 41);
	assert_int_equal(lf_hist_quantile(h, 1.0), 1ull << 41);
	free(h);
}

static void
test_overflow(void **state)
{
	struct lf_hist *h = new_hist();
	unsigned int i;
	uint64_t sum = 0;

	(void)state;
	lf_hist_record_n(h, 10, 3);
	lf_hist_record_n(h, 1ull << LF_HIST_MAX_BITS, 2);
	lf_hist_record_n(h, UINT64_MAX, 1);
	assert_int_equal(h->total, 6);
	assert_int_equal(h->overflow, 3);
	assert_int_equal(h->max, UINT64_MAX);
	for (i = 0; i < LF_HIST_BUCKETS; i++)
		sum += h->count[i];
	assert_int_equal(sum, 3);
	/* Half the values overflowed: p50 is 10, p99 is the overflow (max). */
	assert_int_equal(lf_hist_quantile(h, 0.5), 10);
	assert_int_equal(lf_hist_quantile(h, 0.99), UINT64_MAX);
	free(h);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Quantile vs the exact order statistic: never below it, at most 1/64 above. */
static void
check_quantiles(const uint64_t *sorted, size_t n, const struct lf_hist *h)
{
	static const double qs[] = { 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0 };
	unsigned int k;

	for (k = 0; k < RTE_DIM(qs); k++) {
		size_t rank = (size_t)ceil(qs[k] * (double)n);
		uint64_t exact = sorted[(rank ? rank : 1) - 1];
		uint64_t got = lf_hist_quantile(h, qs[k]);

		if (got < exact || got > exact + exact / LF_HIST_SUB)
			fail_msg("q %.4f: histogram %llu, exact %llu", qs[k],
				 (unsigned long long)got, (unsigned long long)exact);
	}
}

static void
test_quantiles_known_distributions(void **state)
{
	const size_t n = 1000000;
	uint64_t *v = malloc(n * sizeof(*v));
	struct lf_hist *h = new_hist();
	size_t i;
	int dist;

	(void)state;
	assert_non_null(v);
	for (dist = 0; dist < 4; dist++) {
		lf_hist_reset(h);
		for (i = 0; i < n; i++) {
			switch (dist) {
			case 0: /* uniform 1..1e6 */
				v[i] = 1 + i;
				break;
			case 1: /* exponential, mean 2000 cycles */
				v[i] = (uint64_t)(-2000.0 *
						  log((double)(rnd64() % 1000000 + 1) / 1e6));
				break;
			case 2: /* heavy tail: 99.99% at ~1 us, 0.01% at ~7.6 ms */
				v[i] = i % 10000 == 0 ? 19760000 + rnd64() % 1000
						      : 2600 + rnd64() % 100;
				break;
			default: /* constant */
				v[i] = 123456;
			}
			lf_hist_record_n(h, v[i], 1);
		}
		qsort(v, n, sizeof(*v), cmp_u64);
		assert_int_equal(h->total, n);
		assert_int_equal(h->min, v[0]);
		assert_int_equal(h->max, v[n - 1]);
		check_quantiles(v, n, h);
	}
	/* The uniform case by hand: p50 of 1..1e6 is 500000, within 1/64. */
	lf_hist_reset(h);
	for (i = 1; i <= n; i++)
		lf_hist_record_n(h, i, 1);
	assert_true(lf_hist_quantile(h, 0.5) >= 500000);
	assert_true(lf_hist_quantile(h, 0.5) <= 500000 + 500000 / 64);
	free(v);
	free(h);
}

/* record_n(v, k) equals k record_n(v, 1); add() merges exactly. */
static void
test_record_n_and_add(void **state)
{
	struct lf_hist *a = new_hist(), *b = new_hist(), *c = new_hist();
	unsigned int k;

	(void)state;
	for (k = 0; k < 10000; k++) {
		uint64_t v = rnd64() >> (rnd64() % 60);
		uint64_t cnt = 1 + rnd64() % 5;
		uint64_t j;

		lf_hist_record_n(k % 2 ? a : b, v, cnt);
		for (j = 0; j < cnt; j++)
			lf_hist_record_n(c, v, 1);
	}
	lf_hist_add(a, b);
	assert_int_equal(a->total, c->total);
	assert_int_equal(a->overflow, c->overflow);
	assert_int_equal(a->min, c->min);
	assert_int_equal(a->max, c->max);
	assert_memory_equal(a->count, c->count, sizeof(a->count));
	free(a);
	free(b);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundary_values),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_bounds_tile_the_range),
		cmocka_unit_test(test_index_matches_bounds),
		cmocka_unit_test(test_quantiles_known_distributions),
		cmocka_unit_test(test_record_n_and_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
