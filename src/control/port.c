/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port and mempool setup. Pools are per NUMA socket; each RX queue takes the
 * pool of the socket its port sits on (or, for a virtual device with no
 * socket, the socket of the worker that polls it). Each worker owns one TX
 * queue on every port, so TX needs no lock.
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "exception.h"
#include "hwclock.h"
#include "lf_log.h"
#include "port.h"
#include "rxmode_setup.h"

int
port_lcore_socket(unsigned int lcore)
{
	int s = rte_lcore_to_socket_id(lcore);

	return (s < 0 || s >= LF_MAX_SOCKETS) ? 0 : s;
}

/* Worker owning (port, queue), or -1. */
static int
queue_owner(const struct lf_config *cfg, unsigned int port, unsigned int queue)
{
	unsigned int i, k;

	for (i = 0; i < cfg->n_workers; i++)
		for (k = 0; k < cfg->workers[i].n_rxq; k++)
			if (cfg->workers[i].rxq[k].port == port &&
			    cfg->workers[i].rxq[k].queue == queue)
				return i;
	return -1;
}

/* Socket whose memory backs RX queue q of port p. */
static int
rxq_socket(const struct lf_app *app, unsigned int p, unsigned int q)
{
	int owner;

	if (app->ports[p].socket >= 0 && app->ports[p].socket < LF_MAX_SOCKETS)
		return app->ports[p].socket;
	owner = queue_owner(&app->cfg, p, q);
	return port_lcore_socket(owner >= 0 ? app->cfg.workers[owner].lcore
					    : app->cfg.eal.main_lcore);
}

/* Socket of TX queue t (worker t) of port p. */
static int
txq_socket(const struct lf_app *app, unsigned int p, unsigned int t)
{
	if (app->ports[p].socket >= 0 && app->ports[p].socket < LF_MAX_SOCKETS)
		return app->ports[p].socket;
	return port_lcore_socket(app->cfg.workers[t].lcore);
}

static int
probe_ports(struct lf_app *app, char *err, size_t errlen)
{
	unsigned int p;

	for (p = 0; p < app->cfg.n_ports; p++) {
		const struct lf_port_conf *pc = &app->cfg.ports[p];
		struct lf_port *port = &app->ports[p];
		struct rte_eth_dev_info info;
		uint16_t id;
		int ret;

		ret = rte_eth_dev_get_port_by_name(pc->devname, &id);
		if (ret != 0) {
			snprintf(err, errlen,
				 "[port %s]: device '%s' was not probed by EAL (check %s = %s)",
				 pc->name, pc->devname, pc->is_pci ? "pci" : "vdev", pc->devargs);
			return -ENODEV;
		}
		port->port_id = id;
		port->socket = rte_eth_dev_socket_id(id);
		ret = rte_eth_dev_info_get(id, &info);
		if (ret != 0) {
			snprintf(err, errlen, "[port %s]: rte_eth_dev_info_get: %s", pc->name,
				 strerror(-ret));
			return ret;
		}
		snprintf(port->driver, sizeof(port->driver), "%s", info.driver_name);
		port->prefetch_distance =
			lf_port_prefetch_distance(&app->cfg.pipeline, port->driver, pc->devargs);
	}
	return 0;
}

int
port_pools_create(struct lf_app *app, char *err, size_t errlen)
{
	const struct lf_config *cfg = &app->cfg;
	uint64_t need[LF_MAX_SOCKETS] = { 0 };
	unsigned int lcores[LF_MAX_SOCKETS] = { 0 };
	uint32_t max_frame = 0;
	uint16_t data_room;
	unsigned int p, q, i, n_tap = 0;
	int s, ret;

	ret = probe_ports(app, err, errlen);
	if (ret != 0)
		return ret;

	for (p = 0; p < cfg->n_ports; p++) {
		const struct lf_port_conf *pc = &cfg->ports[p];

		for (q = 0; q < pc->rx_queues; q++)
			need[rxq_socket(app, p, q)] += pc->rx_desc;
		for (q = 0; q < pc->tx_queues; q++)
			need[txq_socket(app, p, q)] += pc->tx_desc;
		if (pc->mtu > max_frame)
			max_frame = pc->mtu;
	}
	/* The TAP mirrors (exception.c): one RX queue per worker, on worker 0's socket. */
	for (p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].exception == LF_EXC_TAP) {
			n_tap++;
			need[port_lcore_socket(cfg->workers[0].lcore)] +=
				(uint64_t)LF_EXC_RX_DESC * cfg->n_workers;
		}
	for (i = 0; i < cfg->n_workers; i++) {
		s = port_lcore_socket(cfg->workers[i].lcore);
		/* A full TX buffer per port, mirrors included, plus the burst in flight. */
		need[s] += (uint64_t)cfg->pipeline.burst * (cfg->n_ports + n_tap + 2);
		lcores[s]++;
	}
	lcores[port_lcore_socket(cfg->eal.main_lcore)]++;

	max_frame += RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + RTE_ETHER_CRC_LEN;
	data_room = RTE_MAX((uint32_t)RTE_MBUF_DEFAULT_BUF_SIZE,
			    RTE_ALIGN_CEIL(max_frame + RTE_PKTMBUF_HEADROOM, 1024));

	for (s = 0; s < LF_MAX_SOCKETS; s++) {
		char name[RTE_MEMPOOL_NAMESIZE];
		uint32_t n;
		int node = -1;

		if (need[s] == 0)
			continue;
		if (cfg->pipeline.mbufs != 0) {
			n = cfg->pipeline.mbufs;
			if (n < need[s]) {
				snprintf(err, errlen,
					 "[pipeline] mbufs = %u: socket %d needs at least %" PRIu64
					 " (rings, TX buffers and bursts)",
					 n, s, need[s]);
				return -EINVAL;
			}
		} else {
			need[s] += (uint64_t)cfg->pipeline.mbuf_cache * lcores[s] * 3 / 2 + 1024;
			n = rte_align32pow2(need[s]) - 1;
		}
		snprintf(name, sizeof(name), "lf_pool_s%d", s);
		app->pools[s] =
			rte_pktmbuf_pool_create(name, n, cfg->pipeline.mbuf_cache, 0, data_room, s);
		if (app->pools[s] == NULL) {
			snprintf(err, errlen, "mbuf pool on socket %d (%u mbufs of %u bytes): %s",
				 s, n, data_room, rte_strerror(rte_errno));
			return -rte_errno;
		}
		/* Ask the kernel (libnuma) where the pool memory really is. */
		if (numa_available() >= 0) {
			void *obj = NULL;

			if (rte_mempool_get(app->pools[s], &obj) == 0) {
				if (get_mempolicy(&node, NULL, 0, obj, MPOL_F_NODE | MPOL_F_ADDR) !=
				    0)
					node = -1;
				rte_mempool_put(app->pools[s], obj);
			}
		}
		LF_LOG(INFO, port, "pool %s: %u mbufs of %u bytes, memory on NUMA node %d", name, n,
		       data_room, node);
		if (node >= 0 && node != s && numa_num_configured_nodes() > 1)
			LF_LOG(WARNING, port,
			       "pool %s asked for socket %d but its memory is on node %d", name, s,
			       node);
	}
	return 0;
}

void
port_pools_free(struct lf_app *app)
{
	int s;

	for (s = 0; s < LF_MAX_SOCKETS; s++) {
		rte_mempool_free(app->pools[s]);
		app->pools[s] = NULL;
	}
}

static int
port_init_one(struct lf_app *app, unsigned int p, char *err, size_t errlen)
{
	const struct lf_port_conf *pc = &app->cfg.ports[p];
	struct lf_port *port = &app->ports[p];
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = pc->rx_desc, nb_txd = pc->tx_desc;
	uint16_t id = port->port_id;
	unsigned int q;
	int ret;

	ret = rte_eth_dev_info_get(id, &info);
	if (ret != 0)
		goto fail_call;
	if (pc->rx_queues > info.max_rx_queues || pc->tx_queues > info.max_tx_queues) {
		snprintf(err, errlen,
			 "[port %s]: %u RX / %u TX queues asked (one TX queue per worker), device %s supports %u / %u",
			 pc->name, pc->rx_queues, pc->tx_queues, pc->devname, info.max_rx_queues,
			 info.max_tx_queues);
		return -EINVAL;
	}
	if (pc->mtu > info.max_mtu || pc->mtu < info.min_mtu) {
		snprintf(err, errlen, "[port %s] mtu = %u: device %s allows %u to %u", pc->name,
			 pc->mtu, pc->devname, info.min_mtu, info.max_mtu);
		return -EINVAL;
	}
	if (pc->rx_queues > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) {
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
		port->rx_ipv4_cksum = true;
	}
	if (app->cfg.pipeline.latency_hw && queue_owner(&app->cfg, p, 0) >= 0) {
		if (!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP)) {
			snprintf(err, errlen,
				 "[port %s] (%s, driver %s): [pipeline] latency_clock = hw needs RX timestamps (RTE_ETH_RX_OFFLOAD_TIMESTAMP), which the port does not offer; use latency_clock = tsc",
				 pc->name, pc->devname, info.driver_name);
			return -ENOTSUP;
		}
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	}
	conf.rxmode.mtu = pc->mtu;
	/* An interrupt or hybrid worker polls it: RX queue interrupts. */
	conf.intr_conf.rxq = rxmode_port_needs_intr(&app->cfg, p);

	ret = rte_eth_dev_configure(id, pc->rx_queues, pc->tx_queues, &conf);
	if (ret != 0)
		goto fail_call;
	/* From here a failure leaves queues that may hold mbufs of the pools
	 * (net_tap fills its RX queues at setup): port_close_all() closes the
	 * port before the pools are freed, whether it started or not. */
	port->configured = true;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	if (ret != 0)
		goto fail_call;
	for (q = 0; q < pc->rx_queues; q++) {
		int s = rxq_socket(app, p, q);
		struct rte_eth_rxconf rxc = info.default_rxconf;

		rxc.offloads = conf.rxmode.offloads;
		ret = rte_eth_rx_queue_setup(id, q, nb_rxd, s, &rxc, app->pools[s]);
		if (ret != 0)
			goto fail_call;
	}
	for (q = 0; q < pc->tx_queues; q++) {
		struct rte_eth_txconf txc = info.default_txconf;

		txc.offloads = conf.txmode.offloads;
		ret = rte_eth_tx_queue_setup(id, q, nb_txd, txq_socket(app, p, q), &txc);
		if (ret != 0)
			goto fail_call;
	}
	ret = rxmode_port_pmgmt_enable(app, p, err, errlen);
	if (ret != 0)
		return ret; /* port_close_all() disables what it enabled and closes the port. */
	ret = rte_eth_macaddr_get(id, &port->mac);
	if (ret != 0)
		goto fail_call;
	if (pc->has_mac) {
		ret = rte_eth_dev_default_mac_addr_set(id, (struct rte_ether_addr *)&pc->mac);
		if (ret == -ENOTSUP) {
			/* pcap, null and some other vdevs keep a fixed MAC. */
			LF_LOG(WARNING, port,
			       "[port %s] mac: device %s cannot change its MAC; using it as the source MAC of its next hops only",
			       pc->name, pc->devname);
		} else if (ret != 0) {
			snprintf(err, errlen, "[port %s] mac: device %s refused the MAC: %s",
				 pc->name, pc->devname, strerror(-ret));
			return ret;
		}
		port->mac = pc->mac;
	}
	if (pc->promiscuous && rte_eth_promiscuous_get(id) == 0) {
		ret = rte_eth_promiscuous_enable(id);
		if (ret != 0 && ret != -ENOTSUP)
			goto fail_call;
		port->set_promisc = ret == 0;
	} else if (!pc->promiscuous && pc->n_addrs != 0 && rte_eth_allmulticast_get(id) == 0) {
		/* A routed port with addresses must hear the groups it answers
		 * or punts: ND's solicited-node addresses, all-nodes, OSPF,
		 * MLD. The NIC passes every multicast frame; parse keeps only
		 * those to a group address (docs/control-plane.md). */
		ret = rte_eth_allmulticast_enable(id);
		if (ret != 0 && ret != -ENOTSUP)
			goto fail_call;
		port->set_allmulti = ret == 0;
	}
	ret = rte_eth_dev_start(id);
	if (ret != 0)
		goto fail_call;
	port->started = true;
	if (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) {
		uint64_t clk;

		ret = rte_eth_read_clock(id, &clk);
		if (ret != 0) {
			snprintf(err, errlen,
				 "[port %s] (%s): [pipeline] latency_clock = hw needs the device clock (rte_eth_read_clock): %s",
				 pc->name, pc->devname, strerror(-ret));
			return ret;
		}
	}
	if (queue_owner(&app->cfg, p, 0) < 0)
		LF_LOG(WARNING, port,
		       "port %s is polled by no worker: it only transmits, what it receives is dropped by the device",
		       pc->name);
	LF_LOG(INFO, port,
	       "port %s (%s, ethdev %u, driver %s, socket %d): %u RX / %u TX queues of %u / %u descriptors, IPv4 checksum %s, packet data prefetch %u",
	       pc->name, pc->devname, id, info.driver_name, port->socket, pc->rx_queues,
	       pc->tx_queues, nb_rxd, nb_txd, port->rx_ipv4_cksum ? "offloaded" : "in software",
	       port->prefetch_distance);
	return 0;

fail_call:
	snprintf(err, errlen, "[port %s] (%s): setup failed: %s%s", pc->name, pc->devname,
		 strerror(ret < 0 ? -ret : ret),
		 conf.intr_conf.rxq ? " (configured with RX interrupts for a [worker] rx_mode)"
				    : "");
	return ret < 0 ? ret : -ret;
}

int
port_init_all(struct lf_app *app, char *err, size_t errlen)
{
	unsigned int p;
	int ret;

	if (app->cfg.pipeline.latency_hw) {
		ret = rte_mbuf_dyn_rx_timestamp_register(&app->ts_off, &app->ts_flag);
		if (ret != 0) {
			snprintf(err, errlen, "cannot register the RX timestamp mbuf field: %s",
				 rte_strerror(rte_errno));
			return -rte_errno;
		}
		app->hwclk = rte_zmalloc("lf_hwclock", sizeof(*app->hwclk) * LF_MAX_PORTS,
					 RTE_CACHE_LINE_SIZE);
		if (app->hwclk == NULL) {
			snprintf(err, errlen, "cannot allocate the clock maps");
			return -ENOMEM;
		}
	}
	for (p = 0; p < app->cfg.n_ports; p++) {
		ret = port_init_one(app, p, err, errlen);
		if (ret != 0)
			return ret;
	}
	if (app->hwclk != NULL)
		port_hwclock_update(app, true);
	return 0;
}

/* One (device clock, TSC) sample, the TSC read on both sides of the call. */
static int
hwclock_sample(uint16_t id, uint64_t *dev, uint64_t *tsc)
{
	const uint64_t t1 = rte_rdtsc_precise();
	int ret = rte_eth_read_clock(id, dev);
	const uint64_t t2 = rte_rdtsc_precise();

	*tsc = t1 + (t2 - t1) / 2;
	return ret;
}

void
port_hwclock_update(struct lf_app *app, bool first)
{
	unsigned int p;

	if (app->hwclk == NULL)
		return;
	for (p = 0; p < app->cfg.n_ports; p++) {
		uint64_t dev, tsc, mult;

		if (!app->ports[p].started ||
		    hwclock_sample(app->ports[p].port_id, &dev, &tsc) != 0)
			continue;
		if (first) {
			/* The rate from 10 ms; every update refines it. */
			app->hwclk_dev_start[p] = dev;
			app->hwclk_tsc_start[p] = tsc;
			rte_delay_us_sleep(10000);
			if (hwclock_sample(app->ports[p].port_id, &dev, &tsc) != 0)
				continue;
		}
		mult = lf_hwclock_ratio(tsc - app->hwclk_tsc_start[p],
					dev - app->hwclk_dev_start[p]);
		if (mult != 0)
			lf_hwclock_publish(&app->hwclk[p], dev, tsc, mult);
	}
	app->hwclk_last_tsc = rte_rdtsc();
}

void
port_hwclock_free(struct lf_app *app)
{
	rte_free(app->hwclk);
	app->hwclk = NULL;
}

void
port_close_all(struct lf_app *app)
{
	unsigned int p;

	for (p = 0; p < app->cfg.n_ports; p++) {
		struct lf_port *port = &app->ports[p];

		if (!port->configured)
			continue;
		/* Leave the interface as we found it (AF_XDP sets IFF_PROMISC). */
		if (port->set_allmulti)
			rte_eth_allmulticast_disable(port->port_id);
		if (port->set_promisc)
			rte_eth_promiscuous_disable(port->port_id);
		if (port->started)
			rte_eth_dev_stop(port->port_id);
		rxmode_port_pmgmt_disable(app, p);
		rte_eth_dev_close(port->port_id);
		port->started = false;
		port->configured = false;
		port->set_allmulti = false;
		port->set_promisc = false;
	}
}

unsigned int
port_log_links(struct lf_app *app)
{
	unsigned int p, up = 0;

	for (p = 0; p < app->cfg.n_ports; p++) {
		struct lf_port *port = &app->ports[p];
		struct rte_eth_link link;
		char text[RTE_ETH_LINK_MAX_STR_LEN];

		if (!port->started || rte_eth_link_get_nowait(port->port_id, &link) != 0)
			continue;
		up += link.link_status == RTE_ETH_LINK_UP;
		/* Log the first state and every change, not every poll. */
		if (port->link_logged && port->link_up == link.link_status)
			continue;
		rte_eth_link_to_str(text, sizeof(text), &link);
		LF_LOG(INFO, port, "port %s: %s", app->cfg.ports[p].name, text);
		port->link_up = link.link_status;
		port->link_logged = true;
	}
	return up;
}

unsigned int
port_check_numa(const struct lf_app *app)
{
	const struct lf_config *cfg = &app->cfg;
	unsigned int i, k, warnings = 0;

	for (i = 0; i < cfg->n_workers; i++) {
		int ws = port_lcore_socket(cfg->workers[i].lcore);

		for (k = 0; k < cfg->workers[i].n_rxq; k++) {
			unsigned int p = cfg->workers[i].rxq[k].port;
			int ps = app->ports[p].socket;
			int qs = rxq_socket(app, p, cfg->workers[i].rxq[k].queue);

			if ((ps >= 0 && ps != ws) || qs != ws) {
				LF_LOG(WARNING, port,
				       "worker lcore %u (socket %d) polls port %s (socket %d) with mbufs from socket %d: remote memory costs 30-50%%",
				       cfg->workers[i].lcore, ws, cfg->ports[p].name, ps, qs);
				warnings++;
			}
		}
	}
	return warnings;
}
