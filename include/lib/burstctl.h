/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Adaptive RX burst ([pipeline] burst = auto): chooses each poll's burst
 * between burst_min and burst_max so that the configured percentile of the
 * residence (RX -> TX, as the worker records it) stays under a target, and
 * takes a larger burst's throughput while a backlog lasts. A pure library:
 * no DPDK calls, time in the caller's ticks, so a unit test drives it with a
 * simulated queue.
 *
 * Why it is built this way:
 *  - The burst only matters when it binds: a poll that returns fewer
 *    packets than asked would have returned the same with any larger
 *    burst. A poll that fills the burst is the backlog signal (the ring
 *    held at least that many), and growing then buys amortisation: the
 *    fixed cost of a poll, an iteration and a TX burst spread over more
 *    packets. A large burst costs latency through head-of-line blocking
 *    (the first packet leaves with the last), the TX buffer that fills to
 *    the burst, and a larger working set; all of it shows in the residence.
 *  - The target is a tail percentile, so it is judged over a window of
 *    packets long enough to hold about LF_BURSTCTL_TAIL_MISSES packets
 *    beyond it: 100,000 packets for p99.99. The window counts packets over
 *    the target against the allowance (1 - percentile/100) of the window:
 *    a compare per run of packets that share an RX time (the TX layer's
 *    residence runs), never per packet.
 *  - Shrink fast, grow slowly (AIMD): misses past the whole window's
 *    allowance halve the burst at once, without waiting for the window's
 *    end, since the tail is already lost for this window. Growth is
 *    additive, one step (1/32 of the range, but at most doubling: a slow
 *    start from small bursts) per epoch of LF_BURSTCTL_EPOCH loop
 *    iterations, and only while at least half of the epoch's polls came
 *    back full and the window has headroom: its packets over
 *    target * cur / (cur + step) (a residence the grown burst could scale
 *    past the target, as an iteration's time grows at most in proportion
 *    to its burst) are still within the allowance. Epochs are short so that
 *    a backlog pulls the burst up within a few hundred microseconds, before
 *    the ring overflows; the headroom test bounds how far it goes.
 *  - Hysteresis: after a shrink for misses, growth waits until a whole
 *    window at the smaller burst has held the target, so the burst does
 *    not saw back up at epoch pace; between "grow" (half the polls full)
 *    and "decay" (no poll of a whole window reached half the burst) the
 *    burst holds.
 *  - Decay: a window in which no poll returned more than half the burst
 *    halves it (not below burst_min), so the burst returns to small sizes
 *    when the load drops; the smaller burst would have returned every poll
 *    of that window whole. A window also ends after LF_BURSTCTL_WINDOW_MS
 *    so that an idle worker decays too.
 *  - Cost: per poll that returned packets three counter updates
 *    (lf_burstctl_poll), per residence run an add and a compare
 *    (lf_burstctl_left), per loop iteration a counter and a compare
 *    (lf_burstctl_iter); every division and the statistics happen at
 *    epoch and window ends, out of line.
 *
 * Single writer (the worker); telemetry reads cur and st with relaxed
 * loads (lf_burstctl_read).
 */
#ifndef LF_BURSTCTL_H
#define LF_BURSTCTL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

/** Loop iterations between growth decisions (a power of two). */
#define LF_BURSTCTL_EPOCH 16
/** Packets over the target a window's allowance holds (its length). */
#define LF_BURSTCTL_TAIL_MISSES 10
/** Window length bounds, in packets. */
#define LF_BURSTCTL_WINDOW_MIN 4096
#define LF_BURSTCTL_WINDOW_MAX (1u << 26)
/** A window also ends after this long (an idle worker decays). */
#define LF_BURSTCTL_WINDOW_MS 100
/** Growth step: this fraction of (burst_max - burst_min), at least 1. */
#define LF_BURSTCTL_STEPS 32
/** Burst size buckets of the time-at-size statistics: 1, 2-3, ..., 128-255, 256. */
#define LF_BURSTCTL_BUCKETS 9

/** What the controller is given at start. */
struct lf_burstctl_params {
	uint16_t burst_min; /**< 1 <= burst_min <= burst_max. */
	uint16_t burst_max; /**< At most 256. */
	uint32_t target_us; /**< Residence target, > 0. */
	double percentile; /**< Percentile held under the target, in (0, 100). */
	uint64_t hz; /**< Ticks per second of the times given (TSC hz). */
};

/** Decisions and counts since start. worker: writes; control: reads. */
struct lf_burstctl_stats {
	uint64_t windows; /**< Windows judged. */
	uint64_t windows_missed; /**< Windows whose misses passed the allowance. */
	uint64_t grown; /**< Steps up (a backlog, with headroom). */
	uint64_t shrunk; /**< Halvings for misses. */
	uint64_t decayed; /**< Halvings of a burst no poll came near. */
	uint64_t packets; /**< Packets whose residence was judged. */
	uint64_t misses; /**< Of them, over the target. */
	uint64_t busy_polls; /**< Polls that returned packets. */
	uint64_t full_polls; /**< Of them, a full burst (backlog). */
	uint64_t ticks_at[LF_BURSTCTL_BUCKETS]; /**< Time at each burst size bucket. */
};

/** Controller state: one per worker. */
struct lf_burstctl {
	/* Per poll and per iteration. */
	uint16_t cur; /**< The burst to ask for (telemetry reads it). */
	uint16_t nmax; /**< Largest poll of the window. */
	uint32_t iters; /**< Iterations of this epoch. */
	uint32_t busy; /**< Polls with packets, this epoch. */
	uint32_t full; /**< Of them full, this epoch. */
	uint64_t pkts; /**< Packets judged, this window. */
	uint64_t near; /**< Of them over near_tsc, this window. */
	uint64_t miss; /**< Of them over target_tsc, this window. */
	uint64_t near_tsc; /**< target * cur / (cur + step): the headroom line. */
	uint64_t target_tsc;
	uint64_t allow; /**< Misses a whole window allows. */
	/* At epoch and window ends. */
	uint16_t min, max, step;
	bool hold; /**< No growth until a window at this burst held the target. */
	bool restart; /**< A window ended early: the next epoch starts one. */
	uint64_t window; /**< Window length, packets. */
	uint64_t miss_ppb; /**< Allowed miss ratio, parts per 10^9. */
	uint64_t window_tsc; /**< Longest window, ticks. */
	uint64_t win_start, epoch_start;
	struct lf_burstctl_stats st;
};

/**
 * Set up c from p, starting at burst_min. now: the current time in ticks.
 * @return 0, or -EINVAL for parameters out of range (c untouched).
 */
int lf_burstctl_init(struct lf_burstctl *c, const struct lf_burstctl_params *p, uint64_t now);

/** Out of line: a residence over near_tsc (counts it, may shrink at once). */
void lf_burstctl_over(struct lf_burstctl *c, uint64_t res, uint32_t n);

/** Out of line: an epoch's end (growth, statistics, window end). */
void lf_burstctl_epoch(struct lf_burstctl *c, uint64_t now);

/** A poll asked for c->cur packets and got n > 0. */
static inline void
lf_burstctl_poll(struct lf_burstctl *c, uint16_t n)
{
	c->busy++;
	c->full += n >= c->cur;
	c->nmax = n > c->nmax ? n : c->nmax;
}

/** n packets left (were sent) with residence res ticks. */
static inline void
lf_burstctl_left(struct lf_burstctl *c, uint64_t res, uint32_t n)
{
	c->pkts += n;
	if (unlikely(res > c->near_tsc))
		lf_burstctl_over(c, res, n);
}

/** End of a loop iteration at now: the burst for the next polls. */
static inline uint16_t
lf_burstctl_iter(struct lf_burstctl *c, uint64_t now)
{
	if (unlikely(++c->iters == LF_BURSTCTL_EPOCH))
		lf_burstctl_epoch(c, now);
	return c->cur;
}

/** Bucket of the time-at-size statistics of burst b (1..256). */
static inline unsigned int
lf_burstctl_bucket(unsigned int b)
{
	return 31 - __builtin_clz(b);
}

/** Reader side: the current burst and, st not NULL, a snapshot of the statistics. */
uint16_t lf_burstctl_read(const struct lf_burstctl *c, struct lf_burstctl_stats *st);

#endif /* LF_BURSTCTL_H */
