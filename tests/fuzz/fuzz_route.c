/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the route file loader (route_load()). The first byte
 * picks the family and whether next hops must be defined; the rest is the
 * file. A loaded table must hold only valid routes: depth within the
 * family's range, next hops below max_nh, no host bits past the depth.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_common.h"
#include "route.h"

#define MAX_NH 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lf_route_table t;
	uint8_t defined[MAX_NH];
	char err[512];
	unsigned int i;
	int af;
	long n;

	if (size < 1)
		return 0;
	af = data[0] & 1 ? 6 : 4;
	/* Bit 1: next hops must be defined, the even ones are. */
	for (i = 0; i < MAX_NH; i++)
		defined[i] = (i & 1) == 0;
	memset(err, 0x55, sizeof(err));
	n = route_load(fuzz_file(data + 1, size - 1), af, data[0] & 2 ? defined : NULL, MAX_NH, &t,
		       err, sizeof(err));
	if (n < 0) {
		fuzz_check_err(err, sizeof(err));
		if (t.r != NULL || t.n != 0)
			abort();
		return 0;
	}
	if ((size_t)n != t.n)
		abort();
	for (i = 0; i < t.n; i++) {
		const struct lf_route *r = &t.r[i];

		if (r->nh >= MAX_NH || r->depth > (af == 4 ? 32 : 128) || r->line == 0)
			abort();
		if ((data[0] & 2) && !defined[r->nh])
			abort();
		if (af == 4 && r->depth < 32 && (r->addr4 & (UINT32_MAX >> r->depth)) != 0)
			abort();
		if (i > 0 && r->line <= t.r[i - 1].line)
			abort();
	}
	route_table_free(&t);
	return 0;
}
