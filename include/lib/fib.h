/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The FIBs: IPv4 with rte_fib (DIR24_8) and IPv6 with rte_fib6 (trie),
 * built from route tables and read by the FIB stage (fib_stage.h).
 *
 * Incremental updates (fib_updates_enable, fib_apply: routes from the
 * kernel, netlink.h) change single routes of a FIB the workers are reading.
 * DPDK 22.11's rte_fib and rte_fib6 do not allow that in place: deleting a
 * route that empties a tbl8 group unlinks the group and zeroes it at once
 * (dir24_8.c and trie.c tbl8_recycle), so a lookup that read the parent
 * entry just before reads next hop 0 from the zeroed group, or another
 * prefix's next hop once an add reuses the group. Upstream added RCU
 * reclamation of tbl8 groups only later (DIR24_8 in 24.11, the trie in
 * 25.11). So an updatable FIB is kept twice (left-right): a batch is
 * applied to the copy no worker reads, that copy is published with a
 * release store, the workers' grace period passes (RCU QSBR), and the
 * batch is applied to the other copy, now unread. Readers never wait and
 * never see a copy being written; the cost is a second copy of each table
 * (docs/control-plane.md).
 */
#ifndef LF_FIB_H
#define LF_FIB_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "config.h"
#include "route.h"

struct rte_rcu_qsbr;

/** Value the FIB returns when no prefix matches. */
#define LF_NH_NONE 0x7fffu
/** Next-hop ids are 0..LF_FIB_MAX_NH-1 (2-byte FIB entries). */
#define LF_FIB_MAX_NH LF_NH_NONE

/** The lookup structures workers read. */
struct lf_fib {
	/*
	 * The copies workers read. With incremental updates fib_apply()
	 * replaces them (release store) while workers run: load them once per
	 * burst (lf_fib_v4(), lf_fib_v6()).
	 */
	struct rte_fib *v4;
	struct rte_fib6 *v6;
	uint32_t n4; /**< Routes (prefixes) installed. */
	uint32_t n6;
	/** The bulk lookups in use (both families alike): true for AVX-512. */
	bool avx512;
	/** The copies no worker reads; NULL until fib_updates_enable(). */
	struct rte_fib *v4_idle;
	struct rte_fib6 *v6_idle;
	/**
	 * +1 for each batch fib_apply() publishes: a cache of lookup results
	 * (the flow cache) made under another epoch is stale.
	 */
	uint32_t epoch;
	/** Idle copies made again from their routes (fib_apply(), fib.c says why). */
	uint32_t refreshes;
	/** What fib_init() made the FIBs with, to make the second copies alike. */
	struct lf_routes_conf conf;
	int socket;
};

/** The IPv4 FIB to look up in now (one load per burst). */
static inline struct rte_fib *
lf_fib_v4(const struct lf_fib *fib)
{
	return __atomic_load_n(&fib->v4, __ATOMIC_ACQUIRE);
}

/** The IPv6 FIB to look up in now (one load per burst). */
static inline struct rte_fib6 *
lf_fib_v6(const struct lf_fib *fib)
{
	return __atomic_load_n(&fib->v6, __ATOMIC_ACQUIRE);
}

/** One route change of a batch (fib_apply()). */
struct lf_fib_op {
	union {
		uint32_t addr4; /**< Host byte order. */
		uint8_t addr6[16];
	};
	uint32_t nh; /**< Next hop of an add (< LF_FIB_MAX_NH). */
	uint8_t af; /**< 4 or 6. */
	uint8_t depth;
	bool del; /**< Delete the prefix, else add or replace it. */
	int result; /**< Out: 0, or -errno (-ENOENT, -ENOSPC, -EINVAL); the FIB is unchanged. */
};

/**
 * Create the FIBs on socket, select their bulk lookup as conf->lookup says
 * and install the routes.
 * @return 0 or -errno with a message in err.
 */
int fib_init(struct lf_fib *fib, const struct lf_routes_conf *conf, int socket,
	     const struct lf_route_table *r4, const struct lf_route_table *r6, char *err,
	     size_t errlen);
void fib_free(struct lf_fib *fib);

/**
 * Make fib updatable by fib_apply(): create the second copies from the
 * routes installed. May run while workers read fib: they never read the
 * copies made here before fib_apply() publishes them. Does nothing if
 * already done.
 * @return 0, or -errno with err set (fib unchanged).
 */
int fib_updates_enable(struct lf_fib *fib, char *err, size_t errlen);

/**
 * Apply n route changes to an updatable fib, in order, each op's result
 * set. With qsv, workers may be reading fib (registered on qsv): the
 * changes are published as one step and this waits for their grace period
 * (rte_rcu_qsbr_synchronize) before it writes the copy they read until
 * then. With qsv NULL, no one may be reading fib (a generation not yet
 * published). One writer at a time (the caller serialises).
 * @return how many ops succeeded, or -EINVAL if fib is not updatable.
 */
int fib_apply(struct lf_fib *fib, struct lf_fib_op *ops, unsigned int n, struct rte_rcu_qsbr *qsv);

/**
 * The installed route of exactly this prefix.
 * @return 0 with *nh set, or -ENOENT.
 */
int fib_route_get(const struct lf_fib *fib, uint8_t af, const uint8_t *addr, uint8_t depth,
		  uint32_t *nh);

/**
 * Longest-prefix match of one address (af 4: addr is 4 bytes, network
 * order), off the fast path: *nh (LF_NH_NONE if nothing matches) and the
 * matched prefix's length (-1 when none).
 */
void fib_lookup_one(const struct lf_fib *fib, uint8_t af, const uint8_t *addr, uint32_t *nh,
		    int *depth);

#endif /* LF_FIB_H */
