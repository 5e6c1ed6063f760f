/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the flow table (src/lib/flow.c). Invalid parameters first, then
 * keys built from packets, insert/lookup/delete in both layouts, keys that
 * differ in exactly one field (each field, IPv4 and IPv6), aging, a full
 * table with and without eviction, odd burst sizes and prefetch distances
 * against one-key lookups, and 200,000 random operations checked against a
 * reference map written here (open addressing with its own hash).
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "flow.h"
#include "parse.h"
#include "parse_fast.h"
#include "dp.h"
#include "lf_log.h"

/* One unit of entry time. */
#define TICK (1ull << LF_FLOW_TIME_SHIFT)

static const enum lf_flow_layout layouts[] = { LF_FLOW_LAYOUT_HOTCOLD, LF_FLOW_LAYOUT_FAT };

/* xorshift64*: reproducible. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static struct lf_flow_table *
make_table(uint32_t capacity, enum lf_flow_layout layout, enum lf_flow_evict evict,
	   uint64_t timeout, uint32_t buckets)
{
	struct lf_flow_params p = {
		.name = "test",
		.capacity = capacity,
		.socket = SOCKET_ID_ANY,
		.idle_timeout_tsc = timeout,
		.evict = evict,
		.layout = layout,
		.buckets = buckets,
	};
	struct lf_flow_table *t = lf_flow_create(&p);

	assert_non_null(t);
	return t;
}

static struct lf_flow_table *
mk(uint32_t capacity, enum lf_flow_layout layout, enum lf_flow_evict evict, uint64_t timeout)
{
	return make_table(capacity, layout, evict, timeout, 0);
}

/* IPv4 key number i (distinct for distinct i < 2^32). */
static void
key4(struct lf_flow_key *k, uint32_t i)
{
	uint32_t a = i * 2654435761u;

	memset(k, 0, sizeof(*k));
	k->af = 4;
	k->proto = IPPROTO_UDP;
	k->in_port = (uint16_t)(i & 3);
	memcpy(k->src, &a, 4);
	k->dst[0] = 10;
	k->dst[3] = (uint8_t)(i >> 8);
	k->sport = (uint16_t)i;
	k->dport = rte_cpu_to_be_16(53);
}

static void
key6(struct lf_flow_key *k, uint32_t i)
{
	memset(k, 0, sizeof(*k));
	k->af = 6;
	k->proto = IPPROTO_TCP;
	k->src[0] = 0x20;
	k->src[1] = 0x01;
	memcpy(&k->src[12], &i, 4);
	k->dst[0] = 0xfe;
	k->dst[15] = 1;
	k->sport = rte_cpu_to_be_16(443);
	k->dport = (uint16_t)(i * 7);
}

static struct lf_flow_hot *
lookup1(struct lf_flow_table *t, const struct lf_flow_key *k, uint64_t now)
{
	struct lf_flow_hot *e = (struct lf_flow_hot *)&e;

	lf_flow_lookup_burst(t, k, 1, 0, now, &e);
	return e;
}

/* ---- invalid input ---- */

static void
test_invalid(void **state)
{
	struct lf_flow_params p = { .name = "bad", .capacity = 16, .socket = SOCKET_ID_ANY };
	struct lf_flow_params q;

	(void)state;
	rte_errno = 0;
	assert_null(lf_flow_create(NULL));
	assert_int_equal(rte_errno, EINVAL);
	q = p;
	q.capacity = 0;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, EINVAL);
	q = p;
	q.capacity = LF_FLOW_MAX_CAPACITY + 1;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, EINVAL);
	q = p;
	q.evict = (enum lf_flow_evict)7;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, EINVAL);
	q = p;
	q.layout = (enum lf_flow_layout)7;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, EINVAL);
	q = p;
	q.buckets = 6;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, EINVAL);
	/* 2^28 flows need 36 GiB; the test's EAL has 256 MiB. */
	q = p;
	q.capacity = LF_FLOW_MAX_CAPACITY;
	assert_null(lf_flow_create(&q));
	assert_int_equal(rte_errno, ENOMEM);
	lf_flow_free(NULL);
}

/* ---- keys from packets ---- */

static void
fake_mbuf(struct rte_mbuf *m, uint8_t *buf, uint16_t len)
{
	memset(m, 0, sizeof(*m));
	m->buf_addr = buf;
	m->data_off = 0;
	m->data_len = len;
	m->pkt_len = len;
}

static void
test_key_from_pkt(void **state)
{
	uint8_t buf[128] = { 0 };
	struct rte_mbuf m;
	struct lf_meta meta = { .l3_off = 18, .l4_off = 38, .af = 4, .l4_proto = IPPROTO_UDP };
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 18);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(buf + 14);
	struct lf_flow_key k, want;
	uint16_t *ports;
	int i;

	(void)state;
	fake_mbuf(&m, buf, sizeof(buf));
	ip->src_addr = rte_cpu_to_be_32(0xc0a80001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
	ports = (uint16_t *)(buf + 38);
	ports[0] = rte_cpu_to_be_16(1234);
	ports[1] = rte_cpu_to_be_16(80);
	memset(&k, 0xaa, sizeof(k));
	lf_flow_key_from_pkt(&m, meta.af, meta.l4_proto, meta.l3_off, meta.l4_off, 3, 100, &k);
	memset(&want, 0, sizeof(want));
	want.af = 4;
	want.proto = IPPROTO_UDP;
	want.in_port = 3;
	want.vlan = 100;
	want.sport = rte_cpu_to_be_16(1234);
	want.dport = rte_cpu_to_be_16(80);
	want.src[0] = 192;
	want.src[1] = 168;
	want.src[3] = 1;
	want.dst[0] = 10;
	want.dst[3] = 2;
	assert_memory_equal(&k, &want, sizeof(k));

	/* ICMP and later fragments (l4_off 0) have no ports. */
	meta.l4_proto = IPPROTO_ICMP;
	lf_flow_key_from_pkt(&m, meta.af, meta.l4_proto, meta.l3_off, meta.l4_off, 3, 100, &k);
	want.proto = IPPROTO_ICMP;
	want.sport = 0;
	want.dport = 0;
	assert_memory_equal(&k, &want, sizeof(k));
	meta.l4_proto = IPPROTO_TCP;
	meta.l4_off = 0;
	lf_flow_key_from_pkt(&m, meta.af, meta.l4_proto, meta.l3_off, meta.l4_off, 3, 100, &k);
	want.proto = IPPROTO_TCP;
	assert_memory_equal(&k, &want, sizeof(k));

	/* IPv6 TCP, untagged. */
	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 16; i++) {
		ip6->src_addr[i] = (uint8_t)(i + 1);
		ip6->dst_addr[i] = (uint8_t)(0xf0 + i);
	}
	ports = (uint16_t *)(buf + 54);
	ports[0] = rte_cpu_to_be_16(40000);
	ports[1] = rte_cpu_to_be_16(443);
	meta = (struct lf_meta){ .l3_off = 14, .l4_off = 54, .af = 6, .l4_proto = IPPROTO_TCP };
	lf_flow_key_from_pkt(&m, meta.af, meta.l4_proto, meta.l3_off, meta.l4_off, 1, 0, &k);
	memset(&want, 0, sizeof(want));
	want.af = 6;
	want.proto = IPPROTO_TCP;
	want.in_port = 1;
	want.sport = rte_cpu_to_be_16(40000);
	want.dport = rte_cpu_to_be_16(443);
	memcpy(want.src, ip6->src_addr, 16);
	memcpy(want.dst, ip6->dst_addr, 16);
	assert_memory_equal(&k, &want, sizeof(k));
}

/*
 * lf_flow_key_plain_ipv4() (the fused flow path's key) against the key of
 * the general parser's meta, for plain IPv4 packets of every protocol the
 * plain check accepts, with and without L4 ports.
 */
static void
test_key_plain_ipv4(void **state)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_TCP, IPPROTO_ICMP, IPPROTO_SCTP,
					  IPPROTO_GRE, 0,           253 };
	unsigned int p, n = 0;

	(void)state;
	for (p = 0; p < RTE_DIM(protos); p++) {
		uint8_t buf[128] = { 0 };
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + 14);
		struct lf_flow_key a, b;
		struct lf_meta meta;
		struct rte_mbuf m;
		unsigned int proto = 0, need = 0;
		uint32_t dst = 0;
		int sw = 0;

		fake_mbuf(&m, buf, 14 + 20 + 40);
		buf[12] = 0x08;
		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16(20 + 40);
		ip->time_to_live = 64;
		ip->next_proto_id = protos[p];
		ip->src_addr = rte_cpu_to_be_32(0xc0a80001 + p);
		ip->dst_addr = rte_cpu_to_be_32(0x0a000002 + 7 * p);
		buf[34] = 0x12, buf[35] = 0x34, buf[36] = 0x00, buf[37] = 0x50;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		assert_int_not_equal(lf_parse_ipv4_plain(&m, &proto, &need, &dst), 0);
		assert_int_equal(parse_packet(&m, &meta, &sw), -1);
		memset(&a, 0xaa, sizeof(a));
		memset(&b, 0x55, sizeof(b));
		lf_flow_key_from_pkt(&m, meta.af, meta.l4_proto, meta.l3_off, meta.l4_off, 5, 0,
				     &a);
		lf_flow_key_plain_ipv4(&m, proto, 5, &b);
		assert_memory_equal(&a, &b, sizeof(a));
		n += a.sport != 0;
	}
	assert_int_equal(n, 2); /* UDP and TCP carry ports in their keys. */
}

/* ---- insert, lookup, delete ---- */

static void
test_insert_lookup_delete(void **state)
{
	unsigned int l, i;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct lf_flow_table *t = mk(256, layouts[l], LF_FLOW_EVICT_NONE, 0);
		const struct lf_flow_stats *st = lf_flow_stats(t);
		struct lf_flow_key k4, k6;
		struct lf_flow_hot *e4, *e6;

		assert_true(lf_flow_mem_bytes(t) >= 256 * 2 * RTE_CACHE_LINE_SIZE);
		assert_int_equal(lf_flow_capacity(t), 256);
		key4(&k4, 1);
		key6(&k6, 1);
		assert_null(lookup1(t, &k4, 0));
		e4 = lf_flow_insert(t, &k4, 5 * TICK);
		assert_non_null(e4);
		/* A new entry: key set, caller fields zero. */
		assert_int_equal(e4->pkts, 0);
		assert_int_equal(e4->gen, 0);
		assert_int_equal(e4->last_seen, 5);
		assert_memory_equal(&lf_flow_cold_of(t, e4)->key, &k4, sizeof(k4));
		assert_int_equal(lf_flow_cold_of(t, e4)->created, 5 * TICK);
		e4->out_port = 7;
		e4->gen = 3;
		lf_flow_count(e4, 100);
		e6 = lf_flow_insert(t, &k6, 6 * TICK);
		assert_non_null(e6);
		assert_ptr_not_equal(e4, e6);
		assert_ptr_equal(lookup1(t, &k4, 9 * TICK), e4);
		assert_int_equal(e4->last_seen, 9);
		assert_ptr_equal(lookup1(t, &k6, 9 * TICK), e6);
		/* Inserting again returns the flow as it is. */
		assert_ptr_equal(lf_flow_insert(t, &k4, 10 * TICK), e4);
		assert_int_equal(e4->out_port, 7);
		assert_int_equal(e4->pkts, 1);
		assert_int_equal(e4->bytes, 100);
		assert_true(lf_flow_verdict_valid(e4, 3));
		assert_false(lf_flow_verdict_valid(e4, 4));
		assert_int_equal(st->count, 2);
		assert_int_equal(st->inserts, 2);

		assert_int_equal(lf_flow_delete(t, &k4), 0);
		assert_int_equal(lf_flow_delete(t, &k4), -ENOENT);
		assert_null(lookup1(t, &k4, 11 * TICK));
		assert_ptr_equal(lookup1(t, &k6, 11 * TICK), e6);
		assert_int_equal(lf_flow_delete(t, &k6), 0);
		assert_null(lookup1(t, &k6, 11 * TICK));
		assert_int_equal(st->count, 0);
		assert_int_equal(st->deletes, 2);
		/* Lookups so far: 1 miss, 2 hits, 1 miss, 1 hit, 1 miss. */
		assert_int_equal(st->lookups, 6);
		assert_int_equal(st->hits, 3);
		assert_int_equal(st->misses, 3);
		/* Every entry can be reused. */
		for (i = 0; i < 256; i++) {
			key4(&k4, 1000 + i);
			assert_non_null(lf_flow_insert(t, &k4, 0));
		}
		assert_int_equal(st->count, 256);
		lf_flow_free(t);
	}
}

/* ---- keys differing in one field ---- */

/* Make variant v of base: a different value in exactly one field. */
static bool
vary(const struct lf_flow_key *base, unsigned int v, struct lf_flow_key *k)
{
	unsigned int addr_bytes = base->af == 4 ? 4 : 16;

	*k = *base;
	switch (v) {
	case 0:
		k->proto ^= 1;
		return true;
	case 1:
		k->in_port ^= 1;
		return true;
	case 2:
		k->vlan ^= 0x100;
		return true;
	case 3:
		k->sport ^= 0x8000;
		return true;
	case 4:
		k->dport ^= 1;
		return true;
	case 5:
		k->tunnel_id ^= 0x10000;
		return true;
	case 6:
		/* Same bytes, the other family (IPv4 keys only can swap freely). */
		k->af = base->af == 4 ? 6 : 4;
		return base->af == 4;
	default:
		v -= 7;
		if (v < addr_bytes) {
			k->src[v] ^= 0x40;
			return true;
		}
		v -= addr_bytes;
		if (v < addr_bytes) {
			k->dst[v] ^= 0x02;
			return true;
		}
		return false;
	}
}

static void
test_one_field_differs(void **state)
{
	unsigned int l, fam, v;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		for (fam = 0; fam < 2; fam++) {
			struct lf_flow_table *t = mk(128, layouts[l], LF_FLOW_EVICT_NONE, 0);
			struct lf_flow_key base, k;
			struct lf_flow_hot *eb;
			unsigned int n = 1;

			if (fam == 0)
				key4(&base, 77);
			else
				key6(&base, 77);
			eb = lf_flow_insert(t, &base, 0);
			assert_non_null(eb);
			for (v = 0; v < 7 + 32; v++) {
				struct lf_flow_hot *ev;

				if (!vary(&base, v, &k))
					continue;
				assert_null(lookup1(t, &k, 0));
				ev = lf_flow_insert(t, &k, 0);
				assert_non_null(ev);
				assert_ptr_not_equal(ev, eb);
				n++;
				assert_ptr_equal(lookup1(t, &k, 0), ev);
				assert_ptr_equal(lookup1(t, &base, 0), eb);
				assert_int_equal(lf_flow_delete(t, &k), 0);
				assert_ptr_equal(lookup1(t, &base, 0), eb);
			}
			/* IPv4: 7 fields + 8 address bytes; IPv6: 6 + 32. */
			assert_int_equal(n, fam == 0 ? 16 : 39);
			lf_flow_free(t);
		}
	}
}

/* ---- aging ---- */

static void
test_aging(void **state)
{
	unsigned int l, i, n;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct lf_flow_table *t = mk(64, layouts[l], LF_FLOW_EVICT_NONE, 100 * TICK);
		const struct lf_flow_stats *st = lf_flow_stats(t);
		struct lf_flow_key a, b;

		key4(&a, 1);
		key6(&b, 2);
		assert_non_null(lf_flow_insert(t, &a, 1000 * TICK));
		assert_non_null(lf_flow_insert(t, &b, 1000 * TICK));
		/* a is seen at 1050; b is not. */
		assert_non_null(lookup1(t, &a, 1050 * TICK));
		/* Idle means unseen for more than the timeout. */
		assert_int_equal(lf_flow_expire(t, 1100 * TICK, 64), 0);
		assert_int_equal(lf_flow_expire(t, 1101 * TICK, 64), 1);
		assert_null(lookup1(t, &b, 1101 * TICK));
		assert_non_null(lookup1(t, &a, 1101 * TICK));
		assert_int_equal(lf_flow_expire(t, 1300 * TICK, 64), 1);
		assert_int_equal(st->expired, 2);
		assert_int_equal(st->count, 0);
		/* Budgets smaller than the table: at most budget entries examined per
		 * call, and the calls resume where the last one stopped. */
		for (i = 0; i < 8; i++) {
			key4(&a, 100 + i);
			assert_non_null(lf_flow_insert(t, &a, 2000 * TICK));
		}
		for (i = 0, n = 0; i < 22; i++) {
			unsigned int x = lf_flow_expire(t, 3000 * TICK, 3);

			assert_true(x <= 3);
			n += x;
		}
		assert_int_equal(n, 8);
		assert_int_equal(st->count, 0);
		assert_int_equal(st->expired, 10);
		lf_flow_free(t);
	}

	/* No timeout: nothing ever expires. */
	{
		struct lf_flow_table *t = mk(16, LF_FLOW_LAYOUT_HOTCOLD, LF_FLOW_EVICT_NONE, 0);
		struct lf_flow_key a;

		key4(&a, 1);
		assert_non_null(lf_flow_insert(t, &a, 0));
		assert_int_equal(lf_flow_expire(t, UINT64_MAX / 2, 16), 0);
		assert_non_null(lookup1(t, &a, 0));
		lf_flow_free(t);
	}
}

/* ---- full table ---- */

static void
test_full(void **state)
{
	enum { CAP = 64 };
	unsigned int l, i, present;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct lf_flow_table *t;
		const struct lf_flow_stats *st;
		struct lf_flow_key k;
		struct lf_flow_hot *e;

		/* No eviction: the 65th flow overflows, the others stay. */
		t = mk(CAP, layouts[l], LF_FLOW_EVICT_NONE, 1000 * TICK);
		st = lf_flow_stats(t);
		for (i = 0; i < CAP; i++) {
			key4(&k, i);
			assert_non_null(lf_flow_insert(t, &k, i * TICK));
		}
		key4(&k, CAP);
		assert_null(lf_flow_insert(t, &k, 500 * TICK));
		assert_null(lf_flow_insert(t, &k, 500 * TICK));
		assert_int_equal(st->overflow, 2);
		assert_int_equal(st->count, CAP);
		for (i = 0; i < CAP; i++) {
			key4(&k, i);
			assert_non_null(lookup1(t, &k, 500 * TICK));
		}
		key4(&k, CAP);
		assert_null(lookup1(t, &k, 500 * TICK));
		/* Once flows are idle the insert reuses one of them (counted expired). */
		e = lf_flow_insert(t, &k, 1600 * TICK);
		assert_non_null(e);
		assert_int_equal(st->expired, 1);
		assert_int_equal(st->evictions, 0);
		assert_int_equal(st->count, CAP);
		assert_ptr_equal(lookup1(t, &k, 1600 * TICK), e);
		lf_flow_free(t);

		/* Eviction: the least recently seen candidate goes. */
		t = mk(CAP, layouts[l], LF_FLOW_EVICT_OLDEST, 0);
		st = lf_flow_stats(t);
		for (i = 0; i < CAP; i++) {
			key4(&k, i);
			assert_non_null(lf_flow_insert(t, &k, (i + 1) * TICK));
		}
		for (i = 0; i < 3 * CAP; i++) {
			key4(&k, CAP + i);
			e = lf_flow_insert(t, &k, (CAP + 1 + i) * TICK);
			assert_non_null(e);
			assert_ptr_equal(lookup1(t, &k, (CAP + 1 + i) * TICK), e);
		}
		assert_int_equal(st->evictions, 3 * CAP);
		assert_int_equal(st->overflow, 0);
		assert_int_equal(st->count, CAP);
		/* Exactly CAP of the 4 * CAP keys are still found. */
		for (i = 0, present = 0; i < 4 * CAP; i++) {
			key4(&k, i);
			present += lookup1(t, &k, 0) != NULL;
		}
		assert_int_equal(present, CAP);
		lf_flow_free(t);
	}
}

/* ---- bursts: sizes and prefetch distances give the one-key answers ---- */

static void
test_bursts(void **state)
{
	enum { NKEYS = 600 };
	static const uint16_t sizes[] = { 0, 1, 3, 4, 5, 31, 32, 33, 67, 64, 65, 200 };
	static const unsigned int dists[] = { 0, 1, 2, 4, 8, 16, 32, 40 };
	struct lf_flow_key *keys = calloc(NKEYS, sizeof(*keys));
	struct lf_flow_hot **want = calloc(NKEYS, sizeof(*want));
	struct lf_flow_hot **got = calloc(NKEYS + 1, sizeof(*got));
	uint64_t *hash = calloc(NKEYS, sizeof(*hash));
	unsigned int l, i, s, d, off;

	(void)state;
	assert_non_null(keys);
	assert_non_null(want);
	assert_non_null(got);
	assert_non_null(hash);
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct lf_flow_table *t = mk(512, layouts[l], LF_FLOW_EVICT_NONE, 0);
		const struct lf_flow_stats *st = lf_flow_stats(t);
		uint64_t lookups;

		/* 2/3 present (IPv4 and IPv6), 1/3 absent, in random order. */
		for (i = 0; i < NKEYS; i++) {
			uint32_t id = (uint32_t)(i * 7919 + rnd() % 7919);

			if (i % 2)
				key4(&keys[i], id);
			else
				key6(&keys[i], id);
			if (i % 3 != 0)
				assert_non_null(lf_flow_insert(t, &keys[i], 0));
		}
		for (i = 0; i < NKEYS; i++)
			want[i] = lookup1(t, &keys[i], 0);
		for (i = 0; i < NKEYS; i++)
			assert_true((want[i] != NULL) == (i % 3 != 0));
		for (s = 0; s < RTE_DIM(sizes); s++) {
			for (d = 0; d < RTE_DIM(dists); d++) {
				uint64_t n = 0;

				lookups = st->lookups;
				for (off = 0; off + sizes[s] <= NKEYS; off += sizes[s] + 1) {
					got[off + sizes[s]] = (struct lf_flow_hot *)&got;
					lf_flow_lookup_burst(t, keys + off, sizes[s], dists[d], 0,
							     got + off);
					/* Nothing written past the burst. */
					assert_ptr_equal(got[off + sizes[s]], &got);
					for (i = off; i < off + sizes[s]; i++)
						assert_ptr_equal(got[i], want[i]);
					/* The same with the hashes taken as the keys are built. */
					for (i = off; i < off + sizes[s]; i++)
						hash[i] = lf_flow_hash_prefetch(t, &keys[i]);
					lf_flow_lookup_burst_hashed(t, keys + off, hash + off,
								    sizes[s], dists[d], 0,
								    got + off);
					assert_ptr_equal(got[off + sizes[s]], &got);
					for (i = off; i < off + sizes[s]; i++)
						assert_ptr_equal(got[i], want[i]);
					n += 2u * sizes[s];
				}
				assert_int_equal(st->lookups - lookups, n);
			}
		}
		lf_flow_free(t);
	}
	free(keys);
	free(want);
	free(got);
	free(hash);
}

/* ---- random operations against a reference map ---- */

/* Reference: open addressing on an FNV-1a hash of the key bytes. */
#define REF_SLOTS 16384

struct ref_ent {
	bool used;
	struct lf_flow_key key;
	uint32_t last; /* In entry time units. */
	uint64_t pkts;
	struct lf_flow_hot *e;
};

static struct ref_ent ref[REF_SLOTS];
static unsigned int ref_count;

static uint32_t
ref_hash(const struct lf_flow_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static struct ref_ent *
ref_find(const struct lf_flow_key *k, bool add)
{
	uint32_t i = ref_hash(k) % REF_SLOTS;

	for (;;) {
		if (!ref[i].used) {
			if (!add)
				return NULL;
			ref[i].used = true;
			ref[i].key = *k;
			ref_count++;
			return &ref[i];
		}
		if (memcmp(&ref[i].key, k, sizeof(*k)) == 0)
			return &ref[i];
		i = (i + 1) % REF_SLOTS;
	}
}

/* Remove with backward-shift deletion so that probing stays correct. */
static void
ref_remove(struct ref_ent *r)
{
	uint32_t i = (uint32_t)(r - ref), j = i;

	ref[i].used = false;
	ref_count--;
	for (;;) {
		uint32_t h;

		j = (j + 1) % REF_SLOTS;
		if (!ref[j].used)
			return;
		h = ref_hash(&ref[j].key) % REF_SLOTS;
		/* Move j to i if its home is not cyclically in (i, j]. */
		if ((i <= j) ? (h <= i || h > j) : (h <= i && h > j)) {
			ref[i] = ref[j];
			ref[j].used = false;
			i = j;
		}
	}
}

static void
random_ops(enum lf_flow_layout layout, uint32_t cap, uint32_t universe, unsigned int ops)
{
	const uint32_t timeout = 5000;
	struct lf_flow_table *t = mk(cap, layout, LF_FLOW_EVICT_NONE, timeout * TICK);
	const struct lf_flow_stats *st = lf_flow_stats(t);
	struct lf_flow_key keys[67];
	struct lf_flow_hot *out[67];
	uint64_t hash[67];
	uint32_t now = 1;
	unsigned int op, i;

	memset(ref, 0, sizeof(ref));
	ref_count = 0;
	for (op = 0; op < ops; op++) {
		unsigned int r = (unsigned int)(rnd() % 100);
		uint32_t id = (uint32_t)(rnd() % universe);
		struct lf_flow_key k;
		struct ref_ent *re;

		now += (uint32_t)(rnd() % 3);
		if (id & 1)
			key6(&k, id);
		else
			key4(&k, id);
		if (r < 40) {
			/* A burst of random keys with a random prefetch distance. */
			unsigned int n = (unsigned int)(rnd() % 68), d = (unsigned int)(rnd() % 20);

			for (i = 0; i < n; i++) {
				uint32_t kid = (uint32_t)(rnd() % universe);

				if (kid & 1)
					key6(&keys[i], kid);
				else
					key4(&keys[i], kid);
			}
			/* Half of them with the hashes taken first, as the flow stage does. */
			if (rnd() & 1) {
				for (i = 0; i < n; i++)
					hash[i] = lf_flow_hash_prefetch(t, &keys[i]);
				lf_flow_lookup_burst_hashed(t, keys, hash, (uint16_t)n, d,
							    (uint64_t)now * TICK, out);
			} else {
				lf_flow_lookup_burst(t, keys, (uint16_t)n, d, (uint64_t)now * TICK,
						     out);
			}
			for (i = 0; i < n; i++) {
				re = ref_find(&keys[i], false);
				if (re == NULL) {
					assert_null(out[i]);
					continue;
				}
				assert_ptr_equal(out[i], re->e);
				assert_int_equal(out[i]->pkts, re->pkts);
				assert_int_equal(out[i]->last_seen, now);
				lf_flow_count(out[i], 64);
				re->pkts++;
				re->last = now;
			}
		} else if (r < 75) {
			struct lf_flow_hot *e = lf_flow_insert(t, &k, (uint64_t)now * TICK);

			re = ref_find(&k, false);
			if (re != NULL) {
				assert_ptr_equal(e, re->e);
				continue;
			}
			if (e == NULL) {
				/* Only a full table may refuse a new flow. */
				assert_int_equal(ref_count, cap);
				continue;
			}
			assert_int_equal(e->pkts, 0);
			assert_memory_equal(&lf_flow_cold_of(t, e)->key, &k, sizeof(k));
			re = ref_find(&k, true);
			re->e = e;
			re->pkts = 0;
			re->last = now;
		} else if (r < 95) {
			re = ref_find(&k, false);
			assert_int_equal(lf_flow_delete(t, &k), re == NULL ? -ENOENT : 0);
			if (re != NULL)
				ref_remove(re);
		} else if (r < 96) {
			/* Age: the reference drops what is idle, the table must too. */
			unsigned int n = 0, j;

			now += timeout / 2;
			for (j = 0; j < REF_SLOTS;) {
				if (ref[j].used && now - ref[j].last > timeout) {
					ref_remove(&ref[j]);
					n++;
					continue; /* A later entry may have moved into j. */
				}
				j++;
			}
			assert_int_equal(lf_flow_expire(t, (uint64_t)now * TICK, cap), n);
		}
		if (op % 1000 == 0)
			assert_int_equal(st->count, ref_count);
	}
	assert_int_equal(st->count, ref_count);
	/* Every key of the universe: found exactly when the reference has it. */
	for (i = 0; i < universe; i++) {
		struct lf_flow_key k;
		struct ref_ent *re;

		if (i & 1)
			key6(&k, i);
		else
			key4(&k, i);
		re = ref_find(&k, false);
		assert_ptr_equal(lookup1(t, &k, (uint64_t)now * TICK), re == NULL ? NULL : re->e);
	}
	lf_flow_free(t);
}

static void
test_random_vs_reference(void **state)
{
	(void)state;
	/* Room to spare, then a table kept full (overflow allowed only then). */
	random_ops(LF_FLOW_LAYOUT_HOTCOLD, 4096, 3000, 200000);
	random_ops(LF_FLOW_LAYOUT_FAT, 4096, 3000, 50000);
	random_ops(LF_FLOW_LAYOUT_HOTCOLD, 256, 400, 100000);
	random_ops(LF_FLOW_LAYOUT_FAT, 256, 400, 50000);
}

/*
 * A small table under pressure (more flows than room, in few buckets): moves
 * between buckets, full bucket pairs, eviction and overflow. Every flow
 * still found must be where it was inserted; every flow no longer found must
 * have been counted evicted.
 */
static void
pressure(enum lf_flow_layout layout, enum lf_flow_evict evict, uint32_t cap, uint32_t buckets,
	 unsigned int ops)
{
	struct lf_flow_table *t = make_table(cap, layout, evict, 0, buckets);
	const struct lf_flow_stats *st = lf_flow_stats(t);
	uint64_t gone = 0, refused = 0;
	unsigned int op, j;

	memset(ref, 0, sizeof(ref));
	ref_count = 0;
	for (op = 0; op < ops; op++) {
		uint32_t id = (uint32_t)(rnd() % (cap * 8));
		struct lf_flow_key k;
		struct lf_flow_hot *e;
		struct ref_ent *re;

		if (id & 1)
			key6(&k, id);
		else
			key4(&k, id);
		e = lf_flow_insert(t, &k, (uint64_t)(op + 1) * TICK);
		re = ref_find(&k, false);
		if (re != NULL) {
			assert_ptr_equal(e, re->e);
		} else if (e == NULL) {
			refused++;
		} else {
			re = ref_find(&k, true);
			re->e = e;
		}
		for (j = 0; j < REF_SLOTS;) {
			struct lf_flow_hot *got;

			if (!ref[j].used) {
				j++;
				continue;
			}
			got = lookup1(t, &ref[j].key, 0);
			if (got == NULL) {
				ref_remove(&ref[j]);
				gone++;
				continue;
			}
			assert_ptr_equal(got, ref[j].e);
			assert_memory_equal(&lf_flow_cold_of(t, got)->key, &ref[j].key,
					    sizeof(ref[j].key));
			j++;
		}
		if (rnd() % 4 == 0) {
			/* A deletion now and then, so that the pressure moves. */
			key4(&k, (uint32_t)(rnd() % (cap * 8)) & ~1u);
			re = ref_find(&k, false);
			assert_int_equal(lf_flow_delete(t, &k), re == NULL ? -ENOENT : 0);
			if (re != NULL)
				ref_remove(re);
		}
		assert_int_equal(st->count, ref_count);
	}
	assert_int_equal(gone, st->evictions + st->expired);
	assert_int_equal(refused, st->overflow);
	if (evict == LF_FLOW_EVICT_NONE)
		assert_int_equal(gone, 0);
	else
		assert_int_equal(st->overflow, 0);
	lf_flow_free(t);
}

static void
test_pressure(void **state)
{
	unsigned int l;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		/* Half the slots used (the default sizing). */
		pressure(layouts[l], LF_FLOW_EVICT_OLDEST, 32, 0, 20000);
		pressure(layouts[l], LF_FLOW_EVICT_NONE, 32, 0, 20000);
		pressure(layouts[l], LF_FLOW_EVICT_OLDEST, 128, 0, 5000);
		/* As many slots as flows: full bucket pairs, two-level moves. */
		pressure(layouts[l], LF_FLOW_EVICT_OLDEST, 64, 8, 20000);
		pressure(layouts[l], LF_FLOW_EVICT_NONE, 64, 8, 20000);
		pressure(layouts[l], LF_FLOW_EVICT_OLDEST, 256, 32, 5000);
		pressure(layouts[l], LF_FLOW_EVICT_NONE, 256, 32, 5000);
	}
}

static int
group_setup(void **state)
{
	char lcore[16];
	char *argv[] = {
		"test_flow", "--no-huge", "--no-pci",      "--no-shconf", "--no-telemetry",
		"-m",        "256",       "--file-prefix", "lfut_flow",   "--log-level",
		"3",         "-l",        lcore,           NULL,
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
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	return rte_eal_cleanup();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_key_from_pkt),
		cmocka_unit_test(test_key_plain_ipv4),
		cmocka_unit_test(test_insert_lookup_delete),
		cmocka_unit_test(test_one_field_differs),
		cmocka_unit_test(test_aging),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_pressure),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
