/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The UE table: (network instance, UE address) -> session object, the
 * downlink's session lookup.
 *
 * The addresses this UPF hands out (UE IP Address CHOOSE, upf_uepool.h)
 * come from `[network_instance] ue_alloc`, so they can index an array: the
 * first IPv4 ue_alloc prefix of each instance, /10 or longer, is a direct
 * range, one 8-byte entry per address holding the session object's
 * address (0: none). A lookup there is that one entry, where rte_hash
 * reads a bucket line and a key-store line before the session's: dependent
 * misses at 100K sessions and more (docs/upf-bench.md).
 *
 * The direct range is authoritative for its addresses: every key in it,
 * whether the UP chose it or the CP gave it, lives in the array and never
 * in the hash, so a reader that finds 0 there has its answer. Everything
 * else (IPv6 /64s, other prefixes, the SMF's own pools) is in the rte_hash.
 *
 * One atomic store publishes, repoints or clears an entry. Objects are
 * freed by the store after an RCU grace period, once no entry names them;
 * an entry needs none.
 */
#ifndef LF_UPF_UETAB_H
#define LF_UPF_UETAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_prefetch.h>

/**
 * Key of the UE table: (network instance, address). 16 bytes, so that
 * rte_hash compares it with its 16-byte vector compare rather than memcmp
 * (a /64 is all of an IPv6 UE's key).
 */
struct upf_ue_key {
	uint8_t ni;
	uint8_t af;
	uint8_t pad[6];
	uint8_t a[8]; /**< IPv4: a[0..3], rest zero; IPv6: the /64. */
};

/** Network instances that may have a direct range (LF_UPF_MAX_NI). */
#define UPF_UE_DIR_NI 16
/** The longest direct range: a /10, 4M addresses, 32 MiB of entries. */
#define UPF_UE_DIR_MIN_PLEN 10

/** A direct range of one instance, as the store is given it. */
struct upf_ue_dir_conf {
	uint8_t ni;
	uint8_t plen; /**< UPF_UE_DIR_MIN_PLEN to 32. */
	uint32_t base; /**< The prefix, host order. */
};

struct upf_ue_tab {
	/* Read by workers. */
	struct {
		uint64_t *e; /**< [n]: object address, 0: none. */
		uint32_t base; /**< First address, host order. */
		uint32_t n; /**< Addresses; 0: the instance has no range. */
	} dir[UPF_UE_DIR_NI];
	struct rte_hash *h; /**< struct upf_ue_key -> object: the rest. */
	/* Control thread only. */
	uint32_t n_dir; /**< Keys in the arrays. */
};

/** The entry of k when k is in a direct range, else NULL (ask the hash). */
static inline uint64_t *
upf_ue_dir_slot(const struct upf_ue_tab *t, const struct upf_ue_key *k)
{
	uint32_t a, i;

	if (k->af != 4 || k->ni >= UPF_UE_DIR_NI)
		return NULL;
	a = (uint32_t)k->a[0] << 24 | (uint32_t)k->a[1] << 16 | (uint32_t)k->a[2] << 8 | k->a[3];
	i = a - t->dir[k->ni].base;
	return i < t->dir[k->ni].n ? &t->dir[k->ni].e[i] : NULL;
}

/**
 * Look up nk keys (keys[i] points at one), as rte_hash_lookup_bulk_data:
 * obj[i] gets the object, or NULL. The direct entries are all prefetched
 * before any is read; the keys outside the ranges go to the hash in one
 * bulk lookup per 64 (in place when none of the 64 is direct).
 */
static inline void
upf_ue_lookup_bulk(const struct upf_ue_tab *t, const void **keys, unsigned int nk, void **obj)
{
	const void *hk[RTE_HASH_LOOKUP_BULK_MAX];
	void *ho[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t *slot[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t at[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, j, c, n;

	for (i = 0; i < nk; i += c) {
		unsigned int nd = 0;
		uint64_t hits = 0;

		c = RTE_MIN(nk - i, (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		for (j = 0; j < c; j++) {
			slot[j] = upf_ue_dir_slot(t, keys[i + j]);
			if (slot[j] != NULL) {
				rte_prefetch0(slot[j]);
				nd++;
			}
		}
		if (nd == 0) {
			/* None direct (no range, or the SMF's own pools): the keys
			 * go to the hash as they are, with no gather and scatter
			 * (paired A/B in docs/upf-bench.md). */
			rte_hash_lookup_bulk_data(t->h, &keys[i], c, &hits, &obj[i]);
			for (j = 0; j < c; j++)
				if (!(hits & (1ull << j)))
					obj[i + j] = NULL;
			continue;
		}
		for (j = 0, n = 0; j < c; j++) {
			if (slot[j] != NULL) {
				obj[i + j] = (void *)(uintptr_t)__atomic_load_n(slot[j],
										__ATOMIC_ACQUIRE);
				continue;
			}
			hk[n] = keys[i + j];
			at[n++] = (uint8_t)j;
		}
		if (n == 0)
			continue;
		rte_hash_lookup_bulk_data(t->h, hk, n, &hits, ho);
		for (j = 0; j < n; j++)
			obj[i + at[j]] = (hits & (1ull << j)) ? ho[j] : NULL;
	}
}

/* ---- Control thread ---- */

/**
 * Set up the direct arrays of the n ranges (at most one per instance;
 * plen UPF_UE_DIR_MIN_PLEN to 32) beside the hash h, which t then owns.
 * 0, or -EINVAL / -ENOMEM with err set.
 */
int upf_ue_init(struct upf_ue_tab *t, struct rte_hash *h, const struct upf_ue_dir_conf *dirs,
		unsigned int n, int socket, char *err, size_t errlen);
/** Free the arrays and the hash. */
void upf_ue_fini(struct upf_ue_tab *t);
/** Bytes of the arrays (the hash not included). */
size_t upf_ue_dir_bytes(const struct upf_ue_tab *t);

/**
 * Point a key at data (not NULL): its direct entry, or the hash.
 * @return 0, or rte_hash_add_key_data's error (-ENOSPC: the hash is full).
 */
int upf_ue_add(struct upf_ue_tab *t, const struct upf_ue_key *k, void *data);
/**
 * Remove a key. @return the hash position it freed, which the caller frees
 * with rte_hash_free_key_with_position after a grace period (or rte_hash's
 * RCU defer queue does), or -1 if it had none (a direct entry, or a key
 * not held).
 */
int32_t upf_ue_del(struct upf_ue_tab *t, const struct upf_ue_key *k);
/** The object of a key, or NULL. */
void *upf_ue_find(const struct upf_ue_tab *t, const struct upf_ue_key *k);
/** Keys held, direct and hashed. */
uint32_t upf_ue_count(const struct upf_ue_tab *t);

#endif /* LF_UPF_UETAB_H */
