/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The TEID table: local F-TEID -> session object, the uplink's session
 * lookup.
 *
 * TEIDs this UPF chooses (F-TEID CHOOSE) are laid out so that they index
 * an array: UPF_TEID_DIRECT | gen << bits | slot, with bits >= 14 so the
 * generation fits 16 bits. Each slot is one 8-byte entry, the session
 * object's address in the low 48 bits and the TEID's generation in the
 * high 16, so one atomic store publishes, repoints or clears a TEID and
 * a reader sees both halves of one entry. A lookup is that one entry:
 * rte_hash reads a bucket line and then a key-store line before the
 * session's, and these are dependent misses at 100K sessions (the A/B in
 * docs/upf-bench/teid-direct-ab.txt).
 *
 * TEIDs the CP assigns go to the rte_hash, as do those in the direct range
 * whose slot another TEID holds (a CP may assign any TEID) and the rare
 * object above 2^48. A reader that finds no matching entry asks the hash.
 *
 * A slot's generation moves on when its TEID goes, and the allocator walks
 * the slots round, so a TEID is not handed out again soon after it was
 * freed: a gNB still sending on it hits no other session.
 *
 * Objects are freed after an RCU grace period by the store, once no entry
 * names them; an entry itself needs no grace period.
 */
#ifndef LF_UPF_TEID_H
#define LF_UPF_TEID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_prefetch.h>

/** Bits 31..30 of a TEID in the direct range; below stays for the CP's. */
#define UPF_TEID_DIRECT 0x40000000u
#define UPF_TEID_DIRECT_MASK 0xc0000000u
/** Fewest slot bits: the generation (30 - bits) then fits 16. */
#define UPF_TEID_MIN_BITS 14
#define UPF_TEID_PTR_BITS 48
#define UPF_TEID_PTR_MASK ((UINT64_C(1) << UPF_TEID_PTR_BITS) - 1)

struct upf_teid_tab {
	/* Read by workers. */
	uint64_t *dir; /**< [mask + 1]: object | gen << 48, 0 when free. */
	uint32_t mask;
	uint8_t bits;
	struct rte_hash *h; /**< uint32_t TEID (host order) -> object. */
	/* Control thread only. */
	uint16_t *gen; /**< [mask + 1]: the generation the slot gives out next. */
	uint32_t cursor; /**< Where the allocator looks next. */
	uint32_t n_dir; /**< TEIDs in dir[]. */
};

static inline bool
upf_teid_is_direct(uint32_t teid)
{
	return (teid & UPF_TEID_DIRECT_MASK) == UPF_TEID_DIRECT;
}

/** The generation of a direct-range TEID: what its entry's high 16 bits hold. */
static inline uint64_t
upf_teid_gen(const struct upf_teid_tab *t, uint32_t teid)
{
	return (teid & ~UPF_TEID_DIRECT_MASK) >> t->bits;
}

/** The object a direct-range TEID's entry names, or NULL (ask the hash). */
static inline void *
upf_teid_dir_get(const struct upf_teid_tab *t, uint32_t teid)
{
	const uint64_t e = __atomic_load_n(&t->dir[teid & t->mask], __ATOMIC_ACQUIRE);

	if (e == 0 || e >> UPF_TEID_PTR_BITS != upf_teid_gen(t, teid))
		return NULL;
	return (void *)(uintptr_t)(e & UPF_TEID_PTR_MASK);
}

/**
 * Look up nk TEIDs (keys[i] points at one, host order), as
 * rte_hash_lookup_bulk_data: obj[i] gets the object, or NULL. The direct
 * entries are all prefetched before any is read; what they do not answer
 * goes to the hash in one bulk lookup per 64 (in place when none of the
 * 64 is in the direct range).
 */
static inline void
upf_teid_lookup_bulk(const struct upf_teid_tab *t, const void **keys, unsigned int nk, void **obj)
{
	const void *hk[RTE_HASH_LOOKUP_BULK_MAX];
	void *ho[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t at[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, j, c, n;

	for (i = 0; i < nk; i += c) {
		unsigned int nd = 0;
		uint64_t hits = 0;

		c = RTE_MIN(nk - i, (unsigned int)RTE_HASH_LOOKUP_BULK_MAX);
		for (j = 0; j < c; j++) {
			const uint32_t x = *(const uint32_t *)keys[i + j];

			if (upf_teid_is_direct(x)) {
				rte_prefetch0(&t->dir[x & t->mask]);
				nd++;
			}
		}
		if (nd == 0) {
			/* None in the direct range (the SMF assigns the TEIDs): to
			 * the hash as they are, with no gather and scatter (paired
			 * A/B in docs/upf-bench.md). */
			rte_hash_lookup_bulk_data(t->h, &keys[i], c, &hits, &obj[i]);
			for (j = 0; j < c; j++)
				if (!(hits & (1ull << j)))
					obj[i + j] = NULL;
			continue;
		}
		for (j = 0, n = 0; j < c; j++) {
			const uint32_t x = *(const uint32_t *)keys[i + j];

			obj[i + j] = upf_teid_is_direct(x) ? upf_teid_dir_get(t, x) : NULL;
			if (obj[i + j] == NULL) {
				hk[n] = keys[i + j];
				at[n++] = (uint8_t)j;
			}
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
 * Set up the direct array for about entries TEIDs, beside the hash h
 * (which t then owns). 0, or -ENOMEM with err set.
 */
int upf_teid_init(struct upf_teid_tab *t, struct rte_hash *h, uint32_t entries, int socket,
		  char *err, size_t errlen);
/** Free the array and the hash. */
void upf_teid_fini(struct upf_teid_tab *t);
/** Bytes of the array and the generations (the hash not included). */
size_t upf_teid_dir_bytes(const struct upf_teid_tab *t);

/**
 * Point a TEID at data: in the direct array if it has a place there (in
 * the direct range, its slot free or already its own, data below 2^48,
 * and the TEID not in the hash), else in the hash. Repointing a TEID at
 * an object below 2^48 (every one in x86-64's 47-bit user space)
 * allocates nothing and cannot fail; one above moves it to the hash.
 * @return 0, or rte_hash_add_key_data's error (-ENOSPC: the hash is full).
 */
int upf_teid_add(struct upf_teid_tab *t, uint32_t teid, void *data);
/**
 * Remove a TEID. @return the hash position it freed, which the caller
 * frees with rte_hash_free_key_with_position after a grace period (or
 * rte_hash's RCU defer queue does), or -1 if it had none (a direct entry,
 * or a TEID not held). Either way the allocator does not give the TEID
 * out again until its slot's generation wraps.
 */
int32_t upf_teid_del(struct upf_teid_tab *t, uint32_t teid);
/** The object of a TEID, direct or hashed, or NULL. */
void *upf_teid_find(const struct upf_teid_tab *t, uint32_t teid);
/** TEIDs held, direct and hashed. */
uint32_t upf_teid_count(const struct upf_teid_tab *t);
/**
 * A TEID no session holds, in the direct range and with a free slot, for
 * F-TEID CHOOSE; 0 when every slot is taken. Successive calls give
 * different slots (until they wrap), so the TEIDs of one request differ
 * before any is installed.
 */
uint32_t upf_teid_alloc(struct upf_teid_tab *t);

#endif /* LF_UPF_TEID_H */
