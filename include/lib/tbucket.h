/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A token bucket in TSC time, for one owner (a worker): the generic cell
 * rate algorithm. A token falls due every `period` cycles and up to `depth`
 * of them may be taken at once; no division, no floating point, two loads
 * and a store per taken token. Used to rate-limit what the workers send to
 * slower paths (ICMP, the kernel exception path, the neighbour code).
 */
#ifndef LF_TBUCKET_H
#define LF_TBUCKET_H

#include <stdbool.h>
#include <stdint.h>

/**
 * Whether a deadline, set at most `period` cycles ahead of an earlier TSC
 * reading, has come at TSC time now. The TSC of one CPU is meant never to go
 * back, but a guest's can: a hypervisor that moves a vCPU, or restores or
 * migrates the VM, may step it back by minutes (a CI virtual machine's
 * worker saw some 1,000 s). A plain now >= due would then hold the deadline
 * off for as long as the step; a deadline further ahead than any the owner
 * sets is one from before such a step, and is due now.
 */
static inline bool
lf_tsc_due(uint64_t now, uint64_t due, uint64_t period)
{
	return now >= due || due - now > period;
}

struct lf_tbucket {
	uint64_t tat; /**< Theoretical arrival time of the next token (TSC). */
	uint64_t period; /**< Cycles per token; 0: the bucket never gives one. */
	uint64_t slack; /**< (depth - 1) * period: how far ahead tat may run. */
};

/**
 * Set the bucket to rate tokens per second (0: none) and depth tokens at
 * most at once (>= 1), full.
 */
static inline void
lf_tbucket_init(struct lf_tbucket *tb, uint64_t hz, uint32_t rate, uint32_t depth)
{
	tb->period = rate == 0 ? 0 : (hz + rate - 1) / rate;
	if (tb->period == 0 && rate != 0)
		tb->period = 1;
	tb->slack = depth > 1 ? (uint64_t)(depth - 1) * tb->period : 0;
	tb->tat = 0;
}

/** Take one token at TSC time now: true if there was one. */
static inline bool
lf_tbucket_take(struct lf_tbucket *tb, uint64_t now)
{
	uint64_t tat = tb->tat;

	if (tb->period == 0)
		return false;
	if (tat < now)
		tat = now;
	if (tat - now > tb->slack) {
		/* tat runs at most slack + period ahead of a clock that goes
		 * forward (lf_tsc_due): further, the clock stepped back, and
		 * the bucket would give nothing until it caught up. */
		if (tat - now <= tb->slack + tb->period)
			return false;
		tat = now;
	}
	tb->tat = tat + tb->period;
	return true;
}

#endif /* LF_TBUCKET_H */
