/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: the NDR binary search as a state machine (no I/O). */
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
	bool pass = gen_loss_ok(tx, rx, s->loss_ratio);
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
