/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: the NDR binary search as a state machine (no I/O). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

bool
gen_loss_ok(uint64_t tx, uint64_t rx, double loss_ratio)
{
	uint64_t lost = tx > rx ? tx - rx : 0;

	if (tx == 0)
		return false; /* A trial that sent nothing proves nothing. */
	return (double)lost <= loss_ratio * (double)tx;
}

bool
gen_trial_ok(uint64_t tx, uint64_t rx, uint64_t refused, double loss_ratio)
{
	return gen_loss_ok(tx, rx, loss_ratio) && (double)refused <= loss_ratio * (double)tx;
}

void
gen_search_init(struct gen_search *s, uint64_t min_pps, uint64_t max_pps, double loss_ratio,
		uint64_t precision, unsigned int max_trials)
{
	memset(s, 0, sizeof(*s));
	s->lo = min_pps;
	s->hi = max_pps;
	s->loss_ratio = loss_ratio;
	s->precision = precision != 0 ? precision : 1;
	s->max_trials = max_trials;
}

uint64_t
gen_search_next(struct gen_search *s)
{
	if (s->done)
		return 0;
	if (s->trials >= s->max_trials || s->hi <= s->lo) {
		s->done = true;
		return 0;
	}
	if (!s->hi_tested) {
		s->rate = s->hi;
		return s->rate;
	}
	if (s->hi - s->lo <= s->precision) {
		s->done = true;
		return 0;
	}
	s->rate = s->lo + (s->hi - s->lo) / 2;
	return s->rate;
}

bool
gen_search_result(struct gen_search *s, uint64_t tx, uint64_t rx, uint64_t offered_pps)
{
	return gen_search_result_bp(s, tx, rx, 0, offered_pps);
}

bool
gen_search_result_bp(struct gen_search *s, uint64_t tx, uint64_t rx, uint64_t refused,
		     uint64_t offered_pps)
{
	bool pass = gen_trial_ok(tx, rx, refused, s->loss_ratio);
	uint64_t rate = s->rate;

	/* A generator that fell short of the rate offered only what it did. */
	if (offered_pps != 0 && offered_pps < rate)
		rate = offered_pps;
	s->trials++;
	if (pass) {
		if (rate > s->lo)
			s->lo = rate;
		if (!s->hi_tested)
			s->done = true; /* The upper bound itself passed. */
	} else if (rate < s->hi) {
		s->hi = rate;
	}
	s->hi_tested = true;
	return pass;
}

int
gen_trial_line(const char *line, uint64_t *pps, double *duration_s)
{
	const char *p = line;
	char *end;
	double rate, d;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 1;
	if (strncmp(p, "max", 3) == 0 && isspace((unsigned char)p[3])) {
		rate = 0;
		end = (char *)(uintptr_t)(p + 3);
	} else {
		errno = 0;
		rate = strtod(p, &end);
		if (errno != 0 || end == p || !isfinite(rate) || rate < 0 || rate > 1e12)
			return -1;
	}
	if (!isspace((unsigned char)*end))
		return -1;
	p = end;
	errno = 0;
	d = strtod(p, &end);
	if (errno != 0 || end == p || !isfinite(d) || d <= 0 || d > GEN_TRIAL_MAX_S)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return -1;
	*pps = (uint64_t)llround(rate);
	*duration_s = d;
	return 0;
}
