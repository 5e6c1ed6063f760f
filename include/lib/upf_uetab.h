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
 * A prefix delegated to a UE (a /48 to a /63, TS 23.501 5.8.2.2.4) is one
 * hash key tagged with its length, not a key per /64: a fixed-wireless
 * CPE's /56 would be 256. So is a framed route (a network behind the UE,
 * IPv4 /0 to /31, IPv6 /0 to /63; a /32 or /64 is a plain key). A key
 * that misses in the hash is looked up again at each length some prefix
 * of its family has (dlen4, dlen6), the longest first: the longest prefix
 * wins, as in routing. No IPv4 prefix key may overlap a direct range
 * (upf_ue_add refuses one), so the arrays stay authoritative and their
 * misses need no second pass. Traffic pays nothing for prefixes: the
 * second pass is for hash misses only, and only while one is held.
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
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_branch_prediction.h>
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
	/** A prefix of W - dbits bits, W 64 for IPv6 (a /64 is the plain key)
	 * and 32 for IPv4; a has its host bits zero. 0: the plain key. */
	uint8_t dbits;
	uint8_t pad[5];
	uint8_t a[8]; /**< IPv4: a[0..3], rest zero; IPv6: the /64. */
};

/** The most delegation bits a UE's own prefix may have: a /48. */
#define UPF_UE_DBITS_MAX 16
/** The most bits any prefix key may have, per family: a /0. */
#define UPF_UE_DBITS4_MAX 32
#define UPF_UE_DBITS6_MAX 64

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
	/** Bit d - 1: some IPv6 key is a prefix of d bits (1 to
	 * UPF_UE_DBITS6_MAX). Set before such a key is added. */
	uint64_t dlen6;
	/** Likewise for IPv4 keys (d 1 to UPF_UE_DBITS4_MAX). */
	uint32_t dlen4;
	/* Control thread only. */
	uint32_t n_dir; /**< Keys in the arrays. */
	uint32_t n_dlen6[UPF_UE_DBITS6_MAX + 1]; /**< IPv6 keys of each prefix length. */
	uint32_t n_dlen4[UPF_UE_DBITS4_MAX + 1]; /**< IPv4 keys of each prefix length. */
};

/** Zero the last dbits (0 to 64) bits of the 8-byte IPv6 /64 a: its prefix of 64 - dbits. */
static inline void
upf_ue6_mask(uint8_t *a, unsigned int dbits)
{
	uint64_t v;

	memcpy(&v, a, 8);
	/* (A shift by the word's width is undefined: 64 bits is the /0.) */
	v = dbits >= 64 ? 0 : rte_cpu_to_be_64(rte_be_to_cpu_64(v) & (~UINT64_C(0) << dbits));
	memcpy(a, &v, 8);
}

/** Zero the last dbits (0 to 32) bits of the IPv4 address a. */
static inline void
upf_ue4_mask(uint8_t *a, unsigned int dbits)
{
	uint32_t v;

	memcpy(&v, a, 4);
	v = rte_cpu_to_be_32((uint32_t)(rte_be_to_cpu_32(v) & (UINT64_C(0xffffffff) << dbits)));
	memcpy(a, &v, 4);
}

/**
 * The UE key of instance ni for address a of family af (4 or 6); for IPv6
 * the /64 of a. With dbits (1 to UPF_UE_DBITS6_MAX, UPF_UE_DBITS4_MAX for
 * IPv4), the prefix of that many bits fewer: 64 - dbits for IPv6,
 * 32 - dbits for IPv4.
 */
static inline void
upf_ue_key_make(struct upf_ue_key *k, uint8_t ni, uint8_t af, const uint8_t *a, unsigned int dbits)
{
	memset(k, 0, sizeof(*k));
	k->ni = ni;
	k->af = af;
	memcpy(k->a, a, af == 4 ? 4 : 8);
	if (dbits != 0) {
		if (af == 6)
			upf_ue6_mask(k->a, dbits);
		else
			upf_ue4_mask(k->a, dbits);
		k->dbits = (uint8_t)dbits;
	}
}

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
 * The keys among keys[0..nk) that found nothing (obj[i] NULL), looked up
 * as prefixes of each length their family has (dlen4, dlen6), the longest
 * prefix (fewest bits) first; obj[i] gets the first found.
 * upf_ue_lookup_bulk's second pass, out of line: only misses take it.
 */
void upf_ue_lookup_prefixes(const struct upf_ue_tab *t, const void **keys, unsigned int nk,
			    void **obj, uint32_t dlen4, uint64_t dlen6);

/* The hit mask of n keys (1 to 64) all found. */
#define UPF_UE_ALL(n) ((n) == 64 ? ~UINT64_C(0) : (UINT64_C(1) << (n)) - 1)

/**
 * Look up nk keys (keys[i] points at one), as rte_hash_lookup_bulk_data:
 * obj[i] gets the object, or NULL. The direct entries are all prefetched
 * before any is read; the keys outside the ranges go to the hash in one
 * bulk lookup per 64 (in place when none of the 64 is direct). While a
 * prefix is held (dlen4, dlen6), keys that missed are looked up again as
 * prefixes (upf_ue_lookup_prefixes).
 */
static inline void
upf_ue_lookup_bulk(const struct upf_ue_tab *t, const void **keys, unsigned int nk, void **obj)
{
	const uint64_t dlen6 = __atomic_load_n(&t->dlen6, __ATOMIC_RELAXED);
	const uint32_t dlen4 = __atomic_load_n(&t->dlen4, __ATOMIC_RELAXED);
	const void *hk[RTE_HASH_LOOKUP_BULK_MAX];
	void *ho[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t *slot[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t at[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, j, c, n;
	bool miss = false;

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
			if (hits == UPF_UE_ALL(c))
				continue;
			miss = true;
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
		miss |= hits != UPF_UE_ALL(n);
		for (j = 0; j < n; j++)
			obj[i + at[j]] = (hits & (1ull << j)) ? ho[j] : NULL;
	}
	/* Only a hash miss can be an address of a prefix: none overlaps a
	 * direct range. */
	if (unlikely((dlen6 | dlen4) != 0) && miss)
		upf_ue_lookup_prefixes(t, keys, nk, obj, dlen4, dlen6);
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
 * Whether a prefix key (dbits not 0) of IPv4 overlaps its instance's
 * direct range, which upf_ue_add refuses: the range must stay the only
 * answer for its addresses.
 */
bool upf_ue_overlaps_dir(const struct upf_ue_tab *t, const struct upf_ue_key *k);

/**
 * Point a key at data (not NULL): its direct entry, or the hash.
 * @return 0, -EINVAL (a prefix length the family cannot have, or an IPv4
 * prefix over a direct range), or rte_hash_add_key_data's error (-ENOSPC:
 * the hash is full).
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
