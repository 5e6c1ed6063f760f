/* SPDX-License-Identifier: BSD-3-Clause */
/* Hardware RX timestamps: the control side of the device-clock -> TSC map. */
#include "hwclock.h"

void
lf_hwclock_publish(struct lf_hwclock *c, uint64_t dev0, uint64_t tsc0, uint64_t mult)
{
	const uint32_t s = c->seq;

	/* Single writer: plain stores of seq, ordered around the payload. */
	__atomic_store_n(&c->seq, s + 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	c->dev0 = dev0;
	c->tsc0 = tsc0;
	c->mult = mult;
	__atomic_store_n(&c->seq, s + 2, __ATOMIC_RELEASE);
}

uint64_t
lf_hwclock_ratio(uint64_t tsc_span, uint64_t dev_span)
{
	if (dev_span == 0)
		return 0;
	return (uint64_t)(((unsigned __int128)tsc_span << 32) / dev_span);
}
