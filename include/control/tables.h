/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The lookup tables workers read (FIB, next hops, ACL), built and freed as
 * one generation. Hot reload (reload.h) builds a whole new generation aside
 * from the files and publishes it through RCU; workers never see a table of
 * one generation next to a table of another.
 */
#ifndef LF_TABLES_H
#define LF_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "acl.h"
#include "config.h"
#include "fib.h"
#include "route.h"
#include "dp.h"

/** One generation of the tables. Read-only once published. */
struct lf_tables {
	uint32_t gen; /**< 1 at start, +1 per successful reload. */
	struct lf_fib fib;
	struct lf_nh *nh_table;
	uint32_t nh_count;
	/**
	 * Next-hop ids [dyn_base, dyn_base + dyn_count) are for next hops
	 * the neighbour code hands out at run time (neigh_nh_get: routes
	 * from netlink); they start undefined. dyn_count is [netlink]
	 * max_nexthops with [netlink], else 0.
	 */
	uint32_t dyn_base;
	uint32_t dyn_count;
	/**
	 * Bumped (release store) by the neighbour code each time it takes a
	 * next hop's port away (its MAC changes or it failed). With
	 * fib.epoch (bumped per batch of kernel routes), what tells a worker
	 * that verdicts its flow cache holds may be stale: the generation
	 * changed in place.
	 */
	uint32_t nh_epoch;
	struct acl_ctx *acl; /**< NULL without an [acl] ipv4 file. */
	struct acl_ctx *acl6; /**< NULL without an [acl] ipv6 file. */
	uint32_t acl_rules;
	uint32_t acl6_rules;
	int socket; /**< Where the tables live. */
};

/** The rule and route files of a configuration, read and checked (no EAL). */
struct lf_table_src {
	struct lf_route_table r4;
	struct lf_route_table r6;
	struct acl_rule_set acl; /**< Empty without an [acl] ipv4 file. */
	struct acl6_rule_set acl6; /**< Empty without an [acl] ipv6 file. */
};

/**
 * Read and check every route and ACL file cfg names. Needs no EAL, so that
 * --check-config and a reload reject a bad file before anything is built.
 * @return 0, or -errno with err naming file, line and value; src is then
 *         left empty.
 */
int tables_load_files(const struct lf_config *cfg, struct lf_table_src *src, char *err,
		      size_t errlen);

/**
 * Add the UPF's routes to src ([upf]: each N3 address, each network
 * instance's UE pools, to next hops of the UPF's packet kinds past the
 * configured ones). tables_load_files() calls it; a caller that builds src
 * by hand calls it before tables_build().
 * @return 0, or -errno with err naming the route file's line that has the
 *         same prefix as a pool or an N3 address.
 */
int tables_add_upf_routes(const struct lf_config *cfg, struct lf_table_src *src, char *err,
			  size_t errlen);

/**
 * Add the router's own routes to src: martian destinations to a next hop
 * of kind local that drops them, the link-scope groups, the limited
 * broadcast and every [port] address (and its subnet broadcast) to one
 * that delivers them. tables_load_files() calls it; tables_build() adds
 * each port's IPv6 link-local address once the ports' MACs are known.
 * @return 0, or -errno with err naming the route file's line that is
 *         inside a martian prefix or has the prefix of an own address.
 */
int tables_add_local_routes(const struct lf_config *cfg, struct lf_table_src *src, char *err,
			    size_t errlen);

/** Free what tables_load_files() read. */
void tables_src_free(struct lf_table_src *src);

/**
 * Build generation gen of the tables from src (consumed: freed on return).
 * @param macs  The ports' MACs, the default next-hop source addresses.
 * @return the tables, or NULL with err set and nothing left allocated.
 */
struct lf_tables *tables_build(const struct lf_config *cfg, struct lf_table_src *src,
			       const struct rte_ether_addr *macs, int socket, uint32_t gen,
			       char *err, size_t errlen);

/** Free a generation no worker can still be reading. NULL is allowed. */
void tables_free(struct lf_tables *t);

#endif /* LF_TABLES_H */
