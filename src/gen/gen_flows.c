/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: flow ids to 5-tuples, flow selection and the Zipf sampler. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

const char *const gen_dist_names[GEN_DIST_COUNT] = {
	[GEN_DIST_UNIFORM] = "uniform",
	[GEN_DIST_ZIPF] = "zipf",
	[GEN_DIST_SEQ] = "seq",
};

int
gen_flows_init(struct gen_flows *fl, uint32_t n_flows, uint32_t n_dst, uint32_t n_src,
	       uint16_t sport_base, char *err, size_t errlen)
{
	uint64_t per_dst, room;

	if (n_flows == 0 || n_flows > GEN_MAX_FLOWS) {
		snprintf(err, errlen, "--flows %u: allowed 1-%u", n_flows, GEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (n_dst == 0 || n_dst > n_flows) {
		snprintf(err, errlen, "--dst-ips %u: allowed 1-%u (the number of flows)", n_dst,
			 n_flows);
		return -EINVAL;
	}
	per_dst = ((uint64_t)n_flows + n_dst - 1) / n_dst;
	if (n_src == 0)
		n_src = (uint32_t)RTE_MIN(per_dst, (uint64_t)65536);
	room = (uint64_t)n_src * (65536 - (uint64_t)sport_base);
	if (sport_base == 0 || per_dst > room) {
		snprintf(err, errlen,
			 "--flows %u with --dst-ips %u, --src-ips %u and --sport %u: %" PRIu64
			 " flows per destination do not fit in %u source addresses times source "
			 "ports %u-65535",
			 n_flows, n_dst, n_src, sport_base, per_dst, n_src, sport_base);
		return -EINVAL;
	}
	fl->n_flows = n_flows;
	fl->n_dst = n_dst;
	fl->n_src = n_src;
	fl->sport_base = sport_base;
	return 0;
}

/* log1p(t)/t, continuous at 0. */
static double
helper1(double t)
{
	return fabs(t) > 1e-8 ? log1p(t) / t : 1 - t * (0.5 - t * (1.0 / 3 - 0.25 * t));
}

/* expm1(t)/t, continuous at 0. */
static double
helper2(double t)
{
	return fabs(t) > 1e-8 ? expm1(t) / t : 1 + t * 0.5 * (1 + t / 3 * (1 + 0.25 * t));
}

/* h(x) = x^-s, the density the ranks follow. */
static double
zipf_h(const struct gen_zipf *z, double x)
{
	return exp(-z->s * log(x));
}

/* H(x), an antiderivative of h: (x^(1-s) - 1) / (1 - s), log(x) for s = 1. */
static double
zipf_hint(const struct gen_zipf *z, double x)
{
	double lx = log(x);

	return helper2((1 - z->s) * lx) * lx;
}

/* The inverse of H. */
static double
zipf_hint_inv(const struct gen_zipf *z, double y)
{
	double t = y * (1 - z->s);

	if (t < -1)
		t = -1; /* Rounding; H^-1 is only taken within H's range. */
	return exp(helper1(t) * y);
}

void
gen_zipf_init(struct gen_zipf *z, uint32_t n, double s)
{
	z->s = s;
	z->n = n;
	z->h_x1 = zipf_hint(z, 1.5) - 1;
	z->h_n = zipf_hint(z, n + 0.5);
	z->shortcut = 2 - zipf_hint_inv(z, zipf_hint(z, 2.5) - zipf_h(z, 2));
}

uint32_t
gen_zipf_sample(const struct gen_zipf *z, uint64_t *rng)
{
	for (;;) {
		double u = z->h_n + gen_rand_unit(rng) * (z->h_x1 - z->h_n);
		double x = zipf_hint_inv(z, u);
		double k = floor(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > z->n)
			k = z->n;
		/* Accept at once near the mode, else compare with the hat. */
		if (k - x <= z->shortcut || u >= zipf_hint(z, k + 0.5) - zipf_h(z, k))
			return (uint32_t)k;
	}
}

void
gen_select_init(struct gen_select *sel, enum gen_dist dist, uint32_t n, double s, uint64_t seed)
{
	memset(sel, 0, sizeof(*sel));
	sel->dist = dist;
	sel->n = n;
	sel->rng = seed != 0 ? seed : 0x9e3779b97f4a7c15ull;
	if (dist == GEN_DIST_ZIPF)
		gen_zipf_init(&sel->zipf, n, s);
}
