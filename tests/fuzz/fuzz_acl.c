/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness of the ClassBench ACL loaders: acl_load() (IPv4) or,
 * built with FUZZ_ACL6, acl6_load(). A loaded rule must be well formed:
 * prefix lengths within the family's range, host bits cleared, port ranges
 * ordered, the protocol already masked, an action of the enum.
 */
#include <errno.h>
#include <string.h>

#include "acl.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_ACL6
static void
check_prefix6(const uint8_t a[16], unsigned int len)
{
	unsigned int i;

	if (len > 128)
		abort();
	for (i = len; i < 128; i++)
		if (a[i / 8] & (0x80 >> (i % 8)))
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acl6_rule_set s;
	char err[512];
	size_t i;
	long n;

	memset(err, 0x55, sizeof(err));
	n = acl6_load(fuzz_file(data, size), &s, err, sizeof(err));
	if (n < 0) {
		fuzz_check_err(err, sizeof(err));
		if (s.r != NULL || s.n != 0)
			abort();
		return 0;
	}
	for (i = 0; i < s.n; i++) {
		const struct acl6_rule *r = &s.r[i];

		check_prefix6(r->src, r->src_len);
		check_prefix6(r->dst, r->dst_len);
		if (r->sport_lo > r->sport_hi || r->dport_lo > r->dport_hi ||
		    (r->proto & ~r->proto_mask) != 0 || r->action > ACL_PERMIT || r->line == 0)
			abort();
	}
	acl6_rule_set_free(&s);
	return 0;
}
#else
static void
check_prefix4(uint32_t a, unsigned int len)
{
	if (len > 32 || (len < 32 && (a & (UINT32_MAX >> len)) != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acl_rule_set s;
	char err[512];
	size_t i;
	long n;

	memset(err, 0x55, sizeof(err));
	n = acl_load(fuzz_file(data, size), &s, err, sizeof(err));
	if (n < 0) {
		fuzz_check_err(err, sizeof(err));
		if (s.r != NULL || s.n != 0)
			abort();
		return 0;
	}
	for (i = 0; i < s.n; i++) {
		const struct acl_rule *r = &s.r[i];

		check_prefix4(r->src, r->src_len);
		check_prefix4(r->dst, r->dst_len);
		if (r->sport_lo > r->sport_hi || r->dport_lo > r->dport_hi ||
		    (r->proto & ~r->proto_mask) != 0 || r->action > ACL_PERMIT || r->line == 0)
			abort();
	}
	acl_rule_set_free(&s);
	return 0;
}
#endif
