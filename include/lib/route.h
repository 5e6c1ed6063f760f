/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Route files: one "prefix/len nexthop" per line, as dpdk-test-fib reads them.
 * Blank lines and '#' comments are allowed. Files are parsed and checked
 * completely before anything is installed.
 */
#ifndef LF_ROUTE_H
#define LF_ROUTE_H

#include <stddef.h>
#include <stdint.h>

/** One route. IPv4 addresses are in host byte order in addr4. */
struct lf_route {
	union {
		uint32_t addr4;
		uint8_t addr6[16];
	};
	uint8_t depth;
	uint32_t nh;
	uint32_t line;
};

struct lf_route_table {
	int af; /**< 4 or 6. */
	size_t n;
	size_t cap;
	struct lf_route *r;
};

/**
 * Parse one line.
 * @return 1 for a route, 0 for a blank or comment line, -EINVAL with a
 *         reason in why.
 */
int route_parse_line(const char *line, int af, uint32_t max_nh, struct lf_route *out, char *why,
		     size_t whylen);

/**
 * Load a whole file. Rejects malformed lines, host bits set past the prefix
 * length, next hops not marked in nh_defined (when it is not NULL), and the
 * same prefix given twice.
 * @return number of routes, or -errno with "file:line: ..." in err.
 */
long route_load(const char *path, int af, const uint8_t *nh_defined, uint32_t max_nh,
		struct lf_route_table *t, char *err, size_t errlen);

void route_table_free(struct lf_route_table *t);

#endif /* LF_ROUTE_H */
