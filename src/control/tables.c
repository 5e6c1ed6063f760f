/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One generation of lookup tables: read the files, build FIB, next hops and
 * ACL, free them together. Used at start-up and by hot reload alike, so that
 * both go through exactly the same checks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "lf_log.h"
#include "rewrite.h"
#include "tables.h"

/* Next-hop ids one past the configured ones: where the UPF's entries go. */
static uint32_t
nh_base(const struct lf_config *cfg)
{
	uint32_t i, n = 0;

	for (i = 0; i < cfg->n_nexthops; i++)
		if (cfg->nexthops[i].id + 1 > n)
			n = cfg->nexthops[i].id + 1;
	return n;
}

/* Append a route, refusing a prefix a route file already has. */
static int
upf_route_add(struct lf_route_table *t, const char *file, int af, const uint8_t *a,
	      unsigned int plen, uint32_t nh, const char *what, char *err, size_t errlen)
{
	struct lf_route r;
	size_t i;

	memset(&r, 0, sizeof(r));
	if (af == 4)
		r.addr4 = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
	else
		memcpy(r.addr6, a, 16);
	r.depth = (uint8_t)plen;
	r.nh = nh;
	for (i = 0; i < t->n; i++) {
		const struct lf_route *o = &t->r[i];

		if (o->depth == r.depth &&
		    (af == 4 ? o->addr4 == r.addr4 : memcmp(o->addr6, r.addr6, 16) == 0)) {
			snprintf(err, errlen, "%s:%u: the same prefix as %s", file, o->line, what);
			return -EEXIST;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct lf_route *nr = realloc(t->r, cap * sizeof(*nr));

		if (nr == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		t->r = nr;
		t->cap = cap;
	}
	t->af = af;
	t->r[t->n++] = r;
	return 0;
}

/*
 * The UPF's routes: each N3 address (a host route) to next hop base, the
 * uplink kind's; each network instance's UE pools to base + 1 + its index,
 * the downlink kind's. The FIB then sorts UPF traffic from routed traffic
 * in the lookup it makes anyway.
 */
int
tables_add_upf_routes(const struct lf_config *cfg, struct lf_table_src *src, char *err,
		      size_t errlen)
{
	const struct lf_upf_conf *u = &cfg->upf;
	const uint32_t base = nh_base(cfg);
	char what[160];
	unsigned int i, k;
	int ret = 0;

	if (!u->enabled)
		return 0;
	if (base + 1 + u->n_ni > LF_FIB_MAX_NH) {
		snprintf(err, errlen, "%s: [upf]: no next-hop ids left above %u for the UPF",
			 cfg->path, base - 1);
		return -ENOSPC;
	}
	if (u->has_n3_ipv4)
		ret = upf_route_add(&src->r4, cfg->routes.ipv4, 4, u->n3_ipv4, 32, base,
				    "[upf] n3_ipv4", err, errlen);
	if (ret == 0 && u->has_n3_ipv6)
		ret = upf_route_add(&src->r6, cfg->routes.ipv6, 6, u->n3_ipv6, 128, base,
				    "[upf] n3_ipv6", err, errlen);
	for (i = 0; ret == 0 && i < u->n_ni; i++) {
		for (k = 0; ret == 0 && k < u->ni[i].n_pools; k++) {
			const int af = u->ni[i].pool[k].af;

			snprintf(what, sizeof(what), "[%s] ue_pool", u->ni[i].section);
			ret = upf_route_add(af == 4 ? &src->r4 : &src->r6,
					    af == 4 ? cfg->routes.ipv4 : cfg->routes.ipv6, af,
					    u->ni[i].pool[k].a, u->ni[i].pool[k].plen, base + 1 + i,
					    what, err, errlen);
		}
	}
	return ret;
}

int
tables_load_files(const struct lf_config *cfg, struct lf_table_src *src, char *err, size_t errlen)
{
	uint8_t *defined;
	unsigned int i;
	long n = 0;

	memset(src, 0, sizeof(*src));
	defined = calloc(LF_FIB_MAX_NH, 1);
	if (defined == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < cfg->n_nexthops; i++)
		defined[cfg->nexthops[i].id] = 1;
	if (cfg->routes.ipv4[0] != '\0')
		n = route_load(cfg->routes.ipv4, 4, defined, LF_FIB_MAX_NH, &src->r4, err, errlen);
	if (n >= 0 && cfg->routes.ipv6[0] != '\0')
		n = route_load(cfg->routes.ipv6, 6, defined, LF_FIB_MAX_NH, &src->r6, err, errlen);
	free(defined);
	if (n >= 0)
		n = tables_add_upf_routes(cfg, src, err, errlen);
	if (n >= 0 && cfg->acl.ipv4[0] != '\0')
		n = acl_load(cfg->acl.ipv4, &src->acl, err, errlen);
	if (n >= 0 && cfg->acl.ipv6[0] != '\0')
		n = acl6_load(cfg->acl.ipv6, &src->acl6, err, errlen);
	if (n >= 0) {
		/* Refuse tables that cannot fit before anything is built. */
		struct lf_mem_estimate est;

		config_mem_estimate(cfg, src->acl.n, src->acl6.n, &est);
		n = config_mem_check(cfg, &est, err, errlen);
	}
	if (n < 0) {
		tables_src_free(src);
		return (int)n;
	}
	return 0;
}

void
tables_src_free(struct lf_table_src *src)
{
	route_table_free(&src->r4);
	route_table_free(&src->r6);
	acl_rule_set_free(&src->acl);
	acl6_rule_set_free(&src->acl6);
}

/* Grow the next-hop table by the UPF's entries: no port, a kind to hand packets to. */
static int
upf_nexthops(const struct lf_config *cfg, struct lf_tables *t, uint32_t base, int socket)
{
	const uint32_t n = base + 1 + cfg->upf.n_ni;
	struct lf_nh *nt;
	uint32_t i;

	if (!cfg->upf.enabled)
		return 0;
	nt = rte_zmalloc_socket("lf_nexthops", n * sizeof(*nt), RTE_CACHE_LINE_SIZE, socket);
	if (nt == NULL)
		return -ENOMEM;
	memcpy(nt, t->nh_table, t->nh_count * sizeof(*nt));
	for (i = t->nh_count; i < n; i++)
		nt[i].out = LF_NH_INVALID;
	nt[base].kind = LF_KIND_UPF_UL;
	for (i = 0; i < cfg->upf.n_ni; i++) {
		nt[base + 1 + i].kind = LF_KIND_UPF_DL;
		nt[base + 1 + i].arg = (uint8_t)i;
	}
	rewrite_free(t->nh_table);
	t->nh_table = nt;
	t->nh_count = n;
	return 0;
}

struct lf_tables *
tables_build(const struct lf_config *cfg, struct lf_table_src *src,
	     const struct rte_ether_addr *macs, int socket, uint32_t gen, char *err, size_t errlen)
{
	struct lf_tables *t;
	int ret;

	t = rte_zmalloc_socket("lf_tables", sizeof(*t), RTE_CACHE_LINE_SIZE, socket);
	if (t == NULL) {
		snprintf(err, errlen, "cannot allocate the tables on socket %d", socket);
		goto fail;
	}
	t->gen = gen;
	t->socket = socket;
	ret = fib_init(&t->fib, &cfg->routes, socket, &src->r4, &src->r6, err, errlen);
	if (ret != 0)
		goto fail;
	if (cfg->acl.ipv4[0] != '\0') {
		char why[LF_ERR_LEN];

		t->acl = acl_build(&src->acl, cfg->acl.deny ? ACL_DENY : ACL_PERMIT, socket, why,
				   sizeof(why));
		if (t->acl == NULL) {
			snprintf(err, errlen, "%s: %s", cfg->acl.ipv4, why);
			goto fail;
		}
		t->acl_rules = acl_num_rules(t->acl);
	}
	if (cfg->acl.ipv6[0] != '\0') {
		char why[LF_ERR_LEN];

		t->acl6 = acl6_build(&src->acl6, cfg->acl.deny ? ACL_DENY : ACL_PERMIT, socket, why,
				     sizeof(why));
		if (t->acl6 == NULL) {
			snprintf(err, errlen, "%s: %s", cfg->acl.ipv6, why);
			goto fail;
		}
		t->acl6_rules = acl_num_rules(t->acl6);
	}
	t->nh_table = rewrite_init(cfg, macs, socket, &t->nh_count);
	if (t->nh_table == NULL) {
		snprintf(err, errlen, "cannot allocate the next-hop table");
		goto fail;
	}
	if (upf_nexthops(cfg, t, nh_base(cfg), socket) != 0) {
		snprintf(err, errlen, "cannot allocate the next-hop table");
		goto fail;
	}
	tables_src_free(src);
	return t;
fail:
	tables_src_free(src);
	tables_free(t);
	return NULL;
}

void
tables_free(struct lf_tables *t)
{
	if (t == NULL)
		return;
	rewrite_free(t->nh_table);
	acl_free(t->acl);
	acl_free(t->acl6);
	fib_free(&t->fib);
	rte_free(t);
}
