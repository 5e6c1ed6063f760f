/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The FIBs: IPv4 with rte_fib (DIR24_8) and IPv6 with rte_fib6 (trie),
 * built from route tables and read by the FIB stage (fib_stage.h).
 */
#ifndef LF_FIB_H
#define LF_FIB_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "config.h"
#include "route.h"

/** Value the FIB returns when no prefix matches. */
#define LF_NH_NONE 0x7fffu
/** Next-hop ids are 0..LF_FIB_MAX_NH-1 (2-byte FIB entries). */
#define LF_FIB_MAX_NH LF_NH_NONE

/** The lookup structures workers read. */
struct lf_fib {
	struct rte_fib *v4;
	struct rte_fib6 *v6;
	uint32_t n4;
	uint32_t n6;
	/** The bulk lookups in use (both families alike): true for AVX-512. */
	bool avx512;
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

#endif /* LF_FIB_H */
