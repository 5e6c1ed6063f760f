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
