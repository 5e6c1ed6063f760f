/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TEID table's control side (include/lib/upf_teid.h): the direct
 * array's entries and the allocator of TEIDs for F-TEID CHOOSE. The hash
 * half is written by the store, which waits out grace periods for its
 * slots. The control thread is the only writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_malloc.h>

#include "upf_teid.h"

int
upf_teid_init(struct upf_teid_tab *t, struct rte_hash *h, uint32_t entries, int socket, char *err,
	      size_t errlen)
{
	uint8_t bits = UPF_TEID_MIN_BITS;

	while (bits < 30 && (UINT32_C(1) << bits) < entries)
		bits++;
	t->h = h;
	t->bits = bits;
	t->mask = (UINT32_C(1) << bits) - 1;
	t->cursor = 0;
	t->n_dir = 0;
	t->dir = rte_zmalloc_socket("upf_teid", (size_t)(t->mask + 1) * sizeof(*t->dir),
				    RTE_CACHE_LINE_SIZE, socket);
	t->gen = calloc((size_t)t->mask + 1, sizeof(*t->gen));
	if (t->dir == NULL || t->gen == NULL) {
		snprintf(err, errlen, "upf store: no memory for the TEID array of %u entries",
			 t->mask + 1);
		rte_free(t->dir);
		free(t->gen);
		t->dir = NULL;
		t->gen = NULL;
		return -ENOMEM;
	}
	return 0;
}

void
upf_teid_fini(struct upf_teid_tab *t)
{
	rte_free(t->dir);
	free(t->gen);
	rte_hash_free(t->h);
	t->dir = NULL;
	t->gen = NULL;
	t->h = NULL;
}

size_t
upf_teid_dir_bytes(const struct upf_teid_tab *t)
{
	return ((size_t)t->mask + 1) * (sizeof(*t->dir) + sizeof(*t->gen));
}

/* 0 if the TEID is now at data in the direct array; -1: it belongs in the hash. */
static int
dir_put(struct upf_teid_tab *t, uint32_t teid, void *data)
{
	const uint64_t p = (uint64_t)(uintptr_t)data;
	uint64_t *e;

	if (!upf_teid_is_direct(teid) || p == 0 || (p & ~UPF_TEID_PTR_MASK) != 0)
		return -1;
	e = &t->dir[teid & t->mask];
	if (*e != 0 && *e >> UPF_TEID_PTR_BITS != upf_teid_gen(t, teid))
		return -1; /* Another TEID's slot. */
	/* Its own entry (a repoint) cannot also be in the hash; a free slot can
	 * be taken only by a TEID the hash does not hold already. */
	if (*e == 0 && rte_hash_lookup(t->h, &teid) >= 0)
		return -1;
	if (*e == 0)
		t->n_dir++;
	/* The object is complete before its address is visible. */
	__atomic_store_n(e, p | upf_teid_gen(t, teid) << UPF_TEID_PTR_BITS, __ATOMIC_RELEASE);
	return 0;
}

/* The slot of a TEID that goes gives out another one next: one generation
 * on, wrapping in 30 - bits. */
static void
gen_next(struct upf_teid_tab *t, uint32_t teid)
{
	t->gen[teid & t->mask] =
		(uint16_t)((upf_teid_gen(t, teid) + 1) & ((UINT32_C(1) << (30 - t->bits)) - 1));
}

static bool
dir_del(struct upf_teid_tab *t, uint32_t teid)
{
	uint32_t slot = teid & t->mask;

	if (!upf_teid_is_direct(teid) || upf_teid_dir_get(t, teid) == NULL)
		return false;
	__atomic_store_n(&t->dir[slot], 0, __ATOMIC_RELEASE);
	t->n_dir--;
	gen_next(t, teid);
	return true;
}

int
upf_teid_add(struct upf_teid_tab *t, uint32_t teid, void *data)
{
	int ret;

	if (dir_put(t, teid, data) == 0)
		return 0;
	ret = rte_hash_add_key_data(t->h, &teid, data);
	/* An object its entry cannot name moves a direct TEID to the hash:
	 * the entry goes once the hash answers for it. */
	if (ret == 0)
		dir_del(t, teid);
	return ret;
}

int32_t
upf_teid_del(struct upf_teid_tab *t, uint32_t teid)
{
	int32_t pos;

	if (dir_del(t, teid))
		return -1;
	pos = rte_hash_del_key(t->h, &teid);
	if (pos < 0)
		return -1;
	/* A hashed TEID the allocator would give next (its slot was taken when
	 * it came) is not given out again at once either. */
	if (upf_teid_is_direct(teid) && t->gen[teid & t->mask] == upf_teid_gen(t, teid))
		gen_next(t, teid);
	return pos;
}

void *
upf_teid_find(const struct upf_teid_tab *t, uint32_t teid)
{
	void *d = upf_teid_is_direct(teid) ? upf_teid_dir_get(t, teid) : NULL;

	if (d == NULL && rte_hash_lookup_data(t->h, &teid, &d) < 0)
		d = NULL;
	return d;
}

uint32_t
upf_teid_count(const struct upf_teid_tab *t)
{
	return t->n_dir + (uint32_t)rte_hash_count(t->h);
}

uint32_t
upf_teid_alloc(struct upf_teid_tab *t)
{
	uint32_t n;

	for (n = 0; n <= t->mask; n++) {
		const uint32_t slot = t->cursor;
		uint32_t teid;

		t->cursor = (t->cursor + 1) & t->mask;
		if (t->dir[slot] != 0)
			continue;
		teid = UPF_TEID_DIRECT | (uint32_t)t->gen[slot] << t->bits | slot;
		/* A CP-assigned TEID may have it (in the hash: its slot was taken then). */
		if (rte_hash_lookup(t->h, &teid) >= 0)
			continue;
		return teid;
	}
	return 0;
}
