/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: frame sizes, IMIX, and the evenly spread size cycle. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Simple IMIX: 7 x 64, 4 x 570, 1 x 1518 bytes (FCS included). */
#define GEN_IMIX "64:7,570:4,1518:1"

/*
 * Smooth weighted round robin: every step each size gains its weight, the
 * one with the most credit is picked and pays the total. Over one cycle of
 * sum(weights) steps each size is picked exactly weight times, spread out.
 */
static void
build_cycle(struct gen_sizes *sz)
{
	int32_t credit[GEN_SIZES_MAX] = { 0 };
	int32_t total = 0;
	unsigned int i, k;

	for (i = 0; i < sz->n; i++)
		total += sz->weight[i];
	sz->cycle_len = (uint16_t)total;
	for (k = 0; k < (unsigned int)total; k++) {
		unsigned int best = 0;

		for (i = 0; i < sz->n; i++) {
			credit[i] += sz->weight[i];
			if (credit[i] > credit[best])
				best = i;
		}
		credit[best] -= total;
		sz->cycle[k] = sz->size[best];
	}
	sz->pos = 0;
}

int
gen_sizes_parse(struct gen_sizes *sz, const char *spec, uint16_t min, bool *raised, char *err,
		size_t errlen)
{
	const char *p;
	unsigned long total = 0;

	memset(sz, 0, sizeof(*sz));
	*raised = false;
	if (strcmp(spec, "imix") == 0)
		spec = GEN_IMIX;
	p = spec;
	while (*p != '\0') {
		unsigned long size, weight = 1;
		char *end;

		if (sz->n == GEN_SIZES_MAX) {
			snprintf(err, errlen, "--size %s: more than %u sizes", spec, GEN_SIZES_MAX);
			return -EINVAL;
		}
		size = strtoul(p, &end, 10);
		if (end == p || size < GEN_FRAME_MIN || size > GEN_FRAME_MAX) {
			snprintf(err, errlen,
				 "--size %s: bad size at '%s': allowed %u-%u (frame bytes with FCS)",
				 spec, p, GEN_FRAME_MIN, GEN_FRAME_MAX);
			return -EINVAL;
		}
		p = end;
		if (*p == ':') {
			weight = strtoul(p + 1, &end, 10);
			if (end == p + 1 || weight == 0 || weight > GEN_SIZE_CYCLE_MAX) {
				snprintf(err, errlen, "--size %s: bad weight at '%s': allowed 1-%u",
					 spec, p + 1, GEN_SIZE_CYCLE_MAX);
				return -EINVAL;
			}
			p = end;
		}
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p != '\0') {
			snprintf(err, errlen,
				 "--size %s: unexpected '%s': expected SIZE, 'imix' or "
				 "SIZE:WEIGHT,SIZE:WEIGHT,...",
				 spec, p);
			return -EINVAL;
		}
		total += weight;
		if (total > GEN_SIZE_CYCLE_MAX) {
			snprintf(err, errlen, "--size %s: weights add up to more than %u", spec,
				 GEN_SIZE_CYCLE_MAX);
			return -EINVAL;
		}
		if (size < min) {
			size = min;
			*raised = true;
		}
		sz->size[sz->n] = (uint16_t)size;
		sz->weight[sz->n] = (uint16_t)weight;
		sz->n++;
	}
	if (sz->n == 0) {
		snprintf(err, errlen, "--size: empty");
		return -EINVAL;
	}
	build_cycle(sz);
	return 0;
}

double
gen_sizes_mean(const struct gen_sizes *sz)
{
	double sum = 0, w = 0;
	unsigned int i;

	for (i = 0; i < sz->n; i++) {
		sum += (double)sz->size[i] * sz->weight[i];
		w += sz->weight[i];
	}
	return w != 0 ? sum / w : 0;
}
