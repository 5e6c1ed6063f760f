/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * How a worker waits for packets ([worker N] rx_mode): the loop's side of
 * the interrupt and hybrid modes. After a round of empty polls (and, in
 * hybrid, spin_us without a packet) the loop arms the RX queues'
 * interrupts and polls once more, which closes the race with a packet that
 * came between the empty poll and the arming; if that round is empty too,
 * it sleeps in epoll on the queues' event fds, at most sleep_max_us,
 * reported offline to RCU so that a reload never waits on it. poll and
 * pmd-mgmt (rte_power_pmd_mgmt's callbacks inside rx_burst) never come
 * here: the loop is instantiated once per mode on a constant (worker.c).
 */
#ifndef LF_RXMODE_H
#define LF_RXMODE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "config.h"
#include "dp.h"

/**
 * Counters of the rx mode, per worker. Single writer (the worker, with
 * LF_STAT_ADD); telemetry reads them. Time asleep is TSC cycles from just
 * before the wait to just after it.
 */
struct lf_rxm_stats {
	uint64_t sleeps; /**< Waits in epoll. */
	uint64_t wake_intr; /**< Waits an RX queue's event ended. */
	uint64_t wake_timeout; /**< Waits that ran to sleep_max_us (or a signal). */
	uint64_t sleep_cycles; /**< TSC cycles asleep. */
	/** Re-polls with interrupts armed that found packets: the race closed. */
	uint64_t rearm_rx;
};

/** The worker's rx mode state. control: sets it up before launch; worker: the only user. */
struct lf_rxm {
	enum lf_rx_mode mode;
	enum lf_pmd_mgmt pmd_mgmt; /**< With LF_RX_PMD_MGMT (informational: port.c set it up). */
	int epfd; /**< The queues' event fds (rte_eth_dev_rx_intr_ctl_q), or -1. */
	bool pwait2; /**< epoll_pwait2 works (ns timeout); else epoll_wait in ms. */
	bool armed; /**< The queues' interrupts are armed for a sleep. */
	uint16_t n_arm; /**< Queues whose interrupt is armed per sleep (others: level fds). */
	uint16_t arm_port[LF_MAX_RXQ_PER_WORKER];
	uint16_t arm_queue[LF_MAX_RXQ_PER_WORKER];
	uint64_t spin_tsc; /**< hybrid: spin_us in TSC cycles; 0 otherwise. */
	uint64_t sleep_ns; /**< sleep_max_us in ns. */
	uint64_t last_rx; /**< TSC of the last round with packets. */
	struct lf_rxm_stats stats; /* worker: writes; telemetry: reads. */
};

/** Arm the interrupts of the queues that need it. */
void lf_rxm_arm(struct lf_rxm *r);

/** Disarm them again (after a wake, or packets in the armed re-poll). */
void lf_rxm_disarm(struct lf_rxm *r);

/**
 * Sleep until an RX queue's event or sleep_max_us; disarm. The caller has
 * flushed TX and reported RCU offline.
 * @return the TSC on waking.
 */
uint64_t lf_rxm_sleep(struct lf_rxm *r);

/**
 * After a loop iteration that received got packets at TSC now: should the
 * worker sleep now? An empty round after the spin arms the interrupts and
 * returns false, so the next round re-polls armed; an empty armed round
 * returns true.
 */
static inline bool
lf_rxm_idle(struct lf_rxm *r, uint32_t got, uint64_t now)
{
	if (got != 0) {
		r->last_rx = now;
		if (unlikely(r->armed)) {
			LF_STAT_ADD(r->stats.rearm_rx, 1);
			lf_rxm_disarm(r);
		}
		return false;
	}
	if (now - r->last_rx < r->spin_tsc)
		return false;
	if (!r->armed) {
		lf_rxm_arm(r);
		return false;
	}
	return true;
}

#endif /* LF_RXMODE_H */
