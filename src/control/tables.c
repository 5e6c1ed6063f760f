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
#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "lf_log.h"
#include "neigh_core.h"
#include "rewrite.h"
#include "tables.h"

/* The router's own next hops (enum lf_local_arg): deliver, martian, group. */
#define LOCAL_NH_COUNT LF_LOCAL_COUNT

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

/* Append a route, refusing a prefix a route file (or an earlier special route) already has. */
static int
special_route_add(struct lf_route_table *t, const char *file, int af, const uint8_t *a,
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
	if (base + 1 + u->n_ni + LOCAL_NH_COUNT > LF_FIB_MAX_NH) {
		snprintf(err, errlen, "%s: [upf]: no next-hop ids left above %u for the UPF",
			 cfg->path, base - 1);
		return -ENOSPC;
	}
	if (u->has_n3_ipv4)
		ret = special_route_add(&src->r4, cfg->routes.ipv4, 4, u->n3_ipv4, 32, base,
					"[upf] n3_ipv4", err, errlen);
	if (ret == 0 && u->has_n3_ipv6)
		ret = special_route_add(&src->r6, cfg->routes.ipv6, 6, u->n3_ipv6, 128, base,
					"[upf] n3_ipv6", err, errlen);
	for (i = 0; ret == 0 && i < u->n_ni; i++) {
		for (k = 0; ret == 0 && k < u->ni[i].n_pools; k++) {
			const int af = u->ni[i].pool[k].af;

			snprintf(what, sizeof(what), "[%s] ue_pool", u->ni[i].section);
			ret = special_route_add(af == 4 ? &src->r4 : &src->r6,
						af == 4 ? cfg->routes.ipv4 : cfg->routes.ipv6, af,
						u->ni[i].pool[k].a, u->ni[i].pool[k].plen,
						base + 1 + i, what, err, errlen);
		}
	}
	return ret;
}

/*
 * The router's own next hops, after the UPF's: one of kind local that
 * delivers (the router's addresses, the link-scope groups it listens to),
 * one of kind local that drops as martian_dst.
 */
static uint32_t
local_base(const struct lf_config *cfg)
{
	return nh_base(cfg) + (cfg->upf.enabled ? 1 + cfg->upf.n_ni : 0);
}

static uint32_t
dyn_count(const struct lf_config *cfg)
{
	return cfg->netlink.enabled ? cfg->netlink.max_nexthops : 0;
}

/*
 * Then the ids neigh_nh_get() hands out at run time ([netlink] routes): at
 * the top of the id space, so that they stay where they are when a reload
 * adds next hops or network instances (the neighbour code keeps them
 * across generations).
 */
static uint32_t
dyn_base(const struct lf_config *cfg)
{
	return dyn_count(cfg) != 0 ? LF_FIB_MAX_NH - dyn_count(cfg)
				   : local_base(cfg) + LOCAL_NH_COUNT;
}

/*
 * Destinations no router forwards to (RFC 1812 5.3.7 and 4.2.3.1, RFC
 * 3927, RFC 4291 2.5.2, 2.5.3, 2.5.6, 2.7), routed to the martian next hop,
 * and the link-scope ones it listens to, routed to the delivering one. The
 * longest match makes the exceptions: 224.0.0.0/24 inside 224/4,
 * 255.255.255.255 inside 240/4, ff02::/16 inside ff00::/8, the ports'
 * link-local addresses inside fe80::/10.
 */
static const struct {
	uint8_t af, plen;
	uint8_t a[16];
	uint8_t arg; /* enum lf_local_arg */
} special_prefixes[] = {
	{ 4, 8, { 0 }, LF_LOCAL_MARTIAN },
	{ 4, 8, { 127 }, LF_LOCAL_MARTIAN },
	{ 4, 16, { 169, 254 }, LF_LOCAL_MARTIAN },
	{ 4, 4, { 224 }, LF_LOCAL_MARTIAN },
	{ 4, 4, { 240 }, LF_LOCAL_MARTIAN },
	{ 4, 24, { 224, 0, 0 }, LF_LOCAL_GROUP },
	{ 4, 32, { 255, 255, 255, 255 }, LF_LOCAL_GROUP },
	{ 6, 128, { 0 }, LF_LOCAL_MARTIAN },
	{ 6, 128, { [15] = 1 }, LF_LOCAL_MARTIAN },
	{ 6, 10, { 0xfe, 0x80 }, LF_LOCAL_MARTIAN },
	{ 6, 8, { 0xff }, LF_LOCAL_MARTIAN },
	{ 6, 16, { 0xff, 0x02 }, LF_LOCAL_GROUP },
};

static const char *
prefix_str(int af, const uint8_t *a, unsigned int plen, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(af == 4 ? AF_INET : AF_INET6, a, ip, sizeof(ip));
	snprintf(buf, len, "%s/%u", ip, plen);
	return buf;
}

/* Is route r (of family af) inside prefix a/plen? */
static bool
route_inside(const struct lf_route *r, int af, const uint8_t *a, unsigned int plen)
{
	uint8_t ra[16];
	unsigned int i;

	if (r->depth < plen)
		return false;
	if (af == 4) {
		ra[0] = r->addr4 >> 24, ra[1] = r->addr4 >> 16, ra[2] = r->addr4 >> 8;
		ra[3] = (uint8_t)r->addr4;
	} else {
		memcpy(ra, r->addr6, 16);
	}
	for (i = 0; i < plen; i++)
		if (((ra[i / 8] ^ a[i / 8]) & (0x80 >> (i % 8))) != 0)
			return false;
	return true;
}

int
tables_add_local_routes(const struct lf_config *cfg, struct lf_table_src *src, char *err,
			size_t errlen)
{
	const uint32_t base = local_base(cfg);
	char what[160], pfx[64];
	unsigned int i, p, k;
	int ret = 0;

	if (base + LOCAL_NH_COUNT > dyn_base(cfg)) {
		snprintf(err, errlen,
			 "%s: next-hop ids up to %u are taken; [netlink] max_nexthops = %u reserves %u and up, and the router's own need %u more",
			 cfg->path, base - 1, dyn_count(cfg), dyn_base(cfg), LOCAL_NH_COUNT);
		return -ENOSPC;
	}
	/* A route file route inside a martian prefix would forward what must not be. */
	for (i = 0; i < RTE_DIM(special_prefixes); i++) {
		const struct lf_route_table *t = special_prefixes[i].af == 4 ? &src->r4 : &src->r6;
		size_t j;

		if (special_prefixes[i].arg != LF_LOCAL_MARTIAN)
			continue;
		for (j = 0; j < t->n; j++) {
			if (!route_inside(&t->r[j], special_prefixes[i].af, special_prefixes[i].a,
					  special_prefixes[i].plen))
				continue;
			snprintf(err, errlen,
				 "%s:%u: a route inside %s, which no router forwards to (RFC 1812 5.3.7, RFC 4291)",
				 special_prefixes[i].af == 4 ? cfg->routes.ipv4 : cfg->routes.ipv6,
				 t->r[j].line,
				 prefix_str(special_prefixes[i].af, special_prefixes[i].a,
					    special_prefixes[i].plen, pfx, sizeof(pfx)));
			return -EINVAL;
		}
	}
	for (i = 0; ret == 0 && i < RTE_DIM(special_prefixes); i++) {
		const int af = special_prefixes[i].af;

		snprintf(what, sizeof(what), "the router's own %s",
			 prefix_str(af, special_prefixes[i].a, special_prefixes[i].plen, pfx,
				    sizeof(pfx)));
		ret = special_route_add(af == 4 ? &src->r4 : &src->r6,
					af == 4 ? cfg->routes.ipv4 : cfg->routes.ipv6, af,
					special_prefixes[i].a, special_prefixes[i].plen,
					base + special_prefixes[i].arg, what, err, errlen);
	}
	for (p = 0; ret == 0 && p < cfg->n_ports; p++) {
		const struct lf_port_conf *pc = &cfg->ports[p];

		for (k = 0; ret == 0 && k < pc->n_addrs; k++) {
			const struct lf_ip_addr *ad = &pc->addr[k];

			snprintf(what, sizeof(what), "[%s] address", pc->section);
			ret = special_route_add(ad->af == 4 ? &src->r4 : &src->r6,
						ad->af == 4 ? cfg->routes.ipv4 : cfg->routes.ipv6,
						ad->af, ad->a, ad->af == 4 ? 32 : 128,
						base + LF_LOCAL_DELIVER, what, err, errlen);
			/* The subnet's broadcast address is the router's to receive too. */
			if (ret == 0 && ad->af == 4 && ad->plen <= 30) {
				uint8_t bc[4];
				unsigned int b;

				memcpy(bc, ad->a, 4);
				for (b = ad->plen; b < 32; b++)
					bc[b / 8] |= 0x80 >> (b % 8);
				snprintf(what, sizeof(what), "[%s] address's broadcast",
					 pc->section);
				ret = special_route_add(&src->r4, cfg->routes.ipv4, 4, bc, 32,
							base + LF_LOCAL_GROUP, what, err, errlen);
			}
		}
	}
	return ret;
}

/*
 * Each port's IPv6 link-local address, delivered: known once the ports
 * exist (a MAC may come from the device), so tables_build() adds them.
 * Two ports with one MAC share it.
 */
static int
add_link_local_routes(const struct lf_config *cfg, const struct rte_ether_addr *macs,
		      struct lf_table_src *src, char *err, size_t errlen)
{
	char what[160];
	unsigned int p, q;
	int ret = 0;

	for (p = 0; ret == 0 && p < cfg->n_ports; p++) {
		uint8_t ll[16];

		for (q = 0; q < p; q++)
			if (rte_is_same_ether_addr(&macs[q], &macs[p]))
				break;
		if (q != p)
			continue;
		neigh_link_local(&macs[p], ll);
		snprintf(what, sizeof(what), "[%s]'s link-local address", cfg->ports[p].section);
		ret = special_route_add(&src->r6, cfg->routes.ipv6, 6, ll, 128,
					local_base(cfg) + LF_LOCAL_DELIVER, what, err, errlen);
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
	if (n >= 0)
		n = tables_add_local_routes(cfg, src, err, errlen);
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

/*
 * Grow the next-hop table past the configured ids: the UPF's entries, the
 * router's own two, the run-time range (all without a port: a kind to hand
 * packets to, or undefined). [nexthop] via entries without a MAC wait for
 * the neighbour code (kind neigh) until it resolves them.
 */
static int
special_nexthops(const struct lf_config *cfg, struct lf_tables *t, int socket)
{
	const uint32_t base = nh_base(cfg), lbase = local_base(cfg);
	const uint32_t n = dyn_base(cfg) + dyn_count(cfg);
	struct lf_nh *nt;
	uint32_t i;

	nt = rte_zmalloc_socket("lf_nexthops", n * sizeof(*nt), RTE_CACHE_LINE_SIZE, socket);
	if (nt == NULL)
		return -ENOMEM;
	memcpy(nt, t->nh_table, t->nh_count * sizeof(*nt));
	for (i = t->nh_count; i < n; i++)
		nt[i].out = LF_NH_INVALID;
	for (i = 0; i < cfg->n_nexthops; i++) {
		const struct lf_nexthop_conf *c = &cfg->nexthops[i];

		if (c->has_via && !c->has_mac) {
			memset(&nt[c->id].dst, 0, sizeof(nt[c->id].dst));
			nt[c->id].out = LF_NH_INVALID;
			nt[c->id].kind = LF_KIND_NEIGH;
		}
	}
	if (cfg->upf.enabled) {
		nt[base].kind = LF_KIND_UPF_UL;
		for (i = 0; i < cfg->upf.n_ni; i++) {
			nt[base + 1 + i].kind = LF_KIND_UPF_DL;
			nt[base + 1 + i].arg = (uint8_t)i;
		}
	}
	for (i = 0; i < LF_LOCAL_COUNT; i++) {
		nt[lbase + i].kind = LF_KIND_LOCAL;
		nt[lbase + i].arg = (uint8_t)i;
	}
	rewrite_free(t->nh_table);
	t->nh_table = nt;
	t->nh_count = n;
	t->dyn_base = dyn_base(cfg);
	t->dyn_count = dyn_count(cfg);
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
	if (macs != NULL && add_link_local_routes(cfg, macs, src, err, errlen) != 0)
		goto fail;
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
	if (special_nexthops(cfg, t, socket) != 0) {
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
