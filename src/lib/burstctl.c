/* SPDX-License-Identifier: BSD-3-Clause */
/* The adaptive burst's decisions, at epoch and window ends (burstctl.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <rte_common.h>

#include "burstctl.h"

#define PPB 1000000000ull

/* A single-writer statistic (telemetry reads it with relaxed loads). */
#define ST_ADD(f, v) __atomic_store_n(&(f), (f) + (v), __ATOMIC_RELAXED)

/* The next step up from b: step, but at most doubling (a slow start). */
static inline unsigned int
grow_by(const struct lf_burstctl *c, unsigned int b)
{
	return RTE_MIN((unsigned int)c->step, b);
}

static void
set_cur(struct lf_burstctl *c, unsigned int b)
{
	__atomic_store_n(&c->cur, (uint16_t)b, __ATOMIC_RELAXED);
	/* A grown burst's iterations take at most (b + grow_by) / b as long. */
	c->near_tsc = b >= c->max ? c->target_tsc : c->target_tsc * b / (b + grow_by(c, b));
}

int
lf_burstctl_init(struct lf_burstctl *c, const struct lf_burstctl_params *p, uint64_t now)
{
	double ppb;

	if (p->burst_min < 1 || p->burst_min > p->burst_max || p->burst_max > 256 ||
	    p->target_us == 0 || p->hz == 0 || !(p->percentile > 0.0 && p->percentile < 100.0))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->min = p->burst_min;
	c->max = p->burst_max;
	c->step = (uint16_t)((p->burst_max - p->burst_min + LF_BURSTCTL_STEPS - 1) /
			     LF_BURSTCTL_STEPS);
	if (c->step == 0)
		c->step = 1;
	c->target_tsc = (uint64_t)p->target_us * p->hz / 1000000;
	ppb = round((100.0 - p->percentile) * (PPB / 100));
	c->miss_ppb = (uint64_t)ppb;
	c->window = c->miss_ppb == 0
		? LF_BURSTCTL_WINDOW_MAX
		: (LF_BURSTCTL_TAIL_MISSES * PPB + c->miss_ppb - 1) / c->miss_ppb;
	if (c->window < LF_BURSTCTL_WINDOW_MIN)
		c->window = LF_BURSTCTL_WINDOW_MIN;
	if (c->window > LF_BURSTCTL_WINDOW_MAX)
		c->window = LF_BURSTCTL_WINDOW_MAX;
	c->allow = c->window * c->miss_ppb / PPB;
	c->window_tsc = p->hz / 1000 * LF_BURSTCTL_WINDOW_MS;
	c->win_start = now;
	c->epoch_start = now;
	set_cur(c, c->min);
	return 0;
}

/* Fold the window into the statistics and start the next one. */
static void
window_close(struct lf_burstctl *c)
{
	ST_ADD(c->st.windows, 1);
	ST_ADD(c->st.packets, c->pkts);
	ST_ADD(c->st.misses, c->miss);
	c->pkts = 0;
	c->near = 0;
	c->miss = 0;
	c->nmax = 0;
}

/* Misses past the allowance: halve the burst, grow again only after a whole
 * window at the smaller one has held the target. */
static void
shrink(struct lf_burstctl *c)
{
	ST_ADD(c->st.windows_missed, 1);
	c->hold = true;
	if (c->cur > c->min) {
		set_cur(c, RTE_MAX((unsigned int)c->min, c->cur / 2u));
		ST_ADD(c->st.shrunk, 1);
	}
}

void
lf_burstctl_over(struct lf_burstctl *c, uint64_t res, uint32_t n)
{
	c->near += n;
	if (res <= c->target_tsc)
		return;
	c->miss += n;
	/* The window's tail is lost already: act now, measure afresh. */
	if (c->miss > c->allow) {
		shrink(c);
		window_close(c);
		c->restart = true;
	}
}

static void
window_end(struct lf_burstctl *c, uint64_t now)
{
	/* miss / pkts against the allowed ratio; pkts < 2^32 per window. */
	if (c->miss * PPB > c->pkts * c->miss_ppb) {
		shrink(c);
	} else {
		c->hold = false;
		/* No poll came near the burst: half of it served them all. */
		if (c->nmax <= c->cur / 2 && c->cur > c->min) {
			set_cur(c, RTE_MAX((unsigned int)c->min, c->cur / 2u));
			ST_ADD(c->st.decayed, 1);
		}
	}
	window_close(c);
	c->win_start = now;
}

void
lf_burstctl_epoch(struct lf_burstctl *c, uint64_t now)
{
	ST_ADD(c->st.ticks_at[lf_burstctl_bucket(c->cur)], now - c->epoch_start);
	ST_ADD(c->st.busy_polls, c->busy);
	ST_ADD(c->st.full_polls, c->full);
	c->epoch_start = now;
	if (c->restart) {
		c->restart = false;
		c->win_start = now;
	}
	/* A backlog (half the polls full) and headroom: one step up. */
	if (!c->hold && c->cur < c->max && c->busy != 0 && c->full * 2 >= c->busy &&
	    c->near <= c->allow) {
		set_cur(c, RTE_MIN((unsigned int)c->max, c->cur + grow_by(c, c->cur)));
		ST_ADD(c->st.grown, 1);
	}
	c->iters = 0;
	c->busy = 0;
	c->full = 0;
	if (c->pkts >= c->window || now - c->win_start >= c->window_tsc)
		window_end(c, now);
}

uint16_t
lf_burstctl_read(const struct lf_burstctl *c, struct lf_burstctl_stats *st)
{
	const uint64_t *src = (const uint64_t *)&c->st;
	uint64_t *dst = (uint64_t *)st;
	unsigned int i;

	for (i = 0; st != NULL && i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	return __atomic_load_n(&c->cur, __ATOMIC_RELAXED);
}
