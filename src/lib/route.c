/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route file loader. The whole file is parsed and checked before the FIB sees
 * a single route, so a bad file changes nothing.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linefile.h"
#include "route.h"

int
route_parse_line(const char *line, int af, uint32_t max_nh, struct lf_route *out, char *why,
		 size_t whylen)
{
	char prefix[INET6_ADDRSTRLEN + 8];
	const char *p = line, *tok;
	unsigned long depth, nh;
	char *slash, *end;
	size_t n;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 0;

	/* Field 1: prefix/len. */
	tok = p;
	while (*p != '\0' && !isspace((unsigned char)*p))
		p++;
	n = p - tok;
	if (n >= sizeof(prefix))
		return lf_line_error(why, whylen, "prefix too long");
	memcpy(prefix, tok, n);
	prefix[n] = '\0';
	slash = strchr(prefix, '/');
	if (slash == NULL)
		return lf_line_error(why, whylen, "expected PREFIX/LEN NEXTHOP");
	*slash = '\0';
	if (!isdigit((unsigned char)slash[1]))
		return lf_line_error(why, whylen, "prefix length is not a number");
	errno = 0;
	depth = strtoul(slash + 1, &end, 10);
	if (errno != 0 || *end != '\0' || depth > (af == 4 ? 32u : 128u))
		return lf_line_error(why, whylen,
				     af == 4 ? "prefix length must be 0 to 32"
					     : "prefix length must be 0 to 128");
	memset(out, 0, sizeof(*out));
	out->depth = depth;
	if (af == 4) {
		struct in_addr a;
		uint32_t mask;

		if (inet_pton(AF_INET, prefix, &a) != 1)
			return lf_line_error(why, whylen, "not an IPv4 address");
		out->addr4 = ntohl(a.s_addr);
		mask = depth == 0 ? 0 : ~0u << (32 - depth);
		if ((out->addr4 & ~mask) != 0)
			return lf_line_error(why, whylen, "host bits set past the prefix length");
	} else {
		unsigned int i;

		if (inet_pton(AF_INET6, prefix, out->addr6) != 1)
			return lf_line_error(why, whylen, "not an IPv6 address");
		for (i = depth; i < 128; i++)
			if (out->addr6[i / 8] & (0x80 >> (i % 8)))
				return lf_line_error(why, whylen,
						     "host bits set past the prefix length");
	}

	/* Field 2: next-hop id. */
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return lf_line_error(why, whylen, "expected a next-hop id after the prefix");
	errno = 0;
	nh = strtoul(p, &end, 10);
	if (errno != 0 || nh >= max_nh) {
		snprintf(why, whylen, "next-hop id must be 0 to %u", max_nh - 1);
		return -EINVAL;
	}
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '\0' && *p != '#')
		return lf_line_error(why, whylen, "trailing text after the next-hop id");
	out->nh = nh;
	return 1;
}

static int
route_cmp(const void *a, const void *b)
{
	const struct lf_route *x = a, *y = b;
	int c = memcmp(x->addr6, y->addr6, sizeof(x->addr6));

	if (c != 0)
		return c;
	return (int)x->depth - (int)y->depth;
}

static int
line_cmp(const void *a, const void *b)
{
	const struct lf_route *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

struct route_load_ctx {
	struct lf_route_table *t;
	const uint8_t *nh_defined;
	uint32_t max_nh;
};

/* lf_read_lines() callback: one route line into the table. */
static int
route_load_line(void *arg, const char *line, uint32_t lineno, char *why, size_t whylen)
{
	struct route_load_ctx *c = arg;
	struct lf_route_table *t = c->t;
	struct lf_route r;
	int ret;

	ret = route_parse_line(line, t->af, c->max_nh, &r, why, whylen);
	if (ret <= 0)
		return ret;
	if (c->nh_defined != NULL && !c->nh_defined[r.nh]) {
		snprintf(why, whylen, "next hop %u has no [nexthop %u] section", r.nh, r.nh);
		return -EINVAL;
	}
	if (lf_array_reserve((void **)&t->r, &t->cap, t->n, sizeof(*t->r)) != 0) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	r.line = lineno;
	t->r[t->n++] = r;
	return 0;
}

long
route_load(const char *path, int af, const uint8_t *nh_defined, uint32_t max_nh,
	   struct lf_route_table *t, char *err, size_t errlen)
{
	struct route_load_ctx c = { .t = t, .nh_defined = nh_defined, .max_nh = max_nh };
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->af = af;
	ret = lf_read_lines(path, route_load_line, &c, err, errlen);
	if (ret < 0) {
		route_table_free(t);
		return ret;
	}

	/* qsort() of a NULL array is undefined even for no elements. */
	if (t->n < 2)
		return (long)t->n;
	/* The same prefix twice is a conflict, not a silent overwrite. */
	qsort(t->r, t->n, sizeof(*t->r), route_cmp);
	for (i = 1; i < t->n; i++) {
		if (route_cmp(&t->r[i - 1], &t->r[i]) == 0) {
			uint32_t a = t->r[i - 1].line, b = t->r[i].line;

			snprintf(err, errlen, "%s:%u: prefix already given at line %u", path,
				 a > b ? a : b, a > b ? b : a);
			route_table_free(t);
			return -EINVAL;
		}
	}
	/* Install in file order, as an operator reads the file. */
	qsort(t->r, t->n, sizeof(*t->r), line_cmp);
	return (long)t->n;
}

void
route_table_free(struct lf_route_table *t)
{
	free(t->r);
	t->r = NULL;
	t->n = t->cap = 0;
}
