/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow table (include/flow.h): a bucketized cuckoo hash of our own. Buckets
 * are 64-byte lines of 8 slots (16-bit signature, 32-bit entry index); a key
 * has a primary bucket and an alternative one derived from the primary and
 * the signature, so an entry can be moved without reading its key. A bucket
 * counts the entries whose primary it is but that live in their
 * alternative (ovf): while it is 0, a miss costs one bucket line. Entries
 * come from a free list; the hot and cold parts are parallel arrays (or one
 * fat entry per flow, for the layout comparison). docs/architecture.md
 * ("Flow table") explains the design, docs/flow-scale.md measures it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#ifdef RTE_ARCH_X86
#include <emmintrin.h>
#endif

#include "flow.h"

/* The owner is the only writer: a plain load and store, which readers on
 * other threads see whole (never a locked read-modify-write). */
#define FLOW_STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)

#define FLOW_SLOTS 8
/* Keys a lookup pipelines at once; bursts are cut into chunks of this. */
#define FLOW_CHUNK 64u

struct lf_flow_bucket {
	uint16_t sig[FLOW_SLOTS];
	uint32_t idx[FLOW_SLOTS];
	uint8_t used; /* Slots in use. */
	uint8_t alt; /* Used slots whose entry has this as its alternative bucket. */
	uint16_t pad;
	uint32_t ovf; /* Entries with this primary bucket stored in their alternative. */
	uint8_t pad2[8];
} __rte_cache_aligned;

/* The naive layout: everything of a flow in one entry, cold line first. */
struct lf_flow_fat {
	struct lf_flow_cold cold;
	struct lf_flow_hot hot;
};

typedef void(flow_lookup_fn)(struct lf_flow_table *t, const struct lf_flow_key *keys,
			     const uint64_t *hash, uint16_t n, unsigned int d, uint64_t now,
			     struct lf_flow_hot **out);

struct lf_flow_table {
	/* Read by every lookup. */
	struct lf_flow_bucket *bkt;
	struct lf_flow_hot *hot; /* LF_FLOW_LAYOUT_HOTCOLD */
	struct lf_flow_cold *cold; /* LF_FLOW_LAYOUT_HOTCOLD */
	struct lf_flow_fat *fat; /* LF_FLOW_LAYOUT_FAT */
	uint32_t bmask;
	flow_lookup_fn *lookup;
	/* Owner only: insert, delete, expire. */
	uint32_t *free_idx;
	uint32_t n_free;
	uint32_t capacity;
	uint32_t timeout; /* In LF_FLOW_TIME_SHIFT units; 0: never idle. */
	uint32_t cursor; /* Next entry lf_flow_expire() examines. */
	enum lf_flow_evict evict;
	enum lf_flow_layout layout;
	size_t mem;
	struct lf_flow_stats stats; /* owner: writes; others: read. */
};

_Static_assert(sizeof(struct lf_flow_key) == 48, "flow key is 48 bytes");
_Static_assert(sizeof(struct lf_flow_hot) == RTE_CACHE_LINE_SIZE, "hot entry is one line");
_Static_assert(sizeof(struct lf_flow_cold) == RTE_CACHE_LINE_SIZE, "cold entry is one line");
_Static_assert(sizeof(struct lf_flow_bucket) == RTE_CACHE_LINE_SIZE, "bucket is one line");

void
lf_flow_key_from_pkt(const struct rte_mbuf *m, uint8_t af, uint8_t l4_proto, uint16_t l3_off,
		     uint16_t l4_off, uint16_t in_port, uint16_t vlan, struct lf_flow_key *k)
{
	const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);

	memset(k, 0, sizeof(*k));
	k->af = af;
	k->proto = l4_proto;
	k->in_port = in_port;
	k->vlan = vlan;
	if (af == 4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(data + l3_off);

		memcpy(k->src, &ip->src_addr, 4);
		memcpy(k->dst, &ip->dst_addr, 4);
	} else {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(data + l3_off);

		memcpy(k->src, ip6->src_addr, 16);
		memcpy(k->dst, ip6->dst_addr, 16);
	}
	if (l4_off != 0 &&
	    (l4_proto == IPPROTO_UDP || l4_proto == IPPROTO_TCP || l4_proto == IPPROTO_SCTP)) {
		/* All three start with the source and destination ports. */
		const uint16_t *ports = (const uint16_t *)(data + l4_off);

		k->sport = ports[0];
		k->dport = ports[1];
	}
}

/* ---- hashing ---- */

static inline uint64_t
load64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
load32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* 64x64 -> 128-bit multiply folded to 64 bits (as in wyhash and XXH3). */
static inline uint64_t
mix(uint64_t a, uint64_t b)
{
	__uint128_t p = (__uint128_t)a * b;

	return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t
flow_hash(const struct lf_flow_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h;

	/*
	 * An IPv4 key has 12 zero bytes in each address: hash the three words
	 * that carry it (the family is part of the key, so a key always takes
	 * the same branch). Two multiplies fewer per lookup.
	 */
	if (likely(k->af == 4)) {
		h = mix(load64(p) ^ 0xa0761d6478bd642full, load64(p + 8) ^ 0xe7037ed1a0b428dbull);
		h += mix((load32(p + 16) | (uint64_t)load32(p + 32) << 32) ^ 0x8ebc6af09c88c6e3ull,
			 0x589965cc75374cc3ull);
		return mix(h ^ 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull);
	}
	h = mix(load64(p) ^ 0xa0761d6478bd642full, load64(p + 8) ^ 0xe7037ed1a0b428dbull);
	h += mix(load64(p + 16) ^ 0x8ebc6af09c88c6e3ull, load64(p + 24) ^ 0x589965cc75374cc3ull);
	h += mix(load64(p + 32) ^ 0x1d8e4e27c47d124full, load64(p + 40) ^ 0x9e3779b97f4a7c15ull);
	return mix(h ^ 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull);
}

static inline uint16_t
hash_sig(uint64_t h)
{
	return (uint16_t)(h >> 48);
}

/* The other bucket of an entry in bucket b with signature sig (symmetric). */
static inline uint32_t
alt_bucket(const struct lf_flow_table *t, uint32_t b, uint16_t sig)
{
	return (b ^ ((uint32_t)sig * 0x9e3779b1u)) & t->bmask;
}

/* Slots of b in use whose signature is sig. */
static inline unsigned int
sig_match(const struct lf_flow_bucket *b, uint16_t sig)
{
#ifdef RTE_ARCH_X86
	__m128i v = _mm_load_si128((const __m128i *)b->sig);
	__m128i eq = _mm_cmpeq_epi16(v, _mm_set1_epi16((short)sig));

	return (unsigned int)_mm_movemask_epi8(_mm_packs_epi16(eq, _mm_setzero_si128())) & b->used;
#else
	unsigned int s, mask = 0;

	for (s = 0; s < FLOW_SLOTS; s++)
		mask |= (unsigned int)(b->sig[s] == sig) << s;
	return mask & b->used;
#endif
}

static inline void
key_head(const struct lf_flow_key *k, struct lf_flow_khead *h)
{
	h->w0 = load64(k);
	h->w1 = load64((const uint8_t *)k + 8);
	h->src = load32(k->src);
	h->dst = load32(k->dst);
}

static inline bool
head_eq(const struct lf_flow_khead *a, const struct lf_flow_khead *b)
{
	return ((a->w0 ^ b->w0) | (a->w1 ^ b->w1) | (uint64_t)(a->src ^ b->src) |
		(uint64_t)(a->dst ^ b->dst)) == 0;
}

static inline bool
key_eq(const struct lf_flow_key *a, const struct lf_flow_key *b)
{
	const uint8_t *p = (const uint8_t *)a, *q = (const uint8_t *)b;

	return ((load64(p) ^ load64(q)) | (load64(p + 8) ^ load64(q + 8)) |
		(load64(p + 16) ^ load64(q + 16)) | (load64(p + 24) ^ load64(q + 24)) |
		(load64(p + 32) ^ load64(q + 32)) | (load64(p + 40) ^ load64(q + 40))) == 0;
}

static inline uint32_t
time_of(uint64_t tsc)
{
	return (uint32_t)(tsc >> LF_FLOW_TIME_SHIFT);
}

/* ---- entry access (layout chosen at creation) ---- */

static inline struct lf_flow_hot *
hot_at(const struct lf_flow_table *t, uint32_t idx)
{
	return t->layout == LF_FLOW_LAYOUT_FAT ? &t->fat[idx].hot : &t->hot[idx];
}

static inline struct lf_flow_cold *
cold_at(const struct lf_flow_table *t, uint32_t idx)
{
	return t->layout == LF_FLOW_LAYOUT_FAT ? &t->fat[idx].cold : &t->cold[idx];
}

const struct lf_flow_cold *
lf_flow_cold_of(const struct lf_flow_table *t, const struct lf_flow_hot *e)
{
	if (t->layout == LF_FLOW_LAYOUT_FAT)
		return &container_of(e, const struct lf_flow_fat, hot)->cold;
	return &t->cold[e - t->hot];
}

/* ---- lookup ---- */

/*
 * Whether entry idx holds key k (whose head is kh). Hot/cold: the head is in
 * the hot line, which is all of an IPv4 key; an IPv6 key's rest is compared
 * in the cold line. Fat: the whole key is in the entry's first line.
 */
static __rte_always_inline struct lf_flow_hot *
entry_match(const struct lf_flow_table *t, uint32_t idx, const struct lf_flow_key *k,
	    const struct lf_flow_khead *kh, const int fat)
{
	if (fat) {
		struct lf_flow_fat *f = &t->fat[idx];

		return key_eq(&f->cold.key, k) ? &f->hot : NULL;
	}
	if (!head_eq(&t->hot[idx].key, kh))
		return NULL;
	if (k->af != 4 && !key_eq(&t->cold[idx].key, k))
		return NULL;
	return &t->hot[idx];
}

static __rte_always_inline struct lf_flow_hot *
bucket_search(const struct lf_flow_table *t, const struct lf_flow_bucket *b, unsigned int mask,
	      const struct lf_flow_key *k, const struct lf_flow_khead *kh, const int fat)
{
	while (mask != 0) {
		struct lf_flow_hot *e = entry_match(t, b->idx[__builtin_ctz(mask)], k, kh, fat);

		if (e != NULL)
			return e;
		mask &= mask - 1;
	}
	return NULL;
}

static __rte_always_inline void
prefetch_entry(const struct lf_flow_table *t, uint32_t idx, const struct lf_flow_key *k,
	       const int fat)
{
	if (fat) {
		rte_prefetch0(&t->fat[idx].cold);
		rte_prefetch0(&t->fat[idx].hot);
		return;
	}
	rte_prefetch0(&t->hot[idx]);
	if (k->af != 4)
		rte_prefetch0(&t->cold[idx]);
}

/*
 * Stage 2 of the pipeline for key k of hash h: the slots of its primary
 * bucket whose signature matches; with prefetch, the first candidate's
 * entry is prefetched (or, with none, the alternative bucket if entries
 * overflowed from the primary).
 */
static __rte_always_inline uint8_t
lookup_match(const struct lf_flow_table *t, const struct lf_flow_key *k, uint64_t h,
	     const bool prefetch, const int fat)
{
	const uint32_t pb = h & t->bmask;
	const struct lf_flow_bucket *b = &t->bkt[pb];
	const unsigned int mask = sig_match(b, hash_sig(h));

	if (prefetch) {
		if (mask != 0)
			prefetch_entry(t, b->idx[__builtin_ctz(mask)], k, fat);
		else if (b->ovf != 0)
			rte_prefetch0(&t->bkt[alt_bucket(t, pb, hash_sig(h))]);
	}
	return (uint8_t)mask;
}

/*
 * Stage 3 of the pipeline for key k of hash h, mask being the slots of its
 * primary bucket whose signature matched: compare, and look in the
 * alternative bucket if entries overflowed from the primary.
 */
static __rte_always_inline struct lf_flow_hot *
lookup_compare(const struct lf_flow_table *t, const struct lf_flow_key *k, uint64_t h,
	       unsigned int mask, const int fat)
{
	const uint32_t pb = h & t->bmask;
	const struct lf_flow_bucket *b = &t->bkt[pb];
	struct lf_flow_khead kh;
	struct lf_flow_hot *e;

	key_head(k, &kh);
	e = bucket_search(t, b, mask, k, &kh, fat);
	if (e == NULL && b->ovf != 0) {
		const uint16_t sig = hash_sig(h);
		const struct lf_flow_bucket *ab = &t->bkt[alt_bucket(t, pb, sig)];

		e = bucket_search(t, ab, sig_match(ab, sig), k, &kh, fat);
	}
	return e;
}

/*
 * The pipeline, over one chunk of at most FLOW_CHUNK keys. Iteration i:
 * stage 1 hashes key i and prefetches its primary bucket; stage 2 matches
 * the signatures of key i - d1 and prefetches its first candidate entry (and
 * the alternative bucket if entries overflowed from the primary); stage 3
 * compares key i - d1 - d2. With d1 = d2 = 0 each key runs through all three
 * at once. With the hashes given (hin != NULL) stage 1 already ran, when the
 * keys were built, and d1 is 0.
 */
static __rte_always_inline void
lookup_chunk(struct lf_flow_table *t, const struct lf_flow_key *keys, const uint64_t *hin,
	     unsigned int n, unsigned int d1, unsigned int d2, uint32_t now,
	     struct lf_flow_hot **out, unsigned int *hits, const int fat)
{
	const struct lf_flow_bucket *bkt = t->bkt;
	uint64_t hbuf[FLOW_CHUNK];
	const uint64_t *h = hin != NULL ? hin : hbuf;
	uint8_t cand[FLOW_CHUNK];
	unsigned int i, found = 0;

	for (i = 0; i < n + d1 + d2; i++) {
		if (hin == NULL && i < n) {
			hbuf[i] = flow_hash(&keys[i]);
			if (d1 != 0)
				rte_prefetch0(&bkt[hbuf[i] & t->bmask]);
		}
		if (i >= d1 && i - d1 < n) {
			unsigned int j = i - d1;

			cand[j] = lookup_match(t, &keys[j], h[j], d2 != 0, fat);
		}
		if (i >= d1 + d2 && i - d1 - d2 < n) {
			unsigned int j = i - d1 - d2;
			struct lf_flow_hot *e = lookup_compare(t, &keys[j], h[j], cand[j], fat);

			if (e != NULL) {
				e->last_seen = now;
				found++;
			}
			out[j] = e;
		}
	}
	*hits += found;
}

/*
 * The pipeline when the buckets are on their way (hashes given) and the
 * distance covers the chunk (2d >= n: the default, d = burst / 2): every
 * key's signatures matched and its entry prefetched in one pass, then every
 * key compared in a second. The loads in flight are the same as the
 * pipeline's; the two plain loops drop its per-key stage tests and keep
 * their state in registers, which is measurably cheaper per hit
 * (docs/pipeline-scale.md).
 */
static __rte_always_inline void
lookup_wide(struct lf_flow_table *t, const struct lf_flow_key *keys, const uint64_t *h,
	    unsigned int n, uint32_t now, struct lf_flow_hot **out, unsigned int *hits,
	    const int fat)
{
	uint8_t cand[FLOW_CHUNK];
	unsigned int j, found = 0;

	for (j = 0; j < n; j++)
		cand[j] = lookup_match(t, &keys[j], h[j], true, fat);
	for (j = 0; j < n; j++) {
		struct lf_flow_hot *e = lookup_compare(t, &keys[j], h[j], cand[j], fat);

		if (e != NULL) {
			e->last_seen = now;
			found++;
		}
		out[j] = e;
	}
	*hits += found;
}

static __rte_always_inline void
lookup_tmpl(struct lf_flow_table *t, const struct lf_flow_key *keys, const uint64_t *hash,
	    uint16_t n, unsigned int d, uint64_t now, struct lf_flow_hot **out, const int fat)
{
	unsigned int base, hits = 0, d1, d2;

	if (d > FLOW_CHUNK / 2)
		d = FLOW_CHUNK / 2;
	/*
	 * Buckets prefetched when the keys were built have had all that time:
	 * give the entries twice the distance instead.
	 */
	d1 = hash != NULL ? 0 : d;
	d2 = hash != NULL ? 2 * d : d;
	for (base = 0; base < n; base += FLOW_CHUNK) {
		const unsigned int c = RTE_MIN((unsigned int)n - base, FLOW_CHUNK);

		if (hash != NULL && d2 >= c)
			lookup_wide(t, keys + base, hash + base, c, time_of(now), out + base, &hits,
				    fat);
		else
			lookup_chunk(t, keys + base, hash != NULL ? hash + base : NULL, c, d1, d2,
				     time_of(now), out + base, &hits, fat);
	}
	FLOW_STAT_ADD(t->stats.lookups, n);
	FLOW_STAT_ADD(t->stats.hits, hits);
	FLOW_STAT_ADD(t->stats.misses, n - hits);
}

static void
lookup_hotcold(struct lf_flow_table *t, const struct lf_flow_key *keys, const uint64_t *hash,
	       uint16_t n, unsigned int d, uint64_t now, struct lf_flow_hot **out)
{
	lookup_tmpl(t, keys, hash, n, d, now, out, 0);
}

static void
lookup_fat(struct lf_flow_table *t, const struct lf_flow_key *keys, const uint64_t *hash,
	   uint16_t n, unsigned int d, uint64_t now, struct lf_flow_hot **out)
{
	lookup_tmpl(t, keys, hash, n, d, now, out, 1);
}

void
lf_flow_lookup_burst(struct lf_flow_table *t, const struct lf_flow_key *keys, uint16_t n,
		     unsigned int prefetch, uint64_t now, struct lf_flow_hot **out)
{
	t->lookup(t, keys, NULL, n, prefetch, now, out);
}

uint64_t
lf_flow_hash_prefetch(const struct lf_flow_table *t, const struct lf_flow_key *key)
{
	uint64_t h = flow_hash(key);

	rte_prefetch0(&t->bkt[h & t->bmask]);
	return h;
}

void
lf_flow_lookup_burst_hashed(struct lf_flow_table *t, const struct lf_flow_key *keys,
			    const uint64_t *hash, uint16_t n, unsigned int prefetch, uint64_t now,
			    struct lf_flow_hot **out)
{
	t->lookup(t, keys, hash, n, prefetch, now, out);
}

/* ---- insert, delete, expire (the owner's slow path) ---- */

static struct lf_flow_hot *
find(const struct lf_flow_table *t, const struct lf_flow_key *k, uint64_t h)
{
	uint32_t pb = h & t->bmask;
	uint16_t sig = hash_sig(h);
	const struct lf_flow_bucket *b;
	unsigned int mask;

	b = &t->bkt[pb];
	for (mask = sig_match(b, sig); mask != 0; mask &= mask - 1) {
		uint32_t idx = b->idx[__builtin_ctz(mask)];

		if (key_eq(&cold_at(t, idx)->key, k))
			return hot_at(t, idx);
	}
	b = &t->bkt[alt_bucket(t, pb, sig)];
	for (mask = sig_match(b, sig); mask != 0; mask &= mask - 1) {
		uint32_t idx = b->idx[__builtin_ctz(mask)];

		if (key_eq(&cold_at(t, idx)->key, k))
			return hot_at(t, idx);
	}
	return NULL;
}

static inline int
free_slot(const struct lf_flow_bucket *b)
{
	unsigned int free = ~(unsigned int)b->used & ((1u << FLOW_SLOTS) - 1);

	return free == 0 ? -1 : __builtin_ctz(free);
}

/* Put entry idx with signature sig into slot s of bucket bi (pb: its primary). */
static void
place(struct lf_flow_table *t, uint32_t bi, unsigned int s, uint32_t pb, uint16_t sig, uint32_t idx)
{
	struct lf_flow_bucket *b = &t->bkt[bi];
	struct lf_flow_cold *c = cold_at(t, idx);

	b->sig[s] = sig;
	b->idx[s] = idx;
	b->used |= 1u << s;
	if (bi != pb) {
		b->alt |= 1u << s;
		t->bkt[pb].ovf++;
	}
	c->bucket = bi;
	c->slot = (uint8_t)s;
}

/* Take the entry out of slot s of bucket bi; returns its index. */
static uint32_t
unplace(struct lf_flow_table *t, uint32_t bi, unsigned int s)
{
	struct lf_flow_bucket *b = &t->bkt[bi];
	uint32_t idx = b->idx[s];

	if (b->alt & (1u << s))
		t->bkt[alt_bucket(t, bi, b->sig[s])].ovf--;
	b->used &= ~(1u << s);
	b->alt &= ~(1u << s);
	cold_at(t, idx)->slot = LF_FLOW_SLOT_FREE;
	return idx;
}

/* Move the entry in slot s of bucket bi to a free slot of its other bucket. */
static void
move_other(struct lf_flow_table *t, uint32_t bi, unsigned int s)
{
	struct lf_flow_bucket *b = &t->bkt[bi];
	uint16_t sig = b->sig[s];
	uint32_t o = alt_bucket(t, bi, sig);
	uint32_t pb = (b->alt & (1u << s)) ? o : bi;
	uint32_t idx = unplace(t, bi, s);

	place(t, o, (unsigned int)free_slot(&t->bkt[o]), pb, sig, idx);
}

/*
 * Free a slot in full bucket bi by moving one entry to its other bucket, or
 * one entry of that bucket to its own other bucket first (two levels, never
 * through bi again). @return the freed slot or -1.
 */
static int
make_room(struct lf_flow_table *t, uint32_t bi)
{
	const struct lf_flow_bucket *b = &t->bkt[bi];
	unsigned int s, s2;

	for (s = 0; s < FLOW_SLOTS; s++) {
		uint32_t o = alt_bucket(t, bi, b->sig[s]);

		if (o != bi && free_slot(&t->bkt[o]) >= 0) {
			move_other(t, bi, s);
			return (int)s;
		}
	}
	for (s = 0; s < FLOW_SLOTS; s++) {
		uint32_t o = alt_bucket(t, bi, b->sig[s]);
		const struct lf_flow_bucket *ob = &t->bkt[o];

		if (o == bi)
			continue;
		for (s2 = 0; s2 < FLOW_SLOTS; s2++) {
			uint32_t o2 = alt_bucket(t, o, ob->sig[s2]);

			if (o2 != o && o2 != bi && free_slot(&t->bkt[o2]) >= 0) {
				move_other(t, o, s2);
				move_other(t, bi, s);
				return (int)s;
			}
		}
	}
	return -1;
}

static void
remove_entry(struct lf_flow_table *t, uint32_t idx)
{
	const struct lf_flow_cold *c = cold_at(t, idx);

	unplace(t, c->bucket, c->slot);
	t->free_idx[t->n_free++] = idx;
	FLOW_STAT_ADD(t->stats.count, -1);
}

static inline bool
is_idle(const struct lf_flow_table *t, uint32_t idx, uint32_t now)
{
	return t->timeout != 0 && (uint32_t)(now - hot_at(t, idx)->last_seen) > t->timeout;
}

/*
 * Make room for one flow whose buckets are pb and ab: remove the least
 * recently seen entry among them if it is idle or the policy evicts. If both
 * are empty (the entries are all used elsewhere) the victim is the next used
 * entry after the expiry cursor. @return true if an entry was removed.
 */
static bool
reclaim(struct lf_flow_table *t, uint32_t pb, uint32_t ab, uint32_t now)
{
	uint32_t cand[2] = { pb, ab }, victim = UINT32_MAX, oldest = 0;
	unsigned int i, s;

	for (i = 0; i < 2; i++) {
		const struct lf_flow_bucket *b = &t->bkt[cand[i]];

		for (s = 0; s < FLOW_SLOTS; s++) {
			uint32_t age;

			if (!(b->used & (1u << s)))
				continue;
			age = now - hot_at(t, b->idx[s])->last_seen;
			if (victim == UINT32_MAX || age > oldest) {
				victim = b->idx[s];
				oldest = age;
			}
		}
	}
	if (victim == UINT32_MAX) {
		/* The table is full, so this finds a used entry. */
		for (i = 0; i < t->capacity; i++) {
			uint32_t idx = t->cursor;

			t->cursor = t->cursor + 1 == t->capacity ? 0 : t->cursor + 1;
			if (cold_at(t, idx)->slot != LF_FLOW_SLOT_FREE) {
				victim = idx;
				break;
			}
		}
		if (victim == UINT32_MAX)
			return false;
	}
	if (is_idle(t, victim, now)) {
		FLOW_STAT_ADD(t->stats.expired, 1);
	} else if (t->evict == LF_FLOW_EVICT_OLDEST) {
		FLOW_STAT_ADD(t->stats.evictions, 1);
	} else {
		return false;
	}
	remove_entry(t, victim);
	return true;
}

struct lf_flow_hot *
lf_flow_insert(struct lf_flow_table *t, const struct lf_flow_key *key, uint64_t now)
{
	uint64_t h = flow_hash(key);
	uint16_t sig = hash_sig(h);
	uint32_t pb = h & t->bmask, ab = alt_bucket(t, pb, sig), bi, idx, tnow = time_of(now);
	struct lf_flow_hot *e;
	struct lf_flow_cold *c;
	int s;

	e = find(t, key, h);
	if (e != NULL)
		return e;
	if (t->n_free == 0 && !reclaim(t, pb, ab, tnow))
		goto overflow;
	bi = pb;
	s = free_slot(&t->bkt[pb]);
	if (s < 0) {
		bi = ab;
		s = free_slot(&t->bkt[ab]);
	}
	if (s < 0) {
		bi = pb;
		s = make_room(t, pb);
	}
	if (s < 0) {
		bi = ab;
		s = make_room(t, ab);
	}
	if (s < 0) {
		if (!reclaim(t, pb, ab, tnow))
			goto overflow;
		/* The victim was in pb or ab. */
		bi = pb;
		s = free_slot(&t->bkt[pb]);
		if (s < 0) {
			bi = ab;
			s = free_slot(&t->bkt[ab]);
		}
	}
	idx = t->free_idx[--t->n_free];
	e = hot_at(t, idx);
	c = cold_at(t, idx);
	memset(e, 0, sizeof(*e));
	key_head(key, &e->key);
	e->last_seen = tnow;
	c->key = *key;
	c->created = now;
	place(t, bi, (unsigned int)s, pb, sig, idx);
	FLOW_STAT_ADD(t->stats.inserts, 1);
	FLOW_STAT_ADD(t->stats.count, 1);
	return e;

overflow:
	FLOW_STAT_ADD(t->stats.overflow, 1);
	return NULL;
}

int
lf_flow_delete(struct lf_flow_table *t, const struct lf_flow_key *key)
{
	struct lf_flow_hot *e = find(t, key, flow_hash(key));
	const struct lf_flow_cold *c;

	if (e == NULL)
		return -ENOENT;
	c = lf_flow_cold_of(t, e);
	remove_entry(t, t->bkt[c->bucket].idx[c->slot]);
	FLOW_STAT_ADD(t->stats.deletes, 1);
	return 0;
}

unsigned int
lf_flow_expire(struct lf_flow_table *t, uint64_t now, unsigned int budget)
{
	uint32_t tnow = time_of(now);
	unsigned int i, n = 0;

	if (t->timeout == 0)
		return 0;
	budget = RTE_MIN(budget, t->capacity);
	for (i = 0; i < budget; i++) {
		uint32_t idx = t->cursor;

		t->cursor = t->cursor + 1 == t->capacity ? 0 : t->cursor + 1;
		if (cold_at(t, idx)->slot != LF_FLOW_SLOT_FREE && is_idle(t, idx, tnow)) {
			remove_entry(t, idx);
			n++;
		}
	}
	FLOW_STAT_ADD(t->stats.expired, n);
	return n;
}

/* ---- creation ---- */

struct lf_flow_table *
lf_flow_create(const struct lf_flow_params *p)
{
	struct lf_flow_table *t;
	uint32_t nb, i;
	size_t sz;

	if (p == NULL || p->capacity == 0 || p->capacity > LF_FLOW_MAX_CAPACITY ||
	    (p->evict != LF_FLOW_EVICT_NONE && p->evict != LF_FLOW_EVICT_OLDEST) ||
	    (p->layout != LF_FLOW_LAYOUT_HOTCOLD && p->layout != LF_FLOW_LAYOUT_FAT) ||
	    (p->buckets != 0 && !rte_is_power_of_2(p->buckets))) {
		rte_errno = EINVAL;
		return NULL;
	}
	t = rte_zmalloc_socket("lf_flow", sizeof(*t), RTE_CACHE_LINE_SIZE, p->socket);
	if (t == NULL)
		goto fail_nomem;
	t->capacity = p->capacity;
	t->evict = p->evict;
	t->layout = p->layout;
	t->timeout = (uint32_t)RTE_MIN(p->idle_timeout_tsc >> LF_FLOW_TIME_SHIFT, UINT32_MAX / 2);
	if (p->idle_timeout_tsc != 0 && t->timeout == 0)
		t->timeout = 1;
	t->mem = sizeof(*t);

	/* Twice as many slots as flows: a full table loads its buckets to 50%. */
	nb = p->buckets != 0
		? p->buckets
		: rte_align32pow2(
			  (uint32_t)(((uint64_t)p->capacity * 2 + FLOW_SLOTS - 1) / FLOW_SLOTS));
	t->bmask = nb - 1;
	sz = (size_t)nb * sizeof(struct lf_flow_bucket);
	t->bkt = rte_zmalloc_socket("lf_flow_bkt", sz, RTE_CACHE_LINE_SIZE, p->socket);
	if (t->bkt == NULL)
		goto fail_bkt;
	t->mem += sz;

	if (p->layout == LF_FLOW_LAYOUT_FAT) {
		sz = (size_t)p->capacity * sizeof(struct lf_flow_fat);
		t->fat = rte_zmalloc_socket("lf_flow_fat", sz, RTE_CACHE_LINE_SIZE, p->socket);
		if (t->fat == NULL)
			goto fail_entries;
		t->mem += sz;
		t->lookup = lookup_fat;
	} else {
		sz = (size_t)p->capacity * sizeof(struct lf_flow_hot);
		t->hot = rte_zmalloc_socket("lf_flow_hot", sz, RTE_CACHE_LINE_SIZE, p->socket);
		if (t->hot == NULL)
			goto fail_entries;
		t->mem += sz;
		sz = (size_t)p->capacity * sizeof(struct lf_flow_cold);
		t->cold = rte_zmalloc_socket("lf_flow_cold", sz, RTE_CACHE_LINE_SIZE, p->socket);
		if (t->cold == NULL)
			goto fail_cold;
		t->mem += sz;
		t->lookup = lookup_hotcold;
	}

	sz = (size_t)p->capacity * sizeof(uint32_t);
	t->free_idx = rte_malloc_socket("lf_flow_free", sz, RTE_CACHE_LINE_SIZE, p->socket);
	if (t->free_idx == NULL)
		goto fail_free;
	t->mem += sz;
	/* Popped from the end: entries are handed out in index order. */
	for (i = 0; i < p->capacity; i++) {
		t->free_idx[i] = p->capacity - 1 - i;
		cold_at(t, i)->slot = LF_FLOW_SLOT_FREE;
	}
	t->n_free = p->capacity;
	return t;

fail_free:
	rte_free(t->cold);
fail_cold:
	rte_free(t->hot);
	rte_free(t->fat);
fail_entries:
	rte_free(t->bkt);
fail_bkt:
	rte_free(t);
fail_nomem:
	rte_errno = ENOMEM;
	return NULL;
}

void
lf_flow_free(struct lf_flow_table *t)
{
	if (t == NULL)
		return;
	rte_free(t->free_idx);
	rte_free(t->cold);
	rte_free(t->hot);
	rte_free(t->fat);
	rte_free(t->bkt);
	rte_free(t);
}

size_t
lf_flow_mem_bytes(const struct lf_flow_table *t)
{
	return t->mem;
}

uint32_t
lf_flow_capacity(const struct lf_flow_table *t)
{
	return t->capacity;
}

const struct lf_flow_stats *
lf_flow_stats(const struct lf_flow_table *t)
{
	return &t->stats;
}
