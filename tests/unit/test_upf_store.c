/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the UPF session store (src/lib/upf_store.c). Invalid input
 * first (parameters, rule references, limits), then what a put compiles
 * (flags, indexes, FAR addresses, meter profiles, precedence order), the
 * keys it installs and their owner, replacement (keys moved, slots and
 * meter generations kept or renewed), conflicts and a table running full
 * in the middle of a put (all or nothing: the old state stays), deletion,
 * slot exhaustion, URR usage across slot reuse (the test writes the
 * workers' counters itself), counts, the rings, and the RCU grace period
 * before a slot is reused. Last, the TEID table (upf_teid.h) against a
 * naive model, full, and under the store with chosen and given TEIDs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "upf.h"

#define N3_V4 0x0103a8c0u /* 192.168.3.1, network order on little endian */

/* A session under construction, with room for every rule it may have. */
struct sb {
	struct upf_sess_conf c;
	struct upf_pdr_conf pdr[UPF_MAX_PDR];
	struct upf_far_conf far[UPF_MAX_FAR];
	struct upf_qer_conf qer[UPF_MAX_QER];
	struct upf_urr_conf urr[UPF_MAX_URR];
};

static char err[256];

static void
sb_init(struct sb *b, uint64_t seid)
{
	memset(b, 0, sizeof(*b));
	b->c.up_seid = seid;
	b->c.cp_seid = seid + 1000;
	b->c.pdr = b->pdr;
	b->c.far = b->far;
	b->c.qer = b->qer;
	b->c.urr = b->urr;
}

static struct upf_far_conf *
add_far(struct sb *b, uint32_t id, uint8_t apply)
{
	struct upf_far_conf *f = &b->far[b->c.n_far++];

	f->id = id;
	f->apply = apply;
	f->ni = UPF_NI_NONE;
	return f;
}

static struct upf_pdr_conf *
add_pdr(struct sb *b, uint16_t id, uint32_t prec, uint8_t iface, uint32_t far_id)
{
	struct upf_pdr_conf *p = &b->pdr[b->c.n_pdr++];

	p->id = id;
	p->precedence = prec;
	p->src_iface = iface;
	p->ni = UPF_NI_NONE;
	p->has_far = true;
	p->far_id = far_id;
	return p;
}

/* Uplink PDR on a TEID. */
static struct upf_pdr_conf *
add_ul(struct sb *b, uint16_t id, uint32_t prec, uint32_t teid, uint32_t far_id)
{
	struct upf_pdr_conf *p = add_pdr(b, id, prec, UPF_IF_ACCESS, far_id);

	p->has_fteid = true;
	p->teid = teid;
	p->outer_hdr_removal = true;
	return p;
}

static void
set_ue4(struct upf_ip *ip, uint32_t host)
{
	memset(ip, 0, sizeof(*ip));
	ip->af = 4;
	ip->a[0] = (uint8_t)(host >> 24);
	ip->a[1] = (uint8_t)(host >> 16);
	ip->a[2] = (uint8_t)(host >> 8);
	ip->a[3] = (uint8_t)host;
}

/* Downlink PDR on a UE IPv4 address (host order) in network instance ni. */
static struct upf_pdr_conf *
add_dl(struct sb *b, uint16_t id, uint32_t prec, uint32_t ue, uint8_t ni, uint32_t far_id)
{
	struct upf_pdr_conf *p = add_pdr(b, id, prec, UPF_IF_CORE, far_id);

	set_ue4(&p->ue4, ue);
	p->ni = ni;
	return p;
}

static struct upf_qer_conf *
add_qer(struct sb *b, uint32_t id, uint64_t mbr_ul, uint64_t mbr_dl)
{
	struct upf_qer_conf *q = &b->qer[b->c.n_qer++];

	q->id = id;
	q->mbr_ul = mbr_ul;
	q->mbr_dl = mbr_dl;
	return q;
}

static void
add_urr(struct sb *b, uint32_t id)
{
	struct upf_urr_conf *u = &b->urr[b->c.n_urr++];

	u->id = id;
	u->method = UPF_MM_VOLUM;
}

/* The simplest session: one uplink and one downlink PDR, a FAR each. */
static void
sb_simple(struct sb *b, uint64_t seid, uint32_t teid, uint32_t ue)
{
	struct upf_far_conf *f;

	sb_init(b, seid);
	add_far(b, 1, UPF_FAR_FORW)->dst_iface = UPF_IF_CORE;
	f = add_far(b, 2, UPF_FAR_FORW);
	f->dst_iface = UPF_IF_ACCESS;
	f->ohc = UPF_OHC_GTPU_UDP_IPV4;
	f->ohc_teid = teid + 0x10000;
	set_ue4(&f->ohc_peer, 0xc0a80302);
	add_ul(b, 1, 100, teid, 1);
	add_dl(b, 2, 100, ue, 0, 2);
}

/* Whether mk() gives the store a direct UE range (the second group). */
static bool ue_direct;

static struct upf_store *
mk(uint32_t sessions, uint32_t urrs, uint32_t qers, unsigned int workers, struct rte_rcu_qsbr *v)
{
	struct upf_store_params p = {
		.max_sessions = sessions,
		.max_urrs = urrs,
		.max_qers = qers,
		.n_workers = workers,
		.socket = SOCKET_ID_ANY,
		.qsv = v,
		.n3_ipv4 = N3_V4,
		.ring_size = 100,
	};
	struct upf_store *s;

	p.n3_ipv6[0] = 0xfd;
	p.n3_ipv6[15] = 1;
	if (ue_direct) {
		/* The "direct" group: 10.45.0.0/16 of instance 0 in the UE
		 * table's array (upf_uetab.h), where most of these tests' UEs are. */
		p.n_ue_dir = 1;
		p.ue_dir[0].ni = 0;
		p.ue_dir[0].plen = 16;
		p.ue_dir[0].base = 0x0a2d0000;
	}
	s = upf_store_create(&p, err, sizeof(err));
	if (s == NULL)
		fail_msg("upf_store_create: %s", err);
	return s;
}

static const struct upf_sess_dp *
by_teid(const struct upf_store *s, uint32_t teid)
{
	const void *k = &teid;
	void *d;

	/* As a worker looks it up. */
	upf_teid_lookup_bulk(&s->teid, &k, 1, &d);
	return d;
}

static const struct upf_sess_dp *
by_ue4(const struct upf_store *s, uint8_t ni, uint32_t host)
{
	struct upf_ue_key k;
	struct upf_ip ip;
	void *d;

	memset(&k, 0, sizeof(k));
	set_ue4(&ip, host);
	k.ni = ni;
	k.af = 4;
	memcpy(k.a, ip.a, 4);
	/* As a worker looks it up. */
	upf_ue_lookup_bulk(&s->ue, (const void *[]){ &k }, 1, &d);
	return d;
}

/*
 * upf_sess_dp.act_need by its definition (upf.h), from the whole PDRs:
 * a direction's bit when one of its PDRs creates a tunnel, meters or has
 * two URRs.
 */
static unsigned int
act_need_ref(const struct upf_sess_dp *d)
{
	unsigned int i, j, need = 0;

	for (i = 0; i < d->n_pdr; i++) {
		const struct upf_pdr_dp *p = &d->pdr[i];
		bool mbr = false;

		for (j = 0; j < p->n_qer; j++)
			mbr |= d->qer[p->qer[j]].has_mbr != 0;
		if (d->far[p->far].ohc != 0 || mbr || p->n_urr > 1)
			need |= p->src_iface == UPF_IF_ACCESS ? 1u
				: p->src_iface == UPF_IF_CORE ? 2u
							      : 0u;
	}
	return need;
}

static int
put(struct upf_store *s, const struct sb *b)
{
	err[0] = '\0';
	return upf_store_put(s, &b->c, err, sizeof(err));
}

static void
assert_err_has(const char *a, const char *b)
{
	if (strstr(err, a) == NULL || (b != NULL && strstr(err, b) == NULL))
		fail_msg("error \"%s\" does not name \"%s\"%s%s", err, a, b ? " and " : "",
			 b ? b : "");
}

static void
assert_empty(const struct upf_store *s)
{
	struct upf_store_counts c;

	upf_store_counts(s, &c);
	assert_int_equal(c.sessions, 0);
	assert_int_equal(c.pdrs + c.fars + c.qers + c.urrs, 0);
	assert_int_equal(upf_teid_count(&s->teid), 0);
	assert_int_equal(upf_ue_count(&s->ue), 0);
}

/*
 * Counts unchanged by a failed put: everything but the slab's memory, which
 * may have grown by a block that the next put uses.
 */
static void
same_counts(const struct upf_store_counts *a, const struct upf_store_counts *b)
{
	struct upf_store_counts x = *b;

	assert_true(x.held_bytes >= a->held_bytes);
	x.held_bytes = a->held_bytes;
	assert_memory_equal(a, &x, sizeof(x));
}

/* ---- invalid input ---- */

static void
test_invalid_params(void **state)
{
	struct upf_store_params p = { .max_sessions = 0, .socket = SOCKET_ID_ANY };

	(void)state;
	err[0] = '\0';
	assert_null(upf_store_create(&p, err, sizeof(err)));
	assert_err_has("max_sessions", NULL);
	assert_null(upf_store_create(NULL, err, sizeof(err)));
	p.max_sessions = 1u << 30;
	assert_null(upf_store_create(&p, err, sizeof(err)));
	upf_store_free(NULL);
	upf_store_reclaim(NULL);
}

static void
test_invalid_session(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	struct upf_pdr_conf *p;
	struct upf_usage u;
	struct sb b;

	(void)state;
	assert_int_equal(upf_store_put(s, NULL, err, sizeof(err)), -EINVAL);

	sb_simple(&b, 0, 0x100, 0x0a2d0001);
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("up_seid", NULL);

	/* A PDR without a FAR. */
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[1].has_far = false;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 2", "FAR");

	/* A FAR, QER or URR the session does not have: the error names both ids. */
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[0].far_id = 77;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 1", "FAR 77");

	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_qer(&b, 5, 0, 0);
	p = &b.pdr[1];
	p->n_qer = 2;
	p->qer_id[0] = 5;
	p->qer_id[1] = 6;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 2", "QER 6");

	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_urr(&b, 9);
	p = &b.pdr[0];
	p->n_urr = 1;
	p->urr_id[0] = 8;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 1", "URR 8");

	/* Duplicate ids. */
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_far(&b, 2, UPF_FAR_DROP);
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("FAR id 2", NULL);
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[1].id = 1;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR id 1", NULL);

	/* An SDF prefix longer than its family's addresses; a delegated UE
	 * prefix past /48, or without an IPv6 address. */
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[0].n_sdf = 1;
	b.pdr[0].sdf[0].any_proto = true;
	b.pdr[0].sdf[0].ue.af = 4;
	b.pdr[0].sdf[0].ue.plen = 33;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 1", "SDF filter 0");
	b.pdr[0].sdf[0].ue.af = 6;
	b.pdr[0].sdf[0].ue.plen = 128;
	assert_int_equal(put(s, &b), 0);
	assert_int_equal(upf_store_del(s, 1), 0);
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[1].ue6_dbits = 8;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 2", "without an IPv6 address");
	b.pdr[1].ue6.af = 6;
	b.pdr[1].ue6_dbits = UPF_UE6_DBITS_MAX + 1;
	assert_int_equal(put(s, &b), -EINVAL);
	assert_err_has("PDR 2", "delegated");

	/* Past the limits. */
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[0].n_sdf = UPF_MAX_SDF + 1;
	assert_int_equal(put(s, &b), -EINVAL);
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.c.n_qer = UPF_MAX_QER + 1;
	assert_int_equal(put(s, &b), -EINVAL);
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.pdr[1].ue4.af = 6;
	assert_int_equal(put(s, &b), -EINVAL);
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	b.c.pdr = NULL;
	assert_int_equal(put(s, &b), -EINVAL);

	/* Nothing was left behind. */
	assert_empty(s);
	assert_null(upf_store_get(s, 1));
	assert_int_equal(upf_store_del(s, 1), -ENOENT);
	assert_int_equal(upf_store_usage(s, 1, 1, &u), -ENOENT);
	assert_int_equal(upf_store_slot_seid(s, 0), 0);
	assert_int_equal(upf_store_slot_seid(s, 1u << 31), 0);
	upf_store_free(s);
}

/* ---- what a put compiles ---- */

static void
test_compile(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 2, NULL);
	const struct upf_sess_dp *d;
	struct upf_pdr_conf *p;
	struct upf_qer_conf *q;
	struct sb b;
	unsigned int i;

	(void)state;
	sb_simple(&b, 7, 0x100, 0x0a2d0001);
	b.pdr[0].has_qfi = true;
	b.pdr[0].qfi = 9;
	b.pdr[0].n_sdf = 2;
	b.pdr[0].sdf[0].proto = 17;
	b.pdr[0].sdf[1].proto = 6;
	b.pdr[1].ni = 3;
	q = add_qer(&b, 11, 1000, 100000);
	q->gate_ul_closed = true;
	q->has_qfi = true;
	q->qfi = 5;
	add_qer(&b, 12, 0, 0)->gate_dl_closed = true;
	add_urr(&b, 21);
	add_urr(&b, 22);
	b.pdr[1].n_qer = 2;
	b.pdr[1].qer_id[0] = 12;
	b.pdr[1].qer_id[1] = 11;
	b.pdr[1].n_urr = 1;
	b.pdr[1].urr_id[0] = 22;
	/* An IPv6 downlink PDR (N6-LAN) without a network instance. */
	p = add_pdr(&b, 3, 50, UPF_IF_SGI_LAN, 2);
	p->ue6.af = 6;
	p->ue6.a[0] = 0xfd;
	p->ue6.a[1] = 0x45;
	p->ue6.a[7] = 0x01;
	p->ue6.a[15] = 0x99; /* Beyond the /64: not part of the key. */
	assert_int_equal(put(s, &b), 0);

	d = upf_store_get(s, 7);
	assert_non_null(d);
	assert_int_equal(d->up_seid, 7);
	assert_int_equal(d->n_pdr, 3);
	assert_int_equal(d->n_far, 2);
	assert_int_equal(d->n_qer, 2);
	assert_int_equal(d->n_urr, 2);
	assert_int_equal(d->n_sdf, 2);
	assert_int_equal(upf_store_slot_seid(s, d->slot), 7);

	/* The uplink's PDR 1, then the downlink's by precedence: 3 (50), 2 (100). */
	assert_int_equal(d->n_pdr_ul, 1);
	assert_int_equal(d->n_pdr_dl, 2);
	assert_int_equal(d->pdr[0].id, 1);
	assert_int_equal(d->pdr[1].id, 3);
	assert_int_equal(d->pdr[2].id, 2);

	assert_int_equal(d->pdr[0].flags, UPF_PDR_TEID | UPF_PDR_QFI | UPF_PDR_OHR);
	assert_int_equal(d->pdr[0].teid, 0x100);
	assert_int_equal(d->pdr[0].qfi, 9);
	assert_int_equal(d->pdr[0].far, 0);
	assert_int_equal(d->pdr[0].n_sdf, 2);
	assert_int_equal(d->sdf[d->pdr[0].sdf].proto, 17);
	assert_int_equal(d->sdf[d->pdr[0].sdf + 1].proto, 6);
	assert_int_equal(d->pdr[0].n_qer, 0);
	assert_int_equal(d->pdr[0].qer[0], UPF_IDX_NONE);

	assert_int_equal(d->pdr[1].src_iface, UPF_IF_CORE);
	assert_int_equal(d->pdr[1].flags, UPF_PDR_UE6);
	assert_int_equal(d->pdr[1].ue6[0], 0xfd);
	assert_int_equal(d->pdr[1].ue6[7], 0x01);
	assert_int_equal(d->pdr[1].far, 1);

	assert_int_equal(d->pdr[2].flags, UPF_PDR_UE4);
	assert_memory_equal(&d->pdr[2].ue4, "\x0a\x2d\x00\x01", 4);
	assert_int_equal(d->pdr[2].n_qer, 2);
	assert_int_equal(d->pdr[2].qer[0], 1);
	assert_int_equal(d->pdr[2].qer[1], 0);
	assert_int_equal(d->pdr[2].n_urr, 1);
	assert_int_equal(d->pdr[2].urr[0], 1);
	assert_int_equal(d->pdr[2].urr[1], UPF_IDX_NONE);
	/* The downlink creates a tunnel, the uplink (to N6, no MBR, no
	 * second URR) needs no act line; the flags say so in the match entry. */
	assert_int_equal(d->act_need, 2);
	assert_int_equal(d->act_need, act_need_ref(d));
	assert_int_equal(d->match[0].far_apply, UPF_FAR_FORW);
	assert_int_equal(d->match[0].far_tunnel, 0);
	assert_int_equal(d->match[2].far_tunnel, 1);
	assert_int_equal(d->match[2].urr_slot0, d->urr[1].slot);

	/* FARs: our N3 address as the outer source, the peer's, host-order TEID. */
	assert_int_equal(d->far[1].id, 2);
	assert_int_equal(d->far[1].ohc, UPF_OHC_GTPU_UDP_IPV4);
	assert_int_equal(d->far[1].teid, 0x10100);
	assert_memory_equal(&d->far[1].peer4, "\xc0\xa8\x03\x02", 4);
	assert_int_equal(d->far[1].src4, N3_V4);
	/* Its outer IPv4 and UDP headers, the lengths 0 and the checksum field
	 * the ones' complement sum of the rest (big-endian words, byte by
	 * byte here), not inverted. */
	{
		uint8_t want[UPF_FAR_HDR4] = { 0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0 };
		uint32_t sum = 0;
		unsigned int i;

		memcpy(&want[12], &d->far[1].src4, 4);
		memcpy(&want[16], "\xc0\xa8\x03\x02", 4);
		want[20] = want[22] = 0x08; /* Ports 2152. */
		want[21] = want[23] = 0x68;
		for (i = 0; i < 20; i += 2)
			sum += (uint32_t)want[i] << 8 | want[i + 1];
		while (sum > 0xffff)
			sum = (sum & 0xffff) + (sum >> 16);
		want[10] = (uint8_t)(sum >> 8);
		want[11] = (uint8_t)sum;
		assert_memory_equal(d->far[1].hdr4, want, UPF_FAR_HDR4);
	}
	assert_int_equal(d->far[0].apply, UPF_FAR_FORW);

	/* QERs: gates, QFI, MBR profiles (10 ms of the rate, at least 16 KiB). */
	assert_int_equal(d->qer[0].gate, 1);
	assert_int_equal(d->qer[0].qfi, 5);
	assert_int_equal(d->qer[0].has_mbr, 3);
	assert_int_equal(d->qer[0].prof[0].cbs, 16384);
	assert_int_equal(d->qer[0].prof[1].cbs, 100000 * 1000 / 8 / 100);
	assert_int_equal(d->qer[0].prof[1].pbs, 100000 * 1000 / 8 / 100);
	assert_int_equal(d->qer[1].gate, 2);
	assert_int_equal(d->qer[1].has_mbr, 0);
	assert_int_equal(d->qer[1].qfi, 0);
	assert_int_not_equal(d->qer[0].meter_gen, 0);
	assert_int_not_equal(d->qer[1].meter_gen, 0);
	assert_int_not_equal(d->qer[0].meter_gen, d->qer[1].meter_gen);
	assert_int_not_equal(d->qer[0].meter, d->qer[1].meter);
	assert_true(d->qer[0].meter < 16 && d->qer[1].meter < 16);
	assert_int_equal(d->urr[0].id, 21);
	assert_int_equal(d->urr[1].id, 22);
	assert_int_not_equal(d->urr[0].slot, d->urr[1].slot);

	/* Keys: the TEID, the UE IPv4 in its network instance, the UE /64 in 0. */
	assert_ptr_equal(by_teid(s, 0x100), d);
	assert_ptr_equal(by_ue4(s, 3, 0x0a2d0001), d);
	assert_null(by_ue4(s, 0, 0x0a2d0001));
	{
		struct upf_ue_key k;

		memset(&k, 0, sizeof(k));
		k.af = 6;
		k.a[0] = 0xfd;
		k.a[1] = 0x45;
		k.a[7] = 0x01;
		assert_ptr_equal(upf_ue_find(&s->ue, &k), d);
	}
	assert_int_equal(upf_teid_count(&s->teid), 1);
	assert_int_equal(upf_ue_count(&s->ue), 2);

	for (i = 0; i < UPF_DROP_COUNT; i++)
		assert_non_null(upf_drop_names[i]);
	assert_string_equal(upf_drop_names[UPF_DROP_UNKNOWN_TEID], "unknown_teid");
	upf_store_free(s);
}

/*
 * The PDRs in groups by direction, each by precedence with ties in the
 * order given: uplink (ACCESS), downlink (CORE and SGI_LAN, the latter
 * compiled as CORE), then the rest (CP-function), whatever the precedences
 * across groups. Each entry keeps its own SDFs and FAR.
 */
static void
test_pdr_groups(void **state)
{
	static const struct {
		uint16_t id;
		uint8_t iface;
		uint32_t prec;
	} want[] = {
		{ 1, UPF_IF_ACCESS, 10 }, { 6, UPF_IF_ACCESS, 10 }, { 3, UPF_IF_ACCESS, 300 },
		{ 2, UPF_IF_CORE, 5 },    { 7, UPF_IF_CORE, 5 },    { 4, UPF_IF_CORE, 20 },
		{ 5, UPF_IF_CP, 1 },
	};
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	const struct upf_sess_dp *d;
	struct sb b;
	unsigned int i;

	(void)state;
	sb_init(&b, 9);
	add_far(&b, 1, UPF_FAR_FORW)->dst_iface = UPF_IF_CORE;
	add_far(&b, 2, UPF_FAR_FORW)->dst_iface = UPF_IF_ACCESS;
	add_far(&b, 3, UPF_FAR_DROP);
	add_ul(&b, 1, 10, 0x100, 1);
	add_dl(&b, 2, 5, 0x0a2d0001, 0, 2);
	add_ul(&b, 3, 300, 0x100, 1);
	add_dl(&b, 4, 20, 0x0a2d0001, 0, 2)->src_iface = UPF_IF_SGI_LAN;
	add_pdr(&b, 5, 1, UPF_IF_CP, 3);
	add_ul(&b, 6, 10, 0x100, 3); /* Ties with 1: after it. */
	add_dl(&b, 7, 5, 0x0a2d0001, 0, 3); /* Ties with 2: after it. */
	/* SDFs told apart by protocol: the entry's own stay with it. */
	for (i = 0; i < b.c.n_pdr; i++) {
		b.pdr[i].n_sdf = 1;
		b.pdr[i].sdf[0].proto = (uint8_t)(100 + b.pdr[i].id);
	}
	assert_int_equal(put(s, &b), 0);

	d = upf_store_get(s, 9);
	assert_non_null(d);
	assert_int_equal(d->n_pdr, 7);
	assert_int_equal(d->n_pdr_ul, 3);
	assert_int_equal(d->n_pdr_dl, 3);
	assert_int_equal(d->n_sdf, 7);
	for (i = 0; i < RTE_DIM(want); i++) {
		const struct upf_pdr_dp *p = &d->pdr[i];

		assert_int_equal(p->id, want[i].id);
		assert_int_equal(p->src_iface, want[i].iface);
		assert_int_equal(p->precedence, want[i].prec);
		assert_int_equal(p->n_sdf, 1);
		assert_int_equal(d->sdf[p->sdf].proto, 100 + p->id);
		assert_int_equal(d->far[p->far].id,
				 p->id >= 5                              ? 3
					 : p->src_iface == UPF_IF_ACCESS ? 1
									 : 2);
	}
	/* What a packet reads instead (upf.h): each PDR's match entry and act
	 * line say what its whole form says, on lines of their own. */
	assert_int_equal((uintptr_t)d->match % RTE_CACHE_LINE_SIZE, 0);
	assert_int_equal((uintptr_t)d->act % RTE_CACHE_LINE_SIZE, 0);
	for (i = 0; i < d->n_pdr; i++) {
		const struct upf_pdr_dp *p = &d->pdr[i];
		const struct upf_pdr_match *mt = &d->match[i];
		const struct upf_pdr_act *a = &d->act[i];
		unsigned int j;

		assert_int_equal(mt->flags, p->flags);
		assert_int_equal(mt->teid, p->teid);
		assert_int_equal(mt->ue4, p->ue4);
		assert_memory_equal(mt->ue6, p->ue6, 8);
		assert_int_equal(mt->qfi, p->qfi);
		assert_int_equal(mt->n_sdf, p->n_sdf);
		assert_int_equal(mt->sdf, p->sdf);
		assert_int_equal(mt->n_urr, p->n_urr);
		assert_int_equal(mt->n_qer, p->n_qer);
		assert_memory_equal(&a->fwd, &d->far[p->far], sizeof(a->fwd));
		for (j = 0; j < p->n_urr; j++)
			assert_int_equal(a->urr_slot[j], d->urr[p->urr[j]].slot);
		/* What an uplink to N6 reads instead of the act line. */
		assert_int_equal(mt->far_apply, d->far[p->far].apply);
		assert_int_equal(mt->far_tunnel, d->far[p->far].ohc != 0);
		if (p->n_urr != 0)
			assert_int_equal(mt->urr_slot0, a->urr_slot[0]);
	}
	assert_int_equal(d->act_need, act_need_ref(d));
	/* The keys are the directions' as before: one TEID, one UE address. */
	assert_ptr_equal(by_teid(s, 0x100), d);
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0001), d);
	assert_int_equal(upf_ue_count(&s->ue), 1);

	/* A modification regroups: PDR 3 moves to the downlink, 5 goes. */
	b.pdr[2].src_iface = UPF_IF_CORE;
	b.pdr[2].has_fteid = false;
	b.c.n_pdr--;
	b.pdr[4] = b.pdr[b.c.n_pdr];
	assert_int_equal(put(s, &b), 0);
	d = upf_store_get(s, 9);
	assert_int_equal(d->n_pdr, 6);
	assert_int_equal(d->n_pdr_ul, 2);
	assert_int_equal(d->n_pdr_dl, 4);
	assert_int_equal(d->pdr[0].id, 1);
	assert_int_equal(d->pdr[1].id, 6);
	assert_int_equal(d->pdr[2].id, 2);
	assert_int_equal(d->pdr[3].id, 7);
	assert_int_equal(d->pdr[4].id, 4);
	assert_int_equal(d->pdr[5].id, 3);

	/* No uplink PDR at all: the downlink's start at 0. */
	sb_init(&b, 10);
	add_far(&b, 2, UPF_FAR_FORW)->dst_iface = UPF_IF_ACCESS;
	add_pdr(&b, 1, 1, UPF_IF_CP, 2);
	add_dl(&b, 2, 50, 0x0a2d0002, 0, 2);
	assert_int_equal(put(s, &b), 0);
	d = upf_store_get(s, 10);
	assert_int_equal(d->n_pdr_ul, 0);
	assert_int_equal(d->n_pdr_dl, 1);
	assert_int_equal(d->pdr[0].id, 2);
	assert_int_equal(d->pdr[1].id, 1);
	upf_store_free(s);
}

/* Several PDRs on one TEID and one UE address: one key each, removed with the session. */
static void
test_shared_keys(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	struct sb b;

	(void)state;
	sb_simple(&b, 7, 0x100, 0x0a2d0001);
	add_ul(&b, 3, 10, 0x100, 1)->n_sdf = 1;
	add_dl(&b, 4, 10, 0x0a2d0001, 0, 2)->n_sdf = 1;
	assert_int_equal(put(s, &b), 0);
	assert_int_equal(upf_teid_count(&s->teid), 1);
	assert_int_equal(upf_ue_count(&s->ue), 1);
	/* Each direction's first by precedence: uplink 3, 1; downlink 4, 2. */
	assert_int_equal(upf_store_get(s, 7)->pdr[0].id, 3);
	assert_int_equal(upf_store_get(s, 7)->pdr[2].id, 4);
	assert_int_equal(upf_store_del(s, 7), 0);
	assert_empty(s);
	upf_store_free(s);
}

/* ---- replace, conflict, delete ---- */

static void
test_replace(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	const struct upf_sess_dp *d1, *d2, *d3;
	struct upf_qer_dp q1[2];
	struct upf_urr_dp u1;
	uint32_t slot1;
	struct sb b;

	(void)state;
	sb_simple(&b, 7, 0x100, 0x0a2d0001);
	add_qer(&b, 11, 1000, 1000);
	add_qer(&b, 12, 2000, 0);
	add_urr(&b, 21);
	add_urr(&b, 22);
	assert_int_equal(put(s, &b), 0);
	d1 = upf_store_get(s, 7);
	/* Without a QSBR variable the old object goes at once: keep what we compare. */
	memcpy(q1, d1->qer, sizeof(q1));
	u1 = d1->urr[0];
	slot1 = d1->slot;

	/* New TEID, same UE; QER 11 the same, 12 a new MBR, 13 new; URR 21 kept, 22 gone. */
	b.pdr[0].teid = 0x200;
	b.qer[1].mbr_ul = 3000;
	add_qer(&b, 13, 0, 0);
	b.c.n_urr = 1;
	assert_int_equal(put(s, &b), 0);
	d2 = upf_store_get(s, 7);
	assert_ptr_not_equal(d1, d2);
	assert_int_equal(d2->slot, slot1);
	assert_null(by_teid(s, 0x100));
	assert_ptr_equal(by_teid(s, 0x200), d2);
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0001), d2);
	assert_int_equal(upf_teid_count(&s->teid), 1);
	assert_int_equal(upf_ue_count(&s->ue), 1);

	assert_int_equal(d2->qer[0].meter, q1[0].meter);
	assert_int_equal(d2->qer[0].meter_gen, q1[0].meter_gen);
	assert_int_equal(d2->qer[1].meter, q1[1].meter);
	assert_int_not_equal(d2->qer[1].meter_gen, q1[1].meter_gen);
	assert_int_not_equal(d2->qer[2].meter, q1[0].meter);
	assert_int_not_equal(d2->qer[2].meter, q1[1].meter);
	assert_int_not_equal(d2->qer[2].meter_gen, 0);
	assert_int_equal(d2->urr[0].slot, u1.slot);
	{
		struct upf_store_counts c;

		upf_store_counts(s, &c);
		assert_int_equal(c.sessions, 1);
		assert_int_equal(c.pdrs, 2);
		assert_int_equal(c.fars, 2);
		assert_int_equal(c.qers, 3);
		assert_int_equal(c.urrs, 1);
	}

	/* Uplink gone, a second UE address: the TEID leaves, the address comes. */
	b.pdr[0] = b.pdr[1];
	b.pdr[0].id = 1;
	set_ue4(&b.pdr[0].ue4, 0x0a2d0002);
	assert_int_equal(put(s, &b), 0);
	d3 = upf_store_get(s, 7);
	assert_int_equal(upf_teid_count(&s->teid), 0);
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0001), d3);
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0002), d3);

	assert_int_equal(upf_store_del(s, 7), 0);
	assert_null(upf_store_get(s, 7));
	assert_int_equal(upf_store_slot_seid(s, slot1), 0);
	assert_int_equal(upf_store_del(s, 7), -ENOENT);
	assert_empty(s);
	upf_store_free(s);
}

static void
test_conflict(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	const struct upf_sess_dp *a, *bb;
	struct upf_store_counts c0, c1;
	struct sb b;

	(void)state;
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	assert_int_equal(put(s, &b), 0);
	a = upf_store_get(s, 1);
	sb_simple(&b, 2, 0x200, 0x0a2d0002);
	add_urr(&b, 1);
	assert_int_equal(put(s, &b), 0);
	bb = upf_store_get(s, 2);
	upf_store_counts(s, &c0);

	/* A new session on a held TEID, and on a held UE address. */
	sb_simple(&b, 3, 0x100, 0x0a2d0003);
	assert_int_equal(put(s, &b), -EEXIST);
	assert_err_has("0x00000100", "0x1");
	sb_simple(&b, 3, 0x300, 0x0a2d0001);
	assert_int_equal(put(s, &b), -EEXIST);
	assert_err_has("10.45.0.1", NULL);
	assert_null(upf_store_get(s, 3));
	assert_null(by_teid(s, 0x300));

	/* A modification of session 2: a new TEID, a new URR, then a held address. */
	sb_simple(&b, 2, 0x201, 0x0a2d0002);
	add_urr(&b, 1);
	add_urr(&b, 2);
	add_dl(&b, 3, 5, 0x0a2d0001, 0, 2);
	assert_int_equal(put(s, &b), -EEXIST);
	assert_ptr_equal(upf_store_get(s, 2), bb);
	assert_ptr_equal(by_teid(s, 0x200), bb);
	assert_null(by_teid(s, 0x201));
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0002), bb);
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0001), a);
	upf_store_counts(s, &c1);
	same_counts(&c0, &c1);

	/* A framed route over the direct range (the "direct" group's 10.45/16)
	 * is refused, leaving nothing; elsewhere, or without a range, taken. */
	sb_simple(&b, 4, 0x400, 0x0a2d0004);
	b.pdr[1].n_framed = 1;
	b.pdr[1].framed[0] = (struct upf_prefix){ .af = 4, .plen = 24, .a = { 10, 45, 7, 0 } };
	if (ue_direct) {
		assert_int_equal(put(s, &b), -EINVAL);
		assert_err_has("10.45.7.0/24", "direct range");
		assert_null(upf_store_get(s, 4));
		assert_null(by_teid(s, 0x400));
		assert_true(s->ue.dlen4 == 0);
	} else {
		assert_int_equal(put(s, &b), 0);
		assert_ptr_equal(by_ue4(s, 0, 0x0a2d0709), upf_store_get(s, 4));
		assert_int_equal(upf_store_del(s, 4), 0);
	}
	b.pdr[1].framed[0].a[0] = 192;
	assert_int_equal(put(s, &b), 0);
	assert_ptr_equal(by_ue4(s, 0, 0xc02d0709), upf_store_get(s, 4));
	upf_store_free(s);
}

/* A key table fills up in the middle of a put: everything is undone. */
static void
test_table_full_rollback(void **state)
{
	/* Two sessions: key tables of 62 entries (the power of 2 above 64, less 2). */
	struct upf_store *s = mk(2, 16, 16, 1, NULL);
	const struct upf_sess_dp *d1, *d2;
	struct upf_store_counts c0, c1;
	struct sb b;
	unsigned int i;

	(void)state;
	sb_init(&b, 1);
	add_far(&b, 1, UPF_FAR_FORW);
	for (i = 0; i < UPF_MAX_PDR; i++)
		add_ul(&b, (uint16_t)i, i, 1 + i, 1);
	add_urr(&b, 1);
	assert_int_equal(put(s, &b), 0);
	d1 = upf_store_get(s, 1);

	sb_init(&b, 2);
	add_far(&b, 1, UPF_FAR_FORW);
	for (i = 0; i < 28; i++)
		add_ul(&b, (uint16_t)i, i, 101 + i, 1);
	assert_int_equal(put(s, &b), 0);
	d2 = upf_store_get(s, 2);
	assert_int_equal(upf_teid_count(&s->teid), 60);
	upf_store_counts(s, &c0);

	/* Session 1 keeps TEIDs 1..16 and asks for 16 new ones: 2 fit. */
	sb_init(&b, 1);
	add_far(&b, 1, UPF_FAR_FORW);
	for (i = 0; i < UPF_MAX_PDR; i++)
		add_ul(&b, (uint16_t)i, i, i < 16 ? 1 + i : 201 + i, 1);
	add_urr(&b, 1);
	add_urr(&b, 2);
	assert_int_equal(put(s, &b), -ENOSPC);
	assert_err_has("TEID", "full");
	assert_ptr_equal(upf_store_get(s, 1), d1);
	for (i = 0; i < UPF_MAX_PDR; i++) {
		assert_ptr_equal(by_teid(s, 1 + i), d1);
		assert_null(by_teid(s, 201 + i));
	}
	assert_int_equal(upf_teid_count(&s->teid), 60);
	upf_store_counts(s, &c1);
	same_counts(&c0, &c1);

	/* A third session is refused for want of a slot, not of keys. */
	sb_simple(&b, 3, 0x300, 0x0a2d0003);
	assert_int_equal(put(s, &b), -ENOSPC);
	assert_err_has("sessions", NULL);

	/* Session 2 gives up its keys: session 1's change now fits whole. */
	assert_int_equal(upf_store_del(s, 2), 0);
	(void)d2;
	sb_init(&b, 1);
	add_far(&b, 1, UPF_FAR_FORW);
	for (i = 0; i < UPF_MAX_PDR; i++)
		add_ul(&b, (uint16_t)i, i, i < 16 ? 1 + i : 201 + i, 1);
	assert_int_equal(put(s, &b), 0);
	assert_int_equal(upf_teid_count(&s->teid), 32);
	assert_ptr_equal(by_teid(s, 1), upf_store_get(s, 1));
	assert_ptr_equal(by_teid(s, 201 + 31), upf_store_get(s, 1));
	assert_null(by_teid(s, 32));
	upf_store_free(s);
}

/* ---- slots ---- */

static void
test_enospc(void **state)
{
	struct upf_store *s = mk(4, 3, 2, 1, NULL);
	struct upf_store_counts c0, c1;
	struct sb b;

	(void)state;
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_urr(&b, 1);
	add_urr(&b, 2);
	add_qer(&b, 1, 0, 0);
	assert_int_equal(put(s, &b), 0);
	upf_store_counts(s, &c0);

	/* Two URRs wanted, one left: nothing taken (the next put gets it). */
	sb_simple(&b, 2, 0x200, 0x0a2d0002);
	add_urr(&b, 1);
	add_urr(&b, 2);
	assert_int_equal(put(s, &b), -ENOSPC);
	assert_err_has("URR 2", "counter slots");
	sb_simple(&b, 2, 0x200, 0x0a2d0002);
	add_qer(&b, 1, 0, 0);
	add_qer(&b, 2, 0, 0);
	assert_int_equal(put(s, &b), -ENOSPC);
	assert_err_has("QER 2", "meter slots");
	assert_null(upf_store_get(s, 2));
	upf_store_counts(s, &c1);
	same_counts(&c0, &c1);

	sb_simple(&b, 2, 0x200, 0x0a2d0002);
	add_urr(&b, 1);
	add_qer(&b, 1, 0, 0);
	assert_int_equal(put(s, &b), 0);
	sb_simple(&b, 3, 0x300, 0x0a2d0003);
	assert_int_equal(put(s, &b), 0);
	sb_simple(&b, 4, 0x400, 0x0a2d0004);
	assert_int_equal(put(s, &b), 0);
	sb_simple(&b, 5, 0x500, 0x0a2d0005);
	assert_int_equal(put(s, &b), -ENOSPC);
	assert_err_has("all 4 sessions", NULL);

	/* A modification needs no new session slot, and a freed one is reused. */
	sb_simple(&b, 4, 0x401, 0x0a2d0004);
	assert_int_equal(put(s, &b), 0);
	assert_int_equal(upf_store_del(s, 3), 0);
	sb_simple(&b, 5, 0x500, 0x0a2d0005);
	assert_int_equal(put(s, &b), 0);
	upf_store_free(s);
}

static void
test_usage_and_reuse(void **state)
{
	struct upf_store *s = mk(8, 2, 2, 2, NULL);
	struct upf_usage u;
	uint32_t slot, i;
	struct sb b;

	(void)state;
	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_urr(&b, 5);
	assert_int_equal(put(s, &b), 0);
	slot = upf_store_get(s, 1)->urr[0].slot;
	assert_int_equal(upf_store_usage(s, 1, 5, &u), 0);
	assert_int_equal(u.bytes[0] + u.bytes[1] + u.pkts[0] + u.pkts[1], 0);
	assert_int_equal(upf_store_usage(s, 1, 6, &u), -ENOENT);

	/* The test plays two workers counting. */
	s->wk[0].urr[slot].bytes[0] = 1000;
	s->wk[0].urr[slot].pkts[0] = 10;
	s->wk[1].urr[slot].bytes[0] = 500;
	s->wk[1].urr[slot].pkts[0] = 5;
	s->wk[1].urr[slot].bytes[1] = 70;
	s->wk[1].urr[slot].pkts[1] = 1;
	assert_int_equal(upf_store_usage(s, 1, 5, &u), 0);
	assert_int_equal(u.bytes[0], 1500);
	assert_int_equal(u.pkts[0], 15);
	assert_int_equal(u.bytes[1], 70);
	assert_int_equal(u.pkts[1], 1);

	/* A modification that keeps URR 5 keeps its count. */
	b.pdr[0].teid = 0x101;
	add_urr(&b, 6);
	assert_int_equal(put(s, &b), 0);
	assert_int_equal(upf_store_get(s, 1)->urr[0].slot, slot);
	assert_int_equal(upf_store_usage(s, 1, 5, &u), 0);
	assert_int_equal(u.bytes[0], 1500);
	assert_int_equal(upf_store_usage(s, 1, 6, &u), 0);
	assert_int_equal(u.bytes[0], 0);

	s->wk[0].urr[upf_store_get(s, 1)->urr[1].slot].bytes[1] = 300;

	/* The slots, reused by another session, count from zero. */
	assert_int_equal(upf_store_del(s, 1), 0);
	sb_simple(&b, 2, 0x200, 0x0a2d0002);
	add_urr(&b, 1);
	add_urr(&b, 2);
	assert_int_equal(put(s, &b), 0);
	assert_true(upf_store_get(s, 2)->urr[0].slot == slot ||
		    upf_store_get(s, 2)->urr[1].slot == slot);
	for (i = 1; i <= 2; i++) {
		assert_int_equal(upf_store_usage(s, 2, i, &u), 0);
		assert_int_equal(u.bytes[0] + u.bytes[1] + u.pkts[0] + u.pkts[1], 0);
	}
	s->wk[0].urr[slot].bytes[0] += 64;
	s->wk[0].urr[slot].pkts[0] += 1;
	i = upf_store_get(s, 2)->urr[0].slot == slot ? 1 : 2;
	assert_int_equal(upf_store_usage(s, 2, i, &u), 0);
	assert_int_equal(u.bytes[0], 64);
	assert_int_equal(u.pkts[0], 1);
	assert_int_equal(u.bytes[1], 0);
	upf_store_free(s);
}

static void
test_counts_and_rings(void **state)
{
	struct upf_store *s = mk(1000, 1000, 1000, 2, NULL);
	struct upf_store *s2 = mk(10, 10, 10, 2, NULL); /* Two stores side by side. */
	struct upf_store_counts c0, c1, c2;
	struct sb b;
	unsigned int i, k;
	void *m = &m;

	(void)state;
	upf_store_counts(s, &c0);
	assert_int_equal(c0.sessions, 0);
	assert_true(c0.bytes > 0);
	for (i = 0; i < 1000; i++) {
		sb_simple(&b, 1 + i, 0x1000 + i, 0x0a2d0000 + i);
		add_urr(&b, 1);
		add_qer(&b, 1, 1000, 1000);
		assert_int_equal(put(s, &b), 0);
	}
	upf_store_counts(s, &c1);
	assert_int_equal(c1.sessions, 1000);
	assert_int_equal(c1.pdrs, 2000);
	assert_int_equal(c1.fars, 2000);
	assert_int_equal(c1.qers, 1000);
	assert_int_equal(c1.urrs, 1000);
	assert_true(c1.bytes > c0.bytes + 1000 * sizeof(struct upf_sess_dp));
	for (i = 0; i < 1000; i++) {
		const struct upf_sess_dp *d = upf_store_get(s, 1 + i);

		assert_int_equal(upf_store_slot_seid(s, d->slot), 1 + i);
		assert_ptr_equal(by_teid(s, 0x1000 + i), d);
	}
	for (i = 0; i < 1000; i += 2)
		assert_int_equal(upf_store_del(s, 1 + i), 0);
	for (i = 0; i < 1000; i++)
		assert_true((upf_store_get(s, 1 + i) != NULL) == (i % 2 == 1));
	for (i = 0; i < 1000; i += 2)
		assert_int_equal(upf_store_del(s, 2 + i), 0);
	upf_store_counts(s, &c2);
	assert_int_equal(c2.sessions, 0);
	assert_int_equal(c2.bytes, c0.bytes);
	/* The objects' slab blocks stay the store's, for the next sessions:
	 * as many again take no more. */
	assert_true(c1.held_bytes >= 1000 * sizeof(struct upf_sess_dp));
	assert_int_equal(c2.held_bytes, c1.held_bytes);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 1000; i++) {
			sb_simple(&b, 1 + i, 0x1000 + i, 0x0a2d0000 + i);
			add_urr(&b, 1);
			add_qer(&b, 1, 1000, 1000);
			assert_int_equal(put(s, &b), 0);
		}
		upf_store_counts(s, &c2);
		assert_int_equal(c2.sessions, 1000);
		assert_int_equal(c2.bytes, c1.bytes);
		assert_int_equal(c2.held_bytes, c1.held_bytes);
		for (i = 0; i < 1000; i++)
			assert_int_equal(upf_store_del(s, 1 + i), 0);
	}
	/* A session too large for the slab has memory of its own, given back
	 * with it: every PDR with all its SDF filters. */
	sb_init(&b, 5000);
	add_far(&b, 1, UPF_FAR_FORW)->dst_iface = UPF_IF_CORE;
	for (i = 0; i < UPF_MAX_PDR; i++) {
		add_ul(&b, (uint16_t)(1 + i), 100 + i, 0x9000, 1)->n_sdf = UPF_MAX_SDF;
		for (k = 0; k < UPF_MAX_SDF; k++)
			b.pdr[i].sdf[k].any_proto = true;
	}
	assert_int_equal(put(s, &b), 0);
	upf_store_counts(s, &c2);
	assert_true(c2.held_bytes >
		    c1.held_bytes + UPF_MAX_PDR * UPF_MAX_SDF * sizeof(struct upf_sdf));
	assert_true(c2.bytes > c0.bytes + UPF_MAX_PDR * UPF_MAX_SDF * sizeof(struct upf_sdf));
	assert_ptr_equal(by_teid(s, 0x9000), upf_store_get(s, 5000));
	assert_int_equal(upf_store_del(s, 5000), 0);
	upf_store_counts(s, &c2);
	assert_int_equal(c2.bytes, c0.bytes);
	assert_int_equal(c2.held_bytes, c1.held_bytes);
	assert_empty(s);

	/* The rings: SP/SC, exactly ring_size entries, one pair per worker. */
	for (i = 0; i < 2; i++) {
		assert_non_null(s->wk[i].to_ctrl);
		assert_non_null(s->wk[i].from_ctrl);
		assert_int_equal(rte_ring_get_capacity(s->wk[i].to_ctrl), 100);
		assert_true(rte_ring_is_prod_single(s->wk[i].to_ctrl));
		assert_true(rte_ring_is_cons_single(s->wk[i].from_ctrl));
		assert_ptr_not_equal(s->wk[i].to_ctrl, s2->wk[i].to_ctrl);
		assert_true(((uintptr_t)&s->wk[i] % RTE_CACHE_LINE_SIZE) == 0);
	}
	assert_int_equal(rte_ring_enqueue(s->wk[0].to_ctrl, m), 0);
	assert_int_equal(rte_ring_count(s->wk[0].to_ctrl), 1);
	rte_ring_dequeue(s->wk[0].to_ctrl, &m);
	upf_store_free(s2);
	upf_store_free(s);
}

/* ---- the grace period ---- */

static void
test_rcu_grace(void **state)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	struct rte_rcu_qsbr *v = rte_zmalloc("test_qsv", sz, RTE_CACHE_LINE_SIZE);
	struct upf_store *s;
	struct upf_usage u;
	struct sb b;
	uint32_t urr_slot;

	(void)state;
	assert_non_null(v);
	assert_int_equal(rte_rcu_qsbr_init(v, 1), 0);
	assert_int_equal(rte_rcu_qsbr_thread_register(v, 0), 0);
	s = mk(1, 1, 1, 1, v);
	/* This thread plays the worker: online, and holding what it read. */
	rte_rcu_qsbr_thread_online(v, 0);

	sb_simple(&b, 1, 0x100, 0x0a2d0001);
	add_urr(&b, 1);
	assert_int_equal(put(s, &b), 0);
	urr_slot = upf_store_get(s, 1)->urr[0].slot;
	s->wk[0].urr[urr_slot].bytes[0] = 999;

	/* Replacing twice: the old objects wait, the slots stay. */
	b.pdr[0].teid = 0x101;
	assert_int_equal(put(s, &b), 0);
	b.pdr[0].teid = 0x100;
	assert_int_equal(put(s, &b), 0);
	assert_ptr_equal(by_teid(s, 0x100), upf_store_get(s, 1));
	assert_null(by_teid(s, 0x101));

	/* The one session slot is not free until the worker has passed a
	 * quiescent state (the put waits a little, then gives up). */
	assert_int_equal(upf_store_del(s, 1), 0);
	assert_null(by_teid(s, 0x100));
	sb_simple(&b, 2, 0x100, 0x0a2d0001);
	add_urr(&b, 1);
	assert_int_equal(put(s, &b), -ENOSPC);
	upf_store_reclaim(s);
	assert_int_equal(put(s, &b), -ENOSPC);

	rte_rcu_qsbr_quiescent(v, 0);
	upf_store_reclaim(s);
	assert_int_equal(put(s, &b), 0);
	assert_ptr_equal(by_teid(s, 0x100), upf_store_get(s, 2));
	assert_ptr_equal(by_ue4(s, 0, 0x0a2d0001), upf_store_get(s, 2));
	assert_int_equal(upf_store_get(s, 2)->urr[0].slot, urr_slot);
	assert_int_equal(upf_store_usage(s, 2, 1, &u), 0);
	assert_int_equal(u.bytes[0], 0);

	/* Freeing the store: the worker has gone offline. */
	assert_int_equal(upf_store_del(s, 2), 0);
	rte_rcu_qsbr_thread_offline(v, 0);
	upf_store_free(s);
	rte_free(v);
}

/* ---- the TEID table on its own, against a naive model ---- */

#define TM_MAX 1500 /* TEIDs held at most */
#define TM_DEAD 256 /* Deleted TEIDs remembered, to check they miss */
#define TM_BATCH 100 /* More than one bulk of 64: both loops of the lookup */

/* The table never reads an object: any distinct non-NULL value will do. */
static void *
fake_obj(uint32_t k, bool high)
{
	uint64_t p = 0x10000 + (uint64_t)k * 64;

	return (void *)(uintptr_t)(high ? p | UINT64_C(1) << UPF_TEID_PTR_BITS : p);
}

static struct rte_hash *
teid_hash(uint32_t entries)
{
	static unsigned int seq;
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = entries,
		.key_len = sizeof(uint32_t),
		.socket_id = SOCKET_ID_ANY,
		/* As the store's: a deleted key's slot is freed by its owner. */
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct rte_hash *h;

	snprintf(name, sizeof(name), "ut_teid%u", seq++);
	h = rte_hash_create(&hp);
	assert_non_null(h);
	return h;
}

struct teid_model {
	uint32_t teid[TM_MAX];
	void *obj[TM_MAX];
	unsigned int n;
	uint32_t dead[TM_DEAD];
	unsigned int n_dead, dead_at;
};

static int
tm_find(const struct teid_model *m, uint32_t teid)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (m->teid[i] == teid)
			return (int)i;
	return -1;
}

static void
tm_forget_dead(struct teid_model *m, uint32_t teid)
{
	unsigned int i;

	for (i = 0; i < m->n_dead; i++)
		if (m->dead[i] == teid)
			m->dead[i] = m->dead[--m->n_dead];
	m->dead_at = m->n_dead < TM_DEAD ? m->n_dead : m->dead_at;
}

static void
tm_add(struct upf_teid_tab *t, struct teid_model *m, uint32_t teid, void *obj)
{
	int i = tm_find(m, teid);

	assert_int_equal(upf_teid_add(t, teid, obj), 0);
	if (i < 0) {
		i = (int)m->n++;
		m->teid[i] = teid;
		tm_forget_dead(m, teid);
	}
	m->obj[i] = obj;
}

static void
tm_del(struct upf_teid_tab *t, struct teid_model *m, unsigned int i)
{
	const uint32_t teid = m->teid[i];
	int32_t pos = upf_teid_del(t, teid);

	if (pos >= 0)
		assert_int_equal(rte_hash_free_key_with_position(t->h, pos), 0);
	m->teid[i] = m->teid[--m->n];
	m->obj[i] = m->obj[m->n];
	m->dead[m->dead_at] = teid;
	m->dead_at = (m->dead_at + 1) % TM_DEAD;
	if (m->n_dead < TM_DEAD)
		m->n_dead++;
}

/* The n TEIDs key[] (k[] points at them) in one bulk lookup: want[] each. */
static void
tm_bulk(const struct upf_teid_tab *t, const uint32_t *key, const void **k, void *const *want,
	unsigned int n, const char *what)
{
	void *got[TM_BATCH];
	unsigned int j;

	if (n == 0)
		return;
	upf_teid_lookup_bulk(t, k, n, got);
	for (j = 0; j < n; j++)
		if (got[j] != want[j])
			fail_msg("TEID 0x%08x (%s): bulk lookup %p, model %p", key[j], what, got[j],
				 want[j]);
}

/*
 * Every TEID held answers its object, one by one and in bulk (bursts of
 * any TEIDs, then of those outside the direct range only, which go to the
 * hash in place); every dead one misses.
 */
static void
tm_check(const struct upf_teid_tab *t, const struct teid_model *m)
{
	uint32_t key[TM_BATCH];
	const void *k[TM_BATCH];
	void *want[TM_BATCH];
	unsigned int i, pass, n;

	assert_int_equal(upf_teid_count(t), m->n);
	for (pass = 0; pass < 2; pass++) {
		n = 0;
		for (i = 0; i < m->n + m->n_dead; i++) {
			key[n] = i < m->n ? m->teid[i] : m->dead[i - m->n];
			if (pass == 1 && upf_teid_is_direct(key[n]))
				continue;
			want[n] = i < m->n ? m->obj[i] : NULL;
			if (pass == 0)
				assert_ptr_equal(upf_teid_find(t, key[n]), want[n]);
			k[n] = &key[n];
			if (++n < TM_BATCH)
				continue;
			tm_bulk(t, key, k, want, n, pass ? "hashed burst" : "mixed burst");
			n = 0;
		}
		tm_bulk(t, key, k, want, n, pass ? "hashed burst" : "mixed burst");
	}
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
test_teid_model(void **state)
{
	static struct teid_model m;
	struct upf_teid_tab t;
	uint32_t rng = 0x5eed1234, k = 1;
	unsigned int step, n_direct_alloc = 0, n_hashed = 0;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(upf_teid_init(&t, teid_hash(2048), 1000, SOCKET_ID_ANY, err, sizeof(err)),
			 0);
	assert_int_equal(t.bits, UPF_TEID_MIN_BITS);
	for (step = 0; step < 20000; step++) {
		const uint32_t r = xs32(&rng) % 100;
		const uint32_t gmask = (UINT32_C(1) << (30 - t.bits)) - 1;
		uint32_t teid;

		if (m.n >= TM_MAX - 2 || (r >= 70 && m.n > 0)) {
			tm_del(&t, &m, xs32(&rng) % m.n);
		} else if (r < 35) {
			/* CHOOSE: a free direct TEID, a different one each call. */
			const uint32_t a = upf_teid_alloc(&t), b = upf_teid_alloc(&t);

			assert_true(upf_teid_is_direct(a) && upf_teid_is_direct(b));
			assert_int_not_equal(a, b);
			assert_null(upf_teid_find(&t, a));
			assert_int_equal(tm_find(&m, a), -1);
			tm_add(&t, &m, a, fake_obj(k++, false));
			n_direct_alloc++;
		} else if (r < 50 && m.n > 0) {
			/* The CP assigns a direct-range TEID: a held one's slot (hash) or any. */
			teid = m.teid[xs32(&rng) % m.n];
			if (!upf_teid_is_direct(teid) || r < 40)
				teid = UPF_TEID_DIRECT | (xs32(&rng) & t.mask);
			teid |= ((upf_teid_gen(&t, teid) + 1 + xs32(&rng) % 4) & gmask) << t.bits;
			if (tm_find(&m, teid) < 0)
				tm_add(&t, &m, teid, fake_obj(k++, false));
		} else if (r < 58) {
			/* Outside the direct range, or an object above 2^48: the hash. */
			teid = xs32(&rng);
			if (upf_teid_is_direct(teid) && r < 56)
				teid ^= UPF_TEID_DIRECT_MASK;
			if (teid != 0 && tm_find(&m, teid) < 0) {
				tm_add(&t, &m, teid, fake_obj(k++, r >= 56));
				n_hashed++;
			}
		} else if (m.n > 0) {
			/* Repoint, now and then at an object the entry cannot name. */
			const unsigned int i = xs32(&rng) % m.n;

			tm_add(&t, &m, m.teid[i], fake_obj(k++, r == 69));
		}
		if (step % 8 == 0)
			tm_check(&t, &m);
	}
	tm_check(&t, &m);
	/* The run went where it should: both halves used. */
	assert_true(n_direct_alloc > 1000 && n_hashed > 100);
	assert_true(t.n_dir > 0 && rte_hash_count(t.h) > 0);
	while (m.n > 0)
		tm_del(&t, &m, 0);
	tm_check(&t, &m);
	assert_int_equal(t.n_dir, 0);
	upf_teid_fini(&t);
}

/* Every slot taken: no TEID to choose, and none the CP holds handed out. */
static void
test_teid_full(void **state)
{
	static uint32_t held[1u << UPF_TEID_MIN_BITS];
	struct upf_teid_tab t;
	uint32_t a, b, c, i, n;
	int32_t pos;

	(void)state;
	assert_int_equal(upf_teid_init(&t, teid_hash(64), 10, SOCKET_ID_ANY, err, sizeof(err)), 0);
	n = t.mask + 1;
	assert_int_equal(n, RTE_DIM(held));
	for (i = 0; i < n; i++) {
		held[i] = upf_teid_alloc(&t);
		assert_int_equal(held[i] & t.mask, i); /* Round from slot 0. */
		assert_int_equal(upf_teid_add(&t, held[i], fake_obj(i + 1, false)), 0);
	}
	assert_int_equal(t.n_dir, n);
	assert_int_equal(rte_hash_count(t.h), 0);
	assert_int_equal(upf_teid_alloc(&t), 0);

	/* b: the TEID slot 5 gives next, assigned by the CP while a has the slot. */
	a = held[5];
	b = UPF_TEID_DIRECT | (uint32_t)(upf_teid_gen(&t, a) + 1) << t.bits | 5;
	assert_int_equal(upf_teid_add(&t, b, fake_obj(n + 1, false)), 0);
	assert_int_equal(rte_hash_count(t.h), 1);
	assert_int_equal(upf_teid_del(&t, a), -1);
	assert_null(upf_teid_find(&t, a));
	assert_ptr_equal(upf_teid_find(&t, b), fake_obj(n + 1, false));
	assert_int_equal(upf_teid_alloc(&t), 0);

	/* b goes: slot 5 gives neither a nor b, but the generation after. */
	pos = upf_teid_del(&t, b);
	assert_true(pos >= 0);
	assert_int_equal(rte_hash_free_key_with_position(t.h, pos), 0);
	c = upf_teid_alloc(&t);
	assert_int_equal(c & t.mask, 5);
	assert_int_equal(upf_teid_gen(&t, c), upf_teid_gen(&t, b) + 1);
	assert_int_equal(upf_teid_add(&t, c, fake_obj(n + 2, false)), 0);
	assert_null(upf_teid_find(&t, a));
	assert_null(upf_teid_find(&t, b));
	assert_int_equal(upf_teid_count(&t), n);
	assert_int_equal(upf_teid_del(&t, b), -1); /* Not held: nothing. */
	assert_int_equal(upf_teid_count(&t), n);
	upf_teid_fini(&t);
}

/* Sessions on chosen TEIDs (direct) and given ones (hash) through the store. */
static void
test_chosen_teid(void **state)
{
	struct upf_store *s = mk(16, 16, 16, 1, NULL);
	struct upf_store_counts c0, c1;
	uint32_t t1, t2, t3;
	struct sb b;

	(void)state;
	t1 = upf_teid_alloc(&s->teid);
	assert_true(upf_teid_is_direct(t1));
	sb_simple(&b, 1, t1, 0x0a2d0001);
	assert_int_equal(put(s, &b), 0);
	sb_simple(&b, 2, 0x100, 0x0a2d0002);
	assert_int_equal(put(s, &b), 0);
	assert_ptr_equal(by_teid(s, t1), upf_store_get(s, 1));
	assert_ptr_equal(by_teid(s, 0x100), upf_store_get(s, 2));
	assert_int_equal(s->teid.n_dir, 1);
	assert_int_equal(rte_hash_count(s->teid.h), 1);

	/* Modified onto a new chosen TEID: the old one misses and is not chosen again. */
	t2 = upf_teid_alloc(&s->teid);
	assert_int_not_equal(t2, t1);
	sb_simple(&b, 1, t2, 0x0a2d0001);
	assert_int_equal(put(s, &b), 0);
	assert_null(by_teid(s, t1));
	assert_ptr_equal(by_teid(s, t2), upf_store_get(s, 1));
	t3 = upf_teid_alloc(&s->teid);
	assert_int_not_equal(t3, t1);
	assert_int_not_equal(t3, t2);

	/* A chosen TEID another session holds: refused, nothing changed. */
	upf_store_counts(s, &c0);
	sb_simple(&b, 3, t2, 0x0a2d0003);
	assert_int_not_equal(put(s, &b), 0);
	assert_err_has("TEID", NULL);
	upf_store_counts(s, &c1);
	same_counts(&c0, &c1);
	assert_ptr_equal(by_teid(s, t2), upf_store_get(s, 1));

	assert_int_equal(upf_store_del(s, 1), 0);
	assert_int_equal(upf_store_del(s, 2), 0);
	assert_null(by_teid(s, t2));
	assert_null(by_teid(s, 0x100));
	assert_empty(s);
	upf_store_free(s);
}

static int
setup(void **state)
{
	char prefix[32];
	char *argv[] = {
		"test_upf_store",
		"--no-huge",
		"-m",
		"256",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"--file-prefix",
		prefix,
		"--log-level",
		"3",
		"-l",
		"0",
		NULL,
	};
	char lcore[16];
	cpu_set_t cpus;
	int cpu = 0;

	(void)state;
	/* The first CPU this process may run on, as EAL's main lcore. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return -1;
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
		cpu++;
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	argv[RTE_DIM(argv) - 2] = lcore;
	snprintf(prefix, sizeof(prefix), "lfut_upfst%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_eal_cleanup();
	return 0;
}

/*
 * The UE table against a model: keys of instance 0 inside its direct range
 * (10.45.0.0/21), of instance 0 outside it, of instance 1 (no range) and
 * IPv6 /64s, added, repointed and removed at random; every held key
 * answers its object, one by one and in bulk, and every removed one misses.
 */
#define UM_KEYS 4096

static void
um_key(struct upf_ue_key *k, unsigned int i)
{
	memset(k, 0, sizeof(*k));
	switch (i % 4) {
	case 0: /* In the range: all of its 2048 addresses. */
	case 1:
		k->af = 4;
		k->a[0] = 10;
		k->a[1] = 45;
		k->a[2] = (uint8_t)(((i / 4 * 2 + i % 4) >> 8) & 7);
		k->a[3] = (uint8_t)(i / 4 * 2 + i % 4);
		break;
	case 2: /* Just past it, or in instance 1 at the same address. */
		k->af = 4;
		k->ni = (i / 4) % 2;
		k->a[0] = 10;
		k->a[1] = 45;
		k->a[2] = (uint8_t)((k->ni ? 0 : 8) + ((i / 8 >> 8) & 3));
		k->a[3] = (uint8_t)(i / 8);
		break;
	default: /* An IPv6 /64 whose first bytes look like the range. */
		k->af = 6;
		k->a[0] = 10;
		k->a[1] = 45;
		k->a[6] = (uint8_t)(i >> 8);
		k->a[7] = (uint8_t)i;
		break;
	}
}

static void
um_check(const struct upf_ue_tab *t, void *const *model)
{
	static struct upf_ue_key key[UM_KEYS];
	const void *k[64];
	void *got[64];
	unsigned int i, j, pass, held = 0;

	for (i = 0; i < UM_KEYS; i++) {
		um_key(&key[i], i);
		assert_ptr_equal(upf_ue_find(t, &key[i]), model[i]);
		held += model[i] != NULL;
	}
	assert_int_equal(upf_ue_count(t), held);
	/* Bursts of mixed keys (in order), of direct keys only and of hashed
	 * keys only (i % 4 < 2 and >= 2): the lookup's three ways. */
	for (pass = 0; pass < 3; pass++) {
		/* The pass's last key (4093 is the last with i % 4 < 2). */
		const unsigned int last = pass == 1 ? UM_KEYS - 3 : UM_KEYS - 1;
		unsigned int idx[64], n = 0;

		for (i = 0; i < UM_KEYS; i++) {
			if (pass == 1 && i % 4 >= 2)
				continue;
			if (pass == 2 && i % 4 < 2)
				continue;
			idx[n] = i;
			k[n] = &key[i];
			if (++n < 64 && i != last)
				continue;
			upf_ue_lookup_bulk(t, k, n, got);
			for (j = 0; j < n; j++)
				if (got[j] != model[idx[j]])
					fail_msg("UE key %u (pass %u): bulk lookup %p, model %p",
						 idx[j], pass, got[j], model[idx[j]]);
			n = 0;
		}
	}
}

static void
test_ue_model(void **state)
{
	static void *model[UM_KEYS];
	const struct upf_ue_dir_conf dir = { .ni = 0, .plen = 21, .base = 0x0a2d0000 };
	char name[RTE_HASH_NAMESIZE] = "ut_ue";
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = 2 * UM_KEYS,
		.key_len = sizeof(struct upf_ue_key),
		.socket_id = SOCKET_ID_ANY,
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	const struct upf_ue_dir_conf bad = { .ni = 0, .plen = 9, .base = 0x0a000000 };
	struct upf_ue_tab t;
	struct upf_ue_key k;
	uint32_t rng = 0x5eed4321;
	unsigned int step;

	(void)state;
	memset(model, 0, sizeof(model));
	/* A range longer than the longest allowed is refused, the hash kept. */
	{
		struct rte_hash *h = rte_hash_create(&hp);

		assert_non_null(h);
		assert_int_equal(upf_ue_init(&t, h, &bad, 1, SOCKET_ID_ANY, err, sizeof(err)),
				 -EINVAL);
		rte_hash_free(h);
	}
	snprintf(name, sizeof(name), "ut_ue2");
	assert_int_equal(upf_ue_init(&t, rte_hash_create(&hp), &dir, 1, SOCKET_ID_ANY, err,
				     sizeof(err)),
			 0);
	assert_int_equal(upf_ue_dir_bytes(&t), 2048 * sizeof(uint64_t));
	for (step = 0; step < 40000; step++) {
		const unsigned int i = xs32(&rng) % UM_KEYS;

		um_key(&k, i);
		if (xs32(&rng) % 3 == 0) {
			const int32_t pos = upf_ue_del(&t, &k);

			/* A direct key frees no hash position. */
			if (pos >= 0) {
				assert_true(i % 4 >= 2);
				assert_int_equal(rte_hash_free_key_with_position(t.h, pos), 0);
			}
			model[i] = NULL;
		} else {
			model[i] = fake_obj(step + 1, false);
			assert_int_equal(upf_ue_add(&t, &k, model[i]), 0);
		}
		if (step % 4000 == 0)
			um_check(&t, model);
	}
	um_check(&t, model);
	/* Both halves used: the in-range keys never in the hash. */
	assert_true(t.n_dir > 100 && rte_hash_count(t.h) > 100);
	assert_true(t.n_dir <= 2048);
	upf_ue_fini(&t);
}

/* ---- upf_prefix_has against a bit-by-bit reference ---- */

static bool
bit_of(const uint8_t *a, unsigned int i)
{
	return (a[i / 8] >> (7 - i % 8)) & 1;
}

/* Every length of both families, addresses inside, outside by one bit, and at random. */
static void
test_prefix_has(void **state)
{
	uint32_t rng = 0x9fe1c0de;
	unsigned int f, plen, round, i;

	(void)state;
	for (f = 0; f < 2; f++) {
		const uint8_t af = f == 0 ? 4 : 6;
		const unsigned int bits = f == 0 ? 32 : 128;

		for (plen = 0; plen <= bits; plen++)
			for (round = 0; round < 200; round++) {
				struct upf_prefix p;
				uint8_t a[16];
				bool want;

				memset(&p, 0, sizeof(p));
				p.af = af;
				p.plen = (uint8_t)plen;
				for (i = 0; i < 16; i++)
					p.a[i] = (uint8_t)xs32(&rng);
				for (i = plen; i < 128; i++) /* host bits zero */
					p.a[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
				for (i = 0; i < 16; i++)
					a[i] = (uint8_t)xs32(&rng);
				if (round % 3 != 2) {
					/* Inside: p's bits, then random ones; one of
					 * them flipped (round % 3 == 1) makes it
					 * outside if it is a prefix bit. */
					for (i = 0; i < plen; i++)
						if (bit_of(p.a, i) != bit_of(a, i))
							a[i / 8] ^= (uint8_t)(0x80 >> (i % 8));
					if (round % 3 == 1) {
						const unsigned int b = xs32(&rng) % bits;

						a[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
					}
				}
				want = true;
				for (i = 0; i < plen; i++)
					if (bit_of(p.a, i) != bit_of(a, i))
						want = false;
				if (upf_prefix_has(&p, af, a) != want)
					fail_msg("IPv%u /%u round %u: got %d", af, plen, round,
						 !want);
			}
	}
	/* Another family never matches; "any" (af 0) always does. */
	{
		struct upf_prefix p = { .af = 6, .plen = 0 };
		const uint8_t a[16] = { 0 };

		assert_false(upf_prefix_has(&p, 4, a));
		p.af = 0;
		assert_true(upf_prefix_has(&p, 4, a));
		assert_true(upf_prefix_has(&p, 6, a));
	}
}

/* ---- prefix keys: the UE table against a brute-force longest match ---- */

#define DM_PFX 256

/*
 * Prefix i of the model: instance i % 2; IPv6 fd00:45:0:XXXX::/(64 - dbits)
 * (delegated prefixes and framed routes alike, /0 to /64), IPv4
 * 10.45.X.Y/(32 - dbits) (framed routes, /0 to /32; instance 0 has a direct
 * range over 10.45.0.0/20, which holds its /32s).
 */
struct dm_pfx {
	struct upf_ue_key k;
	bool held;
	void *obj;
};

/* The key's address as a number: IPv6 its /64, IPv4 its 32 bits. */
static uint64_t
dm_val(const struct upf_ue_key *k)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < (k->af == 4 ? 4u : 8u); i++)
		v = v << 8 | k->a[i];
	return v;
}

/* The object key q (a plain key) gets by the longest held prefix of its family and instance, or NULL. */
static void *
dm_best(const struct dm_pfx *m, unsigned int n, const struct upf_ue_key *q)
{
	const uint64_t v = dm_val(q);
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const unsigned int d = m[i].k.dbits;
		const uint64_t x = dm_val(&m[i].k) ^ v;

		if (!m[i].held || m[i].k.ni != q->ni || m[i].k.af != q->af ||
		    (d < 64 && (x >> d) != 0))
			continue;
		if (best < 0 || d < m[best].k.dbits)
			best = (int)i;
	}
	return best < 0 ? NULL : m[best].obj;
}

/* A plain key near the model's prefixes (some far off) of family af. */
static void
dm_key(struct upf_ue_key *k, uint8_t af, uint32_t *rng)
{
	const uint16_t v = (uint16_t)(xs32(rng) % 8 == 0 ? xs32(rng) : 0x0100 + xs32(rng) % 0x300);
	uint8_t a[8] = { 0xfd, 0x00, 0x00, 0x45, 0, 0 };

	if (af == 4) {
		a[0] = 10;
		a[1] = xs32(rng) % 8 == 0 ? 46 : 45;
		a[2] = (uint8_t)(v >> 8 & 0x0f);
		a[3] = (uint8_t)v;
	} else {
		a[6] = (uint8_t)(v >> 8);
		a[7] = (uint8_t)v;
	}
	upf_ue_key_make(k, (uint8_t)(xs32(rng) % 2), af, a, 0);
}

static void
dm_check(const struct upf_ue_tab *t, const struct dm_pfx *m, unsigned int n, uint32_t *rng)
{
	struct upf_ue_key key[100];
	const void *k[100];
	void *got[100];
	uint64_t want6 = 0;
	uint32_t want4 = 0;
	unsigned int round, i;

	for (i = 0; i < n; i++) {
		if (!m[i].held || m[i].k.dbits == 0)
			continue;
		if (m[i].k.af == 6)
			want6 |= UINT64_C(1) << (m[i].k.dbits - 1);
		else
			want4 |= UINT32_C(1) << (m[i].k.dbits - 1);
	}
	assert_true(t->dlen6 == want6);
	assert_true(t->dlen4 == want4);
	for (round = 0; round < 20; round++) {
		/* 100 keys: more than one bulk lookup's 64; both families mixed. */
		for (i = 0; i < 100; i++) {
			dm_key(&key[i], round % 4 == 3 || xs32(rng) % 3 == 0 ? 4 : 6, rng);
			k[i] = &key[i];
		}
		/* Every fourth round, instance 0's direct range only: no hash
		 * lookup at all, so no hash miss to start the second pass. */
		for (i = 0; round % 4 == 3 && i < 100; i++) {
			key[i].ni = 0;
			key[i].a[1] = 45;
		}
		upf_ue_lookup_bulk(t, k, 100, got);
		for (i = 0; i < 100; i++)
			if (got[i] != dm_best(m, n, &key[i]))
				fail_msg("round %u key %u (ni %u, af %u, %" PRIx64 "): got %p",
					 round, i, key[i].ni, key[i].af, dm_val(&key[i]), got[i]);
	}
}

/* Whether model key k is an IPv4 prefix over instance 0's direct range 10.45.0.0/20. */
static bool
dm_over_dir(const struct upf_ue_key *k)
{
	const uint64_t v = dm_val(k), first = 0x0a2d0000, last = 0x0a2d0fff;

	return k->af == 4 && k->ni == 0 && k->dbits != 0 && v <= last &&
		v + (UINT64_C(1) << k->dbits) - 1 >= first;
}

/*
 * Prefix keys of both families, nested and side by side in two instances,
 * added and removed at random: every lookup gets the longest held prefix
 * of its family and instance, as a linear scan finds it, and dlen4 / dlen6
 * have exactly the lengths held. Instance 0's IPv4 /32s live in a direct
 * range; an IPv4 prefix over it is refused (the range answers for its
 * addresses alone, so its misses take no second pass), checked against
 * the range's bounds here, and lookups there find the /32s or nothing.
 */
static void
test_ue_prefix_model(void **state)
{
	static struct dm_pfx m[DM_PFX];
	static const uint8_t dbits6[] = { 0, 0, 0, 1, 2, 4, 7, 8, 8, 8, 12, 16, 17, 40, 63, 64 };
	static const uint8_t dbits4[] = { 0, 0, 0, 1, 2, 4, 7, 8, 8, 12, 16, 17, 20, 31, 32 };
	const struct upf_ue_dir_conf dir = { .ni = 0, .plen = 20, .base = 0x0a2d0000 };
	char name[RTE_HASH_NAMESIZE] = "ut_ue_dm";
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = 2 * DM_PFX,
		.key_len = sizeof(struct upf_ue_key),
		.socket_id = SOCKET_ID_ANY,
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct upf_ue_tab t;
	uint32_t rng = 0xde1e9a7e;
	unsigned int n = 0, i, j, step;

	(void)state;
	memset(m, 0, sizeof(m));
	/* Distinct prefixes (the same one twice would be one key). */
	while (n < DM_PFX) {
		const uint8_t af = n % 3 == 0 ? 4 : 6;
		struct upf_ue_key k;

		dm_key(&k, af, &rng);
		upf_ue_key_make(&m[n].k, (uint8_t)(n % 2), af, k.a,
				af == 4 ? dbits4[xs32(&rng) % RTE_DIM(dbits4)]
					: dbits6[xs32(&rng) % RTE_DIM(dbits6)]);
		for (j = 0; j < n && memcmp(&m[j].k, &m[n].k, sizeof(m[n].k)) != 0; j++)
			;
		if (j == n)
			n++;
	}
	assert_int_equal(upf_ue_init(&t, rte_hash_create(&hp), &dir, 1, SOCKET_ID_ANY, err,
				     sizeof(err)),
			 0);
	/* A length beyond the family's widest is refused. */
	{
		struct upf_ue_key bad = m[1].k;

		bad.af = 6;
		bad.dbits = UPF_UE_DBITS6_MAX + 1;
		assert_int_equal(upf_ue_add(&t, &bad, fake_obj(1, false)), -EINVAL);
		bad.af = 4;
		bad.dbits = UPF_UE_DBITS4_MAX + 1;
		assert_int_equal(upf_ue_add(&t, &bad, fake_obj(1, false)), -EINVAL);
		assert_true(t.dlen6 == 0 && t.dlen4 == 0);
	}
	for (step = 0; step < 6000; step++) {
		i = xs32(&rng) % n;
		if (m[i].held && xs32(&rng) % 2 == 0) {
			const int32_t pos = upf_ue_del(&t, &m[i].k);

			/* A direct entry has no hash position. */
			if (upf_ue_dir_slot(&t, &m[i].k) == NULL || m[i].k.dbits != 0) {
				assert_true(pos >= 0);
				assert_int_equal(rte_hash_free_key_with_position(t.h, pos), 0);
			} else {
				assert_int_equal(pos, -1);
			}
			m[i].held = false;
		} else if (dm_over_dir(&m[i].k)) {
			assert_true(upf_ue_overlaps_dir(&t, &m[i].k));
			assert_int_equal(upf_ue_add(&t, &m[i].k, fake_obj(step + 1, false)),
					 -EINVAL);
		} else {
			/* New, or the same key pointed at another object. */
			assert_false(upf_ue_overlaps_dir(&t, &m[i].k));
			m[i].obj = fake_obj(step + 1, false);
			assert_int_equal(upf_ue_add(&t, &m[i].k, m[i].obj), 0);
			m[i].held = true;
		}
		assert_ptr_equal(upf_ue_find(&t, &m[i].k), m[i].held ? m[i].obj : NULL);
		if (step % 500 == 0)
			dm_check(&t, m, n, &rng);
	}
	dm_check(&t, m, n, &rng);
	for (i = 0; i < n; i++)
		if (m[i].held) {
			const int32_t pos = upf_ue_del(&t, &m[i].k);

			if (pos >= 0)
				assert_int_equal(rte_hash_free_key_with_position(t.h, pos), 0);
			m[i].held = false;
		}
	assert_true(t.dlen6 == 0 && t.dlen4 == 0);
	assert_int_equal(upf_ue_count(&t), 0);
	dm_check(&t, m, n, &rng);
	upf_ue_fini(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_params),   cmocka_unit_test(test_invalid_session),
		cmocka_unit_test(test_compile),          cmocka_unit_test(test_pdr_groups),
		cmocka_unit_test(test_shared_keys),      cmocka_unit_test(test_replace),
		cmocka_unit_test(test_conflict),         cmocka_unit_test(test_table_full_rollback),
		cmocka_unit_test(test_enospc),           cmocka_unit_test(test_usage_and_reuse),
		cmocka_unit_test(test_counts_and_rings), cmocka_unit_test(test_rcu_grace),
		cmocka_unit_test(test_teid_model),       cmocka_unit_test(test_teid_full),
		cmocka_unit_test(test_chosen_teid),      cmocka_unit_test(test_ue_model),
		cmocka_unit_test(test_ue_prefix_model),  cmocka_unit_test(test_prefix_has),
	};
	/* The sessions' tests again with their UE addresses in the UE
	 * table's direct array rather than its hash. */
	const struct CMUnitTest direct[] = {
		cmocka_unit_test(test_compile),          cmocka_unit_test(test_pdr_groups),
		cmocka_unit_test(test_shared_keys),      cmocka_unit_test(test_replace),
		cmocka_unit_test(test_conflict),         cmocka_unit_test(test_table_full_rollback),
		cmocka_unit_test(test_enospc),           cmocka_unit_test(test_usage_and_reuse),
		cmocka_unit_test(test_counts_and_rings), cmocka_unit_test(test_rcu_grace),
	};
	int rc;

	rc = cmocka_run_group_tests_name("hash", tests, setup, NULL);
	ue_direct = true;
	rc += cmocka_run_group_tests_name("direct", direct, NULL, teardown);
	return rc;
}
