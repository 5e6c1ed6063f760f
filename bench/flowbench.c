/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-flowbench: cycles per flow lookup (with the per-packet counter
 * update) as the number of flows grows, for the flow table's two entry
 * layouts at several prefetch distances and for rte_hash as a baseline.
 *
 * For each flow count the table is filled with that many IPv4 (or IPv6)
 * flows, then looked up in bursts of 32 keys drawn from a pre-generated
 * trace of flow ids (uniform, or Zipf over a random permutation of the
 * flows, so popular flows are spread over memory). A burst's keys are built
 * from the ids just before the lookup, as a worker builds them from its
 * packets; the cost of building them alone is measured too and reported
 * separately. One core (the EAL main lcore), TSC cycles, median of the
 * repetitions. bench/bench-flow.sh runs it and writes docs/flow-scale.md.
 *
 * usage: lanefwd-flowbench [EAL args] -- [--flows N,N,...] [--dist uniform,zipf]
 *        [--prefetch D,D,...] [--impl hotcold,fat,rtehash,floor] [--lookups N]
 *        [--reps N] [--burst N] [--zipf-s S] [--af 4|6] [--csv FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "flow.h"

#define MAX_LIST 16
#define TRACE_LEN (8u << 20) /* Flow ids per trace: 32 MiB, read sequentially. */
#define MAX_BURST 64 /* rte_hash bulk lookups take at most 64 keys. */

enum impl { IMPL_HOTCOLD, IMPL_FAT, IMPL_RTEHASH, IMPL_FLOOR, IMPL_COUNT };
static const char *const impl_names[IMPL_COUNT] = { "hotcold", "fat", "rtehash", "floor" };
enum dist { DIST_UNIFORM, DIST_ZIPF, DIST_COUNT };
static const char *const dist_names[DIST_COUNT] = { "uniform", "zipf" };

struct opts {
	uint32_t flows[MAX_LIST];
	unsigned int n_flows;
	unsigned int prefetch[MAX_LIST];
	unsigned int n_prefetch;
	bool impl[IMPL_COUNT];
	bool dist[DIST_COUNT];
	uint64_t lookups;
	unsigned int reps;
	unsigned int burst;
	double zipf_s;
	int af;
	const char *csv;
};

/* ---- random numbers, traces ---- */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static double
rnd01(void)
{
	return (double)(rnd() >> 11) * 0x1.0p-53;
}

/*
 * Zipf ranks 1..n with exponent s by rejection-inversion (W. Hormann and
 * G. Derflinger, "Rejection-inversion to generate variates from monotone
 * discrete distributions", 1996): O(1) per sample, no table.
 */
struct zipf {
	double s, n, hx1, hn, sc;
};

static double
helper1(double x) /* log1p(x) / x */
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
}

static double
helper2(double x) /* expm1(x) / x */
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
}

static double
zipf_h(const struct zipf *z, double x)
{
	return exp(-z->s * log(x));
}

static double
zipf_hint(const struct zipf *z, double x)
{
	double lx = log(x);

	return helper2((1.0 - z->s) * lx) * lx;
}

static double
zipf_hinv(const struct zipf *z, double x)
{
	double t = x * (1.0 - z->s);

	if (t < -1.0)
		t = -1.0;
	return exp(helper1(t) * x);
}

static void
zipf_init(struct zipf *z, double s, uint32_t n)
{
	z->s = s;
	z->n = n;
	z->hx1 = zipf_hint(z, 1.5) - 1.0;
	z->hn = zipf_hint(z, n + 0.5);
	z->sc = 2.0 - zipf_hinv(z, zipf_hint(z, 2.5) - zipf_h(z, 2.0));
}

static uint32_t
zipf_sample(const struct zipf *z)
{
	for (;;) {
		double u = z->hn + rnd01() * (z->hx1 - z->hn);
		double x = zipf_hinv(z, u);
		double k = floor(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > z->n)
			k = z->n;
		if (k - x <= z->sc || u >= zipf_hint(z, k + 0.5) - zipf_h(z, k))
			return (uint32_t)k;
	}
}

/* Rank r (1 = most popular) to a flow id: a fixed permutation of 0..n-1. */
static uint32_t
rank_to_id(uint32_t r, uint32_t n)
{
	/* 2654435761 is prime, hence coprime with n unless n is a multiple. */
	return (uint32_t)(((uint64_t)(r - 1) * 2654435761u) % n);
}

static void
make_trace(uint32_t *trace, uint32_t flows, enum dist d, double s)
{
	struct zipf z;
	uint32_t i;

	if (d == DIST_ZIPF)
		zipf_init(&z, s, flows);
	for (i = 0; i < TRACE_LEN; i++)
		trace[i] = d == DIST_UNIFORM ? (uint32_t)(rnd() % flows)
					     : rank_to_id(zipf_sample(&z), flows);
}

/* ---- keys ---- */

/* The key of flow id: distinct ids give distinct keys. */
static inline void
make_key(struct lf_flow_key *k, uint32_t id, int af)
{
	uint32_t a = id * 2654435761u; /* A bijection of the 32-bit ids. */

	memset(k, 0, sizeof(*k));
	k->af = (uint8_t)af;
	k->proto = IPPROTO_UDP;
	k->sport = (uint16_t)(id ^ (id >> 16));
	k->dport = 0x3500; /* 53 */
	if (af == 4) {
		memcpy(k->src, &a, 4);
		k->dst[0] = 10;
		k->dst[3] = 1;
	} else {
		k->src[0] = 0x20;
		k->src[1] = 0x01;
		k->src[2] = 0x0d;
		k->src[3] = 0xb8;
		memcpy(&k->src[12], &a, 4);
		k->dst[0] = 0x20;
		k->dst[1] = 0x01;
		k->dst[15] = 1;
	}
}

/* ---- the measured loops ---- */

struct run {
	uint64_t cycles;
	uint64_t hits;
};

/* Only the key building, to report what the other loops spend on it. */
static struct run
run_keygen(const uint32_t *trace, uint64_t n, unsigned int burst, int af)
{
	struct lf_flow_key keys[MAX_BURST];
	volatile uint64_t sink = 0;
	uint64_t i, t0, pos = 0;
	unsigned int j;
	struct run r = { 0, 0 };

	t0 = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		uint64_t x = 0;

		for (j = 0; j < burst; j++) {
			make_key(&keys[j], trace[pos], af);
			pos = pos + 1 == TRACE_LEN ? 0 : pos + 1;
		}
		for (j = 0; j < burst; j++)
			x += keys[j].src[0] ^ keys[j].sport;
		sink += x;
	}
	r.cycles = rte_rdtsc() - t0;
	(void)sink;
	return r;
}

static struct run
run_flow(struct lf_flow_table *t, const uint32_t *trace, uint64_t n, unsigned int burst,
	 unsigned int pf, int af)
{
	struct lf_flow_key keys[MAX_BURST];
	struct lf_flow_hot *out[MAX_BURST];
	uint64_t i, t0, now, pos = 0, hits = 0;
	unsigned int j;
	struct run r;

	t0 = now = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		for (j = 0; j < burst; j++) {
			make_key(&keys[j], trace[pos], af);
			pos = pos + 1 == TRACE_LEN ? 0 : pos + 1;
		}
		lf_flow_lookup_burst(t, keys, (uint16_t)burst, pf, now, out);
		for (j = 0; j < burst; j++) {
			if (likely(out[j] != NULL)) {
				lf_flow_count(out[j], 64);
				hits++;
			}
		}
		now += 1u << LF_FLOW_TIME_SHIFT; /* A per-burst clock, no TSC read. */
	}
	r.cycles = rte_rdtsc() - t0;
	r.hits = hits;
	return r;
}

static struct run
run_rtehash(const struct rte_hash *h, const uint32_t *trace, uint64_t n, unsigned int burst, int af)
{
	struct lf_flow_key keys[MAX_BURST];
	const void *kp[MAX_BURST];
	void *data[MAX_BURST];
	uint64_t i, t0, mask, now, pos = 0, hits = 0;
	unsigned int j;
	struct run r;

	for (j = 0; j < MAX_BURST; j++)
		kp[j] = &keys[j];
	t0 = now = rte_rdtsc();
	for (i = 0; i < n; i += burst) {
		for (j = 0; j < burst; j++) {
			make_key(&keys[j], trace[pos], af);
			pos = pos + 1 == TRACE_LEN ? 0 : pos + 1;
		}
		mask = 0;
		rte_hash_lookup_bulk_data(h, kp, burst, &mask, data);
		/* The entries are in a separate array: prefetch them all, then count. */
		for (j = 0; j < burst; j++)
			if (mask & (1ull << j))
				rte_prefetch0(data[j]);
		for (j = 0; j < burst; j++) {
			if (mask & (1ull << j)) {
				struct lf_flow_hot *e = data[j];

				e->last_seen = (uint32_t)(now >> LF_FLOW_TIME_SHIFT);
				lf_flow_count(e, 64);
				hits++;
			}
		}
		now += 1u << LF_FLOW_TIME_SHIFT;
	}
	r.cycles = rte_rdtsc() - t0;
	r.hits = hits;
	return r;
}

/*
 * The memory floor: no table, one random 64-byte line per lookup, read and
 * written, its line number a hash of the key. The array has one line per
 * flow, as a table of one-line entries at full load (a perfect hash) would:
 * the smallest any one-line-per-hit layout can have. The lines of a burst
 * are prefetched as its keys are hashed and used only after the next
 * burst's keys are: a whole burst of loads in flight, more than any lookup
 * of one burst can have. What a layout that touches a single line per
 * packet would cost at best on this machine.
 */
static struct run
run_floor(struct lf_flow_hot *lines, uint64_t mask, const uint32_t *trace, uint64_t n,
	  unsigned int burst, int af)
{
	struct lf_flow_key keys[MAX_BURST];
	struct lf_flow_hot *line[2][MAX_BURST];
	uint64_t i, t0, pos = 0, hits = 0;
	unsigned int j, cur = 0;
	struct run r;

	t0 = rte_rdtsc();
	for (i = 0; i < n + burst; i += burst) {
		if (i < n) {
			for (j = 0; j < burst; j++) {
				const uint64_t *w = (const uint64_t *)&keys[j];
				uint32_t h;

				make_key(&keys[j], trace[pos], af);
				pos = pos + 1 == TRACE_LEN ? 0 : pos + 1;
				h = rte_hash_crc_8byte(w[0] ^ w[1], (uint32_t)(w[2] ^ w[4]));
				h = rte_hash_crc_8byte(w[2] ^ w[3] ^ w[5], h);
				line[cur][j] = &lines[h & mask];
				rte_prefetch0(line[cur][j]);
			}
		}
		/* The lines of the previous burst, prefetched a whole burst ago. */
		cur ^= 1;
		if (i != 0) {
			for (j = 0; j < burst; j++) {
				hits += line[cur][j]->key.w0 == 0;
				lf_flow_count(line[cur][j], 64);
			}
		}
	}
	r.cycles = rte_rdtsc() - t0;
	r.hits = hits;
	return r;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- the table under test ---- */

struct subject {
	enum impl impl;
	struct lf_flow_table *ft;
	struct rte_hash *rh;
	struct lf_flow_hot *rh_data;
	struct lf_flow_hot *lines; /* IMPL_FLOOR */
	uint64_t mask;
	size_t mem;
	double insert_ns;
	uint64_t inserted;
};

static int
subject_build(struct subject *s, enum impl impl, uint32_t flows, int af)
{
	struct lf_flow_key k;
	uint64_t t0;
	uint32_t i;
	char name[32];

	memset(s, 0, sizeof(*s));
	s->impl = impl;
	t0 = rte_rdtsc();
	if (impl == IMPL_FLOOR) {
		uint64_t lines = rte_align64pow2((uint64_t)flows);

		s->lines = rte_zmalloc_socket("fb_floor", lines * sizeof(*s->lines),
					      RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
		if (s->lines == NULL)
			return -ENOMEM;
		s->mask = lines - 1;
		s->mem = lines * sizeof(*s->lines);
		s->inserted = flows;
	} else if (impl == IMPL_RTEHASH) {
		struct rte_hash_parameters hp = {
			.name = name,
			/* 25% more than the flows: rte_hash rounds its buckets up to
			 * a power of two, so a full table loads them like ours. */
			.entries = flows + flows / 4,
			.key_len = sizeof(struct lf_flow_key),
			.hash_func = rte_hash_crc,
			.hash_func_init_val = 0,
			.socket_id = (int)rte_socket_id(),
		};

		snprintf(name, sizeof(name), "fb_rh_%u", flows);
		s->rh = rte_hash_create(&hp);
		s->rh_data = rte_zmalloc_socket("fb_rh_data", (size_t)flows * sizeof(*s->rh_data),
						RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
		if (s->rh == NULL || s->rh_data == NULL)
			return -ENOMEM;
		/* rte_hash does not report its size: count its key store and buckets. */
		s->mem = (size_t)(hp.entries + 1) * RTE_ALIGN(8 + sizeof(k), 16) +
			(size_t)rte_align32pow2(hp.entries) / 8 * RTE_CACHE_LINE_SIZE +
			(size_t)flows * sizeof(*s->rh_data);
		for (i = 0; i < flows; i++) {
			make_key(&k, i, af);
			if (rte_hash_add_key_data(s->rh, &k, &s->rh_data[i]) == 0)
				s->inserted++;
		}
	} else {
		struct lf_flow_params p = {
			.name = "flowbench",
			.capacity = flows,
			.socket = (int)rte_socket_id(),
			.evict = LF_FLOW_EVICT_NONE,
			.layout = impl == IMPL_FAT ? LF_FLOW_LAYOUT_FAT : LF_FLOW_LAYOUT_HOTCOLD,
		};

		s->ft = lf_flow_create(&p);
		if (s->ft == NULL)
			return -rte_errno;
		s->mem = lf_flow_mem_bytes(s->ft);
		for (i = 0; i < flows; i++) {
			make_key(&k, i, af);
			if (lf_flow_insert(s->ft, &k, 0) != NULL)
				s->inserted++;
		}
	}
	s->insert_ns = (double)(rte_rdtsc() - t0) * 1e9 / (double)rte_get_tsc_hz() / flows;
	return 0;
}

static void
subject_free(struct subject *s)
{
	lf_flow_free(s->ft);
	rte_hash_free(s->rh);
	rte_free(s->rh_data);
	rte_free(s->lines);
}

static struct run
subject_run(const struct subject *s, const uint32_t *trace, uint64_t n, unsigned int burst,
	    unsigned int pf, int af)
{
	if (s->impl == IMPL_RTEHASH)
		return run_rtehash(s->rh, trace, n, burst, af);
	if (s->impl == IMPL_FLOOR)
		return run_floor(s->lines, s->mask, trace, n, burst, af);
	return run_flow(s->ft, trace, n, burst, pf, af);
}

/* ---- options ---- */

static int
parse_list(const char *arg, unsigned int *out, unsigned int *n, unsigned long max)
{
	char *copy = strdup(arg), *tok, *save = NULL, *end;

	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		unsigned long v = strtoul(tok, &end, 0);

		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		if (*end != '\0' || v > max || *n == MAX_LIST) {
			free(copy);
			return -1;
		}
		out[(*n)++] = (unsigned int)v;
	}
	free(copy);
	return *n == 0 ? -1 : 0;
}

static int
parse_names(const char *arg, const char *const *names, unsigned int count, bool *sel)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	unsigned int i;

	memset(sel, 0, count * sizeof(*sel));
	for (tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < count; i++)
			if (strcmp(tok, names[i]) == 0)
				break;
		if (i == count) {
			fprintf(stderr, "flowbench: unknown name '%s'\n", tok);
			free(copy);
			return -1;
		}
		sel[i] = true;
	}
	free(copy);
	return 0;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "dist", required_argument, NULL, 'd' },
		{ "prefetch", required_argument, NULL, 'p' },
		{ "impl", required_argument, NULL, 'i' },
		{ "lookups", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "zipf-s", required_argument, NULL, 's' },
		{ "af", required_argument, NULL, 'a' },
		{ "csv", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int v[MAX_LIST], n, i;
	int c;

	*o = (struct opts){
		.flows = { 65536, 1u << 20, 4u << 20, 16u << 20 },
		.n_flows = 4,
		.prefetch = { 0, 2, 4, 8, 16 },
		.n_prefetch = 5,
		.impl = { true, true, true, true },
		.dist = { true, true },
		.lookups = 4u << 20,
		.reps = 3,
		.burst = 32,
		.zipf_s = 0.99,
		.af = 4,
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_list(optarg, o->flows, &o->n_flows, LF_FLOW_MAX_CAPACITY) < 0)
				return -1;
			for (i = 0; i < o->n_flows; i++)
				if (o->flows[i] == 0)
					return -1;
			break;
		case 'p':
			if (parse_list(optarg, o->prefetch, &o->n_prefetch, 32) < 0)
				return -1;
			break;
		case 'i':
			if (parse_names(optarg, impl_names, IMPL_COUNT, o->impl) < 0)
				return -1;
			break;
		case 'd':
			if (parse_names(optarg, dist_names, DIST_COUNT, o->dist) < 0)
				return -1;
			break;
		case 'n':
			if (parse_list(optarg, v, &n, 1ul << 34) < 0 || n != 1 || v[0] == 0)
				return -1;
			o->lookups = v[0];
			break;
		case 'r':
			if (parse_list(optarg, v, &n, 100) < 0 || n != 1 || v[0] == 0)
				return -1;
			o->reps = v[0];
			break;
		case 'b':
			if (parse_list(optarg, v, &n, MAX_BURST) < 0 || n != 1 || v[0] == 0)
				return -1;
			o->burst = v[0];
			break;
		case 's':
			o->zipf_s = strtod(optarg, NULL);
			if (!(o->zipf_s > 0 && o->zipf_s < 10))
				return -1;
			break;
		case 'a':
			o->af = atoi(optarg);
			if (o->af != 4 && o->af != 6)
				return -1;
			break;
		case 'c':
			o->csv = optarg;
			break;
		default:
			return -1;
		}
	}
	/* Whole bursts. */
	o->lookups = (o->lookups + o->burst - 1) / o->burst * o->burst;
	return optind == argc ? 0 : -1;
}

/* ---- main ---- */

/* Median and minimum of the repetitions, in cycles per lookup. */
static void
stats_of(uint64_t *c, unsigned int n, uint64_t lookups, double *med, double *min)
{
	qsort(c, n, sizeof(c[0]), cmp_u64);
	*med = (double)c[n / 2] / (double)lookups;
	*min = (double)c[0] / (double)lookups;
}

int
main(int argc, char **argv)
{
	struct opts o;
	static uint32_t *trace[MAX_LIST][DIST_COUNT];
	double hz;
	unsigned int fi, ii, di, pi, gi;
	FILE *csv = NULL;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "flowbench: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse_opts(argc, argv, &o) < 0) {
		fprintf(stderr,
			"usage: lanefwd-flowbench [EAL args] -- [--flows N,...] "
			"[--dist uniform,zipf] [--prefetch D,...] [--impl hotcold,fat,rtehash,floor] "
			"[--lookups N] [--reps N] [--burst N] [--zipf-s S] [--af 4|6] "
			"[--csv FILE]\n");
		rte_eal_cleanup();
		return 2;
	}
	if (o.csv != NULL) {
		csv = fopen(o.csv, "w");
		if (csv == NULL) {
			fprintf(stderr, "flowbench: %s: %s\n", o.csv, strerror(errno));
			rte_eal_cleanup();
			return 1;
		}
		fprintf(csv,
			"impl,flows,dist,prefetch,cycles,net_cycles,min_cycles,keygen_cycles,mpps,"
			"mem_bytes,insert_ns,hit_ratio\n");
	}
	hz = (double)rte_get_tsc_hz();
	for (fi = 0; fi < o.n_flows; fi++) {
		for (di = 0; di < DIST_COUNT; di++) {
			if (!o.dist[di])
				continue;
			trace[fi][di] = malloc(TRACE_LEN * sizeof(uint32_t));
			if (trace[fi][di] == NULL) {
				fprintf(stderr, "flowbench: out of memory\n");
				return 1;
			}
			make_trace(trace[fi][di], o.flows[fi], (enum dist)di, o.zipf_s);
		}
	}
	printf("# lcore %u, TSC %.3f GHz, burst %u, %" PRIu64 " lookups x %u rounds, "
	       "IPv%d keys, zipf s=%.2f\n",
	       rte_lcore_id(), hz / 1e9, o.burst, o.lookups, o.reps, o.af, o.zipf_s);
	printf("# cycles: median per lookup with counter update and key build; "
	       "net: minus key build; min: fastest round\n");
	printf("%-8s %9s %-8s %3s %8s %8s %8s %9s %9s %9s %5s\n", "impl", "flows", "dist", "pf",
	       "cycles", "net", "min", "Mlookup/s", "mem_MiB", "ins_ns", "hit%");
	fflush(stdout);

	/*
	 * The two layouts of our table are measured together, every flow count
	 * of both built at once (6.2 GiB with 16M flows), then rte_hash on its
	 * own. Within a group, rounds go over every (impl, flows, dist,
	 * prefetch), so that whatever else the machine does in the meantime
	 * spreads over all of them alike.
	 */
	for (gi = 0; gi < 2; gi++) {
		/* cyc[impl][flows][dist][prefetch][round] */
		static uint64_t cyc[IMPL_COUNT][MAX_LIST][DIST_COUNT][MAX_LIST][100];
		static uint64_t hits[IMPL_COUNT][MAX_LIST][DIST_COUNT][MAX_LIST];
		static uint64_t kg[MAX_LIST][DIST_COUNT][100];
		static struct subject s[IMPL_COUNT][MAX_LIST];
		bool ok[IMPL_COUNT][MAX_LIST], in_group[IMPL_COUNT];
		unsigned int r;

		for (ii = 0; ii < IMPL_COUNT; ii++) {
			in_group[ii] =
				o.impl[ii] && (gi == 0) == (ii == IMPL_HOTCOLD || ii == IMPL_FAT);
			for (fi = 0; fi < o.n_flows; fi++) {
				ok[ii][fi] = false;
				if (!in_group[ii])
					continue;
				ret = subject_build(&s[ii][fi], (enum impl)ii, o.flows[fi], o.af);
				ok[ii][fi] = ret == 0;
				if (ret < 0)
					fprintf(stderr, "flowbench: %s with %u flows: %s\n",
						impl_names[ii], o.flows[fi], strerror(-ret));
				else if (s[ii][fi].inserted != o.flows[fi])
					fprintf(stderr,
						"flowbench: %s: only %" PRIu64
						" of %u flows inserted\n",
						impl_names[ii], s[ii][fi].inserted, o.flows[fi]);
			}
		}
		memset(hits, 0, sizeof(hits));
		for (r = 0; r < o.reps; r++) {
			for (fi = 0; fi < o.n_flows; fi++) {
				for (di = 0; di < DIST_COUNT; di++) {
					if (!o.dist[di])
						continue;
					kg[fi][di][r] =
						run_keygen(trace[fi][di], o.lookups, o.burst, o.af)
							.cycles;
					for (ii = 0; ii < IMPL_COUNT; ii++) {
						unsigned int npf =
							ii == IMPL_RTEHASH || ii == IMPL_FLOOR
							? 1
							: o.n_prefetch;

						if (!ok[ii][fi])
							continue;
						for (pi = 0; pi < npf; pi++) {
							const struct subject *x = &s[ii][fi];
							struct run res;

							/* Warm caches and TLBs for this trace first. */
							subject_run(x, trace[fi][di], o.lookups / 4,
								    o.burst, o.prefetch[pi], o.af);
							res = subject_run(x, trace[fi][di],
									  o.lookups, o.burst,
									  o.prefetch[pi], o.af);
							cyc[ii][fi][di][pi][r] = res.cycles;
							hits[ii][fi][di][pi] += res.hits;
						}
					}
				}
			}
		}
		for (ii = 0; ii < IMPL_COUNT; ii++) {
			unsigned int npf =
				ii == IMPL_RTEHASH || ii == IMPL_FLOOR ? 1 : o.n_prefetch;

			for (fi = 0; fi < o.n_flows; fi++) {
				if (!ok[ii][fi])
					continue;
				for (di = 0; di < DIST_COUNT; di++) {
					double kmed, kmin;

					if (!o.dist[di])
						continue;
					stats_of(kg[fi][di], o.reps, o.lookups, &kmed, &kmin);
					for (pi = 0; pi < npf; pi++) {
						const struct subject *x = &s[ii][fi];
						double med, min, hit;
						char pfs[8];

						stats_of(cyc[ii][fi][di][pi], o.reps, o.lookups,
							 &med, &min);
						hit = (double)hits[ii][fi][di][pi] /
							((double)o.lookups * o.reps);
						/* rte_hash prefetches inside its bulk lookup;
						 * the floor a burst ahead. */
						if (ii == IMPL_RTEHASH || ii == IMPL_FLOOR)
							snprintf(pfs, sizeof(pfs), "-");
						else
							snprintf(pfs, sizeof(pfs), "%u",
								 o.prefetch[pi]);
						printf("%-8s %9u %-8s %3s %8.1f %8.1f %8.1f %9.2f %9.1f "
						       "%9.1f %5.1f\n",
						       impl_names[ii], o.flows[fi], dist_names[di],
						       pfs, med, med - kmed, min, hz / med / 1e6,
						       (double)x->mem / (1 << 20), x->insert_ns,
						       hit * 100);
						if (csv != NULL)
							fprintf(csv,
								"%s,%u,%s,%s,%.2f,%.2f,%.2f,%.2f,%.3f,"
								"%zu,%.1f,%.4f\n",
								impl_names[ii], o.flows[fi],
								dist_names[di], pfs, med,
								med - kmed, min, kmed,
								hz / med / 1e6, x->mem,
								x->insert_ns, hit);
					}
				}
			}
		}
		fflush(stdout);
		for (ii = 0; ii < IMPL_COUNT; ii++)
			for (fi = 0; fi < o.n_flows; fi++)
				if (ok[ii][fi])
					subject_free(&s[ii][fi]);
	}
	if (csv != NULL)
		fclose(csv);
	for (fi = 0; fi < o.n_flows; fi++)
		for (di = 0; di < DIST_COUNT; di++)
			free(trace[fi][di]);
	rte_eal_cleanup();
	return 0;
}
