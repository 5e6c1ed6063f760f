/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the FIBs (src/lib/fib.c) and the FIB stage
 * (src/datapath/fib_stage.c) on real Internet routes: subsets of a full
 * IPv4 and IPv6 table (tests/data, see README.md there) are read with
 * route_load() and installed with fib_init(). Errors come first (more routes
 * than max_routes, next hops out of range, tbl8 groups exhausted), then more
 * than 100,000 addresses per family (random ones, addresses inside random
 * prefixes, and the first and last address of every prefix and the addresses
 * just outside it) are looked up with rte_fib_lookup_bulk() and
 * rte_fib6_lookup_bulk() and compared with a brute-force longest-prefix match
 * written here; misses must return LF_NH_NONE. fib_burst() is checked on
 * mbufs against the same reference. The lookups run twice, once with
 * rte_fib's scalar bulk lookups and once with its AVX-512 ones ([routes]
 * fib_lookup); where the CPU has no AVX-512, asking for them must fail.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cpuflags.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_vect.h>

#include "fib.h"
#include "lf_log.h"
#include "route.h"
#include "fib_stage.h"

#define V4_FILE "ipv4-sample.txt"
#define V6_FILE "ipv6-sample.txt"
#define V4_ROUTES 4510 /* Lines in V4_FILE (README.md). */
#define V6_ROUTES 3210
#define DATA_NH 16 /* Next hops of the data files: crc32 % 16. */
#define N_RANDOM 50000
#define N_INSIDE 40000
#define POOL_SIZE 1023

static struct rte_mempool *pool;
static struct lf_route_table t4, t6;

static const struct lf_routes_conf test_conf = {
	.ipv4_max_routes = 1 << 14,
	.ipv4_tbl8 = 1 << 10,
	.ipv6_max_routes = 1 << 13,
	.ipv6_tbl8 = 32767,
};

/* Test states: which lookup a test installs. */
static enum lf_fib_lookup lk_scalar = LF_FIB_LOOKUP_SCALAR;
static enum lf_fib_lookup lk_avx512 = LF_FIB_LOOKUP_AVX512;

/* rte_fib's AVX-512 lookups exist here (Debian's DPDK is built with them). */
static bool
cpu_avx512(void)
{
#ifdef RTE_ARCH_X86
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0;
#else
	return false;
#endif
}

/*
 * fib_init() with test_conf and the state's lookup. False where that is
 * AVX-512 and the CPU has none: then fib_init() must have refused it.
 */
static bool
init_with(void **state, struct lf_fib *fib, const struct lf_route_table *r4,
	  const struct lf_route_table *r6)
{
	struct lf_routes_conf conf = test_conf;
	char err[512];
	int ret;

	conf.lookup = *(enum lf_fib_lookup *)*state;
	ret = fib_init(fib, &conf, SOCKET_ID_ANY, r4, r6, err, sizeof(err));
	if (conf.lookup == LF_FIB_LOOKUP_AVX512 && !cpu_avx512()) {
		assert_int_equal(ret, -ENOTSUP);
		assert_non_null(strstr(err, "[routes] fib_lookup = avx512"));
		assert_null(fib->v4);
		print_message("no AVX-512 on this CPU: fib_lookup = avx512 refused\n");
		return false;
	}
	if (ret != 0)
		fail_msg("%s", err);
	assert_int_equal(fib->avx512, conf.lookup == LF_FIB_LOOKUP_AVX512);
	return true;
}

/* xorshift64*: reproducible. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void
data_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("LF_TESTDATA");

	if (dir == NULL)
		fail_msg("LF_TESTDATA is not set (run the tests with meson test)");
	snprintf(buf, len, "%s/%s", dir, name);
}

/* ---- reference: brute-force longest-prefix match ---- */

static uint32_t
mask4(unsigned int depth)
{
	return depth == 0 ? 0 : ~0u << (32 - depth);
}

static uint32_t
ref_lookup4(const struct lf_route_table *t, uint32_t a)
{
	int best = -1;
	uint32_t nh = LF_NH_NONE;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct lf_route *r = &t->r[i];

		if ((a & mask4(r->depth)) == r->addr4 && (int)r->depth > best) {
			best = r->depth;
			nh = r->nh;
		}
	}
	return nh;
}

/* IPv6 addresses as two host-order halves. */
struct a128 {
	uint64_t hi;
	uint64_t lo;
};

static struct a128
to128(const uint8_t *b)
{
	struct a128 a = { 0, 0 };
	int i;

	for (i = 0; i < 8; i++) {
		a.hi = a.hi << 8 | b[i];
		a.lo = a.lo << 8 | b[i + 8];
	}
	return a;
}

static void
from128(struct a128 a, uint8_t *b)
{
	int i;

	for (i = 7; i >= 0; i--) {
		b[i] = a.hi & 0xff;
		b[i + 8] = a.lo & 0xff;
		a.hi >>= 8;
		a.lo >>= 8;
	}
}

static struct a128
mask6(unsigned int depth)
{
	struct a128 m;

	m.hi = depth == 0 ? 0 : depth >= 64 ? ~0ull : ~0ull << (64 - depth);
	m.lo = depth <= 64 ? 0 : depth == 128 ? ~0ull : ~0ull << (128 - depth);
	return m;
}

/* The IPv6 table in a form the reference can scan quickly. */
struct ref6 {
	struct a128 net;
	struct a128 mask;
	uint8_t depth;
	uint32_t nh;
};

static struct ref6 *
ref6_build(const struct lf_route_table *t)
{
	struct ref6 *r = calloc(t->n ? t->n : 1, sizeof(*r));
	size_t i;

	assert_non_null(r);
	for (i = 0; i < t->n; i++) {
		r[i].net = to128(t->r[i].addr6);
		r[i].mask = mask6(t->r[i].depth);
		r[i].depth = t->r[i].depth;
		r[i].nh = t->r[i].nh;
	}
	return r;
}

static uint32_t
ref_lookup6(const struct ref6 *r, size_t n, struct a128 a)
{
	int best = -1;
	uint32_t nh = LF_NH_NONE;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((a.hi & r[i].mask.hi) == r[i].net.hi && (a.lo & r[i].mask.lo) == r[i].net.lo &&
		    (int)r[i].depth > best) {
			best = r[i].depth;
			nh = r[i].nh;
		}
	}
	return nh;
}

/* ---- address sets ---- */

/* First and last address of every prefix, the ones just outside, random ones. */
static uint32_t *
addrs4(const struct lf_route_table *t, size_t *count)
{
	size_t n = 0, cap = t->n * 4 + N_INSIDE + N_RANDOM, i;
	uint32_t *a = malloc(cap * sizeof(*a));

	assert_non_null(a);
	for (i = 0; i < t->n; i++) {
		uint32_t first = t->r[i].addr4, last = first | ~mask4(t->r[i].depth);

		a[n++] = first;
		a[n++] = last;
		a[n++] = first - 1;
		a[n++] = last + 1;
	}
	for (i = 0; i < N_INSIDE && t->n != 0; i++) {
		const struct lf_route *r = &t->r[rnd() % t->n];

		a[n++] = r->addr4 | ((uint32_t)rnd() & ~mask4(r->depth));
	}
	for (i = 0; i < N_RANDOM; i++)
		a[n++] = (uint32_t)rnd();
	*count = n;
	return a;
}

typedef uint8_t ip6_t[16];

static ip6_t *
addrs6(const struct lf_route_table *t, size_t *count)
{
	size_t n = 0, cap = t->n * 4 + N_INSIDE + N_RANDOM, i;
	ip6_t *a = malloc(cap * sizeof(*a));

	assert_non_null(a);
	for (i = 0; i < t->n; i++) {
		struct a128 m = mask6(t->r[i].depth);
		struct a128 first = to128(t->r[i].addr6), last, x;

		last.hi = first.hi | ~m.hi;
		last.lo = first.lo | ~m.lo;
		from128(first, a[n++]);
		from128(last, a[n++]);
		/* first - 1 and last + 1, 128-bit. */
		x.lo = first.lo - 1;
		x.hi = first.hi - (first.lo == 0);
		from128(x, a[n++]);
		x.lo = last.lo + 1;
		x.hi = last.hi + (x.lo == 0);
		from128(x, a[n++]);
	}
	for (i = 0; i < N_INSIDE && t->n != 0; i++) {
		const struct lf_route *r = &t->r[rnd() % t->n];
		struct a128 m = mask6(r->depth), x = to128(r->addr6);

		x.hi |= rnd() & ~m.hi;
		x.lo |= rnd() & ~m.lo;
		from128(x, a[n++]);
	}
	for (i = 0; i < N_RANDOM; i++) {
		struct a128 x = { rnd(), rnd() };

		/* Half of them in global unicast space, where the routes are. */
		if (i % 2 == 0)
			x.hi = (x.hi & ~(7ull << 61)) | 1ull << 61;
		from128(x, a[n++]);
	}
	*count = n;
	return a;
}

/* ---- setup ---- */

static int
group_setup(void **state)
{
	char lcore[16];
	char *argv[] = {
		"test_fib",
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		"lfut_fib",
		"--log-level",
		"3",
		"-l",
		lcore,
		NULL,
	};
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
			cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	lf_log_init();
	pool = rte_pktmbuf_pool_create("lfut_fib", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	return pool == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	route_table_free(&t4);
	route_table_free(&t6);
	rte_mempool_free(pool);
	return rte_eal_cleanup();
}

static void
load_data(void)
{
	char path[PATH_MAX], err[512];
	long n;

	if (t4.n == 0) {
		data_path(path, sizeof(path), V4_FILE);
		n = route_load(path, 4, NULL, LF_FIB_MAX_NH, &t4, err, sizeof(err));
		if (n < 0)
			fail_msg("%s", err);
	}
	if (t6.n == 0) {
		data_path(path, sizeof(path), V6_FILE);
		n = route_load(path, 6, NULL, LF_FIB_MAX_NH, &t6, err, sizeof(err));
		if (n < 0)
			fail_msg("%s", err);
	}
}

/* ---- the data files ---- */

/* Bitwise CRC-32 (IEEE 802.3, as zlib.crc32). */
static uint32_t
crc32_ieee(const char *s, size_t n)
{
	uint32_t c = 0xffffffff;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= (uint8_t)s[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
	}
	return ~c;
}

/* The files are what tests/data/README.md says: counts and next-hop rule. */
static void
check_data_file(const char *name, size_t want_lines)
{
	char path[PATH_MAX], line[256];
	size_t lines = 0;
	FILE *f;

	data_path(path, sizeof(path), name);
	f = fopen(path, "r");
	if (f == NULL)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *sp = strchr(line, ' ');
		unsigned long nh;

		assert_non_null(sp);
		nh = strtoul(sp + 1, NULL, 10);
		if (nh != crc32_ieee(line, sp - line) % DATA_NH)
			fail_msg("%s:%zu: next hop %lu, rule gives %u", name, lines + 1, nh,
				 crc32_ieee(line, sp - line) % DATA_NH);
		lines++;
	}
	fclose(f);
	assert_int_equal(lines, want_lines);
}

static void
test_data_files(void **state)
{
	(void)state;
	/* The README's own examples of the rule. */
	assert_int_equal(crc32_ieee("1.0.0.0/24", 10), 0x41b2068d);
	assert_int_equal(crc32_ieee("2001:200::/32", 13), 0x7867bbc4);
	check_data_file(V4_FILE, V4_ROUTES);
	check_data_file(V6_FILE, V6_ROUTES);
	load_data();
	assert_int_equal(t4.n, V4_ROUTES);
	assert_int_equal(t6.n, V6_ROUTES);
}

/* ---- errors first ---- */

static void
test_fib_too_many_routes(void **state)
{
	struct lf_routes_conf conf = test_conf;
	struct lf_fib fib;
	char err[512];
	int ret;

	(void)state;
	load_data();
	conf.ipv4_max_routes = t4.n - 1;
	err[0] = '\0';
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &t4, &t6, err, sizeof(err));
	assert_int_equal(ret, -ENOSPC);
	print_message("%s\n", err);
	assert_non_null(strstr(err, "4510 IPv4"));
	assert_non_null(strstr(err, "ipv4_max_routes = 4509"));
	assert_null(fib.v4);
	assert_null(fib.v6);

	conf = test_conf;
	conf.ipv6_max_routes = t6.n - 1;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &t4, &t6, err, sizeof(err));
	assert_int_equal(ret, -ENOSPC);
	assert_non_null(strstr(err, "3210 IPv6"));
	assert_non_null(strstr(err, "ipv6_max_routes = 3209"));
	assert_null(fib.v4);
	assert_null(fib.v6);

	/* Exactly max_routes routes fit. */
	conf.ipv4_max_routes = t4.n;
	conf.ipv6_max_routes = t6.n;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &t4, &t6, err, sizeof(err));
	if (ret != 0)
		fail_msg("%s", err);
	assert_int_equal(fib.n4, t4.n);
	assert_int_equal(fib.n6, t6.n);
	fib_free(&fib);
	assert_null(fib.v4);
	assert_null(fib.v6);
}

/* The data files' next hops are 0..15: a smaller limit is an error at its line. */
static void
test_route_load_nh_limit(void **state)
{
	struct lf_route_table t;
	char path[PATH_MAX], err[512], want[PATH_MAX + 64];
	long n;

	(void)state;
	data_path(path, sizeof(path), V4_FILE);
	n = route_load(path, 4, NULL, 14, &t, err, sizeof(err));
	assert_int_equal(n, -EINVAL);
	/* The first line, 1.0.0.0/24, has next hop 13; the second has 14. */
	snprintf(want, sizeof(want), "%s:2: '1.0.4.0/22 14': next-hop id must be 0 to 13", path);
	assert_string_equal(err, want);
	assert_int_equal(t.n, 0);
	assert_null(t.r);
}

/* Append a route parsed from TEXT to T. */
static void
add_route(struct lf_route_table *t, const char *text)
{
	char why[128];

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->r = realloc(t->r, t->cap * sizeof(*t->r));
		assert_non_null(t->r);
	}
	if (route_parse_line(text, t->af, LF_FIB_MAX_NH, &t->r[t->n], why, sizeof(why)) != 1)
		fail_msg("'%s': %s", text, why);
	t->r[t->n].line = t->n + 1;
	t->n++;
}

/* Append a copy of R unless T already has its prefix. */
static void
append_route(struct lf_route_table *t, const struct lf_route *r)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->r[i].depth == r->depth &&
		    memcmp(t->r[i].addr6, r->addr6, sizeof(r->addr6)) == 0)
			return;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->r = realloc(t->r, t->cap * sizeof(*t->r));
		assert_non_null(t->r);
	}
	t->r[t->n] = *r;
	t->r[t->n].line = t->n + 1;
	t->n++;
}

static void
test_fib_tbl8_exhausted(void **state)
{
	struct lf_route_table a = { .af = 4 }, b = { .af = 6 };
	struct lf_routes_conf conf = test_conf;
	struct lf_fib fib;
	char err[512], line[64];
	unsigned int i;
	const char *p;
	int ret;

	(void)state;
	/*
	 * 200 /25s in 200 different /24s need 200 tbl8 groups; one is asked
	 * for (DIR24_8 rounds that up to a bitmap slab of 64).
	 */
	add_route(&a, "10.0.0.0/8 1");
	for (i = 0; i < 200; i++) {
		snprintf(line, sizeof(line), "10.1.%u.128/25 %u", i, i % 7);
		add_route(&a, line);
	}
	conf.ipv4_tbl8 = 1;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
	print_message("%s\n", err);
	assert_true(ret < 0);
	p = strstr(err, "IPv4 route at line ");
	assert_non_null(p);
	/* Some /25 failed, not the /8. */
	assert_in_range(strtoul(p + strlen("IPv4 route at line "), NULL, 10), 2, 201);
	assert_non_null(strstr(err, "ipv4_tbl8 = 1"));
	assert_null(fib.v4);
	assert_null(fib.v6);

	/* IPv6: the sample needs far more than 16 tbl8 groups. */
	load_data();
	conf = test_conf;
	conf.ipv6_tbl8 = 16;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &t6, err, sizeof(err));
	print_message("%s\n", err);
	assert_true(ret < 0);
	assert_non_null(strstr(err, "IPv6 route at line"));
	assert_non_null(strstr(err, "ipv6_tbl8 = 16"));
	assert_null(fib.v4);
	assert_null(fib.v6);

	/* After the failures the names are free again. */
	ret = fib_init(&fib, &test_conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
	if (ret != 0)
		fail_msg("%s", err);
	fib_free(&fib);
	route_table_free(&a);
	route_table_free(&b);
}

/*
 * 2-byte FIB entries keep tbl8 indexes in 15 bits: 32767 groups is the most
 * either FIB accepts, and the largest next hop, 32766, is not LF_NH_NONE.
 */
static void
test_fib_limits(void **state)
{
	struct lf_route_table a = { .af = 4 }, b = { .af = 6 };
	struct lf_routes_conf conf = test_conf;
	uint8_t ip6[2][16];
	uint32_t ip4[2] = { 0x0a010203, 0x0b000001 };
	uint64_t nh[2];
	struct lf_fib fib;
	char err[512];
	int ret;

	(void)state;
	conf.ipv4_tbl8 = 32768;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(err, "rte_fib_create (IPv4"));
	assert_non_null(strstr(err, "32768 tbl8"));
	assert_null(fib.v4);
	/* IPv6 uses 4-byte trie entries: more than 32767 tbl8 groups work. */
	conf = test_conf;
	conf.ipv6_tbl8 = 32768;
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
	if (ret != 0)
		fail_msg("%s", err);
	fib_free(&fib);
	assert_null(fib.v4);
	assert_null(fib.v6);

	conf.ipv4_tbl8 = 32767;
	conf.ipv6_tbl8 = 32767;
	add_route(&a, "10.0.0.0/8 32766");
	add_route(&b, "2001:db8::/32 32766");
	ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
	if (ret != 0)
		fail_msg("%s", err);
	assert_int_equal(rte_fib_lookup_bulk(fib.v4, ip4, nh, 2), 0);
	assert_int_equal(nh[0], 32766);
	assert_int_equal(nh[1], LF_NH_NONE);
	memset(ip6, 0, sizeof(ip6));
	memcpy(ip6[0], "\x20\x01\x0d\xb8\xff", 5);
	memcpy(ip6[1], "\x20\x01\x0d\xb9", 4);
	assert_int_equal(rte_fib6_lookup_bulk(fib.v6, ip6, nh, 2), 0);
	assert_int_equal(nh[0], 32766);
	assert_int_equal(nh[1], LF_NH_NONE);
	fib_free(&fib);
	route_table_free(&a);
	route_table_free(&b);
}

/* ---- lookups against the reference ---- */

/*
 * Sizes of the bulk calls: mostly whole chunks, and between them sizes that
 * are not multiples of the vector lookups' 8 or 16 lanes, so that their
 * scalar tails are checked too.
 */
static size_t
bulk_size(size_t k, size_t chunk)
{
	static const size_t odd[] = { 1, 7, 15, 17, 31, 33, 100 };

	return k % 2 == 0 ? chunk : odd[(k / 2) % RTE_DIM(odd)];
}

static size_t
check_v4(const struct lf_fib *fib, const struct lf_route_table *t, size_t *hits, size_t *misses)
{
	const size_t chunk = 4096;
	uint64_t *nh = malloc(chunk * sizeof(*nh));
	uint32_t *a;
	size_t n, i, j, k, m;

	assert_non_null(nh);
	a = addrs4(t, &n);
	*hits = *misses = 0;
	for (i = 0, k = 0; i < n; i += m, k++) {
		m = RTE_MIN(n - i, bulk_size(k, chunk));
		assert_int_equal(rte_fib_lookup_bulk(fib->v4, a + i, nh, m), 0);
		for (j = 0; j < m; j++) {
			uint32_t want = ref_lookup4(t, a[i + j]);

			if (nh[j] != want)
				fail_msg("%u.%u.%u.%u: FIB %" PRIu64 ", reference %u",
					 a[i + j] >> 24, a[i + j] >> 16 & 0xff,
					 a[i + j] >> 8 & 0xff, a[i + j] & 0xff, nh[j], want);
			if (want == LF_NH_NONE)
				(*misses)++;
			else
				(*hits)++;
		}
	}
	print_message("IPv4: %zu routes, %zu lookups, %zu hits, %zu misses\n", t->n, n, *hits,
		      *misses);
	free(a);
	free(nh);
	return n;
}

static size_t
check_v6(const struct lf_fib *fib, const struct lf_route_table *t, size_t *hits, size_t *misses)
{
	const size_t chunk = 4096;
	uint64_t *nh = malloc(chunk * sizeof(*nh));
	struct ref6 *ref = ref6_build(t);
	ip6_t *a;
	size_t n, i, j, k, m;

	assert_non_null(nh);
	a = addrs6(t, &n);
	*hits = *misses = 0;
	for (i = 0, k = 0; i < n; i += m, k++) {
		m = RTE_MIN(n - i, bulk_size(k, chunk));
		assert_int_equal(rte_fib6_lookup_bulk(fib->v6, a + i, nh, m), 0);
		for (j = 0; j < m; j++) {
			uint32_t want = ref_lookup6(ref, t->n, to128(a[i + j]));

			if (nh[j] != want) {
				char txt[INET6_ADDRSTRLEN];

				inet_ntop(AF_INET6, a[i + j], txt, sizeof(txt));
				fail_msg("%s: FIB %" PRIu64 ", reference %u", txt, nh[j], want);
			}
			if (want == LF_NH_NONE)
				(*misses)++;
			else
				(*hits)++;
		}
	}
	print_message("IPv6: %zu routes, %zu lookups, %zu hits, %zu misses\n", t->n, n, *hits,
		      *misses);
	free(a);
	free(ref);
	free(nh);
	return n;
}

/*
 * fib_lookup: scalar, auto (AVX-512 exactly where the CPU has it) and
 * avx512; none leaves EAL's SIMD width changed for the drivers.
 */
static void
test_fib_lookup_select(void **state)
{
	static const enum lf_fib_lookup modes[] = { LF_FIB_LOOKUP_SCALAR, LF_FIB_LOOKUP_AUTO,
						    LF_FIB_LOOKUP_AVX512 };
	struct lf_route_table a = { .af = 4 }, b = { .af = 6 };
	const uint16_t width = rte_vect_get_max_simd_bitwidth();
	struct lf_routes_conf conf = test_conf;
	struct lf_fib fib;
	char err[512];
	unsigned int i;
	int ret;

	(void)state;
	/* EAL's default, which the drivers go by. */
	assert_int_equal(width, RTE_VECT_SIMD_256);
	for (i = 0; i < RTE_DIM(modes); i++) {
		conf.lookup = modes[i];
		ret = fib_init(&fib, &conf, SOCKET_ID_ANY, &a, &b, err, sizeof(err));
		assert_int_equal(rte_vect_get_max_simd_bitwidth(), width);
		if (modes[i] == LF_FIB_LOOKUP_AVX512 && !cpu_avx512()) {
			assert_int_equal(ret, -ENOTSUP);
			assert_non_null(strstr(err, "fib_lookup = avx512"));
			continue;
		}
		if (ret != 0)
			fail_msg("%s", err);
		assert_int_equal(fib.avx512, modes[i] != LF_FIB_LOOKUP_SCALAR && cpu_avx512());
		fib_free(&fib);
	}
}

static void
test_fib_empty(void **state)
{
	struct lf_route_table a = { .af = 4 }, b = { .af = 6 };
	struct lf_fib fib;
	size_t hits, misses;

	if (!init_with(state, &fib, &a, &b))
		return;
	assert_int_equal(fib.n4, 0);
	assert_int_equal(fib.n6, 0);
	check_v4(&fib, &a, &hits, &misses);
	assert_int_equal(hits, 0);
	check_v6(&fib, &b, &hits, &misses);
	assert_int_equal(hits, 0);
	fib_free(&fib);
}

static void
test_fib_internet_ipv4(void **state)
{
	struct lf_route_table none = { .af = 6 };
	struct lf_fib fib;
	size_t hits, misses;

	load_data();
	if (!init_with(state, &fib, &t4, &none))
		return;
	assert_int_equal(fib.n4, V4_ROUTES);
	assert_true(check_v4(&fib, &t4, &hits, &misses) >= 100000);
	/* Both outcomes are well represented. */
	assert_true(hits > 50000);
	assert_true(misses > 10000);
	fib_free(&fib);
}

static void
test_fib_internet_ipv6(void **state)
{
	struct lf_route_table none = { .af = 4 };
	struct lf_fib fib;
	size_t hits, misses;

	load_data();
	if (!init_with(state, &fib, &none, &t6))
		return;
	assert_int_equal(fib.n6, V6_ROUTES);
	assert_true(check_v6(&fib, &t6, &hits, &misses) >= 100000);
	assert_true(hits > 40000);
	assert_true(misses > 10000);
	fib_free(&fib);
}

/* The sample plus a default route and deep, nested more-specifics. */
static void
test_fib_internet_nested(void **state)
{
	struct lf_route_table a = { .af = 4 }, b = { .af = 6 };
	struct lf_fib fib;
	size_t i, hits, misses;
	char line[128], txt[INET6_ADDRSTRLEN];
	char err[512];

	load_data();
	add_route(&a, "0.0.0.0/0 100");
	add_route(&b, "::/0 100");
	for (i = 0; i < t4.n; i++)
		append_route(&a, &t4.r[i]);
	for (i = 0; i < t6.n; i++)
		append_route(&b, &t6.r[i]);
	/* For every 25th route, a /28 (IPv4) or /64 (IPv6) inside it. */
	for (i = 0; i < t4.n; i += 25) {
		struct lf_route r;
		uint32_t x = t4.r[i].addr4 | 0x30;

		if (t4.r[i].depth > 26)
			continue;
		snprintf(line, sizeof(line), "%u.%u.%u.%u/28 %zu", x >> 24, x >> 16 & 0xff,
			 x >> 8 & 0xff, x & 0xff, 200 + i % 50);
		assert_int_equal(route_parse_line(line, 4, LF_FIB_MAX_NH, &r, err, sizeof(err)), 1);
		append_route(&a, &r);
	}
	for (i = 0; i < t6.n; i += 25) {
		struct lf_route r;
		uint8_t x[16];

		if (t6.r[i].depth > 56)
			continue;
		memcpy(x, t6.r[i].addr6, 16);
		x[7] |= 0x5;
		inet_ntop(AF_INET6, x, txt, sizeof(txt));
		snprintf(line, sizeof(line), "%s/64 %zu", txt, 300 + i % 50);
		assert_int_equal(route_parse_line(line, 6, LF_FIB_MAX_NH, &r, err, sizeof(err)), 1);
		append_route(&b, &r);
	}
	print_message("nested: %zu IPv4, %zu IPv6 routes\n", a.n, b.n);
	assert_true(a.n > t4.n + 100);
	assert_true(b.n > t6.n + 50);
	if (!init_with(state, &fib, &a, &b))
		return;
	check_v4(&fib, &a, &hits, &misses);
	/* With a default route nothing misses. */
	assert_int_equal(misses, 0);
	check_v6(&fib, &b, &hits, &misses);
	assert_int_equal(misses, 0);
	fib_free(&fib);
	route_table_free(&a);
	route_table_free(&b);
}

/* fib_burst(): meta[].nh from the FIB, unrouted packets dropped, order kept. */
static void
test_fib_burst(void **state)
{
	struct rte_mbuf *pkts[LF_BURST_MAX], *orig[LF_BURST_MAX];
	uint32_t want[LF_BURST_MAX];
	struct lf_fib fib;
	struct lf_worker_stats stats;
	struct lf_burst *b;
	struct ref6 *ref;
	uint32_t *a4;
	ip6_t *a6;
	size_t n4, n6, next4 = 0, next6 = 0;
	unsigned int round, i, k, kept, n_drop = 0;

	load_data();
	if (!init_with(state, &fib, &t4, &t6))
		return;
	memset(&stats, 0, sizeof(stats));
	b = rte_zmalloc("lfut_burst", sizeof(*b), RTE_CACHE_LINE_SIZE);
	assert_non_null(b);
	b->stats = &stats;
	b->view.fib = &fib;
	ref = ref6_build(&t6);
	a4 = addrs4(&t4, &n4);
	a6 = addrs6(&t6, &n6);
	for (round = 0; round < 40; round++) {
		uint16_t n = 1 + rnd() % LF_BURST_MAX;

		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
			struct lf_meta *meta = &b->meta[i];
			unsigned int tags = rnd() % 3;
			uint8_t *d;

			assert_non_null(m);
			memset(meta, 0, sizeof(*meta));
			meta->l3_off = RTE_ETHER_HDR_LEN + 4 * tags;
			meta->nh = 12345;
			if (rnd() % 2) {
				struct rte_ipv4_hdr *ip;
				uint32_t dst = a4[(next4 += 7919) % n4];

				d = (uint8_t *)rte_pktmbuf_append(m, meta->l3_off + sizeof(*ip));
				assert_non_null(d);
				ip = (struct rte_ipv4_hdr *)(d + meta->l3_off);
				memset(ip, 0, sizeof(*ip));
				ip->dst_addr = rte_cpu_to_be_32(dst);
				ip->src_addr = rte_cpu_to_be_32(~dst);
				meta->af = 4;
				want[i] = ref_lookup4(&t4, dst);
			} else {
				struct rte_ipv6_hdr *ip;
				const uint8_t *dst = a6[(next6 += 7919) % n6];

				d = (uint8_t *)rte_pktmbuf_append(m, meta->l3_off + sizeof(*ip));
				assert_non_null(d);
				ip = (struct rte_ipv6_hdr *)(d + meta->l3_off);
				memset(ip, 0, sizeof(*ip));
				memcpy(ip->dst_addr, dst, 16);
				memset(ip->src_addr, 0xee, 16);
				meta->af = 6;
				want[i] = ref_lookup6(ref, t6.n, to128(dst));
			}
			meta->l4_off = i; /* Tags the packet to follow compaction. */
			pkts[i] = orig[i] = m;
		}
		kept = 0;
		for (i = 0; i < n; i++)
			kept += want[i] != LF_NH_NONE;
		k = fib_stage_burst(b, pkts, n);
		assert_int_equal(k, kept);
		for (i = 0, k = 0; i < n; i++) {
			if (want[i] == LF_NH_NONE)
				continue;
			assert_ptr_equal(pkts[k], orig[i]);
			assert_int_equal(b->meta[k].l4_off, i);
			assert_int_equal(b->meta[k].nh, want[i]);
			k++;
		}
		n_drop += n - kept;
		assert_int_equal(stats.drops[LF_DROP_NO_ROUTE], n_drop);
		assert_int_equal(b->n_dropped, n - kept);
		lf_burst_drops_flush(b);
		rte_pktmbuf_free_bulk(pkts, kept);
		assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
	}
	assert_true(n_drop > 0);
	free(a4);
	free(a6);
	free(ref);
	rte_free(b);
	fib_free(&fib);
}

/* A test run with one lookup, named after it. */
#define WITH_LOOKUP(f, lk)                          \
	{                                           \
#f " " #lk, f, NULL, NULL, &lk_##lk \
	}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_files),
		/* Errors first. */
		cmocka_unit_test(test_fib_too_many_routes),
		cmocka_unit_test(test_route_load_nh_limit),
		cmocka_unit_test(test_fib_tbl8_exhausted),
		cmocka_unit_test(test_fib_limits),
		/* Then lookups. */
		cmocka_unit_test(test_fib_lookup_select),
		WITH_LOOKUP(test_fib_empty, scalar),
		WITH_LOOKUP(test_fib_empty, avx512),
		WITH_LOOKUP(test_fib_internet_ipv4, scalar),
		WITH_LOOKUP(test_fib_internet_ipv4, avx512),
		WITH_LOOKUP(test_fib_internet_ipv6, scalar),
		WITH_LOOKUP(test_fib_internet_ipv6, avx512),
		WITH_LOOKUP(test_fib_internet_nested, scalar),
		WITH_LOOKUP(test_fib_internet_nested, avx512),
		WITH_LOOKUP(test_fib_burst, scalar),
		WITH_LOOKUP(test_fib_burst, avx512),
	};

	return cmocka_run_group_tests_name("fib", tests, group_setup, group_teardown);
}
