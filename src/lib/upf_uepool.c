/* SPDX-License-Identifier: BSD-3-Clause */
/* UE address pools the UP allocates from (upf_uepool.h). */
#include <errno.h>
#include <string.h>

#include "upf_uepool.h"

void
upf_uepool_init(struct upf_uepool *p, uint8_t af)
{
	memset(p, 0, sizeof(*p));
	p->af = af;
	p->blen = af == 4 ? 32 : 64;
}

int
upf_uepool_init6(struct upf_uepool *p, uint8_t len)
{
	if (len < 48 || len > 64)
		return -EINVAL;
	upf_uepool_init(p, 6);
	p->blen = len;
	return 0;
}

/* Bits of a candidate's number below its prefix: 0 for IPv4, 64 - blen for IPv6. */
static unsigned int
cand_shift(const struct upf_uepool *p)
{
	return p->af == 4 ? 0 : 64u - p->blen;
}

/* The first 4 (IPv4) or 8 (IPv6) bytes of a, big-endian, as a number. */
static uint64_t
be_prefix(const uint8_t *a, unsigned int len)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v = v << 8 | a[i];
	return v;
}

int
upf_uepool_add(struct upf_uepool *p, uint8_t af, const uint8_t *a, uint8_t plen)
{
	typeof(p->r[0]) *r;

	if (af != p->af || p->n_range == UPF_UEPOOL_MAX_RANGES)
		return -EINVAL;
	if (af == 4 ? plen < 8 || plen > 32 : af != 6 || plen < 32 || plen > p->blen)
		return -EINVAL;
	r = &p->r[p->n_range++];
	memcpy(r->a, a, 16);
	r->plen = plen;
	if (af == 4) {
		r->n = UINT64_C(1) << (32 - plen);
		r->first = 0;
		/* A /30 or shorter: its first and last addresses are the
		 * network's and the broadcast, which no UE may have. */
		if (plen <= 30) {
			r->n -= 2;
			r->first = 1;
		}
	} else {
		r->n = UINT64_C(1) << (p->blen - plen);
		r->first = 0;
	}
	p->total += r->n;
	return 0;
}

void
upf_uepool_addr(const struct upf_uepool *p, uint64_t i, uint8_t out[16])
{
	const unsigned int len = p->af == 4 ? 4 : 8;
	unsigned int k, b;
	uint64_t v;

	memset(out, 0, 16);
	for (k = 0; k < p->n_range && i >= p->r[k].n; k++)
		i -= p->r[k].n;
	if (k == p->n_range)
		return;
	v = be_prefix(p->r[k].a, len) + ((p->r[k].first + i) << cand_shift(p));
	for (b = 0; b < len; b++)
		out[b] = (uint8_t)(v >> (8 * (len - 1 - b)));
}

bool
upf_uepool_contains(const struct upf_uepool *p, const uint8_t addr[16])
{
	const unsigned int len = p->af == 4 ? 4 : 8;
	const uint64_t v = be_prefix(addr, len);
	unsigned int k;

	for (k = 0; k < p->n_range; k++) {
		const uint64_t base = be_prefix(p->r[k].a, len);
		const uint64_t off = (v - base) >> cand_shift(p);

		if (v >= base && off >= p->r[k].first && off - p->r[k].first < p->r[k].n)
			return true;
	}
	return false;
}

int
upf_uepool_alloc(struct upf_uepool *p, upf_uepool_taken_fn taken, void *ctx, uint64_t limit,
		 uint8_t out[16])
{
	uint64_t tried;

	if (p->total == 0)
		return -ENOSPC;
	if (limit == 0 || limit > p->total)
		limit = p->total;
	for (tried = 0; tried < limit; tried++) {
		const uint64_t i = p->cursor;

		p->cursor = i + 1 == p->total ? 0 : i + 1;
		upf_uepool_addr(p, i, out);
		if (!taken(ctx, out))
			return 0;
	}
	memset(out, 0, 16);
	return -ENOSPC;
}
