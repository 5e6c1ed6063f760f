/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UE table's control side (include/lib/upf_uetab.h): the direct
 * arrays' entries. The hash half's slots are freed by the store, which
 * waits out grace periods for them. The control thread is the only writer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

#include "upf_uetab.h"

/* The arrays only (upf_ue_init fails without freeing the caller's hash). */
static void
dir_free(struct upf_ue_tab *t)
{
	unsigned int i;

	for (i = 0; i < UPF_UE_DIR_NI; i++) {
		rte_free(t->dir[i].e);
		t->dir[i].e = NULL;
		t->dir[i].n = 0;
	}
}

int
upf_ue_init(struct upf_ue_tab *t, struct rte_hash *h, const struct upf_ue_dir_conf *dirs,
	    unsigned int n, int socket, char *err, size_t errlen)
{
	unsigned int i;

	memset(t->dir, 0, sizeof(t->dir));
	t->h = h;
	t->n_dir = 0;
	t->dlen4 = 0;
	t->dlen6 = 0;
	memset(t->n_dlen4, 0, sizeof(t->n_dlen4));
	memset(t->n_dlen6, 0, sizeof(t->n_dlen6));
	for (i = 0; i < n; i++) {
		const struct upf_ue_dir_conf *d = &dirs[i];
		const uint32_t size = (uint32_t)(UINT64_C(1) << (32 - d->plen));

		if (d->ni >= UPF_UE_DIR_NI || d->plen < UPF_UE_DIR_MIN_PLEN || d->plen > 32 ||
		    t->dir[d->ni].n != 0) {
			snprintf(err, errlen,
				 "upf store: UE direct range %u of instance %u: /%u (want one "
				 "per instance, /%u to /32)",
				 i, d->ni, d->plen, UPF_UE_DIR_MIN_PLEN);
			dir_free(t);
			return -EINVAL;
		}
		t->dir[d->ni].e = rte_zmalloc_socket("upf_ue_dir", (size_t)size * sizeof(uint64_t),
						     RTE_CACHE_LINE_SIZE, socket);
		if (t->dir[d->ni].e == NULL) {
			snprintf(err, errlen,
				 "upf store: no memory for the UE direct array of %u entries",
				 size);
			dir_free(t);
			return -ENOMEM;
		}
		t->dir[d->ni].base = d->base;
		t->dir[d->ni].n = size;
	}
	return 0;
}

void
upf_ue_fini(struct upf_ue_tab *t)
{
	dir_free(t);
	rte_hash_free(t->h);
	t->h = NULL;
}

size_t
upf_ue_dir_bytes(const struct upf_ue_tab *t)
{
	size_t b = 0;
	unsigned int i;

	for (i = 0; i < UPF_UE_DIR_NI; i++)
		b += (size_t)t->dir[i].n * sizeof(uint64_t);
	return b;
}

/*
 * The direct entry of k, or NULL: a prefix key is never direct, even when
 * its first address is in a range (the range holds addresses).
 */
static uint64_t *
dir_slot(const struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	return k->dbits != 0 ? NULL : upf_ue_dir_slot(t, k);
}

/* A prefix key's length bit and count, or NULL for a length its family cannot have. */
static uint32_t *
dlen_count(struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	if (k->af == 6 && k->dbits <= UPF_UE_DBITS6_MAX)
		return &t->n_dlen6[k->dbits];
	if (k->af == 4 && k->dbits <= UPF_UE_DBITS4_MAX)
		return &t->n_dlen4[k->dbits];
	return NULL;
}

/* Set or clear the length bit of a prefix key (dbits 1 up), for workers to see. */
static void
dlen_set(struct upf_ue_tab *t, const struct upf_ue_key *k, bool on)
{
	if (k->af == 6) {
		const uint64_t b = UINT64_C(1) << (k->dbits - 1);

		__atomic_store_n(&t->dlen6, on ? t->dlen6 | b : t->dlen6 & ~b, __ATOMIC_RELEASE);
	} else {
		const uint32_t b = UINT32_C(1) << (k->dbits - 1);

		__atomic_store_n(&t->dlen4, on ? t->dlen4 | b : t->dlen4 & ~b, __ATOMIC_RELEASE);
	}
}

bool
upf_ue_overlaps_dir(const struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	uint64_t first, last, a;

	if (k->af != 4 || k->dbits == 0 || k->ni >= UPF_UE_DIR_NI || t->dir[k->ni].n == 0)
		return false;
	a = (uint64_t)k->a[0] << 24 | (uint64_t)k->a[1] << 16 | (uint64_t)k->a[2] << 8 | k->a[3];
	first = t->dir[k->ni].base;
	last = first + t->dir[k->ni].n - 1;
	return a <= last && a + (UINT64_C(1) << RTE_MIN(k->dbits, 32u)) - 1 >= first;
}

int
upf_ue_add(struct upf_ue_tab *t, const struct upf_ue_key *k, void *data)
{
	uint64_t *e = dir_slot(t, k);

	if (e == NULL) {
		uint32_t *cnt;
		int ret;

		if (k->dbits == 0)
			return rte_hash_add_key_data(t->h, k, data);
		cnt = dlen_count(t, k);
		if (cnt == NULL || upf_ue_overlaps_dir(t, k))
			return -EINVAL;
		if (rte_hash_lookup(t->h, k) >= 0)
			return rte_hash_add_key_data(t->h, k, data);
		/* Workers look for prefixes of this length before they can
		 * find one: the bit goes first. */
		dlen_set(t, k, true);
		ret = rte_hash_add_key_data(t->h, k, data);
		if (ret == 0)
			(*cnt)++;
		else if (*cnt == 0)
			dlen_set(t, k, false);
		return ret;
	}
	if (*e == 0)
		t->n_dir++;
	/* The object is complete before its address is visible. */
	__atomic_store_n(e, (uint64_t)(uintptr_t)data, __ATOMIC_RELEASE);
	return 0;
}

int32_t
upf_ue_del(struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	uint64_t *e = dir_slot(t, k);
	int32_t pos;

	if (e == NULL) {
		uint32_t *cnt = dlen_count(t, k);

		pos = rte_hash_del_key(t->h, k);
		if (pos >= 0 && k->dbits != 0 && cnt != NULL && --*cnt == 0)
			dlen_set(t, k, false);
		return pos >= 0 ? pos : -1;
	}
	if (*e != 0)
		t->n_dir--;
	__atomic_store_n(e, 0, __ATOMIC_RELEASE);
	return -1;
}

void *
upf_ue_find(const struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	const uint64_t *e = dir_slot(t, k);
	void *d;

	if (e != NULL)
		return (void *)(uintptr_t)*e;
	return rte_hash_lookup_data(t->h, k, &d) >= 0 ? d : NULL;
}

/*
 * One family's misses among keys[i..i+c), at each prefix length of bits
 * (bit d - 1: d bits), the longest prefix first.
 */
static void
lookup_family(const struct upf_ue_tab *t, const void **keys, unsigned int c, void **obj, uint8_t af,
	      uint64_t bits)
{
	struct upf_ue_key pk[RTE_HASH_LOOKUP_BULK_MAX];
	const void *hk[RTE_HASH_LOOKUP_BULK_MAX];
	void *ho[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t at[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int j, n;

	while (bits != 0) {
		const unsigned int d = (unsigned int)__builtin_ctzll(bits) + 1;
		uint64_t hits = 0;

		bits &= bits - 1;
		for (j = 0, n = 0; j < c; j++) {
			const struct upf_ue_key *k = keys[j];

			if (obj[j] != NULL || k->af != af || k->dbits != 0)
				continue;
			upf_ue_key_make(&pk[n], k->ni, af, k->a, d);
			hk[n] = &pk[n];
			at[n++] = (uint8_t)j;
		}
		if (n == 0)
			break;
		rte_hash_lookup_bulk_data(t->h, hk, n, &hits, ho);
		for (j = 0; j < n; j++)
			if (hits & (1ull << j))
				obj[at[j]] = ho[j];
	}
}

/* The misses of upf_ue_lookup_bulk, as prefixes (upf_uetab.h). */
void
upf_ue_lookup_prefixes(const struct upf_ue_tab *t, const void **keys, unsigned int nk, void **obj,
		       uint32_t dlen4, uint64_t dlen6)
{
	unsigned int i, c;

	for (i = 0; i < nk; i += c) {
		c = RTE_MIN(nk - i, (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		if (dlen6 != 0)
			lookup_family(t, &keys[i], c, &obj[i], 6, dlen6);
		if (dlen4 != 0)
			lookup_family(t, &keys[i], c, &obj[i], 4, dlen4);
	}
}

uint32_t
upf_ue_count(const struct upf_ue_tab *t)
{
	return t->n_dir + (uint32_t)rte_hash_count(t->h);
}
