/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UE address pools of UE IP Address CHOOSE (lib/upf_uepool.h) against
 * a reference: the candidates of each pool written out by hand as text,
 * and a model of the round-robin allocator over them, driven by random
 * allocations and releases.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "upf_uepool.h"

/* Pool 1, IPv4: a /29 without its network and broadcast addresses, a /31
 * and a /32 whole, and a /30 without its two. */
static const char *const v4_pfx[] = { "10.45.0.0/29", "10.45.1.0/31", "10.45.2.7/32",
				      "192.168.0.0/30" };
static const char *const v4_want[] = { "10.45.0.1", "10.45.0.2",   "10.45.0.3",  "10.45.0.4",
				       "10.45.0.5", "10.45.0.6",   "10.45.1.0",  "10.45.1.1",
				       "10.45.2.7", "192.168.0.1", "192.168.0.2" };
/* Pool 2, IPv6: /64s of a /62 and a /64. */
static const char *const v6_pfx[] = { "fd00:45::/62", "fd00:46:0:8::/64" };
static const char *const v6_want[] = { "fd00:45::", "fd00:45:0:1::", "fd00:45:0:2::",
				       "fd00:45:0:3::", "fd00:46:0:8::" };
/* Pool 3, IPv6 delegating /56s (ue_alloc_ipv6_len = 56): those of a /54 and a /56. */
static const char *const d56_pfx[] = { "fd00:50::/54", "fd00:51:0:700::/56" };
static const char *const d56_want[] = { "fd00:50::", "fd00:50:0:100::", "fd00:50:0:200::",
					"fd00:50:0:300::", "fd00:51:0:700::" };

#define MAX_CAND 16

struct ref {
	uint8_t af;
	unsigned int n;
	uint8_t a[MAX_CAND][16];
	bool used[MAX_CAND];
	unsigned int cursor;
};

/* An empty pool of family af whose candidates are /blen (an IPv4 pool: 32). */
static void
pool_init(struct upf_uepool *p, uint8_t af, uint8_t blen)
{
	if (af == 6)
		assert_int_equal(upf_uepool_init6(p, blen), 0);
	else
		upf_uepool_init(p, af);
	assert_int_equal(p->blen, blen);
}

static void
add_prefixes_len(struct upf_uepool *p, uint8_t af, uint8_t blen, const char *const *pfx,
		 unsigned int n)
{
	unsigned int i;

	pool_init(p, af, blen);
	for (i = 0; i < n; i++) {
		char buf[64], *slash;
		uint8_t a[16] = { 0 };

		strcpy(buf, pfx[i]);
		slash = strchr(buf, '/');
		*slash = '\0';
		assert_int_equal(inet_pton(af == 4 ? AF_INET : AF_INET6, buf, a), 1);
		assert_int_equal(upf_uepool_add(p, af, a, (uint8_t)atoi(slash + 1)), 0);
	}
}

static void
add_prefixes(struct upf_uepool *p, uint8_t af, const char *const *pfx, unsigned int n)
{
	add_prefixes_len(p, af, af == 4 ? 32 : 64, pfx, n);
}

static void
ref_init(struct ref *r, uint8_t af, const char *const *want, unsigned int n)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->af = af;
	r->n = n;
	for (i = 0; i < n; i++)
		assert_int_equal(inet_pton(af == 4 ? AF_INET : AF_INET6, want[i], r->a[i]), 1);
}

static int
ref_index(const struct ref *r, const uint8_t *a)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (memcmp(r->a[i], a, 16) == 0)
			return (int)i;
	return -1;
}

static bool
ref_taken(void *ctx, const uint8_t addr[16])
{
	const struct ref *r = ctx;
	const int i = ref_index(r, addr);

	/* The allocator asks only of its own candidates. */
	assert_true(i >= 0);
	return r->used[i];
}

/* The first free candidate from the model's cursor, round; -1 if none. */
static int
ref_alloc(struct ref *r)
{
	unsigned int k;

	for (k = 0; k < r->n; k++) {
		const unsigned int i = (r->cursor + k) % r->n;

		if (!r->used[i]) {
			r->cursor = (i + 1) % r->n;
			return (int)i;
		}
	}
	return -1;
}

static uint32_t
xs32(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void
run_model(uint8_t af, uint8_t blen, const char *const *pfx, unsigned int np,
	  const char *const *want, unsigned int nw)
{
	struct upf_uepool p;
	struct ref r;
	uint32_t rng = 0x1234567u + af;
	unsigned int step, i, n_full = 0;
	uint8_t out[16];

	add_prefixes_len(&p, af, blen, pfx, np);
	ref_init(&r, af, want, nw);
	assert_int_equal(p.total, nw);
	/* Every candidate, by index, is the one written out. */
	for (i = 0; i < nw; i++) {
		upf_uepool_addr(&p, i, out);
		assert_memory_equal(out, r.a[i], 16);
	}
	for (step = 0; step < 20000; step++) {
		if (xs32(&rng) % 100 < 55) {
			const int want_i = ref_alloc(&r);
			const int rc = upf_uepool_alloc(&p, ref_taken, &r, 0, out);

			if (want_i < 0) {
				assert_int_equal(rc, -ENOSPC);
				n_full++;
				continue;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(ref_index(&r, out), want_i);
			r.used[want_i] = true;
		} else {
			/* Release one (or, as the CP may, take one itself). */
			i = xs32(&rng) % r.n;
			r.used[i] = !r.used[i];
		}
	}
	/* The runs filled the pool now and then. */
	assert_true(n_full > 0);
}

static void
test_v4_model(void **state)
{
	(void)state;
	run_model(4, 32, v4_pfx, 4, v4_want, 11);
}

static void
test_v6_model(void **state)
{
	(void)state;
	run_model(6, 64, v6_pfx, 2, v6_want, 5);
}

/* A pool that delegates /56s hands out aligned /56s, each once, round. */
static void
test_d56_model(void **state)
{
	(void)state;
	run_model(6, 56, d56_pfx, 2, d56_want, 5);
}

/* limit bounds the candidates tried; an empty pool has none. */
static void
test_limit_and_empty(void **state)
{
	struct upf_uepool p;
	struct ref r;
	uint8_t out[16];

	(void)state;
	add_prefixes(&p, 4, v4_pfx, 1);
	ref_init(&r, 4, v4_want, 6);
	r.used[0] = r.used[1] = r.used[2] = true;
	assert_int_equal(upf_uepool_alloc(&p, ref_taken, &r, 3, out), -ENOSPC);
	/* The three tried are behind the cursor now: the next is .4. */
	assert_int_equal(upf_uepool_alloc(&p, ref_taken, &r, 1, out), 0);
	assert_int_equal(ref_index(&r, out), 3);
	upf_uepool_init(&p, 4);
	assert_int_equal(upf_uepool_alloc(&p, ref_taken, &r, 0, out), -ENOSPC);
}

/* An address is in the pool exactly when it is one of the candidates written out. */
static void
check_contains(const struct upf_uepool *p, const struct ref *r, const uint8_t *a)
{
	assert_int_equal(upf_uepool_contains(p, a), ref_index(r, a) >= 0);
}

static void
test_contains(void **state)
{
	/* Every IPv4 address of these /22 and /29, and the two ends of the space. */
	static const char *const v4_around[] = { "10.45.0.0", "192.168.0.0" };
	static const unsigned int v4_span[] = { 1024, 8 };
	/* /64s from 2 before to 2 after each IPv6 prefix. */
	static const char *const v6_around[] = { "fd00:44:ffff:fffe::", "fd00:46:0:6::" };
	static const unsigned int v6_span[] = { 8, 5 };
	struct upf_uepool p;
	struct ref r;
	uint8_t a[16];
	unsigned int i, k;

	(void)state;
	add_prefixes(&p, 4, v4_pfx, 4);
	ref_init(&r, 4, v4_want, 11);
	for (i = 0; i < 2; i++) {
		uint32_t v;

		memset(a, 0, sizeof(a));
		assert_int_equal(inet_pton(AF_INET, v4_around[i], a), 1);
		memcpy(&v, a, 4);
		for (k = 0; k < v4_span[i]; k++) {
			const uint32_t x = htonl(ntohl(v) + k);

			memcpy(a, &x, 4);
			check_contains(&p, &r, a);
		}
	}
	memset(a, 0, sizeof(a));
	check_contains(&p, &r, a);
	memset(a, 0xff, 4);
	check_contains(&p, &r, a);

	add_prefixes(&p, 6, v6_pfx, 2);
	ref_init(&r, 6, v6_want, 5);
	for (i = 0; i < 2; i++) {
		uint64_t hi = 0;

		memset(a, 0, sizeof(a));
		assert_int_equal(inet_pton(AF_INET6, v6_around[i], a), 1);
		for (k = 0; k < 8; k++)
			hi = hi << 8 | a[k];
		for (k = 0; k < v6_span[i]; k++) {
			const uint64_t x = hi + k;
			unsigned int b;

			for (b = 0; b < 8; b++)
				a[b] = (uint8_t)(x >> (56 - 8 * b));
			check_contains(&p, &r, a);
		}
	}
	/*
	 * A delegating pool holds an address when its /56 is a candidate:
	 * every 16th /64 from 64 /64s before the /54 to 64 after the /56.
	 */
	add_prefixes_len(&p, 6, 56, d56_pfx, 2);
	ref_init(&r, 6, d56_want, 5);
	for (i = 0; i < 2; i++) {
		static const char *const d56_around[] = { "fd00:4f:ffff:ffc0::",
							  "fd00:51:0:6c0::" };
		static const unsigned int d56_span[] = { 64 + 1024 + 64, 64 + 256 + 64 };
		uint64_t hi = 0;

		memset(a, 0, sizeof(a));
		assert_int_equal(inet_pton(AF_INET6, d56_around[i], a), 1);
		for (k = 0; k < 8; k++)
			hi = hi << 8 | a[k];
		for (k = 0; k < d56_span[i]; k += 16) {
			const uint64_t x = hi + k;
			uint8_t m[16] = { 0 };
			unsigned int b;

			for (b = 0; b < 8; b++)
				a[b] = (uint8_t)(x >> (56 - 8 * b));
			/* The reference: the address's /56, written out. */
			memcpy(m, a, 7);
			assert_int_equal(upf_uepool_contains(&p, a), ref_index(&r, m) >= 0);
		}
	}
	/* An empty pool holds nothing. */
	upf_uepool_init(&p, 4);
	memcpy(a, r.a[0], 16);
	assert_false(upf_uepool_contains(&p, a));
}

/* What a pool refuses: another family, lengths out of range, a ninth prefix. */
static void
test_add_refused(void **state)
{
	static const uint8_t a[16] = { 10, 45 };
	struct upf_uepool p;
	unsigned int i;

	(void)state;
	upf_uepool_init(&p, 4);
	assert_int_equal(upf_uepool_add(&p, 6, a, 48), -EINVAL);
	assert_int_equal(upf_uepool_add(&p, 4, a, 7), -EINVAL);
	assert_int_equal(upf_uepool_add(&p, 4, a, 33), -EINVAL);
	for (i = 0; i < UPF_UEPOOL_MAX_RANGES; i++)
		assert_int_equal(upf_uepool_add(&p, 4, a, 16), 0);
	assert_int_equal(upf_uepool_add(&p, 4, a, 16), -EINVAL);
	/* A /8 is the largest: 2^24 - 2 candidates. */
	upf_uepool_init(&p, 4);
	assert_int_equal(upf_uepool_add(&p, 4, a, 8), 0);
	assert_int_equal(p.total, (UINT64_C(1) << 24) - 2);
	upf_uepool_init(&p, 6);
	assert_int_equal(upf_uepool_add(&p, 6, a, 31), -EINVAL);
	assert_int_equal(upf_uepool_add(&p, 6, a, 65), -EINVAL);
	assert_int_equal(upf_uepool_add(&p, 6, a, 32), 0);
	assert_int_equal(p.total, UINT64_C(1) << 32);
	/* A delegating pool: /48 to /64; its prefixes no longer than what it hands out. */
	assert_int_equal(upf_uepool_init6(&p, 47), -EINVAL);
	assert_int_equal(upf_uepool_init6(&p, 65), -EINVAL);
	assert_int_equal(upf_uepool_init6(&p, 56), 0);
	assert_int_equal(upf_uepool_add(&p, 6, a, 57), -EINVAL);
	assert_int_equal(upf_uepool_add(&p, 6, a, 56), 0);
	assert_int_equal(upf_uepool_add(&p, 6, a, 32), 0);
	assert_int_equal(p.total, 1 + (UINT64_C(1) << 24));
	assert_int_equal(upf_uepool_init6(&p, 48), 0);
	assert_int_equal(upf_uepool_add(&p, 6, a, 32), 0);
	assert_int_equal(p.total, UINT64_C(1) << 16);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4_model),
		cmocka_unit_test(test_v6_model),
		cmocka_unit_test(test_d56_model),
		/* The pool's edges. */
		cmocka_unit_test(test_limit_and_empty),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_add_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
