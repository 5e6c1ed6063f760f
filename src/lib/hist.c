/* SPDX-License-Identifier: BSD-3-Clause */
/* Log-linear histogram: bucket bounds, merge and quantiles (control side). */
#include <math.h>
#include <string.h>

#include "hist.h"

uint64_t
lf_hist_lower(unsigned int i)
{
	unsigned int e;

	if (i < LF_HIST_SUB)
		return i;
	e = (i >> LF_HIST_SUB_BITS) + LF_HIST_SUB_BITS - 1;
	return (uint64_t)(LF_HIST_SUB + (i & (LF_HIST_SUB - 1))) << (e - LF_HIST_SUB_BITS);
}

uint64_t
lf_hist_upper(unsigned int i)
{
	unsigned int e;

	if (i < LF_HIST_SUB)
		return i;
	e = (i >> LF_HIST_SUB_BITS) + LF_HIST_SUB_BITS - 1;
	return lf_hist_lower(i) + ((uint64_t)1 << (e - LF_HIST_SUB_BITS)) - 1;
}

void
lf_hist_reset(struct lf_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void
lf_hist_add(struct lf_hist *dst, const struct lf_hist *src)
{
	unsigned int i;

	for (i = 0; i < LF_HIST_BUCKETS; i++)
		dst->count[i] += src->count[i];
	dst->overflow += src->overflow;
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t
lf_hist_quantile(const struct lf_hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int i;

	if (h->total == 0)
		return 0;
	if (q <= 0)
		return h->min;
	rank = (uint64_t)ceil(q * (double)h->total);
	if (rank < 1)
		rank = 1;
	if (rank > h->total)
		rank = h->total;
	for (i = 0; i < LF_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t up = lf_hist_upper(i);

			return up < h->max ? up : h->max;
		}
	}
	/* The rank falls among the overflowed values. */
	return h->max;
}
