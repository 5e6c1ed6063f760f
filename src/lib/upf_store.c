/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UPF session store (include/lib/upf.h): compiles a session's control
 * form into one immutable datapath object and publishes it in two tables
 * that workers read without locks (TEID -> session: lib/upf_teid.h; UE
 * address -> session: lib/upf_uetab.h; each a direct array beside an
 * rte_hash).
 * The control thread is the only writer. A modification builds a new
 * object, points every key of the session at it (an update of an existing
 * key's data is one atomic store for lock-free readers), removes the keys
 * it no longer has, and retires the old object; deleted keys and
 * retired objects are reclaimed after an RCU grace period of the workers'
 * QSBR variable: key slots by rte_hash's own defer queue
 * (rte_hash_rcu_qsbr_add), objects and the rule slots they free by ours
 * (rte_rcu_qsbr_dq). Without a QSBR variable (unit tests) everything is
 * freed at once.
 *
 * Per-packet state (URR counters, meter state) is per worker, indexed by
 * slots allocated here from free lists. The store never writes worker
 * memory after create: a URR's usage is the workers' sum minus a baseline
 * taken when its slot was allocated, and a slot is reused only after the
 * grace period of the session that freed it, so no worker still counts
 * into it when the baseline is taken.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_meter.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_udp.h>

#include "config.h"
#include "tbucket.h"
#include "upf.h"

const char *const upf_drop_names[UPF_DROP_COUNT] = {
#define X(e, s) [UPF_DROP_##e] = s,
	UPF_DROP_REASONS(X)
#undef X
};

/* Key table entries per session: room for two TEIDs (N3 and N9, or one per
 * QoS flow) and two UE addresses (dual stack) per session on average. */
#define STORE_KEYS_PER_SESSION 2
#define STORE_MAX_SESSIONS (1u << 24)
#define STORE_RING_DEFAULT 1024
/* How long a slot allocation waits for a grace period before giving up. */
#define STORE_GRACE_WAIT_MS 10
/* Our defer queue: one element per retired object, bounded; when it is
 * full the control thread waits for a grace period instead. */
#define STORE_DQ_MIN 1024u
#define STORE_DQ_MAX 65536u
#define STORE_DQ_RECLAIM 64
/* Meter burst: MBR for this long (in 1/STORE_BURST_DIV s), at least
 * STORE_BURST_MIN bytes. */
#define STORE_BURST_DIV 100
#define STORE_BURST_MIN 16384u

/*
 * A session's datapath object and, after the public header, what only the
 * control thread reads: the keys it is installed under. The arrays of both
 * follow in the same allocation.
 */
struct sess_obj {
	struct upf_sess_dp dp; /* First: the hash data points here. */
	size_t size; /* Of the whole allocation. */
	uint16_t n_teid, n_ue;
	uint32_t *teid;
	struct upf_ue_key *ue;
};

/* The datapath reads the first line of an object before anything else,
 * and nothing else of the header (upf.h). */
_Static_assert(offsetof(struct upf_sess_dp, up_seid) <= RTE_CACHE_LINE_SIZE,
	       "the packet's part of upf_sess_dp is one line");
/* Two match entries to a line, an act entry a line (upf.h). */
_Static_assert(sizeof(struct upf_pdr_match) == 32, "upf_pdr_match is half a line");
_Static_assert(sizeof(struct upf_pdr_act) == RTE_CACHE_LINE_SIZE, "upf_pdr_act is one line");
/* Framed routes took padding only: a session's memory did not grow (upf-bench.md). */
_Static_assert(sizeof(struct upf_pdr_dp) == 44, "upf_pdr_dp is 44 bytes");
/* rte_hash's vector compare (upf.h). */
_Static_assert(sizeof(struct upf_ue_key) == 16, "upf_ue_key is 16 bytes");
/* upf_sess_dp.n_pdr_ul / n_pdr_dl are 8 bits. */
_Static_assert(UPF_MAX_PDR <= UINT8_MAX, "PDR group sizes fit in uint8_t");

/* Slot free list: a stack of free indexes. */
struct slot_pool {
	uint32_t *free;
	uint32_t n_free;
	uint32_t cap;
	uint32_t pending; /* Freed, waiting for a grace period. */
};

/* What goes back after a grace period: the object, and the rule slots and
 * session slot it releases (bit i: its urr[i] / qer[i]). */
struct retire {
	struct sess_obj *obj;
	uint8_t urr_mask;
	uint8_t qer_mask;
	uint8_t free_sess;
	uint8_t pad[5];
};

struct sess_ctl {
	uint64_t up_seid; /* 0: slot not in use. */
	struct sess_obj *obj;
};

/*
 * Session objects come from slabs, not from one rte_malloc each. With a
 * million sessions rte_malloc took 7-10 us a put on this VM, most of it
 * in its own code, growing with the heap (docs/upf-bench.md): its free
 * lists are searched linearly, and each 2 MiB page the heap grows by
 * leaves a fragment in them. A slab is a SLAB_BYTES block of hugepage
 * heap cut into objects of one size class (multiples of SLAB_STEP, so
 * every object starts on a cache line); a freed object goes on its
 * class's free list for the next session of that size. Objects over
 * SLAB_MAX (sessions with dozens of rules) are rte_malloc'd alone. The
 * memory is the store's until it is freed. Control thread only.
 */
#define SLAB_STEP 128u
#define SLAB_MAX 8192u
#define SLAB_CLASSES (SLAB_MAX / SLAB_STEP)
#define SLAB_BYTES (128u * 1024)

struct slab_class {
	void *free; /* Freed objects, linked through their first word. */
	char *next, *end; /* The unused rest of the class's newest block. */
};

struct slab {
	struct slab_class cls[SLAB_CLASSES];
	void **blocks; /* Every block taken, for upf_store_free. */
	uint32_t n_blocks, cap_blocks;
};

struct store_priv {
	struct upf_store *s;
	struct rte_rcu_qsbr_dq *dq; /* NULL without a QSBR variable. */
	struct sess_ctl *ctl; /* [max_sessions], by session slot. */
	uint64_t *idx; /* up_seid -> slot (idx_cell); open addressing. */
	uint32_t idx_mask;
	struct slot_pool sess, urr, qer;
	struct upf_urr_ctr *base; /* [max_urrs]: usage baseline of each slot. */
	uint32_t meter_gen; /* Last one given; never 0. */
	uint32_t n_sessions, n_pdr, n_far, n_qer, n_urr;
	uint64_t fixed_bytes; /* Tables, worker arrays, control arrays. */
	uint64_t obj_bytes; /* Live session objects, retired ones included. */
	uint64_t held_bytes; /* Slab blocks and objects over SLAB_MAX. */
	struct slab slab;
};

static uint32_t store_seq;

/* Zeroed memory for an object of size bytes (a multiple of SLAB_STEP), or NULL. */
static void *
obj_mem_get(struct store_priv *st, size_t size)
{
	struct slab *sl = &st->slab;
	struct slab_class *c;
	void *o;

	if (size > SLAB_MAX) {
		o = rte_zmalloc_socket("upf_sess", size, RTE_CACHE_LINE_SIZE, st->s->p.socket);
		if (o != NULL) {
			st->obj_bytes += size;
			st->held_bytes += size;
		}
		return o;
	}
	c = &sl->cls[size / SLAB_STEP - 1];
	if (c->free != NULL) {
		o = c->free;
		memcpy(&c->free, o, sizeof(void *));
		memset(o, 0, size);
		st->obj_bytes += size;
		return o;
	}
	if ((size_t)(c->end - c->next) < size) {
		char *b;

		if (sl->n_blocks == sl->cap_blocks) {
			const uint32_t cap = RTE_MAX(2 * sl->cap_blocks, 64u);
			void **nb = realloc(sl->blocks, sizeof(*nb) * cap);

			if (nb == NULL)
				return NULL;
			sl->blocks = nb;
			sl->cap_blocks = cap;
		}
		/* Zeroed once; reused objects are zeroed as they are taken. */
		b = rte_zmalloc_socket("upf_slab", SLAB_BYTES, RTE_CACHE_LINE_SIZE,
				       st->s->p.socket);
		if (b == NULL)
			return NULL;
		sl->blocks[sl->n_blocks++] = b;
		st->held_bytes += SLAB_BYTES;
		/* The rest of the old block stays unused: less than one object. */
		c->next = b;
		c->end = b + SLAB_BYTES;
	}
	o = c->next;
	c->next += size;
	st->obj_bytes += size;
	return o;
}

/* Give back what obj_mem_get gave for size bytes. */
static void
obj_mem_put(struct store_priv *st, void *o, size_t size)
{
	struct slab_class *c;

	st->obj_bytes -= size;
	if (size > SLAB_MAX) {
		st->held_bytes -= size;
		rte_free(o);
		return;
	}
	c = &st->slab.cls[size / SLAB_STEP - 1];
	memcpy(o, &c->free, sizeof(void *));
	c->free = o;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...) __rte_format_printf(3, 4);

static void
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- slot pools ---- */

static int
pool_init(struct slot_pool *p, uint32_t cap)
{
	uint32_t i;

	p->free = malloc(sizeof(*p->free) * RTE_MAX(cap, 1u));
	if (p->free == NULL)
		return -ENOMEM;
	/* Slot 0 is handed out first. */
	for (i = 0; i < cap; i++)
		p->free[i] = cap - 1 - i;
	p->n_free = cap;
	p->cap = cap;
	p->pending = 0;
	return 0;
}

static inline void
pool_put(struct slot_pool *p, uint32_t slot)
{
	p->free[p->n_free++] = slot;
}

/* ---- the up_seid index (control thread only) ---- */

static inline uint32_t
seid_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}

/*
 * An index cell: slot + 1 in the low half (0: empty), the seid's hash in
 * the high half, so that a probe reads the session's record only when the
 * hashes match (that read is a cache miss at a million sessions).
 */
static inline uint64_t
idx_cell(uint32_t h, uint32_t slot)
{
	return (uint64_t)h << 32 | (slot + 1);
}

/* Slot of up_seid, or UINT32_MAX. */
static uint32_t
idx_find(const struct store_priv *st, uint64_t seid)
{
	uint32_t h = seid_hash(seid);
	uint32_t i = h & st->idx_mask;

	while (st->idx[i] != 0) {
		uint32_t slot = (uint32_t)st->idx[i] - 1;

		if ((uint32_t)(st->idx[i] >> 32) == h && st->ctl[slot].up_seid == seid)
			return slot;
		i = (i + 1) & st->idx_mask;
	}
	return UINT32_MAX;
}

/* The table has twice the room of max_sessions: there is always an empty cell. */
static void
idx_add(struct store_priv *st, uint64_t seid, uint32_t slot)
{
	uint32_t h = seid_hash(seid);
	uint32_t i = h & st->idx_mask;

	while (st->idx[i] != 0)
		i = (i + 1) & st->idx_mask;
	st->idx[i] = idx_cell(h, slot);
}

/* Linear probing deletion by backward shift: no tombstones to age. */
static void
idx_del(struct store_priv *st, uint64_t seid, uint32_t slot)
{
	uint32_t i = seid_hash(seid) & st->idx_mask;
	uint32_t j;

	while (st->idx[i] != 0 && (uint32_t)st->idx[i] - 1 != slot)
		i = (i + 1) & st->idx_mask;
	if (st->idx[i] == 0)
		return;
	j = i;
	for (;;) {
		uint32_t home;

		st->idx[i] = 0;
		for (;;) {
			j = (j + 1) & st->idx_mask;
			if (st->idx[j] == 0)
				return;
			home = (uint32_t)(st->idx[j] >> 32) & st->idx_mask;
			/* Move j back to i unless its home lies cyclically in (i, j]. */
			if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
				break;
		}
		st->idx[i] = st->idx[j];
		i = j;
	}
}

/* ---- reclamation ---- */

static void
retire_free(struct store_priv *st, const struct retire *r)
{
	const struct upf_sess_dp *dp = &r->obj->dp;
	unsigned int i;

	for (i = 0; i < dp->n_urr; i++)
		if (r->urr_mask & (1u << i)) {
			pool_put(&st->urr, dp->urr[i].slot);
			st->urr.pending--;
		}
	for (i = 0; i < dp->n_qer; i++)
		if (r->qer_mask & (1u << i)) {
			pool_put(&st->qer, dp->qer[i].meter);
			st->qer.pending--;
		}
	if (r->free_sess) {
		pool_put(&st->sess, dp->slot);
		st->sess.pending--;
	}
	obj_mem_put(st, r->obj, r->obj->size);
}

static void
dq_free_fn(void *p, void *e, unsigned int n)
{
	const struct retire *r = e;
	unsigned int i;

	for (i = 0; i < n; i++)
		retire_free(p, &r[i]);
}

/*
 * Wait until every worker has passed a quiescent state after now, at most
 * max_ms (0: no limit). The control thread is not a QSBR reader, so this
 * only waits for the workers' next loop iteration.
 */
static bool
store_grace(struct store_priv *st, unsigned int max_ms)
{
	struct rte_rcu_qsbr *v = st->s->p.qsv;
	uint64_t t, deadline, wait;

	if (v == NULL)
		return true;
	if (max_ms == 0) {
		rte_rcu_qsbr_synchronize(v, RTE_QSBR_THRID_INVALID);
		return true;
	}
	t = rte_rcu_qsbr_start(v);
	wait = rte_get_timer_hz() * max_ms / 1000;
	deadline = rte_get_timer_cycles() + wait;
	while (rte_rcu_qsbr_check(v, t, false) != 1) {
		/* Not past the deadline by a clock that stepped back (tbucket.h). */
		if (lf_tsc_due(rte_get_timer_cycles(), deadline, wait))
			return false;
		rte_pause();
	}
	return true;
}

static void
store_retire(struct store_priv *st, const struct retire *r)
{
	const struct upf_sess_dp *dp = &r->obj->dp;
	unsigned int i;

	for (i = 0; i < dp->n_urr; i++)
		st->urr.pending += (r->urr_mask >> i) & 1;
	for (i = 0; i < dp->n_qer; i++)
		st->qer.pending += (r->qer_mask >> i) & 1;
	st->sess.pending += r->free_sess;
	if (st->dq == NULL) {
		retire_free(st, r);
		return;
	}
	if (rte_rcu_qsbr_dq_enqueue(st->dq, (void *)(uintptr_t)r) == 0)
		return;
	/* The queue is full of objects younger than a grace period: wait one;
	 * the object was unpublished before, so then no worker holds it. */
	store_grace(st, 0);
	rte_rcu_qsbr_dq_reclaim(st->dq, ~0u, NULL, NULL, NULL);
	retire_free(st, r);
}

void
upf_store_reclaim(struct upf_store *s)
{
	struct store_priv *st;

	if (s == NULL)
		return;
	st = s->priv;
	if (st->dq != NULL)
		rte_rcu_qsbr_dq_reclaim(st->dq, ~0u, NULL, NULL, NULL);
}

/*
 * A free slot of pool p, or UINT32_MAX. When none is free but some wait
 * for a grace period, reclaim, and wait (bounded) for one if need be.
 */
static uint32_t
slot_get(struct store_priv *st, struct slot_pool *p)
{
	if (p->n_free == 0 && p->pending != 0 && st->dq != NULL) {
		rte_rcu_qsbr_dq_reclaim(st->dq, ~0u, NULL, NULL, NULL);
		if (p->n_free == 0 && store_grace(st, STORE_GRACE_WAIT_MS))
			rte_rcu_qsbr_dq_reclaim(st->dq, ~0u, NULL, NULL, NULL);
	}
	if (p->n_free == 0)
		return UINT32_MAX;
	return p->free[--p->n_free];
}

/* ---- key tables ---- */

/*
 * The UE and TEID tables' add and del (upf_uetab.h, upf_teid.h). Deleted
 * hash keys hold their slots until a grace period has passed (rte_hash's
 * defer queue), so an add that finds the hash full waits for one and tries
 * again; without a QSBR variable a del frees the slot at once.
 */
static int
ue_add(struct store_priv *st, const struct upf_ue_key *k, void *data)
{
	struct upf_ue_tab *t = &st->s->ue;
	int ret = upf_ue_add(t, k, data);

	if (ret == -ENOSPC && st->dq != NULL && store_grace(st, STORE_GRACE_WAIT_MS))
		ret = upf_ue_add(t, k, data);
	return ret;
}

static void
ue_del(struct store_priv *st, const struct upf_ue_key *k)
{
	struct upf_ue_tab *t = &st->s->ue;
	int32_t pos = upf_ue_del(t, k);

	if (pos >= 0 && st->s->p.qsv == NULL)
		rte_hash_free_key_with_position(t->h, pos);
}

static int
teid_add(struct store_priv *st, uint32_t teid, void *data)
{
	struct upf_teid_tab *t = &st->s->teid;
	int ret = upf_teid_add(t, teid, data);

	if (ret == -ENOSPC && st->dq != NULL && store_grace(st, STORE_GRACE_WAIT_MS))
		ret = upf_teid_add(t, teid, data);
	return ret;
}

static void
teid_del(struct store_priv *st, uint32_t teid)
{
	struct upf_teid_tab *t = &st->s->teid;
	int32_t pos = upf_teid_del(t, teid);

	if (pos >= 0 && st->s->p.qsv == NULL)
		rte_hash_free_key_with_position(t->h, pos);
}

/*
 * CRC32 of a key, as rte_hash_crc() computes it, but loading through
 * memcpy: struct upf_ue_key has no alignment, and rte_hash_crc() loads
 * 8 bytes at a time through a uint64_t pointer.
 */
static uint32_t
key_hash(const void *key, uint32_t len, uint32_t init)
{
	const uint8_t *p = key;
	uint64_t x;
	uint32_t y;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&x, p, 8);
		init = rte_hash_crc_8byte(x, init);
	}
	if (len >= 4) {
		memcpy(&y, p, 4);
		init = rte_hash_crc_4byte(y, init);
		len -= 4;
		p += 4;
	}
	for (; len > 0; len--, p++)
		init = rte_hash_crc_1byte(*p, init);
	return init;
}

static size_t
hash_bytes(uint32_t entries, uint32_t key_len, bool rcu)
{
	uint64_t pow = rte_align32pow2(entries + 2);
	size_t b = 0;

	b += (size_t)(entries + 1) * RTE_ALIGN(8 + key_len, 16); /* key store */
	b += (size_t)pow / 8 * 64 * 2; /* buckets and extendable buckets */
	b += (size_t)pow * 4 * 3; /* free slot ring, ext ring, ext_bkt_to_free */
	if (rcu)
		b += (size_t)pow * 16; /* the defer queue */
	return b;
}

/*
 * rte_hash compares keys of a length it has no routine for (16, 32, ...
 * bytes) with memcmp: for the 4-byte TEID, a call into libc's vector
 * memcmp per probed key. 0 when equal, as memcmp.
 */
static int
key4_cmp(const void *a, const void *b, size_t len __rte_unused)
{
	uint32_t x, y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return x != y;
}

static struct rte_hash *
key_table(const char *kind, unsigned int seq, uint32_t entries, uint32_t key_len, int socket,
	  struct rte_rcu_qsbr *qsv, char *err, size_t errlen)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = entries,
		.key_len = key_len,
		.hash_func = key_hash,
		.hash_func_init_val = 0,
		.socket_id = socket,
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct rte_hash *h;

	/* Short: rte_hash derives ring names from it ("HASH_RCU_" + name). */
	snprintf(name, sizeof(name), "upf%s%u", kind, seq);
	h = rte_hash_create(&hp);
	if (h == NULL) {
		seterr(err, errlen, "upf store: cannot create the %s table of %u entries: %s", kind,
		       entries, rte_strerror(rte_errno));
		return NULL;
	}
	if (key_len == sizeof(uint32_t))
		rte_hash_set_cmp_func(h, key4_cmp);
	if (qsv != NULL) {
		struct rte_hash_rcu_config rc = {
			.v = qsv,
			.mode = RTE_HASH_QSBR_MODE_DQ,
			.max_reclaim_size = STORE_DQ_RECLAIM,
		};

		if (rte_hash_rcu_qsbr_add(h, &rc) != 0) {
			seterr(err, errlen, "upf store: cannot attach RCU to the %s table: %s",
			       kind, rte_strerror(rte_errno));
			rte_hash_free(h);
			return NULL;
		}
	}
	return h;
}

/* ---- create / free ---- */

static void
ring_drain_free(struct rte_ring *r)
{
	void *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

void
upf_store_free(struct upf_store *s)
{
	struct store_priv *st;
	unsigned int w;

	if (s == NULL)
		return;
	st = s->priv;
	if (st != NULL) {
		uint32_t i;

		/* The workers have stopped (gone offline): this returns at once. */
		if (st->dq != NULL) {
			store_grace(st, 0);
			rte_rcu_qsbr_dq_delete(st->dq);
		}
		/* Objects from the slab go with its blocks. */
		if (st->ctl != NULL)
			for (i = 0; i < s->p.max_sessions; i++)
				if (st->ctl[i].obj != NULL && st->ctl[i].obj->size > SLAB_MAX)
					rte_free(st->ctl[i].obj);
		for (i = 0; i < st->slab.n_blocks; i++)
			rte_free(st->slab.blocks[i]);
		free(st->slab.blocks);
		free(st->ctl);
		free(st->idx);
		free(st->sess.free);
		free(st->urr.free);
		free(st->qer.free);
		free(st->base);
		free(st);
	}
	upf_teid_fini(&s->teid);
	upf_ue_fini(&s->ue);
	if (s->wk != NULL) {
		for (w = 0; w < s->p.n_workers; w++) {
			rte_free(s->wk[w].urr);
			rte_free(s->wk[w].meters);
			ring_drain_free(s->wk[w].to_ctrl);
			ring_drain_free(s->wk[w].from_ctrl);
		}
		rte_free(s->wk);
	}
	rte_free(s);
}

static int
create_workers(struct upf_store *s, unsigned int seq, char *err, size_t errlen)
{
	const struct upf_store_params *p = &s->p;
	uint32_t rsz = p->ring_size != 0 ? p->ring_size : STORE_RING_DEFAULT;
	struct store_priv *st = s->priv;
	unsigned int w;

	if (p->n_workers == 0)
		return 0;
	s->wk = rte_zmalloc_socket("upf_wk", sizeof(*s->wk) * p->n_workers, RTE_CACHE_LINE_SIZE,
				   p->socket);
	if (s->wk == NULL)
		goto nomem;
	st->fixed_bytes += sizeof(*s->wk) * p->n_workers;
	for (w = 0; w < p->n_workers; w++) {
		struct upf_wk *wk = &s->wk[w];
		char name[RTE_RING_NAMESIZE];
		/* The rings hold exactly rsz packets (memory: the next power of 2). */
		unsigned int rflags = RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ;

		wk->urr = rte_zmalloc_socket("upf_urr", sizeof(*wk->urr) * RTE_MAX(p->max_urrs, 1u),
					     RTE_CACHE_LINE_SIZE, p->socket);
		wk->meters = rte_zmalloc_socket("upf_meter",
						sizeof(*wk->meters) * RTE_MAX(p->max_qers, 1u),
						RTE_CACHE_LINE_SIZE, p->socket);
		if (wk->urr == NULL || wk->meters == NULL)
			goto nomem;
		st->fixed_bytes += sizeof(*wk->urr) * p->max_urrs;
		st->fixed_bytes += sizeof(*wk->meters) * p->max_qers;
		snprintf(name, sizeof(name), "upf%u_tc%u", seq, w);
		wk->to_ctrl = rte_ring_create(name, rsz, p->socket, rflags);
		if (wk->to_ctrl == NULL)
			goto ring;
		snprintf(name, sizeof(name), "upf%u_fc%u", seq, w);
		wk->from_ctrl = rte_ring_create(name, rsz, p->socket, rflags);
		if (wk->from_ctrl == NULL)
			goto ring;
		st->fixed_bytes += 2 * rte_ring_get_memsize(rte_align32pow2(rsz + 1));
	}
	return 0;
ring:
	seterr(err, errlen, "upf store: cannot create the rings of worker %u (ring_size %u): %s", w,
	       rsz, rte_strerror(rte_errno));
	return -rte_errno;
nomem:
	seterr(err, errlen, "upf store: no memory for the per-worker state of %u workers",
	       p->n_workers);
	return -ENOMEM;
}

void
upf_store_ue_dirs(struct upf_store_params *p, const struct lf_upf_conf *u)
{
	unsigned int i, k;

	p->n_ue_dir = 0;
	for (i = 0; i < u->n_ni && i < UPF_UE_DIR_NI; i++)
		for (k = 0; k < u->ni[i].n_alloc; k++) {
			const struct lf_upf_prefix *x = &u->ni[i].alloc[k];
			struct upf_ue_dir_conf *d;

			if (x->af != 4)
				continue;
			/* The first IPv4 prefix: CHOOSE hands it out first. */
			if (x->plen >= UPF_UE_DIR_MIN_PLEN) {
				d = &p->ue_dir[p->n_ue_dir++];
				d->ni = (uint8_t)i;
				d->plen = x->plen;
				d->base = (uint32_t)x->a[0] << 24 | (uint32_t)x->a[1] << 16 |
					(uint32_t)x->a[2] << 8 | x->a[3];
			}
			break;
		}
}

struct upf_store *
upf_store_create(const struct upf_store_params *p, char *err, size_t errlen)
{
	struct upf_store *s;
	struct store_priv *st;
	unsigned int seq;
	struct rte_hash *h;
	uint32_t keys, isz;

	if (p == NULL || p->max_sessions == 0 || p->max_sessions > STORE_MAX_SESSIONS) {
		seterr(err, errlen, "upf store: max_sessions %u: must be 1 to %u",
		       p != NULL ? p->max_sessions : 0, STORE_MAX_SESSIONS);
		rte_errno = EINVAL;
		return NULL;
	}
	if (p->max_urrs > STORE_MAX_SESSIONS * UPF_MAX_URR ||
	    p->max_qers > STORE_MAX_SESSIONS * UPF_MAX_QER) {
		seterr(err, errlen, "upf store: max_urrs %u / max_qers %u: too many", p->max_urrs,
		       p->max_qers);
		rte_errno = EINVAL;
		return NULL;
	}
	seq = __atomic_fetch_add(&store_seq, 1, __ATOMIC_RELAXED);
	s = rte_zmalloc_socket("upf_store", sizeof(*s), RTE_CACHE_LINE_SIZE, p->socket);
	st = calloc(1, sizeof(*st));
	if (s == NULL || st == NULL) {
		free(st);
		rte_free(s);
		seterr(err, errlen, "upf store: no memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	s->p = *p;
	s->priv = st;
	st->s = s;

	/* Key tables fill their buckets' power of 2 (rte_hash's rings take
	 * the next power of 2 above entries + 1). */
	keys = rte_align32pow2(RTE_MAX(p->max_sessions * STORE_KEYS_PER_SESSION, 64u)) - 2;
	h = key_table("t", seq, keys, sizeof(uint32_t), p->socket, p->qsv, err, errlen);
	if (h == NULL)
		goto fail;
	if (upf_teid_init(&s->teid, h, keys + 2, p->socket, err, errlen) != 0) {
		rte_hash_free(h);
		goto fail;
	}
	st->fixed_bytes += upf_teid_dir_bytes(&s->teid);
	h = key_table("u", seq, keys, sizeof(struct upf_ue_key), p->socket, p->qsv, err, errlen);
	if (h == NULL)
		goto fail;
	if (upf_ue_init(&s->ue, h, p->ue_dir, p->n_ue_dir, p->socket, err, errlen) != 0) {
		rte_hash_free(h);
		goto fail;
	}
	st->fixed_bytes += upf_ue_dir_bytes(&s->ue);
	st->fixed_bytes += hash_bytes(keys, sizeof(uint32_t), p->qsv != NULL);
	st->fixed_bytes += hash_bytes(keys, sizeof(struct upf_ue_key), p->qsv != NULL);

	if (p->qsv != NULL) {
		char name[RTE_RCU_QSBR_DQ_NAMESIZE];
		uint32_t dqsz = rte_align32pow2(p->max_sessions + 1);
		struct rte_rcu_qsbr_dq_parameters dp = {
			.name = name,
			.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE,
			.esize = sizeof(struct retire),
			.trigger_reclaim_limit = 0,
			.max_reclaim_size = STORE_DQ_RECLAIM,
			.free_fn = dq_free_fn,
			.p = st,
			.v = p->qsv,
		};

		/* The ring is a power of 2 above size: size = 2^k - 1. */
		dp.size = RTE_MIN(RTE_MAX(dqsz, STORE_DQ_MIN), STORE_DQ_MAX) - 1;
		snprintf(name, sizeof(name), "upfdq%u", seq);
		st->dq = rte_rcu_qsbr_dq_create(&dp);
		if (st->dq == NULL) {
			seterr(err, errlen, "upf store: cannot create the RCU defer queue: %s",
			       rte_strerror(rte_errno));
			goto fail;
		}
		st->fixed_bytes += (size_t)(dp.size + 1) * (sizeof(struct retire) + 8);
	}

	isz = rte_align32pow2(p->max_sessions * 2);
	st->ctl = calloc(p->max_sessions, sizeof(*st->ctl));
	st->idx = calloc(isz, sizeof(*st->idx));
	st->idx_mask = isz - 1;
	st->base = calloc(RTE_MAX(p->max_urrs, 1u), sizeof(*st->base));
	if (st->ctl == NULL || st->idx == NULL || st->base == NULL ||
	    pool_init(&st->sess, p->max_sessions) != 0 || pool_init(&st->urr, p->max_urrs) != 0 ||
	    pool_init(&st->qer, p->max_qers) != 0) {
		seterr(err, errlen, "upf store: no memory for %u sessions", p->max_sessions);
		goto fail;
	}
	st->fixed_bytes += sizeof(*s) + sizeof(*st) + sizeof(*st->idx) * isz;
	st->fixed_bytes += sizeof(*st->ctl) * p->max_sessions + sizeof(*st->base) * p->max_urrs;
	st->fixed_bytes += sizeof(uint32_t) * (p->max_sessions + p->max_urrs + p->max_qers);

	if (create_workers(s, seq, err, errlen) != 0)
		goto fail;
	return s;
fail:
	upf_store_free(s);
	rte_errno = ENOMEM;
	return NULL;
}

/* ---- compiling a session ---- */

static void
fmt_ue(char *buf, size_t len, const struct upf_ue_key *k)
{
	char a[INET6_ADDRSTRLEN];
	uint8_t ip[16] = { 0 };

	memcpy(ip, k->a, sizeof(k->a));
	inet_ntop(k->af == 4 ? AF_INET : AF_INET6, ip, a, sizeof(a));
	if (k->af == 6)
		snprintf(buf, len, "%s/%u (network instance %u)", a, 64 - k->dbits, k->ni);
	else if (k->dbits != 0)
		snprintf(buf, len, "%s/%u (network instance %u)", a, 32 - k->dbits, k->ni);
	else
		snprintf(buf, len, "%s (network instance %u)", a, k->ni);
}

/* Index of the rule with this id among arr[0..n), or -1 (n is at most 32). */
#define FIND_ID(arr, n, want)                         \
	({                                            \
		int r_ = -1;                          \
		unsigned int i_;                      \
		for (i_ = 0; i_ < (n); i_++)          \
			if ((arr)[i_].id == (want)) { \
				r_ = (int)i_;         \
				break;                \
			}                             \
		r_;                                   \
	})

/* An SDF filter's prefix as the datapath's prefix_match() takes it: any, or a length of its family. */
static bool
sdf_prefix_ok(const struct upf_prefix *p)
{
	return p->af == 0 || (p->af == 4 && p->plen <= 32) || (p->af == 6 && p->plen <= 128);
}

/* A framed route as the UE table keys it: IPv4, or IPv6 of at most a /64, host bits zero. */
static bool
framed_ok(const struct upf_prefix *p)
{
	struct upf_ue_key k;

	if (!(p->af == 4 && p->plen <= 32) && !(p->af == 6 && p->plen <= UPF_FRAMED6_PLEN_MAX))
		return false;
	upf_framed_key(&k, 0, p);
	return memcmp(k.a, p->a, p->af == 4 ? 4 : 8) == 0 &&
		(p->af == 4 || memcmp(p->a + 8, (const uint8_t[8]){ 0 }, 8) == 0);
}

static int
check_conf(const struct upf_sess_conf *c, unsigned int *n_sdf, unsigned int *n_framed, char *err,
	   size_t errlen)
{
	unsigned int i, j;

	if (c->up_seid == 0) {
		seterr(err, errlen, "up_seid 0 is not a session");
		return -EINVAL;
	}
	if (c->n_pdr > UPF_MAX_PDR || c->n_far > UPF_MAX_FAR || c->n_qer > UPF_MAX_QER ||
	    c->n_urr > UPF_MAX_URR) {
		seterr(err, errlen,
		       "session 0x%" PRIx64
		       ": %u PDRs, %u FARs, %u QERs, %u URRs; at most %u, %u, %u, %u",
		       c->up_seid, c->n_pdr, c->n_far, c->n_qer, c->n_urr, UPF_MAX_PDR, UPF_MAX_FAR,
		       UPF_MAX_QER, UPF_MAX_URR);
		return -EINVAL;
	}
	if ((c->n_pdr != 0 && c->pdr == NULL) || (c->n_far != 0 && c->far == NULL) ||
	    (c->n_qer != 0 && c->qer == NULL) || (c->n_urr != 0 && c->urr == NULL)) {
		seterr(err, errlen, "session 0x%" PRIx64 ": a rule array is missing", c->up_seid);
		return -EINVAL;
	}
	/* Ids are unique within the session: references must be unambiguous. */
	for (i = 0; i < c->n_far; i++)
		if (FIND_ID(c->far, i, c->far[i].id) >= 0)
			goto dup_far;
	for (i = 0; i < c->n_qer; i++)
		if (FIND_ID(c->qer, i, c->qer[i].id) >= 0)
			goto dup_qer;
	for (i = 0; i < c->n_urr; i++)
		if (FIND_ID(c->urr, i, c->urr[i].id) >= 0)
			goto dup_urr;
	*n_sdf = 0;
	*n_framed = 0;
	for (i = 0; i < c->n_pdr; i++) {
		const struct upf_pdr_conf *r = &c->pdr[i];

		if (FIND_ID(c->pdr, i, r->id) >= 0) {
			seterr(err, errlen, "session 0x%" PRIx64 ": PDR id %u appears twice",
			       c->up_seid, r->id);
			return -EINVAL;
		}
		if (r->n_sdf > UPF_MAX_SDF || r->n_qer > UPF_MAX_PDR_QER ||
		    r->n_urr > UPF_MAX_PDR_URR) {
			seterr(err, errlen,
			       "PDR %u: %u SDF filters, %u QERs, %u URRs; at most %u, %u, %u",
			       r->id, r->n_sdf, r->n_qer, r->n_urr, UPF_MAX_SDF, UPF_MAX_PDR_QER,
			       UPF_MAX_PDR_URR);
			return -EINVAL;
		}
		if ((r->ue4.af != 0 && r->ue4.af != 4) || (r->ue6.af != 0 && r->ue6.af != 6)) {
			seterr(err, errlen, "PDR %u: UE address family %u/%u (4 and 6 expected)",
			       r->id, r->ue4.af, r->ue6.af);
			return -EINVAL;
		}
		for (j = 0; j < r->n_sdf && j < UPF_MAX_SDF; j++)
			if (!sdf_prefix_ok(&r->sdf[j].remote) || !sdf_prefix_ok(&r->sdf[j].ue)) {
				seterr(err, errlen,
				       "PDR %u: SDF filter %u: a prefix of family %u/%u, length "
				       "/%u/%u",
				       r->id, j, r->sdf[j].remote.af, r->sdf[j].ue.af,
				       r->sdf[j].remote.plen, r->sdf[j].ue.plen);
				return -EINVAL;
			}
		if (r->n_framed > UPF_MAX_PDR_FRAMED) {
			seterr(err, errlen, "PDR %u: %u framed routes; at most %u", r->id,
			       r->n_framed, UPF_MAX_PDR_FRAMED);
			return -EINVAL;
		}
		for (j = 0; j < r->n_framed; j++)
			if (!framed_ok(&r->framed[j])) {
				seterr(err, errlen,
				       "PDR %u: framed route %u: family %u, /%u (IPv4, or IPv6 "
				       "of at most /%u, host bits zero)",
				       r->id, j, r->framed[j].af, r->framed[j].plen,
				       UPF_FRAMED6_PLEN_MAX);
				return -EINVAL;
			}
		if (r->ue6_dbits > UPF_UE6_DBITS_MAX || (r->ue6_dbits != 0 && r->ue6.af != 6)) {
			seterr(err, errlen,
			       "PDR %u: a delegated UE prefix of %u bits%s (at most %u, of an "
			       "IPv6 UE address)",
			       r->id, r->ue6_dbits,
			       r->ue6.af != 6 ? " without an IPv6 address" : "", UPF_UE6_DBITS_MAX);
			return -EINVAL;
		}
		if (!r->has_far) {
			seterr(err, errlen, "PDR %u has no FAR", r->id);
			return -EINVAL;
		}
		if (FIND_ID(c->far, c->n_far, r->far_id) < 0) {
			seterr(err, errlen, "PDR %u names FAR %u, which the session does not have",
			       r->id, r->far_id);
			return -EINVAL;
		}
		for (j = 0; j < r->n_qer; j++)
			if (FIND_ID(c->qer, c->n_qer, r->qer_id[j]) < 0) {
				seterr(err, errlen,
				       "PDR %u names QER %u, which the session does not have",
				       r->id, r->qer_id[j]);
				return -EINVAL;
			}
		for (j = 0; j < r->n_urr; j++)
			if (FIND_ID(c->urr, c->n_urr, r->urr_id[j]) < 0) {
				seterr(err, errlen,
				       "PDR %u names URR %u, which the session does not have",
				       r->id, r->urr_id[j]);
				return -EINVAL;
			}
		*n_sdf += r->n_sdf;
		*n_framed += r->n_framed;
	}
	return 0;
dup_far:
	seterr(err, errlen, "session 0x%" PRIx64 ": FAR id %u appears twice", c->up_seid,
	       c->far[i].id);
	return -EINVAL;
dup_qer:
	seterr(err, errlen, "session 0x%" PRIx64 ": QER id %u appears twice", c->up_seid,
	       c->qer[i].id);
	return -EINVAL;
dup_urr:
	seterr(err, errlen, "session 0x%" PRIx64 ": URR id %u appears twice", c->up_seid,
	       c->urr[i].id);
	return -EINVAL;
}

static inline bool
is_core(uint8_t iface)
{
	return iface == UPF_IF_CORE || iface == UPF_IF_SGI_LAN;
}

/* Allocate the object for c, sized for its rules and its key candidates. */
static struct sess_obj *
obj_alloc(struct store_priv *st, const struct upf_sess_conf *c, unsigned int n_sdf,
	  unsigned int n_framed)
{
	size_t off[10], size = RTE_ALIGN(sizeof(struct sess_obj), 8);
	unsigned int n_teid = 0, n_ue = 0, i;
	struct upf_sess_dp *dp;
	struct sess_obj *o;
	char *base;

	for (i = 0; i < c->n_pdr; i++) {
		n_teid += c->pdr[i].has_fteid;
		if (is_core(c->pdr[i].src_iface))
			n_ue += (c->pdr[i].ue4.af == 4) + (c->pdr[i].ue6.af == 6) +
				c->pdr[i].n_framed;
	}
#define OBJ_ARRAY(k, n, t)                             \
	do {                                           \
		off[k] = size;                         \
		size += RTE_ALIGN((n) * sizeof(t), 8); \
	} while (0)
	/* The packet's arrays first, each from a line of its own (upf.h):
	 * the match entries, then the act lines, then the SDF filters a scan
	 * may read. */
	size = RTE_ALIGN(size, RTE_CACHE_LINE_SIZE);
	OBJ_ARRAY(0, c->n_pdr, struct upf_pdr_match);
	size = RTE_ALIGN(size, RTE_CACHE_LINE_SIZE);
	OBJ_ARRAY(1, c->n_pdr, struct upf_pdr_act);
	OBJ_ARRAY(2, n_sdf, struct upf_sdf);
	/* Where upf_sess_framed() finds them. */
	OBJ_ARRAY(9, n_framed, struct upf_prefix);
	OBJ_ARRAY(3, c->n_pdr, struct upf_pdr_dp);
	OBJ_ARRAY(4, c->n_far, struct upf_far_dp);
	OBJ_ARRAY(5, c->n_qer, struct upf_qer_dp);
	OBJ_ARRAY(6, c->n_urr, struct upf_urr_dp);
	OBJ_ARRAY(7, n_teid, uint32_t);
	OBJ_ARRAY(8, n_ue, struct upf_ue_key);
#undef OBJ_ARRAY
	size = RTE_ALIGN(size, SLAB_STEP);
	o = obj_mem_get(st, size);
	if (o == NULL)
		return NULL;
	base = (char *)o;
	dp = &o->dp;
	dp->up_seid = c->up_seid;
	dp->n_pdr = c->n_pdr;
	dp->n_far = c->n_far;
	dp->n_qer = c->n_qer;
	dp->n_urr = c->n_urr;
	dp->n_sdf = (uint16_t)n_sdf;
	dp->match = (const void *)(base + off[0]);
	dp->act = (const void *)(base + off[1]);
	dp->sdf = (const void *)(base + off[2]);
	dp->pdr = (const void *)(base + off[3]);
	dp->far = (const void *)(base + off[4]);
	dp->qer = (const void *)(base + off[5]);
	dp->urr = (const void *)(base + off[6]);
	o->teid = (void *)(base + off[7]);
	o->ue = (void *)(base + off[8]);
	RTE_VERIFY((const void *)upf_sess_framed(dp) == (const void *)(base + off[9]));
	o->size = size;
	return o;
}

static void
obj_free_now(struct store_priv *st, struct sess_obj *o)
{
	obj_mem_put(st, o, o->size);
}

/* The PDR group of a source interface, in the order of upf_sess_dp.pdr. */
enum { PDR_GROUP_UL, PDR_GROUP_DL, PDR_GROUP_OTHER, PDR_GROUPS };

static inline unsigned int
pdr_group(uint8_t iface)
{
	if (iface == UPF_IF_ACCESS)
		return PDR_GROUP_UL;
	if (is_core(iface))
		return PDR_GROUP_DL;
	return PDR_GROUP_OTHER;
}

/* PDR a sorts before PDR b: its group first, then its precedence. */
static inline bool
pdr_before(const struct upf_pdr_conf *a, const struct upf_pdr_conf *b)
{
	const unsigned int ga = pdr_group(a->src_iface), gb = pdr_group(b->src_iface);

	return ga != gb ? ga < gb : a->precedence < b->precedence;
}

void
upf_pdr_order(const struct upf_sess_conf *c, uint8_t order[UPF_MAX_PDR], unsigned int *n_ul,
	      unsigned int *n_dl)
{
	const unsigned int n = RTE_MIN(c->n_pdr, (unsigned int)UPF_MAX_PDR);
	unsigned int n_group[PDR_GROUPS] = { 0 };
	unsigned int i, j;

	/* Insertion sort of the indexes: stable, and n is at most 32. */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && pdr_before(&c->pdr[i], &c->pdr[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = (uint8_t)i;
		n_group[pdr_group(c->pdr[i].src_iface)]++;
	}
	if (n_ul != NULL)
		*n_ul = n_group[PDR_GROUP_UL];
	if (n_dl != NULL)
		*n_dl = n_group[PDR_GROUP_DL];
}

/* GTP-U's UDP port (TS 29.281): datapath/gtpu.h's GTPU_PORT, which lib/ may not include. */
#define UPF_GTPU_PORT 2152

/*
 * The outer IPv4 and UDP headers of a GTP-U/UDP/IPv4 FAR (upf.h,
 * upf_far_dp.hdr4): version 4, header 20 bytes, ToS 0, ID 0, no
 * fragmentation flags, TTL 64, UDP from our N3 address to the peer, ports
 * UPF_GTPU_PORT, UDP checksum 0; the lengths 0 and the IPv4 checksum field
 * the sum of the rest.
 */
static void
far_hdr4(struct upf_far_dp *d)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)d->hdr4;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	RTE_BUILD_BUG_ON(sizeof(*ip) + sizeof(*udp) != UPF_FAR_HDR4 ||
			 UPF_FAR_HDR4 > sizeof(d->hdr4));
	memset(d->hdr4, 0, sizeof(d->hdr4));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = d->src4;
	ip->dst_addr = d->peer4;
	ip->hdr_checksum = rte_raw_cksum(ip, sizeof(*ip));
	udp->src_port = rte_cpu_to_be_16(UPF_GTPU_PORT);
	udp->dst_port = rte_cpu_to_be_16(UPF_GTPU_PORT);
}

/*
 * Fill the PDRs (upf_pdr_order: grouped by direction, each group by
 * precedence), their SDFs and the FARs. The group sizes come from the
 * same grouping as the order, so the bounds the datapath scans cannot
 * disagree with it.
 */
static void
obj_fill(struct store_priv *st, struct sess_obj *o, const struct upf_sess_conf *c)
{
	struct upf_pdr_dp *pdr = (struct upf_pdr_dp *)(uintptr_t)o->dp.pdr;
	struct upf_far_dp *far = (struct upf_far_dp *)(uintptr_t)o->dp.far;
	struct upf_sdf *sdf = (struct upf_sdf *)(uintptr_t)o->dp.sdf;
	struct upf_prefix *framed = (struct upf_prefix *)(uintptr_t)upf_sess_framed(&o->dp);
	const struct upf_store_params *p = &st->s->p;
	unsigned int i, j, n_ul, n_dl, n_sdf = 0, n_framed = 0;
	uint8_t order[UPF_MAX_PDR];

	upf_pdr_order(c, order, &n_ul, &n_dl);
	o->dp.n_pdr_ul = (uint8_t)n_ul;
	o->dp.n_pdr_dl = (uint8_t)n_dl;
	for (i = 0; i < c->n_pdr; i++) {
		const struct upf_pdr_conf *r = &c->pdr[order[i]];
		struct upf_pdr_dp *d = &pdr[i];

		d->precedence = r->precedence;
		d->id = r->id;
		/* N6-LAN is the core side for matching (upf.h). */
		d->src_iface = r->src_iface == UPF_IF_SGI_LAN ? UPF_IF_CORE : r->src_iface;
		if (r->has_fteid) {
			d->flags |= UPF_PDR_TEID;
			d->teid = r->teid;
		}
		if (r->has_qfi) {
			d->flags |= UPF_PDR_QFI;
			d->qfi = r->qfi;
		}
		if (r->ue4.af == 4) {
			d->flags |= UPF_PDR_UE4;
			memcpy(&d->ue4, r->ue4.a, 4);
		}
		if (r->ue6.af == 6) {
			struct upf_ue_key k;

			/* A delegated prefix with its host bits zero (upf_ue_key_make). */
			upf_ue_key_make(&k, 0, 6, r->ue6.a, r->ue6_dbits);
			d->flags |= UPF_PDR_UE6 | (r->ue6_dbits != 0 ? UPF_PDR_UE6_PFX : 0);
			memcpy(d->ue6, k.a, 8);
			d->ue6_dbits = r->ue6_dbits;
		}
		if (r->outer_hdr_removal)
			d->flags |= UPF_PDR_OHR;
		d->sdf = (uint16_t)n_sdf;
		d->n_sdf = r->n_sdf;
		for (j = 0; j < r->n_sdf; j++)
			sdf[n_sdf++] = r->sdf[j];
		if (r->n_framed != 0) {
			d->flags |= UPF_PDR_FRAMED;
			/* Index i's group (upf.h): the uplink's first, then the downlink's. */
			o->dp.framed_dirs |= i < n_ul ? 1u : i < n_ul + n_dl ? 2u : 0u;
		}
		d->n_framed = r->n_framed;
		for (j = 0; j < r->n_framed; j++)
			framed[n_framed++] = r->framed[j];
		d->far = (uint16_t)FIND_ID(c->far, c->n_far, r->far_id);
		d->n_qer = r->n_qer;
		for (j = 0; j < UPF_MAX_PDR_QER; j++)
			d->qer[j] = j < r->n_qer ? (uint16_t)FIND_ID(c->qer, c->n_qer, r->qer_id[j])
						 : UPF_IDX_NONE;
		d->n_urr = r->n_urr;
		for (j = 0; j < UPF_MAX_PDR_URR; j++)
			d->urr[j] = j < r->n_urr ? (uint16_t)FIND_ID(c->urr, c->n_urr, r->urr_id[j])
						 : UPF_IDX_NONE;
	}
	for (i = 0; i < c->n_far; i++) {
		const struct upf_far_conf *r = &c->far[i];
		struct upf_far_dp *d = &far[i];

		d->id = r->id;
		d->apply = r->apply;
		d->dst_iface = r->dst_iface;
		d->ohc = r->ohc;
		d->teid = r->ohc_teid;
		d->src4 = p->n3_ipv4;
		if (r->ohc_peer.af == 4)
			memcpy(&d->peer4, r->ohc_peer.a, 4);
		/* The union's member gtpu_encap reads: it takes the IPv4
		 * template on the same test. */
		if (d->ohc & UPF_OHC_GTPU_UDP_IPV4) {
			far_hdr4(d);
		} else {
			if (r->ohc_peer.af == 6)
				memcpy(d->peer6, r->ohc_peer.a, 16);
			memcpy(d->src6, p->n3_ipv6, 16);
		}
	}
}

/*
 * Each PDR's match entry and act line (upf.h) from the compiled PDR: its
 * conditions, its QERs' gates, MBR directions and QFI, its FAR's copy and
 * its URR counter slots. After the slots are given, before the object is
 * published.
 */
static void
obj_resolve(struct sess_obj *o)
{
	struct upf_pdr_match *match = (struct upf_pdr_match *)(uintptr_t)o->dp.match;
	struct upf_pdr_act *act = (struct upf_pdr_act *)(uintptr_t)o->dp.act;
	unsigned int i, j, need = 0;

	for (i = 0; i < o->dp.n_pdr; i++) {
		const struct upf_pdr_dp *d = &o->dp.pdr[i];
		struct upf_pdr_match *m = &match[i];
		struct upf_pdr_act *a = &act[i];

		m->flags = d->flags;
		m->qfi = d->qfi;
		m->n_sdf = d->n_sdf;
		m->sdf = d->sdf;
		m->teid = d->teid;
		m->ue4 = d->ue4;
		memcpy(m->ue6, d->ue6, sizeof(m->ue6));
		m->n_qer = d->n_qer;
		m->n_urr = d->n_urr;
		m->qer_gate = 0;
		m->qer_mbr = 0;
		m->qer_qfi = 0;
		for (j = 0; j < d->n_qer; j++) {
			const struct upf_qer_dp *q = &o->dp.qer[d->qer[j]];

			m->qer_gate |= q->gate;
			m->qer_mbr |= q->has_mbr;
			if (m->qer_qfi == 0)
				m->qer_qfi = q->qfi;
		}
		a->fwd = o->dp.far[d->far];
		for (j = 0; j < UPF_MAX_PDR_QER; j++)
			a->qer[j] = d->qer[j];
		for (j = 0; j < UPF_MAX_PDR_URR; j++)
			a->urr_slot[j] = j < d->n_urr ? o->dp.urr[d->urr[j]].slot : 0;
		m->far_apply = a->fwd.apply;
		m->far_tunnel = a->fwd.ohc != 0;
		m->urr_slot0 = a->urr_slot[0];
		/* Index i's direction: the store's grouping (upf.h). */
		if (m->far_tunnel || m->qer_mbr != 0 || d->n_urr > 1)
			need |= i < o->dp.n_pdr_ul                                  ? 1u
				: i < o->dp.n_pdr_ul + (unsigned int)o->dp.n_pdr_dl ? 2u
										    : 0u;
	}
	o->dp.act_need = (uint8_t)need;
}

static void
ue_key_once(struct sess_obj *o, const struct upf_ue_key *key)
{
	unsigned int j;

	for (j = 0; j < o->n_ue && memcmp(&o->ue[j], key, sizeof(*key)) != 0; j++)
		;
	if (j == o->n_ue)
		o->ue[o->n_ue++] = *key;
}

/* The keys of c's PDRs, each once (several PDRs may share one). */
static void
obj_keys(struct sess_obj *o, const struct upf_sess_conf *c)
{
	unsigned int i, j, k;

	o->n_teid = 0;
	o->n_ue = 0;
	for (i = 0; i < c->n_pdr; i++) {
		const struct upf_pdr_conf *r = &c->pdr[i];
		const struct upf_ip *ue[2] = { &r->ue4, &r->ue6 };

		if (r->has_fteid) {
			for (j = 0; j < o->n_teid && o->teid[j] != r->teid; j++)
				;
			if (j == o->n_teid)
				o->teid[o->n_teid++] = r->teid;
		}
		if (!is_core(r->src_iface))
			continue;
		for (k = 0; k < 2; k++) {
			struct upf_ue_key key;

			if (ue[k]->af != 4 && ue[k]->af != 6)
				continue;
			/* A delegated prefix is one key of its length (upf_uetab.h). */
			upf_ue_key_make(&key, r->ni == UPF_NI_NONE ? 0 : r->ni, ue[k]->af, ue[k]->a,
					k == 1 ? r->ue6_dbits : 0);
			ue_key_once(o, &key);
		}
		/* A framed route is a prefix key (upf_uetab.h); a /32 or /64 a plain one. */
		for (k = 0; k < r->n_framed; k++) {
			const struct upf_prefix *f = &r->framed[k];
			struct upf_ue_key key;

			upf_framed_key(&key, r->ni == UPF_NI_NONE ? 0 : r->ni, f);
			ue_key_once(o, &key);
		}
	}
}

static uint32_t
next_meter_gen(struct store_priv *st)
{
	if (++st->meter_gen == 0)
		st->meter_gen = 1;
	return st->meter_gen;
}

/*
 * trTCM with CIR = PIR = the MBR: a packet is green (passes) or red. The
 * buckets hold 10 ms of the MBR, at least 16 KiB: room for a burst of
 * full-size packets from one RX poll and for a jumbo frame (a bucket
 * smaller than a packet would never pass it), while the most the burst
 * allowance adds over a 5 s measurement is 0.2% of the MBR.
 */
static void
meter_profile(struct rte_meter_trtcm_profile *prof, uint64_t mbr_kbps)
{
	uint64_t rate = mbr_kbps * 1000 / 8;
	struct rte_meter_trtcm_params mp;

	if (rate == 0)
		rate = 1;
	mp.cir = rate;
	mp.pir = rate;
	mp.cbs = RTE_MAX(rate / STORE_BURST_DIV, (uint64_t)STORE_BURST_MIN);
	mp.pbs = mp.cbs;
	/* Only fails on a zero rate or burst, which cannot happen here. */
	rte_meter_trtcm_profile_config(prof, &mp);
}

/* Bits 0..n-1 (n <= 8: UPF_MAX_URR, UPF_MAX_QER). */
static inline uint8_t
rule_mask(unsigned int n)
{
	return (uint8_t)((1u << n) - 1);
}

static bool
same_ue_key(const struct upf_ue_key *a, const struct upf_ue_key *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Key installs of one put, to undo them if a later one fails. */
struct put_undo {
	uint16_t n_teid, n_ue; /* Installed so far. */
	bool teid_was_old[UPF_MAX_PDR]; /* Pointed at the old object before. */
	bool ue_was_old[2 * UPF_MAX_PDR + UPF_MAX_PDR * UPF_MAX_PDR_FRAMED];
};

static void
undo_keys(struct store_priv *st, const struct sess_obj *o, const struct put_undo *u,
	  struct sess_obj *old)
{
	struct upf_store *s = st->s;
	unsigned int i;

	/* Overwriting the data of an existing key allocates nothing: it cannot fail. */
	for (i = 0; i < u->n_teid; i++)
		if (u->teid_was_old[i])
			teid_add(st, o->teid[i], old);
		else
			teid_del(st, o->teid[i]);
	for (i = 0; i < u->n_ue; i++)
		if (u->ue_was_old[i])
			upf_ue_add(&s->ue, &o->ue[i], old);
		else
			ue_del(st, &o->ue[i]);
}

int
upf_store_put(struct upf_store *s, const struct upf_sess_conf *c, char *err, size_t errlen)
{
	struct store_priv *st;
	struct sess_obj *o, *old = NULL;
	struct upf_qer_dp *qer;
	struct upf_urr_dp *urr;
	struct put_undo u;
	struct retire r;
	uint8_t new_urr = 0, new_qer = 0, keep_urr = 0, keep_qer = 0;
	unsigned int n_sdf, n_framed, i, j;
	uint32_t slot;
	bool new_sess;
	int ret;

	if (s == NULL || c == NULL)
		return -EINVAL;
	st = s->priv;
	ret = check_conf(c, &n_sdf, &n_framed, err, errlen);
	if (ret != 0)
		return ret;
	o = obj_alloc(st, c, n_sdf, n_framed);
	if (o == NULL) {
		seterr(err, errlen, "session 0x%" PRIx64 ": no memory for its rules", c->up_seid);
		return -ENOMEM;
	}
	obj_fill(st, o, c);
	obj_keys(o, c);
	qer = (struct upf_qer_dp *)(uintptr_t)o->dp.qer;
	urr = (struct upf_urr_dp *)(uintptr_t)o->dp.urr;

	slot = idx_find(st, c->up_seid);
	if (slot != UINT32_MAX)
		old = st->ctl[slot].obj;
	new_sess = old == NULL;

	/* Every key must be free or already ours: check them all before
	 * changing anything, so a conflict leaves no trace. */
	for (i = 0; i < o->n_teid; i++) {
		void *d;

		u.teid_was_old[i] = false;
		d = upf_teid_find(&s->teid, o->teid[i]);
		if (d == NULL)
			continue;
		if (d != old) {
			seterr(err, errlen, "TEID 0x%08x is held by session 0x%" PRIx64, o->teid[i],
			       ((const struct upf_sess_dp *)d)->up_seid);
			ret = -EEXIST;
			goto fail_obj;
		}
		u.teid_was_old[i] = true;
	}
	for (i = 0; i < o->n_ue; i++) {
		char buf[96];
		void *d;

		u.ue_was_old[i] = false;
		if (upf_ue_overlaps_dir(&s->ue, &o->ue[i])) {
			fmt_ue(buf, sizeof(buf), &o->ue[i]);
			seterr(err, errlen,
			       "framed route %s overlaps the UE direct range (the first "
			       "ue_alloc prefix) of its instance",
			       buf);
			ret = -EINVAL;
			goto fail_obj;
		}
		d = upf_ue_find(&s->ue, &o->ue[i]);
		if (d == NULL)
			continue;
		if (d != old) {
			fmt_ue(buf, sizeof(buf), &o->ue[i]);
			seterr(err, errlen, "UE address %s is held by session 0x%" PRIx64, buf,
			       ((const struct upf_sess_dp *)d)->up_seid);
			ret = -EEXIST;
			goto fail_obj;
		}
		u.ue_was_old[i] = true;
	}

	/* Slots: rules that keep their id keep theirs (and their counts). */
	if (new_sess) {
		slot = slot_get(st, &st->sess);
		if (slot == UINT32_MAX) {
			seterr(err, errlen, "session 0x%" PRIx64 ": all %u sessions are in use",
			       c->up_seid, s->p.max_sessions);
			ret = -ENOSPC;
			goto fail_obj;
		}
	}
	o->dp.slot = slot;
	for (i = 0; i < c->n_qer; i++) {
		const struct upf_qer_conf *q = &c->qer[i];
		struct upf_qer_dp *d = &qer[i];
		int k = old != NULL ? FIND_ID(old->dp.qer, old->dp.n_qer, q->id) : -1;

		d->id = q->id;
		d->gate = (q->gate_ul_closed ? 1 : 0) | (q->gate_dl_closed ? 2 : 0);
		d->qfi = q->has_qfi ? q->qfi : 0;
		d->has_mbr = (q->mbr_ul != 0 ? 1 : 0) | (q->mbr_dl != 0 ? 2 : 0);
		if (q->mbr_ul != 0)
			meter_profile(&d->prof[0], q->mbr_ul);
		if (q->mbr_dl != 0)
			meter_profile(&d->prof[1], q->mbr_dl);
		if (k >= 0) {
			const struct upf_qer_dp *oq = &old->dp.qer[k];

			d->meter = oq->meter;
			keep_qer |= 1u << k;
			/* The same rates keep the workers' bucket state. */
			if (oq->has_mbr == d->has_mbr &&
			    memcmp(oq->prof, d->prof, sizeof(d->prof)) == 0) {
				d->meter_gen = oq->meter_gen;
				continue;
			}
		} else {
			d->meter = slot_get(st, &st->qer);
			if (d->meter == UINT32_MAX) {
				seterr(err, errlen,
				       "session 0x%" PRIx64
				       ", QER %u: all %u meter slots are in use",
				       c->up_seid, q->id, s->p.max_qers);
				ret = -ENOSPC;
				goto fail_slots;
			}
			new_qer |= 1u << i;
		}
		d->meter_gen = next_meter_gen(st);
	}
	for (i = 0; i < c->n_urr; i++) {
		int k = old != NULL ? FIND_ID(old->dp.urr, old->dp.n_urr, c->urr[i].id) : -1;
		struct upf_urr_ctr *b;
		unsigned int w;

		urr[i].id = c->urr[i].id;
		if (k >= 0) {
			urr[i].slot = old->dp.urr[k].slot;
			keep_urr |= 1u << k;
			continue;
		}
		urr[i].slot = slot_get(st, &st->urr);
		if (urr[i].slot == UINT32_MAX) {
			seterr(err, errlen,
			       "session 0x%" PRIx64 ", URR %u: all %u counter slots are in use",
			       c->up_seid, c->urr[i].id, s->p.max_urrs);
			ret = -ENOSPC;
			goto fail_slots;
		}
		new_urr |= 1u << i;
		/* No worker counts into a free slot: the sum is stable now. */
		b = &st->base[urr[i].slot];
		memset(b, 0, sizeof(*b));
		for (w = 0; w < s->p.n_workers; w++) {
			const struct upf_urr_ctr *x = &s->wk[w].urr[urr[i].slot];

			for (j = 0; j < 2; j++) {
				b->bytes[j] += __atomic_load_n(&x->bytes[j], __ATOMIC_RELAXED);
				b->pkts[j] += __atomic_load_n(&x->pkts[j], __ATOMIC_RELAXED);
			}
		}
	}

	obj_resolve(o);

	/* Publish: every key at the new object (new keys added, ours
	 * repointed, each a single atomic store that readers see whole). */
	u.n_teid = 0;
	u.n_ue = 0;
	for (i = 0; i < o->n_teid; i++) {
		ret = teid_add(st, o->teid[i], o);
		if (ret < 0) {
			seterr(err, errlen, "session 0x%" PRIx64 ": TEID 0x%08x: table full (%s)",
			       c->up_seid, o->teid[i], strerror(-ret));
			goto fail_keys;
		}
		u.n_teid++;
	}
	for (i = 0; i < o->n_ue; i++) {
		ret = ue_add(st, &o->ue[i], o);
		if (ret < 0) {
			char buf[96];

			fmt_ue(buf, sizeof(buf), &o->ue[i]);
			seterr(err, errlen, "session 0x%" PRIx64 ": UE address %s: table full (%s)",
			       c->up_seid, buf, strerror(-ret));
			goto fail_keys;
		}
		u.n_ue++;
	}

	if (old != NULL) {
		/* The keys the new object no longer has. */
		for (i = 0; i < old->n_teid; i++) {
			for (j = 0; j < o->n_teid && o->teid[j] != old->teid[i]; j++)
				;
			if (j == o->n_teid)
				teid_del(st, old->teid[i]);
		}
		for (i = 0; i < old->n_ue; i++) {
			for (j = 0; j < o->n_ue && !same_ue_key(&o->ue[j], &old->ue[i]); j++)
				;
			if (j == o->n_ue)
				ue_del(st, &old->ue[i]);
		}
		st->n_pdr -= old->dp.n_pdr;
		st->n_far -= old->dp.n_far;
		st->n_qer -= old->dp.n_qer;
		st->n_urr -= old->dp.n_urr;
		memset(&r, 0, sizeof(r));
		r.obj = old;
		r.urr_mask = (uint8_t)(rule_mask(old->dp.n_urr) & ~keep_urr);
		r.qer_mask = (uint8_t)(rule_mask(old->dp.n_qer) & ~keep_qer);
		st->ctl[slot].obj = o;
		store_retire(st, &r);
	} else {
		st->ctl[slot].up_seid = c->up_seid;
		st->ctl[slot].obj = o;
		idx_add(st, c->up_seid, slot);
		st->n_sessions++;
	}
	st->n_pdr += o->dp.n_pdr;
	st->n_far += o->dp.n_far;
	st->n_qer += o->dp.n_qer;
	st->n_urr += o->dp.n_urr;
	return 0;

fail_keys:
	undo_keys(st, o, &u, old);
	if (u.n_teid + u.n_ue != 0) {
		/* Workers may have seen the new object: it and the slots it
		 * took go back after a grace period. */
		memset(&r, 0, sizeof(r));
		r.obj = o;
		r.urr_mask = new_urr;
		r.qer_mask = new_qer;
		r.free_sess = new_sess;
		store_retire(st, &r);
		return ret;
	}
fail_slots:
	/* Never published: the slots taken go straight back. */
	for (i = 0; i < c->n_urr; i++)
		if (new_urr & (1u << i))
			pool_put(&st->urr, urr[i].slot);
	for (i = 0; i < c->n_qer; i++)
		if (new_qer & (1u << i))
			pool_put(&st->qer, qer[i].meter);
	if (new_sess)
		pool_put(&st->sess, slot);
fail_obj:
	obj_free_now(st, o);
	return ret;
}

int
upf_store_del(struct upf_store *s, uint64_t up_seid)
{
	struct store_priv *st;
	struct sess_obj *o;
	struct retire r;
	uint32_t slot;
	unsigned int i;

	if (s == NULL)
		return -EINVAL;
	st = s->priv;
	slot = idx_find(st, up_seid);
	if (slot == UINT32_MAX)
		return -ENOENT;
	o = st->ctl[slot].obj;
	for (i = 0; i < o->n_teid; i++)
		teid_del(st, o->teid[i]);
	for (i = 0; i < o->n_ue; i++)
		ue_del(st, &o->ue[i]);
	idx_del(st, up_seid, slot);
	st->ctl[slot].up_seid = 0;
	st->ctl[slot].obj = NULL;
	st->n_sessions--;
	st->n_pdr -= o->dp.n_pdr;
	st->n_far -= o->dp.n_far;
	st->n_qer -= o->dp.n_qer;
	st->n_urr -= o->dp.n_urr;
	memset(&r, 0, sizeof(r));
	r.obj = o;
	r.urr_mask = rule_mask(o->dp.n_urr);
	r.qer_mask = rule_mask(o->dp.n_qer);
	r.free_sess = 1;
	store_retire(st, &r);
	return 0;
}

int
upf_store_usage(const struct upf_store *s, uint64_t up_seid, uint32_t urr_id, struct upf_usage *u)
{
	const struct store_priv *st;
	const struct upf_urr_ctr *b;
	const struct sess_obj *o;
	uint32_t slot;
	unsigned int w, j;
	int k;

	if (s == NULL || u == NULL)
		return -EINVAL;
	st = s->priv;
	slot = idx_find(st, up_seid);
	if (slot == UINT32_MAX)
		return -ENOENT;
	o = st->ctl[slot].obj;
	k = FIND_ID(o->dp.urr, o->dp.n_urr, urr_id);
	if (k < 0)
		return -ENOENT;
	slot = o->dp.urr[k].slot;
	b = &st->base[slot];
	memset(u, 0, sizeof(*u));
	for (w = 0; w < s->p.n_workers; w++) {
		const struct upf_urr_ctr *x = &s->wk[w].urr[slot];

		for (j = 0; j < 2; j++) {
			u->bytes[j] += __atomic_load_n(&x->bytes[j], __ATOMIC_RELAXED);
			u->pkts[j] += __atomic_load_n(&x->pkts[j], __ATOMIC_RELAXED);
		}
	}
	for (j = 0; j < 2; j++) {
		u->bytes[j] -= b->bytes[j];
		u->pkts[j] -= b->pkts[j];
	}
	return 0;
}

const struct upf_sess_dp *
upf_store_get(const struct upf_store *s, uint64_t up_seid)
{
	const struct store_priv *st;
	uint32_t slot;

	if (s == NULL)
		return NULL;
	st = s->priv;
	slot = idx_find(st, up_seid);
	return slot == UINT32_MAX ? NULL : &st->ctl[slot].obj->dp;
}

uint64_t
upf_store_slot_seid(const struct upf_store *s, uint32_t slot)
{
	const struct store_priv *st;

	if (s == NULL || slot >= s->p.max_sessions)
		return 0;
	st = s->priv;
	return st->ctl[slot].obj != NULL ? st->ctl[slot].up_seid : 0;
}

void
upf_store_counts(const struct upf_store *s, struct upf_store_counts *c)
{
	const struct store_priv *st;

	memset(c, 0, sizeof(*c));
	if (s == NULL)
		return;
	st = s->priv;
	c->sessions = st->n_sessions;
	c->pdrs = st->n_pdr;
	c->fars = st->n_far;
	c->qers = st->n_qer;
	c->urrs = st->n_urr;
	c->bytes = st->fixed_bytes + st->obj_bytes;
	c->held_bytes = st->held_bytes;
}
