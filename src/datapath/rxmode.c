/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sleep of the interrupt and hybrid rx modes (rxmode.h): arm the RX
 * queues' interrupts, wait in epoll on their event fds for at most
 * sleep_max_us, run what EAL attached to each event, disarm.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>

#include "rxmode.h"

void
lf_rxm_arm(struct lf_rxm *r)
{
	unsigned int i;

	for (i = 0; i < r->n_arm; i++)
		rte_eth_dev_rx_intr_enable(r->arm_port[i], r->arm_queue[i]);
	r->armed = true;
}

void
lf_rxm_disarm(struct lf_rxm *r)
{
	unsigned int i;

	for (i = 0; i < r->n_arm; i++)
		rte_eth_dev_rx_intr_disable(r->arm_port[i], r->arm_queue[i]);
	r->armed = false;
}

uint64_t
lf_rxm_sleep(struct lf_rxm *r)
{
	struct epoll_event ev[LF_MAX_RXQ_PER_WORKER];
	const uint64_t t0 = rte_rdtsc();
	uint64_t t1;
	int n, i;

	/*
	 * rte_epoll_wait() takes milliseconds; sleep_max_us wants better, so
	 * the worker waits on the same epoll fd itself and, for each event,
	 * runs the callback EAL attached to it as rte_epoll_wait() would (it
	 * reads a VFIO/UIO event fd's counter; nothing for net_tap's queue fds,
	 * which stay readable while packets wait).
	 */
	if (r->pwait2) {
		const struct timespec ts = {
			.tv_sec = (time_t)(r->sleep_ns / 1000000000),
			.tv_nsec = (long)(r->sleep_ns % 1000000000),
		};

		n = epoll_pwait2(r->epfd, ev, RTE_DIM(ev), &ts, NULL);
	} else {
		n = epoll_wait(r->epfd, ev, RTE_DIM(ev), (int)((r->sleep_ns + 999999) / 1000000));
	}
	for (i = 0; i < n; i++) {
		const struct rte_epoll_event *rev = ev[i].data.ptr;

		if (rev != NULL && rev->epdata.cb_fun != NULL)
			rev->epdata.cb_fun(rev->fd, rev->epdata.cb_arg);
	}
	t1 = rte_rdtsc();
	LF_STAT_ADD(r->stats.sleeps, 1);
	if (n > 0)
		LF_STAT_ADD(r->stats.wake_intr, 1);
	else
		LF_STAT_ADD(r->stats.wake_timeout, 1);
	LF_STAT_ADD(r->stats.sleep_cycles, t1 - t0);
	lf_rxm_disarm(r);
	return t1;
}
