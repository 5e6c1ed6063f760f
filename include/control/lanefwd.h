/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The application as the control thread sees it: configuration, ports,
 * pools, tables and workers. Workers never read this structure; they get
 * what they need copied into their struct worker before launch.
 */
#ifndef LANEFWD_H
#define LANEFWD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_ether.h>
#include <rte_mempool.h>

#include "config.h"
#include "fib.h"
#include "tables.h"
#include "worker.h"

#ifndef LF_VERSION
#define LF_VERSION "0.0.0"
#endif

#define LF_MAX_SOCKETS 8

/** A configured port once EAL has probed it. */
struct lf_port {
	uint16_t port_id; /**< ethdev port id. */
	int socket; /**< rte_eth_dev_socket_id, may be SOCKET_ID_ANY. */
	struct rte_ether_addr mac;
	bool rx_ipv4_cksum; /**< RX IPv4 checksum offload enabled. */
	/** rte_eth_dev_configure() succeeded: port_close_all() closes it, started or not. */
	bool configured;
	bool started;
	bool set_promisc; /**< We turned promiscuous mode on. */
	bool set_allmulti; /**< We turned all-multicast on (a routed port with addresses). */
	bool link_logged; /**< Control thread: link state logged once. */
	uint8_t link_up; /**< Last logged link state. */
	/** Packet-data prefetch distance of its RX queues (lf_port_prefetch_distance()). */
	uint16_t prefetch_distance;
	char driver[32];
};

struct rte_rcu_qsbr;
struct upf_store;

struct lf_app {
	struct lf_config cfg;
	/*
	 * ports[0..cfg.n_ports): the configured ports; ports[cfg.n_ports +
	 * i) for i < n_exc: the kernel TAP mirrors ([port] exception = tap),
	 * exc_of[i] naming the configured port each mirrors and
	 * exc_port[p] the mirror of configured port p (LF_NH_INVALID: none).
	 */
	struct lf_port ports[LF_MAX_DP_PORTS];
	unsigned int n_exc;
	uint16_t exc_of[LF_MAX_PORTS];
	uint16_t exc_port[LF_MAX_PORTS];
	struct rte_mempool *pools[LF_MAX_SOCKETS];
	/*
	 * The table generation in force (tables.h). control: publishes it
	 * with a release store (reload.h); workers: load it once per loop.
	 * Telemetry reads it, and cfg, under ctl_lock.
	 */
	struct lf_tables *tables;
	struct rte_rcu_qsbr *qsv; /**< Workers' quiescent states. */
	pthread_mutex_t ctl_lock; /**< Reload vs. telemetry readers; never a worker. */
	volatile bool reload_req; /**< SIGHUP: reload from the main loop. */
	uint64_t reloads; /**< Successful reloads (under ctl_lock). */
	uint64_t reload_failures;
	time_t reload_time; /**< Of the last attempt, 0 if none. */
	char reload_error[LF_ERR_LEN]; /**< Of the last attempt, "" if it worked. */
	unsigned int n_workers;
	struct worker *workers[LF_MAX_WORKERS];
	/* Latency: control-side histograms per worker, merged from the
	 * workers' buffers every second; lat_lock keeps the control thread
	 * and the telemetry thread apart (never taken by a worker). */
	pthread_mutex_t lat_lock;
	struct lf_hist *lat_total[LF_MAX_WORKERS]; /**< Since start or reset. */
	struct lf_hist *lat_interval[LF_MAX_WORKERS]; /**< The last interval. */
	uint64_t lat_interval_ms; /**< Its length. */
	/* latency_clock = hw: each port's device clock -> TSC map (hwclock.h),
	 * indexed by port index. control: publishes every 100 ms; workers:
	 * read. NULL with latency_clock = tsc. */
	struct lf_hwclock *hwclk;
	int ts_off; /**< RX timestamp dynamic field offset. */
	uint64_t ts_flag; /**< Its ol_flags bit. */
	uint64_t hwclk_dev_start[LF_MAX_PORTS]; /**< First sample, for the rate. */
	uint64_t hwclk_tsc_start[LF_MAX_PORTS];
	uint64_t hwclk_last_tsc;
	uint64_t lat_last_tsc;
	uint64_t start_tsc;
	time_t start_time;
	volatile bool quit; /* control: writes; workers: read. */
	/** The UPF's sessions ([upf]); NULL without it. The PFCP agent writes them. */
	struct upf_store *upf;
	/** The router's own side the workers read (local.h); NULL before local_create. */
	struct lf_local *local;
	/** Per worker: the NEIGH kind's ring to the control thread (local.h). */
	struct rte_ring *to_ctrl[LF_MAX_WORKERS];
	/** To worker 0: frames the control thread sends, held packets it releases. */
	struct rte_ring *from_ctrl;
};

#endif /* LANEFWD_H */
