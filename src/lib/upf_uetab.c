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
	t->dlen = 0;
	memset(t->n_dlen, 0, sizeof(t->n_dlen));
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

int
upf_ue_add(struct upf_ue_tab *t, const struct upf_ue_key *k, void *data)
{
	uint64_t *e = upf_ue_dir_slot(t, k);

	if (e == NULL) {
		int ret;

		if (k->dbits == 0)
			return rte_hash_add_key_data(t->h, k, data);
		if (k->dbits > UPF_UE_DBITS_MAX || k->af != 6)
			return -EINVAL;
		if (rte_hash_lookup(t->h, k) >= 0)
			return rte_hash_add_key_data(t->h, k, data);
		/* Workers look for prefixes of this length before they can
		 * find one: the bit goes first. */
		__atomic_store_n(&t->dlen, t->dlen | 1u << k->dbits, __ATOMIC_RELEASE);
		ret = rte_hash_add_key_data(t->h, k, data);
		if (ret == 0)
			t->n_dlen[k->dbits]++;
		else if (t->n_dlen[k->dbits] == 0)
			__atomic_store_n(&t->dlen, t->dlen & ~(1u << k->dbits), __ATOMIC_RELEASE);
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
	uint64_t *e = upf_ue_dir_slot(t, k);
	int32_t pos;

	if (e == NULL) {
		pos = rte_hash_del_key(t->h, k);
		if (pos >= 0 && k->dbits != 0 && k->dbits <= UPF_UE_DBITS_MAX &&
		    --t->n_dlen[k->dbits] == 0)
			__atomic_store_n(&t->dlen, t->dlen & ~(1u << k->dbits), __ATOMIC_RELEASE);
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
	const uint64_t *e = upf_ue_dir_slot(t, k);
	void *d;

	if (e != NULL)
		return (void *)(uintptr_t)*e;
	return rte_hash_lookup_data(t->h, k, &d) >= 0 ? d : NULL;
}

/* The misses of upf_ue_lookup_bulk, as prefixes (upf_uetab.h). */
void
upf_ue_lookup_delegated(const struct upf_ue_tab *t, const void **keys, unsigned int nk, void **obj,
			uint32_t dlen)
{
	struct upf_ue_key pk[RTE_HASH_LOOKUP_BULK_MAX];
	const void *hk[RTE_HASH_LOOKUP_BULK_MAX];
	void *ho[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t at[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, c, j, n;

	for (i = 0; i < nk; i += c) {
		uint32_t bits = dlen;

		c = RTE_MIN(nk - i, (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		while (bits != 0) {
			const unsigned int d = (unsigned int)__builtin_ctz(bits);
			uint64_t hits = 0;

			bits &= bits - 1;
			for (j = 0, n = 0; j < c; j++) {
				const struct upf_ue_key *k = keys[i + j];

				if (obj[i + j] != NULL || k->af != 6 || k->dbits != 0)
					continue;
				upf_ue_key_make(&pk[n], k->ni, 6, k->a, d);
				hk[n] = &pk[n];
				at[n++] = (uint8_t)j;
			}
			if (n == 0)
				break;
			rte_hash_lookup_bulk_data(t->h, hk, n, &hits, ho);
			for (j = 0; j < n; j++)
				if (hits & (1ull << j))
					obj[i + at[j]] = ho[j];
		}
	}
}

uint32_t
upf_ue_count(const struct upf_ue_tab *t)
{
	return t->n_dir + (uint32_t)rte_hash_count(t->h);
}
