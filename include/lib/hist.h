/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Log-linear (HDR-style) histogram of TSC-cycle values: 64 linear
 * sub-buckets per power of two, so a bucket is at most 1/64 (1.6%) of its
 * values wide, from 1 cycle up to 2^42 cycles (about 28 minutes at 2.6 GHz);
 * larger values land in an overflow count. Recording is O(1): one
 * count-leading-zeros, two shifts and an add. Single writer; no atomics.
 */
#ifndef LF_HIST_H
#define LF_HIST_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#define LF_HIST_SUB_BITS 6 /**< log2 of the sub-buckets per power of two. */
#define LF_HIST_MAX_BITS 42 /**< Values below 2^42 are bucketed. */
#define LF_HIST_SUB (1u << LF_HIST_SUB_BITS)
/** Number of buckets. */
#define LF_HIST_BUCKETS ((LF_HIST_MAX_BITS - LF_HIST_SUB_BITS + 1) << LF_HIST_SUB_BITS)

struct lf_hist {
	uint64_t total; /**< Values recorded, overflow included. */
	uint64_t overflow; /**< Values >= 2^LF_HIST_MAX_BITS. */
	uint64_t min; /**< Smallest value; UINT64_MAX when empty. */
	uint64_t max; /**< Largest value; 0 when empty. */
	uint64_t count[LF_HIST_BUCKETS];
};

/** Bucket of value v, or LF_HIST_BUCKETS for an overflow. */
static inline unsigned int
lf_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < LF_HIST_SUB)
		return v;
	e = 63 - __builtin_clzll(v); /* v in [2^e, 2^(e+1)) */
	if (unlikely(e >= LF_HIST_MAX_BITS))
		return LF_HIST_BUCKETS;
	return ((e - LF_HIST_SUB_BITS + 1) << LF_HIST_SUB_BITS) +
		((v >> (e - LF_HIST_SUB_BITS)) & (LF_HIST_SUB - 1));
}

/** Smallest value of bucket i. */
uint64_t lf_hist_lower(unsigned int i);
/** Largest value of bucket i. */
uint64_t lf_hist_upper(unsigned int i);

/** Empty the histogram. */
void lf_hist_reset(struct lf_hist *h);

/** Record n values equal to v. */
static inline void
lf_hist_record_n(struct lf_hist *h, uint64_t v, uint64_t n)
{
	unsigned int i = lf_hist_index(v);

	if (likely(i < LF_HIST_BUCKETS))
		h->count[i] += n;
	else
		h->overflow += n;
	h->total += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/** dst += src. */
void lf_hist_add(struct lf_hist *dst, const struct lf_hist *src);

/**
 * Value at quantile q (0 < q <= 1): the upper end of the bucket holding the
 * ceil(q * total)-th smallest value, never above max (0 when empty). The
 * true value is at most 1/64 below it.
 */
uint64_t lf_hist_quantile(const struct lf_hist *h, double q);

#endif /* LF_HIST_H */
