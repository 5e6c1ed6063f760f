/* SPDX-License-Identifier: BSD-3-Clause */
/* lanefwd-gen: mbuf pools, port set-up (one RX and one TX queue), link wait, loopback port. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "gen_app.h"

#define GEN_RX_DESC 1024
#define GEN_TX_DESC 1024
#define GEN_MBUF_CACHE 256

/* Zero an mbuf's data room: the generator writes only headers and stamps. */
static void
zero_data_room(struct rte_mempool *mp __rte_unused, void *arg __rte_unused, void *obj,
	       unsigned int idx __rte_unused)
{
	struct rte_mbuf *m = obj;

	memset(m->buf_addr, 0, m->buf_len);
}

struct rte_mempool *
gen_pool_create(const char *name, unsigned int n, uint16_t data_room, bool zero)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create(name, n, GEN_MBUF_CACHE, 0, data_room, rte_socket_id());
	if (mp != NULL && zero)
		rte_mempool_obj_iter(mp, zero_data_room, NULL);
	return mp;
}

int
gen_port_start(uint16_t port, struct rte_mempool *rx_pool, uint16_t max_len, char *err,
	       size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nrx = GEN_RX_DESC, ntx = GEN_TX_DESC;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0) {
		snprintf(err, errlen, "port %u: dev_info: %s", port, rte_strerror(-ret));
		return ret;
	}
	/* MTU: the largest frame without Ethernet header and FCS. */
	if ((uint32_t)max_len + GEN_FCS_LEN > info.max_rx_pktlen) {
		snprintf(err, errlen, "port %u (%s): frames of %u bytes, the port takes at most %u",
			 port, info.driver_name, max_len + GEN_FCS_LEN, info.max_rx_pktlen);
		return -EINVAL;
	}
	if (max_len > RTE_ETHER_MAX_LEN - RTE_ETHER_CRC_LEN) {
		uint32_t mtu = max_len - RTE_ETHER_HDR_LEN;

		if (mtu > info.max_mtu) {
			snprintf(err, errlen,
				 "port %u (%s): frames of %u bytes need MTU %u, at most %u", port,
				 info.driver_name, max_len + GEN_FCS_LEN, mtu, info.max_mtu);
			return -EINVAL;
		}
		conf.rxmode.mtu = mtu;
	}
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret != 0) {
		snprintf(err, errlen, "port %u (%s): configure: %s", port, info.driver_name,
			 rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port), NULL,
					     rx_pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (ret != 0) {
		snprintf(err, errlen, "port %u (%s): queue set-up: %s", port, info.driver_name,
			 rte_strerror(-ret));
		return ret;
	}
	/* Promiscuous mode is best effort: a virtual device may not have it. */
	rte_eth_promiscuous_enable(port);
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		snprintf(err, errlen, "port %u (%s): start: %s", port, info.driver_name,
			 rte_strerror(-ret));
		return ret;
	}
	return 0;
}

bool
gen_port_wait_link(uint16_t port, double wait_s, volatile bool *quit)
{
	const uint64_t end = rte_get_timer_cycles() + (uint64_t)(wait_s * rte_get_timer_hz());
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return true;
		usleep(10000);
	} while (!*quit && rte_get_timer_cycles() < end);
	return false;
}

static void
intr_barrier_cb(void *arg)
{
	__atomic_store_n((bool *)arg, true, __ATOMIC_RELEASE);
}

/*
 * Wait until the EAL interrupt thread has finished the callback it is in:
 * an alarm callback runs in that thread, so once one has run, whatever
 * callback was under way (a memif disconnect) is complete.
 */
static bool
intr_thread_barrier(void)
{
	const uint64_t end = rte_get_timer_cycles() + 5 * rte_get_timer_hz();
	bool done = false;

	if (rte_eal_alarm_set(1, intr_barrier_cb, &done) != 0)
		return false;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		if (rte_get_timer_cycles() > end) {
			/* Not run yet: cancel, so it cannot write to this stack frame later. */
			if (rte_eal_alarm_cancel(intr_barrier_cb, &done) > 0)
				return false;
			/* Cancel found it already running: it will have set done. */
		}
		usleep(1000);
	}
	return true;
}

bool
gen_port_wait_down(uint16_t port, double wait_s, volatile bool *quit)
{
	const uint64_t end = rte_get_timer_cycles() + (uint64_t)(wait_s * rte_get_timer_hz());
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_DOWN)
			return true;
		usleep(10000);
	} while (!*quit && rte_get_timer_cycles() < end);
	return false;
}

void
gen_port_close_all(void)
{
	uint16_t p;

	if (!intr_thread_barrier())
		fprintf(stderr,
			"lanefwd-gen: the EAL interrupt thread did not answer in 5 s; "
			"closing the ports anyway\n");
	RTE_ETH_FOREACH_DEV (p) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
}

int
gen_port_loopback(void)
{
	struct rte_ring *r;
	int port;

	r = rte_ring_create("gen_loopback", 4096, rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		return -rte_errno;
	port = rte_eth_from_ring(r);
	return port < 0 ? -rte_errno : port;
}
