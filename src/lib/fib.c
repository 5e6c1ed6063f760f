/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FIB stage. The burst is split by address family into dense key arrays,
 * looked up with one bulk call per family, and the results scattered back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_vect.h>

#include "fib.h"
#include "lf_log.h"

/*
 * rte_fib's AVX-512 lookups (DIR24_8 and the IPv6 trie) are only selected
 * while EAL's max SIMD width is 512 bits, a process-wide setting whose
 * default is 256 and that drivers read when they choose their RX/TX paths.
 * The width is raised only for the two selections and then put back, so
 * that the FIB's choice does not change the drivers'. A width the operator
 * forced (--force-max-simd-bitwidth under [eal] extra) is left alone: below
 * 512 it leaves only the scalar lookups.
 */
static int
fib_select_lookup(struct lf_fib *fib, enum lf_fib_lookup want, char *err, size_t errlen)
{
	const uint16_t width = rte_vect_get_max_simd_bitwidth();
	bool raised = false, forced = false;
	int r4 = -EINVAL, r6 = -EINVAL;

	if (want != LF_FIB_LOOKUP_SCALAR) {
		if (width < RTE_VECT_SIMD_512) {
			raised = rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0;
			forced = !raised;
		}
		r4 = rte_fib_select_lookup(fib->v4, RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512);
		r6 = rte_fib6_select_lookup(fib->v6, RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512);
		if (raised)
			rte_vect_set_max_simd_bitwidth(width);
	}
	fib->avx512 = r4 == 0 && r6 == 0;
	if (fib->avx512)
		return 0;
	if (want == LF_FIB_LOOKUP_AVX512) {
		if (forced)
			snprintf(err, errlen,
				 "[routes] fib_lookup = avx512: EAL's max SIMD width is forced to %u "
				 "bits (--force-max-simd-bitwidth); use auto or scalar, or allow 512",
				 width);
		else
			snprintf(err, errlen,
				 "[routes] fib_lookup = avx512: rte_fib offers no AVX-512 lookup here "
				 "(the CPU lacks AVX-512F or DPDK was built without it); use auto or "
				 "scalar");
		return -ENOTSUP;
	}
	/* Both families alike, so that the figures compare like with like. */
	if (rte_fib_select_lookup(fib->v4, RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO) != 0 ||
	    rte_fib6_select_lookup(fib->v6, RTE_FIB6_LOOKUP_TRIE_SCALAR) != 0) {
		snprintf(err, errlen, "rte_fib_select_lookup: no scalar lookup");
		return -EINVAL;
	}
	return 0;
}

int
fib_init(struct lf_fib *fib, const struct lf_routes_conf *conf, int socket,
	 const struct lf_route_table *r4, const struct lf_route_table *r6, char *err, size_t errlen)
{
	struct rte_fib_conf c4 = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = LF_NH_NONE,
		.max_routes = conf->ipv4_max_routes,
		.dir24_8 = {
			.nh_sz = RTE_FIB_DIR24_8_2B,
			.num_tbl8 = conf->ipv4_tbl8,
		},
	};
	struct rte_fib6_conf c6 = {
		.type = RTE_FIB6_TRIE,
		.default_nh = LF_NH_NONE,
		.max_routes = conf->ipv6_max_routes,
		.trie = {
			/* 4-byte entries: 2-byte ones cap tbl8 at 32767, too few for a
			 * full IPv6 table (160K routes) loads with 262144:
			 * scripts/check-fulltable.sh. */
			.nh_sz = RTE_FIB6_TRIE_4B,
			.num_tbl8 = conf->ipv6_tbl8,
		},
	};
	/* Names must be unique while a reload builds a generation aside;
	 * only the control thread creates FIBs. */
	static unsigned int seq;
	char name[32];
	size_t i;
	int ret;

	memset(fib, 0, sizeof(*fib));
	if (r4->n > conf->ipv4_max_routes || r6->n > conf->ipv6_max_routes) {
		snprintf(err, errlen,
			 "%zu IPv4 / %zu IPv6 routes exceed [routes] ipv4_max_routes = %u / ipv6_max_routes = %u",
			 r4->n, r6->n, conf->ipv4_max_routes, conf->ipv6_max_routes);
		return -ENOSPC;
	}
	snprintf(name, sizeof(name), "lf_fib4_%u", seq);
	fib->v4 = rte_fib_create(name, socket, &c4);
	if (fib->v4 == NULL) {
		ret = -rte_errno;
		snprintf(err, errlen, "rte_fib_create (IPv4, %u routes, %u tbl8): %s",
			 conf->ipv4_max_routes, conf->ipv4_tbl8, rte_strerror(rte_errno));
		goto fail;
	}
	snprintf(name, sizeof(name), "lf_fib6_%u", seq++);
	fib->v6 = rte_fib6_create(name, socket, &c6);
	if (fib->v6 == NULL) {
		ret = -rte_errno;
		snprintf(err, errlen, "rte_fib6_create (IPv6, %u routes, %u tbl8): %s",
			 conf->ipv6_max_routes, conf->ipv6_tbl8, rte_strerror(rte_errno));
		goto fail;
	}
	ret = fib_select_lookup(fib, conf->lookup, err, errlen);
	if (ret != 0)
		goto fail;
	for (i = 0; i < r4->n; i++) {
		ret = rte_fib_add(fib->v4, r4->r[i].addr4, r4->r[i].depth, r4->r[i].nh);
		if (ret < 0) {
			snprintf(err, errlen,
				 "IPv4 route at line %u: rte_fib_add: %s (raise [routes] ipv4_tbl8 = %u?)",
				 r4->r[i].line, strerror(-ret), conf->ipv4_tbl8);
			goto fail;
		}
	}
	for (i = 0; i < r6->n; i++) {
		ret = rte_fib6_add(fib->v6, r6->r[i].addr6, r6->r[i].depth, r6->r[i].nh);
		if (ret < 0) {
			snprintf(err, errlen,
				 "IPv6 route at line %u: rte_fib6_add: %s (raise [routes] ipv6_tbl8 = %u?)",
				 r6->r[i].line, strerror(-ret), conf->ipv6_tbl8);
			goto fail;
		}
	}
	fib->n4 = r4->n;
	fib->n6 = r6->n;
	LF_LOG(INFO, fib, "installed %u IPv4 and %u IPv6 routes on socket %d, %s lookup", fib->n4,
	       fib->n6, socket, fib->avx512 ? "AVX-512" : "scalar");
	return 0;
fail:
	fib_free(fib);
	return ret;
}

void
fib_free(struct lf_fib *fib)
{
	rte_fib_free(fib->v4);
	rte_fib6_free(fib->v6);
	fib->v4 = NULL;
	fib->v6 = NULL;
}
