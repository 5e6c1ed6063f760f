/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Hardware RX timestamps in the TSC time base, for the residence histograms
 * ([pipeline] latency_clock = hw).
 *
 * A port with the RX timestamp offload (E810: RTE_ETH_RX_OFFLOAD_TIMESTAMP)
 * stamps each packet with its own clock when it arrives, before the packet
 * waits in the RX ring. The control thread samples the pair (device clock
 * via rte_eth_read_clock, TSC) every 100 ms and publishes, per port, a
 * linear map from device ticks to TSC cycles; a worker converts the stamp of
 * the first packet of a burst (the oldest one: the ring is FIFO) with it and
 * uses that as the burst's RX time, so residence includes the ring wait.
 *
 * Publication is a sequence lock with one writer: the writer makes seq odd,
 * stores the map, makes it even (plain stores, release order); a reader
 * retries while seq is odd or changed. No read-modify-write on either side.
 */
#ifndef LF_HWCLOCK_H
#define LF_HWCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_atomic.h>
#include <rte_common.h>

/** Device ticks -> TSC cycles: tsc = tsc0 + (dev - dev0) * mult / 2^32. */
struct lf_hwclock {
	uint32_t seq; /**< control: writes (odd while writing); workers: read. */
	uint64_t dev0;
	uint64_t tsc0;
	uint64_t mult; /**< TSC cycles per device tick, 32.32 fixed point. */
} __rte_cache_aligned;

/** Convert with a map already read. Exact to one TSC cycle for |dev - dev0| < 2^63. */
static inline uint64_t
lf_hwclock_map(uint64_t dev0, uint64_t tsc0, uint64_t mult, uint64_t dev)
{
	const __int128 delta = (__int128)(int64_t)(dev - dev0) * (__int128)mult;

	return tsc0 + (uint64_t)(int64_t)(delta >> 32);
}

/** Worker side: read the published map whole (retries while it changes). */
static inline void
lf_hwclock_read(const struct lf_hwclock *c, uint64_t *dev0, uint64_t *tsc0, uint64_t *mult)
{
	uint32_t s;

	do {
		s = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		*dev0 = c->dev0;
		*tsc0 = c->tsc0;
		*mult = c->mult;
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s & 1) != 0 || s != __atomic_load_n(&c->seq, __ATOMIC_RELAXED));
}

/** Worker side: device timestamp -> TSC, through the published map. */
static inline uint64_t
lf_hwclock_to_tsc(const struct lf_hwclock *c, uint64_t dev)
{
	uint64_t dev0, tsc0, mult;

	lf_hwclock_read(c, &dev0, &tsc0, &mult);
	return lf_hwclock_map(dev0, tsc0, mult, dev);
}

/** Control side: publish a new map (single writer). */
void lf_hwclock_publish(struct lf_hwclock *c, uint64_t dev0, uint64_t tsc0, uint64_t mult);

/**
 * 32.32 ratio of two intervals: TSC cycles per device tick; 0 if dev_span
 * is 0.
 */
uint64_t lf_hwclock_ratio(uint64_t tsc_span, uint64_t dev_span);

#endif /* LF_HWCLOCK_H */
