/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanefwd-uebench: cycles per downlink UE lookup (upf_ue_lookup_bulk, the
 * call upf_dl_burst makes) for IPv6 UEs, with and without prefixes
 * delegated to them (lib/upf_uetab.h), at several session counts.
 *
 * Three cases, each on a session store filled through upf_store_put as the
 * PFCP agent fills it (one downlink PDR per session, network instance 0):
 *
 *   s64:      N sessions, each a UE /64; the keys are those /64s. What an
 *             IPv6 UE's downlink costs today.
 *   s64+dlg:  the same store and keys, while one more session holds a
 *             delegated /56 elsewhere: the second pass (for misses) is
 *             armed, and no key takes it. The claim: /64 traffic pays
 *             nothing for delegated prefixes being held.
 *   dlg56:    N sessions, each a delegated /56 (one key each); the keys are
 *             random /64s inside them. Each misses as a /64 and is found
 *             at its /56: what delegated traffic pays for one key per
 *             prefix, where a key per /64 (256 per /56) would cost the
 *             s64 figure on a table 256 times larger.
 *
 * The session ids come from a uniform random trace; a burst's keys are
 * built from it just before the lookup (not timed); only the lookup is
 * timed (TSC), the objects found read in it as the datapath reads them
 * at once. Rounds rotate the order of the cases; the median over the
 * repetitions is reported, and the per-round ratios to s64. Before each
 * case a 256 MiB buffer is read through (untimed), so that none starts
 * with the cache its predecessor left: s64 and s64+dlg look up the same
 * keys in the same table, and without it the one that ran right after the
 * other came out 3-5% cheaper at 1M sessions (an A/A run, s64+dlg without
 * its extra session, showed the same: the order, not the code). Every key of
 * every case is checked afterwards against the session it must find
 * (exit 3 on a mismatch: a broken table cannot give a number).
 * bench/bench-ue6.sh runs it and writes docs/upf-delegated-bench.md.
 *
 * --family 4 runs the same three cases for IPv4 and framed routes
 * (TS 29.244 FRRT), which are prefix keys as delegated prefixes are:
 *
 *   a32:      N sessions, each a UE address in the direct array of
 *             10.0.0.0/10 (as addresses from ue_alloc are); the keys are
 *             those addresses.
 *   a32+fr:   the same, while one more session holds a framed /28
 *             elsewhere: the second pass is armed, and no key needs it
 *             (no route may overlap a direct range, so its misses are
 *             final). The claim: UE traffic pays nothing for routes held.
 *   fr28:     N sessions, each a framed /28 (one key each, in the hash);
 *             the keys are addresses inside them, each found at its /28.
 *
 * --aa runs s64+dlg (a32+fr) without its extra session, an A/A of s64
 * (the check of the harness's fairness above); --no-flush leaves the
 * caches as the last case left them.
 *
 * usage: lanefwd-uebench [EAL args] -- [--sessions N,N,...] [--lookups N] [--reps N]
 *        [--burst N] [--csv FILE] [--aa] [--no-flush] [--family 4|6]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_lcore.h>

#include "upf.h"

#define MAX_LIST 8
#define MAX_REPS 64
#define TRACE_LEN (4u << 20)
#define FLUSH_BYTES (256u << 20) /* Larger than any last-level cache here. */

enum kase { K_S64, K_S64_DLG, K_DLG56, K_COUNT };
static const char *const names6[K_COUNT] = { "s64", "s64+dlg", "dlg56" };
static const char *const names4[K_COUNT] = { "a32", "a32+fr", "fr28" };
static const char *const *kase_names = names6;

struct opts {
	uint32_t sessions[MAX_LIST];
	unsigned int n_sessions;
	uint64_t lookups;
	unsigned int reps;
	unsigned int burst;
	const char *csv;
	bool aa; /* s64+dlg without the extra session. */
	bool no_flush;
	uint8_t family;
};

static bool aa;
static uint8_t family = 6;

static uint64_t
xs64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Session i's UE /64 (s64) or delegated /56 (dlg56: byte 7, the subnet, is
 * free); IPv4: its address 10.0.0.0 + i (a32) or framed 11.0.0.0/28 + i
 * (fr28: the last 4 bits, sub's low ones, are free).
 */
static void
ue_addr(uint8_t a[16], enum kase k, uint32_t i, uint8_t sub)
{
	memset(a, 0, 16);
	if (family == 4) {
		const uint32_t v =
			k == K_DLG56 ? 0x0b000000u | i << 4 | (sub & 0xfu) : 0x0a000000u | i;

		a[0] = (uint8_t)(v >> 24);
		a[1] = (uint8_t)(v >> 16);
		a[2] = (uint8_t)(v >> 8);
		a[3] = (uint8_t)v;
		return;
	}
	a[0] = 0xfd;
	a[3] = k == K_DLG56 ? 0x46 : 0x45;
	if (k == K_DLG56) {
		a[4] = (uint8_t)(i >> 16);
		a[5] = (uint8_t)(i >> 8);
		a[6] = (uint8_t)i;
		a[7] = sub;
	} else {
		a[5] = (uint8_t)(i >> 16);
		a[6] = (uint8_t)(i >> 8);
		a[7] = (uint8_t)i;
	}
}

/*
 * Session seid with one downlink PDR on ue and a FAR; pfx: ue is a prefix,
 * a delegated /56 (IPv6) or a framed /28 (IPv4, the PDR's only condition).
 */
static int
put(struct upf_store *s, uint64_t seid, const uint8_t ue[16], bool pfx)
{
	struct upf_pdr_conf pdr;
	struct upf_far_conf far;
	struct upf_sess_conf c;
	char err[256];
	int ret;

	memset(&c, 0, sizeof(c));
	memset(&pdr, 0, sizeof(pdr));
	memset(&far, 0, sizeof(far));
	c.up_seid = seid;
	c.cp_seid = seid;
	c.n_pdr = 1;
	c.n_far = 1;
	c.pdr = &pdr;
	c.far = &far;
	pdr.id = 1;
	pdr.precedence = 100;
	pdr.src_iface = UPF_IF_CORE;
	pdr.ni = 0;
	if (family == 4 && pfx) {
		pdr.n_framed = 1;
		pdr.framed[0].af = 4;
		pdr.framed[0].plen = 28;
		memcpy(pdr.framed[0].a, ue, 4);
	} else if (family == 4) {
		pdr.ue4.af = 4;
		memcpy(pdr.ue4.a, ue, 4);
	} else {
		pdr.ue6.af = 6;
		memcpy(pdr.ue6.a, ue, 16);
		pdr.ue6_dbits = pfx ? 8 : 0;
	}
	pdr.has_far = true;
	pdr.far_id = 1;
	far.id = 1;
	far.apply = UPF_FAR_FORW;
	far.dst_iface = UPF_IF_ACCESS;
	far.ni = UPF_NI_NONE;
	ret = upf_store_put(s, &c, err, sizeof(err));
	if (ret != 0)
		fprintf(stderr, "uebench: session %" PRIu64 ": %s\n", seid, err);
	return ret;
}

static struct upf_store *
store_make(uint32_t n, enum kase k)
{
	struct upf_store_params p;
	char err[256];
	struct upf_store *s;
	uint8_t a[16];
	uint32_t i;

	memset(&p, 0, sizeof(p));
	p.max_sessions = n + 1;
	p.max_urrs = 64;
	p.max_qers = 64;
	p.n_workers = 1;
	p.socket = (int)rte_socket_id();
	p.ring_size = 64;
	if (family == 4 && k == K_S64) {
		/* The addresses the UPF hands out index a direct array. */
		p.n_ue_dir = 1;
		p.ue_dir[0].ni = 0;
		p.ue_dir[0].plen = UPF_UE_DIR_MIN_PLEN;
		p.ue_dir[0].base = 0x0a000000u;
	}
	s = upf_store_create(&p, err, sizeof(err));
	if (s == NULL) {
		fprintf(stderr, "uebench: %s\n", err);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		ue_addr(a, k, i, 0);
		if (put(s, i + 1, a, k == K_DLG56) != 0) {
			upf_store_free(s);
			return NULL;
		}
	}
	return s;
}

/* The extra session of s64+dlg (a32+fr): a /56 (/28) no key of the trace is in. */
#define DLG_SEID (UINT64_C(1) << 40)

static int
dlg_set(struct upf_store *s, bool *is_on, bool on)
{
	static const uint8_t a6[16] = { 0xfd, 0x00, 0x00, 0x47 };
	static const uint8_t a4[16] = { 12 };
	int ret;

	if (aa || *is_on == on)
		return 0;
	ret = on ? put(s, DLG_SEID, family == 4 ? a4 : a6, true) : upf_store_del(s, DLG_SEID);
	if (ret == 0)
		*is_on = on;
	return ret;
}

/* Folds every object found, so that the compiler keeps the loads (printed). */
static uintptr_t used;

/* Time n lookups of case k from trace t (session id | subnet << 24): cycles. */
static uint64_t
time_lookups(const struct upf_store *s, enum kase k, const uint32_t *t, uint64_t n,
	     unsigned int burst, uint64_t *pos, bool check)
{
	struct upf_ue_key key[RTE_HASH_LOOKUP_BULK_MAX];
	const void *keys[RTE_HASH_LOOKUP_BULK_MAX];
	void *obj[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t i, p = *pos, cyc = 0;
	unsigned int j;

	for (i = 0; i < n; i += burst) {
		const unsigned int c = (unsigned int)RTE_MIN((uint64_t)burst, n - i);
		uint64_t t0;

		for (j = 0; j < c; j++) {
			uint8_t a[16];

			ue_addr(a, k, t[p] & 0xffffff, (uint8_t)(t[p] >> 24));
			upf_ue_key_make(&key[j], 0, family, a, 0);
			keys[j] = &key[j];
			p = p + 1 == TRACE_LEN ? 0 : p + 1;
		}
		t0 = rte_rdtsc();
		upf_ue_lookup_bulk(&s->ue, keys, c, obj);
		/* Use what was found, as the datapath does at once: a lookup
		 * whose loads nothing waits for would let their misses run on
		 * into the untimed code that builds the next burst's keys. */
		for (j = 0; j < c; j++)
			used ^= (uintptr_t)obj[j];
		cyc += rte_rdtsc() - t0;
		if (!check)
			continue;
		for (j = 0; j < c; j++) {
			const uint64_t back = (p + TRACE_LEN - c + j) % TRACE_LEN;
			const struct upf_sess_dp *d = obj[j];

			if (d == NULL || d->up_seid != (t[back] & 0xffffff) + 1) {
				printf("FAIL: %s: lookup %" PRIu64 " found session %" PRIu64
				       ", want %u\n",
				       kase_names[k], i + j, d != NULL ? d->up_seid : 0,
				       (t[back] & 0xffffff) + 1);
				exit(3);
			}
		}
	}
	*pos = p;
	return cyc;
}

/* Read buf through, a line at a time: the tables' lines leave the caches. */
static uint64_t
flush(const volatile uint8_t *buf)
{
	uint64_t sum = 0, i;

	for (i = 0; i < FLUSH_BYTES; i += RTE_CACHE_LINE_SIZE)
		sum += buf[i];
	return sum;
}

static int
cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_dbl(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
parse_u32_list(const char *s, uint32_t *out, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s != '\0' && *n < MAX_LIST) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > (1u << 24) - 1)
			return -1;
		out[(*n)++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\0')
			return -1;
	}
	return *n != 0 ? 0 : -1;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "sessions", required_argument, NULL, 's' },
		{ "lookups", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "csv", required_argument, NULL, 'o' },
		{ "aa", no_argument, NULL, 'a' },
		{ "no-flush", no_argument, NULL, 'f' },
		{ "family", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->sessions[0] = 1000;
	o->sessions[1] = 100000;
	o->sessions[2] = 1000000;
	o->n_sessions = 3;
	o->lookups = 2u << 20;
	o->reps = 9;
	o->burst = 32;
	o->csv = NULL;
	o->aa = false;
	o->no_flush = false;
	o->family = 6;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_u32_list(optarg, o->sessions, &o->n_sessions) != 0)
				return -1;
			break;
		case 'n':
			o->lookups = strtoull(optarg, NULL, 10);
			if (o->lookups == 0)
				return -1;
			break;
		case 'r':
			o->reps = (unsigned int)atoi(optarg);
			if (o->reps == 0 || o->reps > MAX_REPS)
				return -1;
			break;
		case 'b':
			o->burst = (unsigned int)atoi(optarg);
			if (o->burst == 0 || o->burst > RTE_HASH_LOOKUP_BULK_MAX)
				return -1;
			break;
		case 'a':
			o->aa = true;
			break;
		case 'f':
			o->no_flush = true;
			break;
		case 'o':
			o->csv = optarg;
			break;
		case 'F':
			if (strcmp(optarg, "4") != 0 && strcmp(optarg, "6") != 0)
				return -1;
			o->family = (uint8_t)atoi(optarg);
			break;
		default:
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static uint64_t cyc[K_COUNT][MAX_REPS];
	static double ratio[K_COUNT][MAX_REPS];
	uint64_t med[K_COUNT], pos[K_COUNT], rng = 0x9e3779b97f4a7c15ull;
	struct opts o;
	uint32_t *trace;
	uint8_t *fbuf;
	uint64_t sink = 0;
	FILE *csv = NULL;
	unsigned int si, r, q, k;
	int n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "uebench: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (parse_opts(argc, argv, &o) != 0) {
		fprintf(stderr,
			"usage: lanefwd-uebench [EAL args] -- [--sessions N,N,...] "
			"[--lookups N] [--reps N<=%u] [--burst N<=64] [--csv FILE] [--aa] "
			"[--no-flush] [--family 4|6]\n",
			MAX_REPS);
		return 2;
	}
	aa = o.aa;
	family = o.family;
	kase_names = family == 4 ? names4 : names6;
	trace = malloc(TRACE_LEN * sizeof(*trace));
	fbuf = malloc(FLUSH_BYTES);
	if (trace == NULL || fbuf == NULL)
		return 1;
	memset(fbuf, 1, FLUSH_BYTES);
	if (o.csv != NULL) {
		csv = fopen(o.csv, "w");
		if (csv == NULL) {
			perror(o.csv);
			return 1;
		}
		fprintf(csv, "sessions,case,rep,cycles_per_lookup,ratio_to_%s\n", kase_names[0]);
	}
	printf("# TSC %.3f GHz, burst %u, %" PRIu64 " lookups per case and round, %u rounds\n",
	       (double)rte_get_tsc_hz() / 1e9, o.burst, o.lookups, o.reps);
	printf("%10s %-9s %12s %9s(%s) %8s\n", "sessions", "case", "cyc/lookup", "ratio",
	       kase_names[0], "keys");
	for (si = 0; si < o.n_sessions; si++) {
		const uint32_t ns = o.sessions[si];
		struct upf_store *st[2];
		bool dlg_on = false;
		uint32_t i;

		for (i = 0; i < TRACE_LEN; i++)
			trace[i] =
				(uint32_t)(xs64(&rng) % ns) | (uint32_t)(xs64(&rng) & 0xff) << 24;
		st[0] = store_make(ns, K_S64);
		st[1] = store_make(ns, K_DLG56);
		if (st[0] == NULL || st[1] == NULL)
			return 1;
		memset(pos, 0, sizeof(pos));
		/* A warm-up pass of each, checked. */
		for (k = 0; k < K_COUNT; k++) {
			if (k != K_DLG56 && dlg_set(st[0], &dlg_on, k == K_S64_DLG) != 0)
				return 1;
			time_lookups(st[k == K_DLG56], k, trace,
				     RTE_MIN(o.lookups, (uint64_t)TRACE_LEN), o.burst, &pos[k],
				     true);
		}
		for (r = 0; r < o.reps; r++)
			for (q = 0; q < K_COUNT; q++) {
				k = (q + r) % K_COUNT;
				if (k != K_DLG56 && dlg_set(st[0], &dlg_on, k == K_S64_DLG) != 0)
					return 1;
				if (!o.no_flush)
					sink += flush(fbuf);
				cyc[k][r] = time_lookups(st[k == K_DLG56], k, trace, o.lookups,
							 o.burst, &pos[k], false);
			}
		if (dlg_set(st[0], &dlg_on, false) != 0)
			return 1;
		for (r = 0; r < o.reps; r++)
			for (k = 0; k < K_COUNT; k++)
				ratio[k][r] = (double)cyc[k][r] / (double)cyc[K_S64][r];
		for (k = 0; k < K_COUNT; k++) {
			if (csv != NULL)
				for (r = 0; r < o.reps; r++)
					fprintf(csv, "%u,%s,%u,%.2f,%.4f\n", ns, kase_names[k], r,
						(double)cyc[k][r] / (double)o.lookups, ratio[k][r]);
			qsort(cyc[k], o.reps, sizeof(uint64_t), cmp_u64);
			qsort(ratio[k], o.reps, sizeof(double), cmp_dbl);
			med[k] = cyc[k][o.reps / 2];
			/* keys: the table's (s64+dlg has one more, the extra /56). */
			printf("%10u %-9s %12.2f %12.3f %8u\n", ns, kase_names[k],
			       (double)med[k] / (double)o.lookups, ratio[k][o.reps / 2],
			       upf_ue_count(&st[k == K_DLG56]->ue) + (k == K_S64_DLG && !aa));
		}
		fflush(stdout);
		upf_store_free(st[0]);
		upf_store_free(st[1]);
	}
	if (csv != NULL)
		fclose(csv);
	if (!o.no_flush &&
	    sink != (uint64_t)FLUSH_BYTES / RTE_CACHE_LINE_SIZE * K_COUNT * o.reps * o.n_sessions)
		printf("FAIL: the flush buffer changed\n");
	printf("# objects found, folded: 0x%" PRIxPTR "\n", used);
	free(fbuf);
	free(trace);
	rte_eal_cleanup();
	return 0;
}
