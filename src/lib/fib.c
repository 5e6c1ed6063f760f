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
#include <rte_rcu_qsbr.h>
#include <rte_rib.h>
#include <rte_rib6.h>
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
fib_select_lookup(struct rte_fib *v4, struct rte_fib6 *v6, enum lf_fib_lookup want, bool *avx512,
		  char *err, size_t errlen)
{
	const uint16_t width = rte_vect_get_max_simd_bitwidth();
	bool raised = false, forced = false;
	int r4 = -EINVAL, r6 = -EINVAL;

	if (want != LF_FIB_LOOKUP_SCALAR) {
		if (width < RTE_VECT_SIMD_512) {
			raised = rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) == 0;
			forced = !raised;
		}
		r4 = rte_fib_select_lookup(v4, RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512);
		r6 = rte_fib6_select_lookup(v6, RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512);
		if (raised)
			rte_vect_set_max_simd_bitwidth(width);
	}
	*avx512 = r4 == 0 && r6 == 0;
	if (*avx512)
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
	if (rte_fib_select_lookup(v4, RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO) != 0 ||
	    rte_fib6_select_lookup(v6, RTE_FIB6_LOOKUP_TRIE_SCALAR) != 0) {
		snprintf(err, errlen, "rte_fib_select_lookup: no scalar lookup");
		return -EINVAL;
	}
	return 0;
}

/* Names must be unique while a reload builds a generation aside and while
 * an updatable FIB has two copies; only one thread at a time creates FIBs
 * (the control thread, or the netlink thread under ctl_lock). */
static unsigned int fib_seq;

static struct rte_fib *
fib4_create(const struct lf_routes_conf *conf, int socket)
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
	char name[32];

	snprintf(name, sizeof(name), "lf_fib4_%u",
		 __atomic_fetch_add(&fib_seq, 1, __ATOMIC_RELAXED));
	return rte_fib_create(name, socket, &c4);
}

static struct rte_fib6 *
fib6_create(const struct lf_routes_conf *conf, int socket)
{
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
	char name[32];

	snprintf(name, sizeof(name), "lf_fib6_%u",
		 __atomic_fetch_add(&fib_seq, 1, __ATOMIC_RELAXED));
	return rte_fib6_create(name, socket, &c6);
}

int
fib_init(struct lf_fib *fib, const struct lf_routes_conf *conf, int socket,
	 const struct lf_route_table *r4, const struct lf_route_table *r6, char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(fib, 0, sizeof(*fib));
	if (r4->n > conf->ipv4_max_routes || r6->n > conf->ipv6_max_routes) {
		snprintf(err, errlen,
			 "%zu IPv4 / %zu IPv6 routes exceed [routes] ipv4_max_routes = %u / ipv6_max_routes = %u",
			 r4->n, r6->n, conf->ipv4_max_routes, conf->ipv6_max_routes);
		return -ENOSPC;
	}
	fib->conf = *conf;
	fib->socket = socket;
	fib->v4 = fib4_create(conf, socket);
	if (fib->v4 == NULL) {
		ret = -rte_errno;
		snprintf(err, errlen, "rte_fib_create (IPv4, %u routes, %u tbl8): %s",
			 conf->ipv4_max_routes, conf->ipv4_tbl8, rte_strerror(rte_errno));
		goto fail;
	}
	fib->v6 = fib6_create(conf, socket);
	if (fib->v6 == NULL) {
		ret = -rte_errno;
		snprintf(err, errlen, "rte_fib6_create (IPv6, %u routes, %u tbl8): %s",
			 conf->ipv6_max_routes, conf->ipv6_tbl8, rte_strerror(rte_errno));
		goto fail;
	}
	ret = fib_select_lookup(fib->v4, fib->v6, conf->lookup, &fib->avx512, err, errlen);
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
	rte_fib_free(fib->v4_idle);
	rte_fib6_free(fib->v6_idle);
	fib->v4 = NULL;
	fib->v6 = NULL;
	fib->v4_idle = NULL;
	fib->v6_idle = NULL;
}

/* Install in dst every route of src's RIB (dst freshly made: no reader). */
static int
fib4_replay(struct rte_fib *dst, struct rte_fib *src)
{
	struct rte_rib *rib = rte_fib_get_rib(src);
	struct rte_rib_node *node = NULL;
	uint64_t nh;
	uint32_t ip;
	uint8_t depth;
	int ret;

	/* rte_rib_get_nxt() lists the prefixes under 0/0, not 0/0 itself. */
	node = rte_rib_lookup_exact(rib, 0, 0);
	if (node != NULL) {
		rte_rib_get_nh(node, &nh);
		ret = rte_fib_add(dst, 0, 0, nh);
		if (ret < 0)
			return ret;
	}
	node = NULL;
	while ((node = rte_rib_get_nxt(rib, 0, 0, node, RTE_RIB_GET_NXT_ALL)) != NULL) {
		rte_rib_get_ip(node, &ip);
		rte_rib_get_depth(node, &depth);
		rte_rib_get_nh(node, &nh);
		ret = rte_fib_add(dst, ip, depth, nh);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
fib6_replay(struct rte_fib6 *dst, struct rte_fib6 *src)
{
	struct rte_rib6 *rib = rte_fib6_get_rib(src);
	static const uint8_t zero[RTE_FIB6_IPV6_ADDR_SIZE];
	struct rte_rib6_node *node;
	uint8_t ip[RTE_FIB6_IPV6_ADDR_SIZE];
	uint64_t nh;
	uint8_t depth;
	int ret;

	node = rte_rib6_lookup_exact(rib, zero, 0);
	if (node != NULL) {
		rte_rib6_get_nh(node, &nh);
		ret = rte_fib6_add(dst, zero, 0, nh);
		if (ret < 0)
			return ret;
	}
	node = NULL;
	while ((node = rte_rib6_get_nxt(rib, zero, 0, node, RTE_RIB6_GET_NXT_ALL)) != NULL) {
		rte_rib6_get_ip(node, ip);
		rte_rib6_get_depth(node, &depth);
		rte_rib6_get_nh(node, &nh);
		ret = rte_fib6_add(dst, ip, depth, nh);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Copies of fib's routes (the families asked for) with the same lookups. */
static int
fib_copies_make(const struct lf_fib *fib, bool v4, bool v6, struct rte_fib **n4,
		struct rte_fib6 **n6, char *err, size_t errlen)
{
	struct rte_fib *c4 = NULL;
	struct rte_fib6 *c6 = NULL;
	bool avx512 = false;
	int ret = -ENOMEM;

	/* Both are needed for fib_select_lookup(); the unneeded one is freed. */
	c4 = fib4_create(&fib->conf, fib->socket);
	c6 = fib6_create(&fib->conf, fib->socket);
	if (c4 == NULL || c6 == NULL) {
		ret = -rte_errno;
		snprintf(err, errlen, "a second copy of the FIB (incremental updates): %s",
			 rte_strerror(rte_errno));
		goto fail;
	}
	ret = fib_select_lookup(c4, c6, fib->avx512 ? LF_FIB_LOOKUP_AVX512 : LF_FIB_LOOKUP_SCALAR,
				&avx512, err, errlen);
	if (ret != 0)
		goto fail;
	if ((v4 && (ret = fib4_replay(c4, fib->v4)) < 0) ||
	    (v6 && (ret = fib6_replay(c6, fib->v6)) < 0)) {
		snprintf(err, errlen, "a second copy of the FIB (incremental updates): %s",
			 strerror(-ret));
		goto fail;
	}
	if (!v4) {
		rte_fib_free(c4);
		c4 = NULL;
	}
	if (!v6) {
		rte_fib6_free(c6);
		c6 = NULL;
	}
	*n4 = c4;
	*n6 = c6;
	return 0;
fail:
	rte_fib_free(c4);
	rte_fib6_free(c6);
	return ret;
}

int
fib_updates_enable(struct lf_fib *fib, char *err, size_t errlen)
{
	int ret;

	if (fib->v4_idle != NULL)
		return 0;
	ret = fib_copies_make(fib, true, true, &fib->v4_idle, &fib->v6_idle, err, errlen);
	if (ret == 0)
		LF_LOG(INFO, fib,
		       "incremental updates: a second copy of the FIBs (%u IPv4, %u IPv6 routes)",
		       fib->n4, fib->n6);
	return ret;
}

/* One op on one copy; *exists: the prefix was there before. */
static int
fib_op_do(struct rte_fib *f4, struct rte_fib6 *f6, const struct lf_fib_op *op, bool *exists)
{
	uint64_t nh;

	if (op->af == 4) {
		if (op->depth > 32)
			return -EINVAL;
		*exists = rte_rib_lookup_exact(rte_fib_get_rib(f4), op->addr4, op->depth) != NULL;
		if (op->del)
			return rte_fib_delete(f4, op->addr4, op->depth);
		if (op->nh >= LF_FIB_MAX_NH)
			return -EINVAL;
		return rte_fib_add(f4, op->addr4, op->depth, op->nh);
	}
	if (op->af != 6 || op->depth > 128)
		return -EINVAL;
	*exists = rte_rib6_lookup_exact(rte_fib6_get_rib(f6), op->addr6, op->depth) != NULL;
	if (op->del)
		return rte_fib6_delete(f6, op->addr6, op->depth);
	if (op->nh >= LF_FIB_MAX_NH)
		return -EINVAL;
	nh = op->nh;
	return rte_fib6_add(f6, op->addr6, op->depth, nh);
}

/*
 * Make copy *c (not read by anyone) again from src's RIB: same routes, no
 * history. DPDK 22.11's IPv6 trie leaks tbl8 reservations on deletes
 * (fixed upstream in 25.11 and later: trie.c tbl8 reservation drift), so a
 * copy that has seen many deletes refuses adds with -ENOSPC although it
 * has room; a copy made afresh has the right count.
 */
static int
fib_copy_refresh(struct lf_fib *fib, bool v6, bool from_self)
{
	struct rte_fib *n4 = NULL;
	struct rte_fib6 *n6 = NULL;
	struct lf_fib src = *fib;
	char err[160];
	int ret;

	if (from_self) {
		src.v4 = fib->v4_idle;
		src.v6 = fib->v6_idle;
	}
	ret = fib_copies_make(&src, !v6, v6, &n4, &n6, err, sizeof(err));
	if (ret != 0) {
		LF_LOG(ERR, fib, "%s", err);
		return ret;
	}
	if (v6) {
		rte_fib6_free(fib->v6_idle);
		fib->v6_idle = n6;
	} else {
		rte_fib_free(fib->v4_idle);
		fib->v4_idle = n4;
	}
	fib->refreshes++;
	return 0;
}

int
fib_apply(struct lf_fib *fib, struct lf_fib_op *ops, unsigned int n, struct rte_rcu_qsbr *qsv)
{
	struct rte_fib *old4 = fib->v4;
	struct rte_fib6 *old6 = fib->v6;
	bool v4 = false, v6 = false, exists, refreshed = false, bad4 = false, bad6 = false;
	unsigned int i;
	int ok = 0, ret;

	if (fib->v4_idle == NULL || fib->v6_idle == NULL)
		return -EINVAL;
	/* The copy no one reads first, counting the prefixes. */
	for (i = 0; i < n; i++) {
		ops[i].result = fib_op_do(fib->v4_idle, fib->v6_idle, &ops[i], &exists);
		if (ops[i].result == -ENOSPC && ops[i].af == 6 && !refreshed) {
			refreshed = true;
			if (fib_copy_refresh(fib, true, true) == 0)
				ops[i].result =
					fib_op_do(fib->v4_idle, fib->v6_idle, &ops[i], &exists);
		}
		if (ops[i].result < 0)
			continue;
		ok++;
		if (ops[i].af == 4) {
			v4 = true;
			fib->n4 += ops[i].del ? -1 : !exists;
		} else {
			v6 = true;
			fib->n6 += ops[i].del ? -1 : !exists;
		}
	}
	if (ok == 0)
		return 0;
	/* Publish it; once every worker has passed a quiescent state, none
	 * reads the other copy any more. */
	if (v4) {
		__atomic_store_n(&fib->v4, fib->v4_idle, __ATOMIC_RELEASE);
		fib->v4_idle = old4;
	}
	if (v6) {
		__atomic_store_n(&fib->v6, fib->v6_idle, __ATOMIC_RELEASE);
		fib->v6_idle = old6;
	}
	__atomic_store_n(&fib->epoch, fib->epoch + 1, __ATOMIC_RELEASE);
	if (qsv != NULL)
		rte_rcu_qsbr_synchronize(qsv, RTE_QSBR_THRID_INVALID);
	/* The same changes on the other copy. Should one fail there (IPv6:
	 * the trie's leaked reservations, above), that copy is made again
	 * from the one in force rather than left different. */
	for (i = 0; i < n; i++) {
		if (ops[i].result < 0 || (ops[i].af == 4 ? !v4 : !v6))
			continue;
		if ((ops[i].af == 4 && bad4) || (ops[i].af == 6 && bad6))
			continue;
		ret = fib_op_do(fib->v4_idle, fib->v6_idle, &ops[i], &exists);
		if (ret < 0) {
			bad4 |= ops[i].af == 4;
			bad6 |= ops[i].af == 6;
		}
	}
	if (bad4 && fib_copy_refresh(fib, false, false) != 0) {
		/* Without a second copy the FIB is no longer updatable;
		 * fib_apply() then refuses, which its caller counts. */
		rte_fib_free(fib->v4_idle);
		fib->v4_idle = NULL;
	}
	if (bad6 && fib_copy_refresh(fib, true, false) != 0) {
		rte_fib6_free(fib->v6_idle);
		fib->v6_idle = NULL;
	}
	return ok;
}

int
fib_route_get(const struct lf_fib *fib, uint8_t af, const uint8_t *addr, uint8_t depth,
	      uint32_t *nh)
{
	uint64_t v;

	if (af == 4) {
		struct rte_rib_node *node;
		uint32_t ip;

		memcpy(&ip, addr, 4);
		node = rte_rib_lookup_exact(rte_fib_get_rib(fib->v4), rte_be_to_cpu_32(ip), depth);
		if (node == NULL)
			return -ENOENT;
		rte_rib_get_nh(node, &v);
	} else {
		struct rte_rib6_node *node;

		node = rte_rib6_lookup_exact(rte_fib6_get_rib(fib->v6), addr, depth);
		if (node == NULL)
			return -ENOENT;
		rte_rib6_get_nh(node, &v);
	}
	*nh = (uint32_t)v;
	return 0;
}

void
fib_lookup_one(const struct lf_fib *fib, uint8_t af, const uint8_t *addr, uint32_t *nh, int *depth)
{
	uint8_t d;
	uint64_t v = LF_NH_NONE;

	*depth = -1;
	if (af == 4) {
		struct rte_fib *f = lf_fib_v4(fib);
		struct rte_rib_node *node;
		uint32_t ip;

		memcpy(&ip, addr, 4);
		ip = rte_be_to_cpu_32(ip);
		rte_fib_lookup_bulk(f, &ip, &v, 1);
		node = rte_rib_lookup(rte_fib_get_rib(f), ip);
		if (node != NULL && rte_rib_get_depth(node, &d) == 0)
			*depth = d;
	} else {
		struct rte_fib6 *f = lf_fib_v6(fib);
		struct rte_rib6_node *node;
		uint8_t ip[1][RTE_FIB6_IPV6_ADDR_SIZE];

		memcpy(ip[0], addr, RTE_FIB6_IPV6_ADDR_SIZE);
		rte_fib6_lookup_bulk(f, ip, &v, 1);
		node = rte_rib6_lookup(rte_fib6_get_rib(f), addr);
		if (node != NULL && rte_rib6_get_depth(node, &d) == 0)
			*depth = d;
	}
	*nh = (uint32_t)v;
}
