/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: TSC pacing set-up (gen_pace_due, per burst, is inline). */
#include <string.h>

#include "gen.h"

void
gen_pace_init(struct gen_pace *p, uint64_t hz, uint64_t pps, uint64_t on_us, uint64_t off_us,
	      uint64_t start)
{
	memset(p, 0, sizeof(*p));
	p->hz = hz;
	p->pps = pps;
	if (pps != 0) {
		p->q = hz / pps;
		p->r = hz % pps;
	}
	p->next = start;
	p->phase = start;
	if (on_us != 0 && off_us != 0) {
		/* Rounded to whole cycles once: us * hz / 1e6 without overflow
		 * for any run shorter than centuries. */
		p->on = (uint64_t)((unsigned __int128)on_us * hz / 1000000);
		p->period = p->on + (uint64_t)((unsigned __int128)off_us * hz / 1000000);
	}
}
